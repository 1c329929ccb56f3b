//! Signaling from the game's side: reaching the server and explaining its
//! refusals ([`client`]; natively our own websocket, [`native_client`]).
//! The server itself is the `twinstar-signaling` crate, what both sides
//! agree on (room codes, URLs, refusals, seat tokens) is
//! `twinstar_signaling_protocol`; both are re-exported here, so the game
//! and its tests name one module. Natively only for the server: a browser
//! cannot accept connections.

mod client;
#[cfg(all(test, not(target_arch = "wasm32")))]
mod live_tests;
#[cfg(not(target_arch = "wasm32"))]
pub mod native_client;
mod room_requests;

pub use client::{
    JoinError, classify_socket_error, client_builder, no_ice_servers, quote_server_text,
};
pub use room_requests::{Answer, RoomRequests};
#[cfg(not(target_arch = "wasm32"))]
pub use twinstar_signaling::{
    BoundServer, DEFAULT_DRAIN_TIMEOUT, DEFAULT_HANDSHAKE_TIMEOUT, DEFAULT_IDLE_TIMEOUT,
    DEFAULT_MAX_PER_ADDRESS, Registry, RelayError, RoomCounts, RoomState, ServeOptions,
    ServerError, WEB_DIR_ENV, WEB_FILES, WebClient, WebError, bind, bind_with, refusal_status,
    respond, serve, tls, turn,
};
pub use twinstar_signaling_protocol::{
    Checked, HostStats, KickRequest, ReportRequest, RoomAction, RoomRequestError,
    decode_room_request,
};
pub use twinstar_signaling_protocol::{
    ClientQuery, DEFAULT_PORT, MAX_LEVEL, MAX_SIGNAL_BYTES, MAX_SPECTATORS, NameError, PlayerName,
    QUICK_PATH, QueryError, RELAY_BUDGET_BYTES, RESERVATION_TTL, ROOM_CAPACITY, ROOMS_PATH,
    Refusal, RoomCode, RoomCodeError, RoomListing, RoomRequest, RoomStatus, RoomsPage, RoomsQuery,
    SEAT_PARAM, SeatToken, SeatTokenError, ServerUrlError, VersionTag, WATCH_PREFIX, browser_link,
    check_server_url, room_url, watch_url,
};
