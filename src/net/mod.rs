//! Networking building blocks for online play: room codes, the signaling
//! server, our GGRS socket over matchbox, and an in-process bad-link
//! simulator. Nothing here touches `sim` internals.

pub mod connect;
pub mod control;
pub mod delay;
pub mod handshake;
pub mod ice;
pub mod link_sim;
pub mod protocol;
pub mod rejoin;
pub mod room;
pub mod room_code;
pub mod signaling;
pub mod socket;
pub mod watch;

pub use link_sim::{LinkConfig, LinkConfigError, LinkSim, LinkStats};
pub use room_code::{RoomCode, RoomCodeError};
pub use socket::{GgrsSocket, PacketChannel, SharedChannel, SocketStats, StatsHandle};
