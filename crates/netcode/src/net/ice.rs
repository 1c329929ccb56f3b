//! ICE servers: what the player names (`--stun`, `--turn`) or the
//! signaling server offers (`GET /ice`) is checked in
//! `twinstar_signaling_protocol` (the WebRTC stack `unwrap`s URLs it cannot
//! parse deep in its offer code, so a typo would otherwise be a panic);
//! here it is handed to matchbox.

use matchbox_socket::RtcIceServerConfig;
pub use twinstar_signaling_protocol::{
    DEFAULT_STUN, ICE_PATH, IceError, IceOffer, IceServers, MAX_ICE_OFFER_BYTES, TurnServer,
};

/// matchbox takes one server entry.
pub fn to_matchbox(servers: &IceServers) -> RtcIceServerConfig {
    let entry = servers.entry();
    RtcIceServerConfig {
        urls: entry.urls,
        username: entry.username,
        credential: entry.credential,
    }
}
