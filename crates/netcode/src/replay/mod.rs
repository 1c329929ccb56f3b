//! Input logs: the confirmed inputs of a match, enough to re-simulate it bit
//! for bit, for any [`crate::Game`]. Format v1 is documented in
//! `docs/replay-format.md`; the format itself lives in its own crate
//! (`twinstar-replay-format`, no networking, so a server can re-simulate
//! uploads without the netcode), re-exported here under the same names.
//!
//! `Writer` appends records as a match runs (crash-safe: every record is
//! complete or absent). `read` parses a file defensively: any bytes give a
//! `Replay` or a one-line `ReplayError`, never a panic, and memory stays
//! bounded by the file and record size limits. `verify` re-simulates.

/// Why a replay's file could not be read ([`ReplayError::File`]).
pub use twinstar_files::ReadError;
pub use twinstar_replay_format::replay::{
    CHECKSUM_INTERVAL, Cut, EndRecord, EventKind, Header, Replay, ReplayError, ReplayEvent,
    Verification, Writer, read, read_bytes, simulate_to, verify,
};

pub mod telemetry;
