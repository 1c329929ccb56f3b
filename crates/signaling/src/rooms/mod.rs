//! Rooms: the [`registry`] of rooms, seats and spectators that pairs
//! players by room code and relays their signals; one client's websocket
//! ([`connection`]) with its per-address [`limits`] and [`close`] frames; a
//! room's own requests beside its websocket ([`room_requests`]); and the
//! public room list shared across nodes ([`directory`]).

pub(crate) mod clock;
pub(crate) mod close;
pub(crate) mod connection;
pub mod directory;
pub(crate) mod limits;
pub(crate) mod registry;
pub(crate) mod room_requests;
