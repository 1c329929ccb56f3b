//! Websocket close frames the server sends, with the codes a client can
//! tell apart (a restart, a seat taken back, silence). A leaf: the
//! registry closes a replaced seat, a connection closes itself.

use axum::extract::ws::{CloseFrame, Message};

/// Close code 1012 (service restart): "come back in a moment".
pub const CLOSE_RESTARTING: u16 = 1012;
/// Close code 4000 (private use): a newer connection presented this
/// seat's token and took the seat back (`seat`).
pub const CLOSE_REPLACED: u16 = 4000;
/// Close code 4001 (private use): the room's host removed this spectator
/// (`/kick`); it may not watch that room again for a while.
pub const CLOSE_KICKED: u16 = 4001;
/// Close code 1001 (going away): the client went silent.
pub const CLOSE_GOING_AWAY: u16 = 1001;

/// A close frame with a reason the client can show.
pub fn close(code: u16, reason: &str) -> Message {
    Message::Close(Some(CloseFrame {
        code,
        reason: reason.into(),
    }))
}
