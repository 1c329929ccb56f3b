//! Twinstar's input logs: the netcode's replay format
//! (`twinstar_netcode::replay`, docs/replay-format.md) for twinstar's
//! inputs and world, and the desync forensics that know the world's fields
//! (where two logs part: the twinstar-inspect crate's, shared with the
//! page's inspector).

pub use crate::sim::{FieldDiff, world_diff};
pub use twinstar_inspect::{Divergence, first_divergence};

use std::path::Path;

use crate::game::Twinstar;
use crate::sim::{Frame, Input, PLAYERS, SimConfig, World};
use twinstar_netcode::replay as netcode;
use twinstar_netcode::replay::{Header, ReplayError};

/// A twinstar replay, read.
pub type Replay = netcode::Replay<Input, PLAYERS>;
/// Records a twinstar match.
pub type Writer = netcode::Writer<Input, PLAYERS>;
/// A replay re-simulated.
pub type Verification = netcode::Verification<Box<World>>;

/// Where recordings go unless `--record` says otherwise, relative to the
/// working directory; the menu's replay list looks here too.
pub const DEFAULT_DIR: &str = "replays";

/// The header of a twinstar match played in `mode` from `seed`.
pub fn header(mode: &str, seed: u64, config: &SimConfig) -> Header {
    Header::new::<Twinstar, PLAYERS>(mode, seed, config)
}

/// Creates (or replaces) a recording at `path`.
pub fn create(path: &Path, header: &Header) -> std::io::Result<Writer> {
    Writer::create(path, &crate::game::GAME, header)
}

/// Reads a twinstar replay file (see `twinstar_netcode::replay::read`).
pub fn read(path: &Path) -> Result<Replay, ReplayError> {
    netcode::read::<Twinstar, PLAYERS>(path)
}

/// A twinstar replay from its bytes.
pub fn read_bytes(bytes: &[u8]) -> Result<Replay, ReplayError> {
    netcode::read_bytes::<Twinstar, PLAYERS>(bytes)
}

/// Re-simulates the whole log, stopping at the first checksum mismatch.
pub fn verify(replay: &Replay) -> Option<Verification> {
    netcode::verify::<Twinstar, PLAYERS>(replay)
}

/// The world after `frame` frames of the replay (clamped to its length).
pub fn simulate_to(replay: &Replay, frame: Frame) -> Option<Box<World>> {
    netcode::simulate_to::<Twinstar, PLAYERS>(replay, frame)
}

/// The rules a replay's header records.
pub fn rules(header: &Header) -> Option<SimConfig> {
    header.config()
}
