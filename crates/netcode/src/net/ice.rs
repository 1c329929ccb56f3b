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
/// every connect (BENCHMARKS.md, the connect breakdown). At 20 ms a native
/// joiner's peer step was ICE ~30, DTLS ~21, channels ~22 ms; at 10 ms ICE
/// ~19 and DTLS ~12 (`net_bench.py connect`'s joiner_peer_split_ms, on a
/// loaded machine). Checks stop once a pair is chosen, so a match pays
/// nothing for it. Browsers pace their own checks.
pub(crate) const ICE_CHECK_INTERVAL: Duration = Duration::from_millis(10);

/// How often a connected native peer connection asks for consent (RFC
/// 7675: a STUN binding request on the chosen pair): its driver never
/// sleeps longer (the default 2 s leaves it at 200 ms), so DTLS and the
/// data channels open within this once the checks have stopped. rtc-ice
/// 0.21 sends one every interval whatever else went, so a match carries
/// 50 requests and 50 answers a second each way beside GGRS's 60 packets;
/// 10 ms opened the channels ~20 ms sooner but doubled that, and the
/// interval cannot change once connected.
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
