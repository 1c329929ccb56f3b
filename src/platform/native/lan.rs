//! LAN games by multicast DNS (DNS-SD service `_twinstar._tcp`), natively:
//! a host that serves its own LAN server announces it, and Join, `join
//! --lan` and quick match browse for announcements. What an announcement
//! says (its TXT record) and which game to join are `app::lan`'s; this is
//! only the wire, through `mdns-sd` (one thread of its own per daemon).
//!
//! Multicast leaves the machine, so `TWINSTAR_LAN_DISCOVERY=off` turns it
//! all off: the tests, benchmarks and scripts set it (DESIGN.md, decision
//! 9), except the LAN test, inside its own network namespaces.

use std::net::IpAddr;

use mdns_sd::{IfKind, ServiceDaemon, ServiceEvent, ServiceInfo};

/// The DNS-SD service type of a twinstar LAN server.
pub const SERVICE_TYPE: &str = "_twinstar._tcp.local.";

/// The variable that turns multicast DNS off (`off`, `0` or `false`).
pub const SWITCH: &str = "TWINSTAR_LAN_DISCOVERY";

/// A daemon on IPv4 only: the LAN server listens on IPv4 (0.0.0.0), and
/// an IPv6 link-local address, announced first, is of no use to a joiner
/// without its scope (seen: "Invalid argument" connecting to
/// `ws://[fe80::...]:3536`).
fn daemon() -> Result<ServiceDaemon, String> {
    let daemon = ServiceDaemon::new().map_err(|e| format!("multicast DNS: {e}"))?;
    daemon
        .disable_interface(IfKind::IPv6)
        .map_err(|e| format!("multicast DNS: {e}"))?;
    Ok(daemon)
}

/// Whether this process may announce and browse.
pub fn enabled() -> bool {
    !std::env::var(SWITCH).is_ok_and(|v| {
        ["off", "0", "false", "no"].contains(&v.trim().to_ascii_lowercase().as_str())
    })
}

pub use crate::platform::lan_service::LanService;

/// This machine's announcement; withdrawn (a goodbye packet) when dropped.
pub struct Announcement {
    daemon: ServiceDaemon,
    fullname: String,
}

impl Announcement {
    /// Withdraws it now (as dropping it does).
    pub fn withdraw(self) {}
}

impl Drop for Announcement {
    fn drop(&mut self) {
        // Best effort: a game that exits anyway stops answering, and the
        // record's TTL ends it for browsers that missed the goodbye.
        if let Ok(done) = self.daemon.unregister(&self.fullname) {
            let _ = done.recv_timeout(std::time::Duration::from_millis(500));
        }
        let _ = self.daemon.shutdown();
    }
}

/// Announces a server on `port` of this machine with `txt`; `Ok(None)`
/// when multicast DNS is switched off.
pub fn announce(txt: &[(&str, String)], port: u16) -> Result<Option<Announcement>, String> {
    if !enabled() {
        return Ok(None);
    }
    let daemon = daemon()?;
    // Unique names: two hosts on one LAN must not collide.
    let id = format!("{:08x}", rand::random::<u32>());
    let instance = format!("twinstar-{id}");
    let host = format!("twinstar-{id}.local.");
    let properties: Vec<(&str, &str)> = txt.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let info = ServiceInfo::new(SERVICE_TYPE, &instance, &host, (), port, &properties[..])
        .map_err(|e| format!("multicast DNS: {e}"))?
        .enable_addr_auto();
    let fullname = info.get_fullname().to_owned();
    daemon
        .register(info)
        .map_err(|e| format!("multicast DNS: {e}"))?;
    Ok(Some(Announcement { daemon, fullname }))
}

/// A browse for LAN servers, polled (a window's frame) or waited on.
pub struct Browse {
    daemon: ServiceDaemon,
    events: mdns_sd::Receiver<ServiceEvent>,
    found: Vec<LanService>,
}

impl Browse {
    /// Starts browsing; `Ok(None)` when multicast DNS is switched off.
    pub fn start() -> Result<Option<Browse>, String> {
        if !enabled() {
            return Ok(None);
        }
        let daemon = daemon()?;
        let events = daemon
            .browse(SERVICE_TYPE)
            .map_err(|e| format!("multicast DNS: {e}"))?;
        Ok(Some(Browse {
            daemon,
            events,
            found: Vec::new(),
        }))
    }

    /// The servers announced so far (a withdrawn one leaves the list).
    pub fn poll(&mut self) -> &[LanService] {
        while let Ok(event) = self.events.try_recv() {
            self.take(event);
        }
        &self.found
    }

    /// Waits up to `timeout` for an event, then returns what is known.
    pub fn wait(&mut self, timeout: std::time::Duration) -> &[LanService] {
        if let Ok(event) = self.events.recv_timeout(timeout) {
            self.take(event);
        }
        self.poll()
    }

    fn take(&mut self, event: ServiceEvent) {
        match event {
            ServiceEvent::ServiceResolved(service) => {
                let txt = service
                    .get_properties()
                    .iter()
                    .map(|p| (p.key().to_owned(), p.val_str().to_owned()))
                    .collect();
                let mut addresses: Vec<IpAddr> = service
                    .get_addresses()
                    .iter()
                    .map(|a| a.to_ip_addr())
                    .collect();
                // IPv4 first (an IPv6 one, if another daemon announced
                // it, is skipped when link-local: `app::lan::game_of`).
                addresses.sort_by_key(|a| (a.is_ipv6(), *a));
                let found = LanService {
                    instance: service.get_fullname().to_owned(),
                    addresses,
                    port: service.get_port(),
                    txt,
                };
                self.found.retain(|s| s.instance != found.instance);
                self.found.push(found);
            }
            ServiceEvent::ServiceRemoved(_, fullname) => {
                self.found.retain(|s| s.instance != fullname);
            }
            _ => {}
        }
    }
}

impl Drop for Browse {
    fn drop(&mut self) {
        let _ = self.daemon.stop_browse(SERVICE_TYPE);
        let _ = self.daemon.shutdown();
    }
}
