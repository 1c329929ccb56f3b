//! The one match loop behind every mode. A `Driver` owns the world and runs
//! it under a backend (GGRS synctest locally, P2P online): `advance` feeds
//! it one frame's local inputs, fulfils GGRS's save/load/advance requests
//! and returns what happened. A `Match` wraps a driver with the lifecycle
//! every frontend shares: pacing, the end of the match and its verdict.

mod backend;
pub mod desync;
mod driver;
mod error;
mod frame_log;
mod lifecycle;
mod online;
mod pacer;
mod server_desk;
mod simulation;
mod spectator;
mod summary;

// The room chat is the netcode's.
pub use chat::{ChatError, ChatLine};
pub use driver::{GgrsConfig, Mode};

/// A twinstar match under one backend.
pub type Driver = driver::Driver<crate::game::Twinstar, { crate::sim::PLAYERS }>;
/// How a twinstar match starts.
pub type DriverOptions = driver::DriverOptions<crate::sim::SimConfig>;

/// What one frame of a twinstar match did.
pub type FrameReport = driver::FrameReport<crate::game::Twinstar, { crate::sim::PLAYERS }>;
pub use error::SessionError;
pub use lifecycle::{Next, Outcome, Pacing};

/// A twinstar match from its first frame to its verdict.
pub type Match = lifecycle::Match<crate::game::Twinstar, { crate::sim::PLAYERS }>;
/// A finished twinstar match.
pub type Finished = lifecycle::Finished<crate::game::Twinstar, { crate::sim::PLAYERS }>;
pub use online::{NetStatus, OnlineOptions};
pub use pacer::Pacer;
pub use spectator::{SpectatorOptions, WatchControl, WatchStatus};
pub use summary::{MatchSummary, Summary};
pub use twinstar_netcode::session::chat;

/// GGRS's default prediction window; synctest check distances must be below it.
pub const MAX_PREDICTION: usize = 8;

/// Check distances that actually compare checksums in GGRS 0.13: a distance
/// of 1 re-saves no frame, so it could never report a mismatch.
pub const CHECK_DISTANCES: std::ops::RangeInclusive<usize> = 2..=(MAX_PREDICTION - 1);
