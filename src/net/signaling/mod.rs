//! The signaling server that pairs players by room code, and the client-side
//! helpers to reach it and explain its refusals:
//!
//! - [`registry`]: rooms, seats and relaying; pure bookkeeping, unit-tested;
//! - [`server`]: the matchbox topology around it, binding and serving;
//! - [`client`]: room URLs, the client socket builder, refusals explained;
//! - [`web`]: the web client, served on plain HTTP `GET`s by the same server.
//!
//! Speaks matchbox's signaling protocol from our own axum routes (see
//! [`server`]): matchbox's full-mesh topology lets any number of peers into
//! a room, we need rooms of two, and its server builder can neither bound a
//! websocket's memory, check liveness, nor serve TLS.
//!
//! - `ws://HOST:PORT/K7Q2XM` joins room K7Q2XM (any spelling `RoomCode`
//!   parses; the canonical form is the room). The first two get in; a third
//!   is refused with HTTP 409 *before* the websocket upgrade.
//! - `ws://HOST:PORT/watch-K7Q2XM` watches room K7Q2XM: up to
//!   [`MAX_SPECTATORS`] spectators beside the two players (the next is
//!   refused with 409). A spectator is introduced only to the room's first
//!   player, once both players are in; never to the other player, nor to
//!   another spectator (see [`registry`]).
//! - `ws://HOST:PORT/` or `/quick` is a quick match: paired with the next
//!   client that also asked for one.
//! - A player may add `?seat=TOKEN` ([`SeatToken`]): a later connection with
//!   the same token takes that seat back at once (see [`seat`]).
//! - Anything else is refused with HTTP 400.
//! - A plain `GET` (no websocket upgrade) is no client: `/` answers with the
//!   web client's page when the server has one, see [`web`]. Its players
//!   open `http://HOST:PORT/#K7Q-2XM` ([`browser_link`]).
//!
//! Why refuse before the upgrade: after it, stock matchbox clients have no
//! way to learn why the server closed (a close frame ends their socket
//! future with `Ok(())`), while a refused upgrade surfaces on the client as a
//! `tungstenite::Error::Http` carrying our status and body, which
//! [`classify_socket_error`] turns into "room CODE is full".
//!
//! The admission check and the join are separate steps (the HTTP request,
//! then a task after the upgrade), so admission *reserves* a
//! seat under the same lock that counts the members; two clients racing for
//! the last seat cannot both get it. A reservation whose upgrade never
//! completes expires after [`RESERVATION_TTL`].

mod client;
// The server side is native only: a browser cannot accept connections.
#[cfg(not(target_arch = "wasm32"))]
mod connection;
#[cfg(not(target_arch = "wasm32"))]
mod limits;
#[cfg(all(test, not(target_arch = "wasm32")))]
mod live_tests;
#[cfg(not(target_arch = "wasm32"))]
mod metrics;
#[cfg(not(target_arch = "wasm32"))]
pub mod native_client;
#[cfg(not(target_arch = "wasm32"))]
mod registry;
mod seat;
#[cfg(not(target_arch = "wasm32"))]
mod server;
#[cfg(not(target_arch = "wasm32"))]
pub mod tls;
#[cfg(not(target_arch = "wasm32"))]
pub mod turn;
#[cfg(not(target_arch = "wasm32"))]
mod web;

use web_time::Duration;

#[cfg(not(target_arch = "wasm32"))]
use axum::http::StatusCode;

pub use client::{
    JoinError, ServerUrlError, browser_link, check_server_url, classify_socket_error,
    client_builder, no_ice_servers, quote_server_text, room_url, watch_url,
};
#[cfg(not(target_arch = "wasm32"))]
pub use connection::DEFAULT_IDLE_TIMEOUT;
#[cfg(not(target_arch = "wasm32"))]
pub use limits::DEFAULT_MAX_PER_ADDRESS;
#[cfg(not(target_arch = "wasm32"))]
pub use metrics::RoomCounts;
#[cfg(not(target_arch = "wasm32"))]
pub use registry::{Registry, RelayError};
pub use seat::{SEAT_PARAM, SeatToken, SeatTokenError};
#[cfg(not(target_arch = "wasm32"))]
pub use server::{
    BoundServer, DEFAULT_DRAIN_TIMEOUT, DEFAULT_HANDSHAKE_TIMEOUT, RoomState, ServeOptions,
    ServerError, bind, bind_with, serve,
};
#[cfg(not(target_arch = "wasm32"))]
pub use web::{WEB_DIR_ENV, WEB_FILES, WebClient, WebError, respond};

use super::room_code::{RoomCode, RoomCodeError};

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
    Code(RoomCode),
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
    #[error("room {0} is full")]
    RoomFull(RoomCode),
    #[error("room {0} already has {MAX_SPECTATORS} spectators")]
    TooManySpectators(RoomCode),
    #[error("invalid room: {0}")]
    BadRoom(RoomCodeError),
    #[error("{0}")]
    BadSeat(SeatTokenError),
}

#[cfg(not(target_arch = "wasm32"))]
impl Refusal {
    pub fn status(&self) -> StatusCode {
        match self {
            Refusal::RoomFull(_) | Refusal::TooManySpectators(_) => StatusCode::CONFLICT,
            Refusal::BadRoom(_) | Refusal::BadSeat(_) => StatusCode::BAD_REQUEST,
        }
    }
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
        assert_eq!(watch("WATCH-k7q-2xm"), Ok(RoomRequest::Watch(k7q.clone())));
        assert!(watch("watch-").is_err());
        assert!(watch("watch-admin").is_err());
        assert_eq!(watch_url("ws://h:1/", &k7q), "ws://h:1/watch-K7Q2XM");
        let c = RoomCode::parse("K7Q2XM").unwrap();
        assert_eq!(room_url("ws://h:1/", Some(&c)), "ws://h:1/K7Q2XM");
        assert_eq!(room_url("ws://h:1", None), "ws://h:1/quick");
    }
}
