//! A LAN server as multicast DNS announces it: the same type on both
//! sides of the seam (the page never sees one: it has no multicast).

use std::net::IpAddr;

/// A LAN server as announced: where it listens and its TXT record.
#[derive(Clone, Debug, PartialEq)]
pub struct LanService {
    /// The instance's full DNS-SD name (unique on the LAN).
    pub instance: String,
    pub addresses: Vec<IpAddr>,
    pub port: u16,
    pub txt: Vec<(String, String)>,
}
