//! The run-length layout of a game's inputs, shared by replay chunks and
//! the wire's catch-up chunks: the replay format's, re-exported.

pub use twinstar_replay_format::input_runs::{CHECKSUM_INTERVAL, put_input_runs, read_input_runs};
