//! LAN games in the page: a browser cannot send or hear multicast DNS, so
//! it announces nothing and finds nothing (the page's own server is the
//! one that served it). The native side is `platform/native/lan.rs`.

/// The variable that turns multicast DNS off natively (named in messages).
pub const SWITCH: &str = "TWINSTAR_LAN_DISCOVERY";

/// Never: a page has no multicast.
pub fn enabled() -> bool {
    false
}

pub use crate::platform::lan_service::LanService;

/// An announcement (never made in a page).
pub struct Announcement;

impl Announcement {
    /// Nothing to withdraw.
    pub fn withdraw(self) {}
}

/// Announces nothing.
pub fn announce(_txt: &[(&str, String)], _port: u16) -> Result<Option<Announcement>, String> {
    Ok(None)
}

/// A browse (never started in a page).
pub struct Browse {
    found: Vec<LanService>,
}

impl Browse {
    /// Never starts: `Ok(None)`.
    pub fn start() -> Result<Option<Browse>, String> {
        Ok(None)
    }

    /// Nothing found.
    pub fn poll(&mut self) -> &[LanService] {
        &self.found
    }

    /// Nothing found.
    pub fn wait(&mut self, _timeout: std::time::Duration) -> &[LanService] {
        &self.found
    }
}
