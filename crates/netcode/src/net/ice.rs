//! ICE servers: what the player names (`--stun`, `--turn`) or the
//! signaling server offers (`GET /ice`) is checked in
//! `twinstar_signaling_protocol` (the WebRTC stack `unwrap`s URLs it cannot
//! parse deep in its offer code, so a typo would otherwise be a panic);
//! here it is handed to matchbox.

use matchbox_socket::RtcIceServerConfig;
use std::time::Duration;
pub use twinstar_signaling_protocol::{IceOffer, IceServers, TurnServer};

/// The pause between ICE connectivity checks while connecting, natively.
///
/// webrtc-rs checks every 200 ms, and its driver sends a DTLS or SCTP
/// message queued outside a timer only at its next wake-up: on loopback
/// ICE, DTLS and the data channels' opening each waited for one, 0.6 s of
/// every connect (BENCHMARKS.md, the connect breakdown). Browsers pace
/// their own checks.
pub(crate) const ICE_CHECK_INTERVAL: Duration = Duration::from_millis(20);

/// How often a connected native peer connection sends an ICE keepalive
/// when nothing else went: its driver never sleeps longer (the default 2 s
/// leaves it at 200 ms), so DTLS and the data channels open within this.
/// While a match plays GGRS sends every frame and no keepalive goes.
pub(crate) const ICE_KEEPALIVE_INTERVAL: Duration = Duration::from_millis(20);

/// matchbox takes one server entry; the ICE pacing is ours.
pub fn to_matchbox(servers: &IceServers) -> RtcIceServerConfig {
    let entry = servers.entry();
    RtcIceServerConfig {
        urls: entry.urls,
        username: entry.username,
        credential: entry.credential,
        check_interval: Some(ICE_CHECK_INTERVAL),
        keepalive_interval: Some(ICE_KEEPALIVE_INTERVAL),
    }
}
