//! How many websockets one address may hold at once, so that one greedy or
//! broken client cannot take every seat. Behind a reverse proxy the address
//! is the one the proxy forwards (`--trust-forwarded`). A guard holds each
//! count and gives it back when dropped, however the connection ends.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::http::HeaderMap;

/// Default `--max-per-address`: generous, since a carrier-grade NAT puts
/// many unrelated players behind one address.
pub const DEFAULT_MAX_PER_ADDRESS: usize = 32;

#[derive(Clone, Debug)]
pub struct AddressLimits {
    max: usize,
    held: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

/// One connection's share of its address's count.
#[derive(Debug)]
pub struct AddressGuard {
    ip: IpAddr,
    held: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

fn lock(held: &Mutex<HashMap<IpAddr, usize>>) -> MutexGuard<'_, HashMap<IpAddr, usize>> {
    held.lock().unwrap_or_else(|e| e.into_inner())
}

impl AddressLimits {
    pub fn new(max: usize) -> Self {
        AddressLimits {
            max,
            held: Arc::default(),
        }
    }

    pub fn max(&self) -> usize {
        self.max
    }

    /// A guard if `ip` holds fewer than the limit.
    pub fn acquire(&self, ip: IpAddr) -> Option<AddressGuard> {
        let mut held = lock(&self.held);
        let n = held.entry(ip).or_default();
        if *n >= self.max {
            return None;
        }
        *n += 1;
        Some(AddressGuard {
            ip,
            held: self.held.clone(),
        })
    }

    /// Addresses holding at least one connection.
    #[cfg(test)]
    pub fn addresses(&self) -> usize {
        lock(&self.held).len()
    }
}

impl AddressGuard {
    /// The address this guard counts for.
    pub fn ip(&self) -> IpAddr {
        self.ip
    }
}

impl Drop for AddressGuard {
    fn drop(&mut self) {
        let mut held = lock(&self.held);
        if let Some(n) = held.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                held.remove(&self.ip);
            }
        }
    }
}

/// The client's address: the TCP peer, or behind a trusted proxy the last
/// address in `X-Forwarded-For` (the one our own proxy appended; anything
/// before it the client could have written itself).
pub fn client_ip(peer: IpAddr, headers: &HeaderMap, trust_forwarded: bool) -> IpAddr {
    if !trust_forwarded {
        return peer;
    }
    headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|s| s.trim().parse::<IpAddr>().ok())
        .next_back()
        .unwrap_or(peer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn an_address_holds_at_most_the_limit_and_gets_seats_back() {
        let limits = AddressLimits::new(2);
        let a: IpAddr = "203.0.113.5".parse().unwrap();
        let b: IpAddr = "203.0.113.6".parse().unwrap();
        let g1 = limits.acquire(a).unwrap();
        let g2 = limits.acquire(a).unwrap();
        assert!(limits.acquire(a).is_none(), "third from one address");
        let gb = limits.acquire(b).expect("another address is not affected");
        drop(g1);
        let g3 = limits
            .acquire(a)
            .expect("a closed connection frees its share");
        drop((g2, g3, gb));
        assert_eq!(limits.addresses(), 0, "no address left behind");
    }

    #[test]
    fn forwarded_addresses_count_only_behind_a_trusted_proxy() {
        let peer: IpAddr = "10.0.0.1".parse().unwrap();
        let mut h = HeaderMap::new();
        h.append(
            "x-forwarded-for",
            HeaderValue::from_static("1.2.3.4, 203.0.113.9"),
        );
        assert_eq!(client_ip(peer, &h, false), peer);
        assert_eq!(
            client_ip(peer, &h, true),
            "203.0.113.9".parse::<IpAddr>().unwrap()
        );
        assert_eq!(client_ip(peer, &HeaderMap::new(), true), peer);
    }
}
