//! The one match loop behind every mode, for any [`crate::Game`]. A
//! [`Driver`] owns the game's state and runs it under a backend (GGRS
//! synctest locally, P2P online, a spectator's stream): `advance` feeds it
//! one frame's local inputs, fulfils GGRS's save/load/advance requests and
//! returns what happened. A [`Match`] wraps a driver with the lifecycle
//! every frontend shares: pacing, the end of the match and its verdict.
//! The online match's decisions are a machine without I/O (`online::machine`,
//! private). After a desync online, [`desync`] holds both sides' evidence
//! and explains it.

mod backend;
pub(crate) mod chat;
pub mod desync;
mod driver;
mod error;
mod felt;
mod frame_log;
mod lifecycle;
pub(crate) mod online;
mod pacer;
mod report;
mod server_desk;
mod simulation;
mod spectator;
mod summary;
mod telemetry;

pub use chat::{ChatError, ChatLine};
pub use driver::{Driver, DriverOptions, Mode};
pub use error::{GgrsFailure, PeerGone, ProtocolError, SessionError};
pub use lifecycle::{Finished, Match, Next, Outcome, Pacing};
pub use online::{NetStatus, OnlineOptions, OnlineState};
pub use report::{FrameReport, FrameState};
pub use spectator::{SpectatorOptions, WatchControl, WatchState, WatchStatus};
pub use summary::{ConnectBreakdown, MatchSummary};

pub use driver::{CHECK_DISTANCES, MAX_PREDICTION};
pub use felt::FeltLatency;
pub(crate) use pacer::Pacer;
