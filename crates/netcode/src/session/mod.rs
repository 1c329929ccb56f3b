//! The one match loop behind every mode, for any [`crate::Game`]. A
//! [`Driver`] owns the game's state and runs it under a backend (GGRS
//! synctest locally, P2P online, a spectator's stream): `advance` feeds it
//! one frame's local inputs, fulfils GGRS's save/load/advance requests and
//! returns what happened. A [`Match`] wraps a driver with the lifecycle
//! every frontend shares: pacing, the end of the match and its verdict.
//! The online match's decisions are a machine without I/O
//! ([`online::machine`]).

mod backend;
pub mod chat;
pub mod desync;
mod driver;
mod error;
mod felt;
mod frame_log;
mod lifecycle;
pub mod online;
mod pacer;
mod report;
mod server_desk;
mod simulation;
mod spectator;
mod summary;

pub use chat::{ChatError, ChatLine};
pub use driver::{Driver, DriverOptions, Mode};
pub use error::SessionError;
pub use felt::FeltLatency;
pub use lifecycle::{Finished, Match, Next, Outcome, Pacing};
pub use online::{NetStatus, OnlineOptions};
pub use pacer::Pacer;
pub use report::{FrameReport, GgrsConfig};
pub use spectator::{SpectatorOptions, WatchControl, WatchStatus};
pub use summary::{ConnectBreakdown, MatchSummary};

/// GGRS's default prediction window; synctest check distances must be below it.
pub const MAX_PREDICTION: usize = 8;

/// Check distances that actually compare checksums in GGRS 0.13: a distance
/// of 1 re-saves no frame, so it could never report a mismatch.
pub const CHECK_DISTANCES: std::ops::RangeInclusive<usize> = 2..=(MAX_PREDICTION - 1);
