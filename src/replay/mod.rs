//! Input logs: the confirmed inputs of a match, enough to re-simulate it bit
//! for bit. Format v1 is documented in `docs/replay-format.md`.
//!
//! `Writer` appends records as a match runs (crash-safe: every record is
//! complete or absent). `read` parses a file defensively: any bytes give a
//! `Replay` or a one-line `ReplayError`, never a panic, and memory stays
//! bounded by the file and record size limits. `verify` re-simulates; `diff` finds
//! where two logs part.

mod diff;
mod format;
mod reader;
mod verify;
mod writer;

pub use diff::{Divergence, FieldDiff, first_divergence, world_diff};
pub use format::{
    CHECKSUM_INTERVAL, Chunk, EndRecord, EventKind, FORMAT_VERSION, Header, MAGIC, MAX_FILE_BYTES,
    MAX_RECORD_BYTES, ReplayEvent, decode_chunk, encode_chunk,
};
pub use reader::{Cut, Replay, ReplayError, read, read_bytes};
pub use verify::{Verification, simulate_to, verify};
pub use writer::Writer;

/// Where recordings go unless `--record` says otherwise, relative to the
/// working directory; the menu's replay list looks here too.
pub const DEFAULT_DIR: &str = "replays";
