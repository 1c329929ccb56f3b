//! What a player's client tells its server once its match has started
//! (`POST /rooms/<CODE>/connected`): how long connecting took and which
//! path WebRTC found to the other player. The server never sees that path
//! itself (ICE checks run between the peers after the last signal), and it
//! is the figure that sizes an operator's TURN relay. Self-reported, so
//! it is checked for range and counted, never trusted for anything else.
//!
//! Unlike the moderation requests, unknown fields are ignored: a newer
//! client may say more, and this server reads what it knows.

use serde::{Deserialize, Serialize};

use crate::SeatToken;
use crate::moderation::{Checked, RoomRequestError};

/// The longest connect a client may report, in ms: an hour. A host's
/// figure counts from opening its room, so it holds its wait for the
/// other player; a client clamps a longer one to this (its path still
/// counts).
pub const MAX_CONNECT_MS: u32 = 3_600_000;

/// The path a match's WebRTC connection took, as the server counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ConnectPath {
    /// Peer to peer: a host, server-reflexive or peer-reflexive candidate
    /// pair (a LAN, a hole punched through NAT).
    Direct,
    /// Through a TURN relay (the operator's coturn pays for it).
    Relay,
}

impl ConnectPath {
    /// The word in the report and in `/metrics`.
    pub fn word(self) -> &'static str {
        match self {
            ConnectPath::Direct => "direct",
            ConnectPath::Relay => "relay",
        }
    }

    /// The path of an ICE candidate pair of this kind (`host`, `srflx`,
    /// `prflx`, `relay`, as a match summary's `connection` says); `None`
    /// for anything else (`local`, `unknown`).
    pub fn of_kind(kind: &str) -> Option<ConnectPath> {
        match kind {
            "host" | "srflx" | "prflx" => Some(ConnectPath::Direct),
            "relay" => Some(ConnectPath::Relay),
            _ => None,
        }
    }
}

/// A player's report of its match's connect: once per match, by the host
/// and by the joiner, proven by the seat token each joined with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectReport {
    /// The seat token the player joined the room with (its proof of seat).
    pub seat: SeatToken,
    /// From opening the room's websocket to the match's first frame.
    pub connect_ms: u32,
    /// The path WebRTC found to the other player.
    pub path: ConnectPath,
}

impl Checked for ConnectReport {
    fn check(&self) -> Result<(), RoomRequestError> {
        if self.connect_ms > MAX_CONNECT_MS {
            return Err(RoomRequestError::OutOfRange(
                "connect_ms",
                MAX_CONNECT_MS.into(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode_room_request;

    #[test]
    fn a_report_round_trips_and_ignores_a_newer_clients_fields() {
        let seat = SeatToken::random();
        let report = ConnectReport {
            seat,
            connect_ms: 1_250,
            path: ConnectPath::Relay,
        };
        let body = serde_json::to_vec(&report).unwrap();
        assert!(String::from_utf8_lossy(&body).contains(r#""path":"relay""#));
        assert_eq!(decode_room_request::<ConnectReport>(&body), Ok(report));
        let newer = format!(r#"{{"seat":"{seat}","connect_ms":900,"path":"direct","ice_ms":40}}"#);
        let read = decode_room_request::<ConnectReport>(newer.as_bytes()).unwrap();
        assert_eq!((read.connect_ms, read.path), (900, ConnectPath::Direct));
    }

    #[test]
    fn bad_reports_get_one_line_reasons() {
        let seat = SeatToken::random();
        let body = |ms: &str, path: &str| {
            format!(r#"{{"seat":"{seat}","connect_ms":{ms},"path":{path}}}"#)
        };
        for (body, expect) in [
            (
                body("3600001", r#""direct""#),
                "'connect_ms' must be at most 3600000",
            ),
            (body("-1", r#""direct""#), "not valid JSON"),
            (body("1.5", r#""direct""#), "not valid JSON"),
            (body("99999999999", r#""direct""#), "not valid JSON"),
            (body("10", r#""srflx""#), "unknown variant"),
            (body("10", r#""Direct""#), "unknown variant"),
            (body("10", "1"), "not valid JSON"),
            (
                format!(r#"{{"seat":"{seat}","path":"relay"}}"#),
                "missing field",
            ),
            (
                r#"{"seat":"zz","connect_ms":1,"path":"relay"}"#.into(),
                "seat token",
            ),
            ("[]".into(), "not valid JSON"),
        ] {
            let e = decode_room_request::<ConnectReport>(body.as_bytes()).unwrap_err();
            let text = e.to_string();
            assert!(text.contains(expect), "{body}: {text}");
            assert!(!text.contains('\n'), "{text}");
        }
        assert!(
            decode_room_request::<ConnectReport>(body("3600000", r#""relay""#).as_bytes()).is_ok()
        );
    }

    #[test]
    fn candidate_kinds_map_to_two_paths() {
        for kind in ["host", "srflx", "prflx"] {
            assert_eq!(
                ConnectPath::of_kind(kind),
                Some(ConnectPath::Direct),
                "{kind}"
            );
        }
        assert_eq!(ConnectPath::of_kind("relay"), Some(ConnectPath::Relay));
        for kind in ["local", "unknown", "", "RELAY"] {
            assert_eq!(ConnectPath::of_kind(kind), None, "{kind}");
        }
        assert_eq!(ConnectPath::Relay.word(), "relay");
        assert_eq!(ConnectPath::Direct.word(), "direct");
    }
}
