//! Networking building blocks for online play: room codes, the signaling
//! server, our GGRS socket over matchbox, and an in-process bad-link
//! simulator. Nothing here knows a game but through `GameInfo`.

pub mod connect;
pub mod control;
pub mod delay;
pub mod handshake;
pub mod ice;
pub mod link_sim;
pub mod link_trace;
pub mod loss;
pub mod protocol;
pub mod rejoin;
pub mod room;
pub mod signaling;
pub mod socket;
pub mod watch;

pub use twinstar_signaling_protocol::RoomCode;
pub use twinstar_signaling_protocol::room_code;
