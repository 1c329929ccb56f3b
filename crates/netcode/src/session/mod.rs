//! The one match loop behind every mode, for any [`crate::Game`]. A
//! [`Driver`] owns the game's state and runs it under a backend (GGRS
//! synctest locally, P2P online, a spectator's stream): `advance` feeds it
//! one frame's local inputs, fulfils GGRS's save/load/advance requests and
//! returns what happened. A [`Match`] wraps a driver with the lifecycle
//! every frontend shares: pacing, the end of the match and its verdict.
//! The online match's decisions are a machine without I/O (`online::machine`,
//! with the `internals` feature).

mod backend;
mod driver;
mod error;
mod felt;
mod frame_log;
mod lifecycle;
mod pacer;
mod report;
mod server_desk;
mod simulation;
mod spectator;
mod summary;
// Public with the `internals` feature (see the crate root).
#[cfg(feature = "internals")]
pub mod chat;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
pub(crate) mod chat;
#[cfg(feature = "internals")]
pub mod desync;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
pub(crate) mod desync;
#[cfg(feature = "internals")]
pub mod online;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
pub(crate) mod online;

pub use chat::{ChatError, ChatLine};
pub use driver::{Driver, DriverOptions, Mode};
pub use error::SessionError;
pub use lifecycle::{Finished, Match, Next, Outcome, Pacing};
pub use online::{NetStatus, OnlineOptions, OnlineState};
pub use report::FrameReport;
pub use spectator::{SpectatorOptions, WatchControl, WatchStatus};
pub use summary::MatchSummary;

inner_use!(felt::FeltLatency);
inner_use!(pacer::Pacer);
inner_use!(report::GgrsConfig);
inner_use!(summary::ConnectBreakdown);
inner_use!(driver::{CHECK_DISTANCES, MAX_PREDICTION});
