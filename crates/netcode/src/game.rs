//! What a game is to the netcode: a deterministic step from one frame's
//! inputs to the next state, a checksum of the state, and its identity.
//! Defined by the replay format (`twinstar-replay-format`), which a server
//! re-simulates uploads by without the netcode; re-exported here.

pub use twinstar_replay_format::game::{FieldDiff, Game, MAX_PLAYERS};
