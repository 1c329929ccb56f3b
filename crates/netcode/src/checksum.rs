//! The text form of a state checksum (a game's 128-bit hash of its state):
//! 32 lowercase hex digits, in summaries, replays' dumps and control
//! messages. The replay format's (`twinstar-replay-format`), re-exported.

pub use twinstar_replay_format::checksum::{hex_checksum, parse_hex_checksum};
