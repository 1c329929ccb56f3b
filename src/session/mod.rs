//! Twinstar's matches: the netcode's session layer
//! (`twinstar_netcode::session`: the driver, the match lifecycle, the
//! online match, spectators, chat) for twinstar's game, and twinstar's
//! `--json` summary ([`Summary`]). Only the types with twinstar filled in
//! are here; the rest is named from `twinstar_netcode::session`.

mod summary;

pub use summary::{Summary, UploadReport};

use crate::game::Twinstar;
use crate::sim::{PLAYERS, SimConfig};

/// A twinstar match under one backend.
pub type Driver = twinstar_netcode::session::Driver<Twinstar, PLAYERS>;
/// How a twinstar match starts.
pub type DriverOptions = twinstar_netcode::session::DriverOptions<SimConfig>;
/// What one frame of a twinstar match did.
pub type FrameReport = twinstar_netcode::session::FrameReport<Twinstar, PLAYERS>;
/// A twinstar match from its first frame to its verdict.
pub type Match = twinstar_netcode::session::Match<Twinstar, PLAYERS>;
/// A finished twinstar match.
pub type Finished = twinstar_netcode::session::Finished<Twinstar, PLAYERS>;
