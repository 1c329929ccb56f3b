//! What a twinstar client and the signaling server agree on, and nothing
//! else (no sockets, no server, no game): room codes, what a URL path asks
//! for, its URLs and query (names, public rooms, quick-match tickets), the
//! public room list, why a client is turned away, seat tokens, the ICE servers a server
//! hands out at `GET /ice`, and the numbers both sides must share.
//!
//! Both the game (native and in the browser) and `twinstar-signaling` (the
//! server) depend on this crate; it depends on neither. In the spirit of
//! `matchbox_protocol`: small, so that the two sides cannot drift apart.

#![deny(missing_docs)]

mod connect_report;
mod ice;
mod lobby;
mod moderation;
pub mod room_code;
mod scores;
mod seat;
mod urls;

use web_time::Duration;

pub use connect_report::{ConnectPath, ConnectReport, MAX_CONNECT_MS};
pub use ice::{
    DEFAULT_STUN, ICE_PATH, IceEntry, IceError, IceOffer, IceServers, MAX_ICE_OFFER_BYTES, Scheme,
    TurnServer, validate_url,
};
pub use lobby::{
    CHALLENGE_PARAM, ClientQuery, LEVEL_PARAM, MAX_LEVEL, MAX_NAME_CHARS, MAX_RTT_MS,
    MAX_VERSION_CHARS, NAME_PARAM, NameError, PUBLIC_PARAM, PlayerName, QueryError, ROOMS_PAGE,
    ROOMS_PATH, RTT_PARAM, RoomListing, RoomStatus, RoomsPage, RoomsQuery, RoomsQueryError,
    VERSION_PARAM, VersionError, VersionTag,
};
pub use moderation::{
    Checked, HostStats, KickRequest, MAX_ELAPSED_S, MAX_REASON_CHARS, MAX_REPORT_LINE_CHARS,
    MAX_REPORT_LINES, MAX_ROOM_REQUEST_BYTES, MAX_SCORE, MAX_TARGET_CHARS, ReportRequest,
    RoomAction, RoomRequestError, decode_room_request,
};
pub use room_code::{RoomCode, RoomCodeError};
pub use scores::{
    BOARD_PAGE, Board, BoardLine, BoardPage, LEADERBOARD_PATH, MAX_UPLOAD_BYTES, REPLAYS_PATH,
    Ranked, Ranks, Refused, ScoreClaim,
};
pub use seat::{SEAT_PARAM, SeatToken, SeatTokenError};
pub use urls::{ServerUrlError, browser_link, check_server_url, replay_link, room_url, watch_url};

/// Players per room.
pub const ROOM_CAPACITY: usize = 2;
/// Spectators per room, beside its players.
pub const MAX_SPECTATORS: usize = 8;
/// The URL path prefix of a spectator: `watch-K7Q2XM`.
pub const WATCH_PREFIX: &str = "watch-";
/// How long an admitted client may take to finish its websocket upgrade.
pub const RESERVATION_TTL: Duration = Duration::from_secs(10);
/// Default port of `twinstar serve`.
pub const DEFAULT_PORT: u16 = 3536;
/// The URL path asking for a quick match.
pub const QUICK_PATH: &str = "quick";
/// Largest signal relayed, as sent to the receiver. An SDP offer is a few
/// KiB, an ICE candidate a few hundred bytes.
pub const MAX_SIGNAL_BYTES: usize = 64 * 1024;
/// Bytes of signals one peer may have relayed over its whole connection. A
/// WebRTC negotiation needs a few tens of KiB; the cap bounds what a client
/// can pile up in the server's queue towards a partner that does not read
/// (queues to clients are unbounded channels in matchbox).
pub const RELAY_BUDGET_BYTES: usize = 1024 * 1024;

/// What a client asked for, from its URL path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RoomRequest {
    /// A player of the room with this code (`/K7Q2XM`).
    Code(RoomCode),
    /// A quick match: the root path, [`QUICK_PATH`] or matchbox's `world`.
    Quick,
    /// A spectator of the room with this code.
    Watch(RoomCode),
}

impl RoomRequest {
    /// `None` is the root path (matchbox names that room "world").
    pub fn from_path(path: Option<&str>) -> Result<Self, RoomCodeError> {
        match path.map(str::trim) {
            None | Some("") => Ok(RoomRequest::Quick),
            Some(p) if p.eq_ignore_ascii_case(QUICK_PATH) || p == "world" => Ok(RoomRequest::Quick),
            Some(p)
                if p.len() > WATCH_PREFIX.len()
                    && p.is_char_boundary(WATCH_PREFIX.len())
                    && p[..WATCH_PREFIX.len()].eq_ignore_ascii_case(WATCH_PREFIX) =>
            {
                RoomCode::parse(&p[WATCH_PREFIX.len()..]).map(RoomRequest::Watch)
            }
            Some(p) => RoomCode::parse(p).map(RoomRequest::Code),
        }
    }
}

/// Why the server turned a client away, as the server says it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The room already has its [`ROOM_CAPACITY`] players.
    #[error("room {0} is full")]
    RoomFull(RoomCode),
    /// The room already has [`MAX_SPECTATORS`] spectators.
    #[error("room {0} already has {MAX_SPECTATORS} spectators")]
    TooManySpectators(RoomCode),
    /// The path is no room code.
    #[error("invalid room: {0}")]
    BadRoom(RoomCodeError),
    /// The query's seat token ([`SEAT_PARAM`]) is not one.
    #[error("{0}")]
    BadSeat(SeatTokenError),
    /// Another parameter of the room URL's query (a name, a version, ...).
    #[error("{0}")]
    BadQuery(QueryError),
    /// A host asked for a public room without the name and version a
    /// listing shows.
    #[error("a public room needs the host's name and version (?public=1&name=...&version=...)")]
    PublicNeedsName,
    /// A spectator the room's host removed, back before its time is up.
    #[error("the host of room {code} removed you from it; you may watch it again in {secs} s")]
    Kicked {
        /// The room it was removed from.
        code: RoomCode,
        /// Seconds until it may watch that room again.
        secs: u64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(s: &str) -> RoomRequest {
        RoomRequest::Code(RoomCode::parse(s).unwrap())
    }

    #[test]
    fn paths_map_to_requests() {
        assert_eq!(RoomRequest::from_path(None), Ok(RoomRequest::Quick));
        assert_eq!(
            RoomRequest::from_path(Some("quick")),
            Ok(RoomRequest::Quick)
        );
        assert_eq!(
            RoomRequest::from_path(Some("QUICK")),
            Ok(RoomRequest::Quick)
        );
        assert_eq!(RoomRequest::from_path(Some("k7q-2xm")), Ok(code("K7Q2XM")));
        assert!(RoomRequest::from_path(Some("admin")).is_err());
        let watch = |s: &str| RoomRequest::from_path(Some(s));
        let k7q = RoomCode::parse("K7Q2XM").unwrap();
        assert_eq!(watch("watch-K7Q2XM"), Ok(RoomRequest::Watch(k7q.clone())));
        assert_eq!(watch("WATCH-k7q-2xm"), Ok(RoomRequest::Watch(k7q)));
        assert!(watch("watch-").is_err());
        assert!(watch("watch-admin").is_err());
    }
}
