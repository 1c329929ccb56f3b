//! Signaling from the game's side: reaching the server and explaining its
//! refusals (`client`), a room's requests beside the websocket
//! (`room_requests`).
//! What both sides agree on (room codes, URLs, refusals, seat tokens) is
//! `twinstar_signaling_protocol`, re-exported here so a game names one
//! module. The server is the `twinstar-signaling` crate, which the netcode
//! does not depend on: a game that starts a server of its own (twinstar's
//! LAN host) depends on it directly.

mod client;
mod replay_upload;
mod room_requests;

// The client's own I/O with the server, chosen here once: natively our
// websocket and HTTP client (`native_client`; the game asks it for ICE
// offers, round trips, the room list, and in `native_boards` ranked
// replays and their boards), in the browser the page's
// WebSocket and `fetch` (`browser_client.rs`). Both offer `with_signaller`,
// `refusal` and `Poster` to `client` and `room_requests`.
#[cfg(not(target_arch = "wasm32"))]
pub mod native_boards;
#[cfg(not(target_arch = "wasm32"))]
pub mod native_client;
#[cfg(not(target_arch = "wasm32"))]
use native_client as platform;
#[cfg(target_arch = "wasm32")]
mod browser_client;
#[cfg(target_arch = "wasm32")]
use browser_client as platform;

#[cfg(test)]
pub(crate) use client::no_ice_servers;
pub use client::{JoinError, classify_socket_error, client_builder};
pub use replay_upload::ReplayUpload;
pub use room_requests::Answer;
pub(crate) use room_requests::RoomRequests;
// What both sides of the wire agree on, for the modules above; the
// public `crate::signaling` re-exports what a game needs of it.
pub(crate) use twinstar_signaling_protocol::*;
