//! The one frame loop behind every mode. A `Driver` owns the world and a
//! GGRS session; `advance` feeds it this frame's local inputs, fulfils GGRS's
//! save/load/advance requests, and returns what happened. Frontends (headless,
//! window) decide what to do with it.

mod driver;
mod error;
mod online;
mod pacer;
mod summary;

pub use driver::{Driver, DriverOptions, FrameReport, GgrsConfig, Mode};
pub use error::SessionError;
pub use online::{NetStatus, OnlineOptions};
pub use pacer::Pacer;
pub use summary::{Summary, hex_checksum, parse_hex_checksum};

/// Simulation rate. The window draws at any rate; the simulation ticks at this.
pub const FPS: u32 = 60;

/// GGRS's default prediction window; synctest check distances must be below it.
pub const MAX_PREDICTION: usize = 8;

/// Check distances that actually compare checksums in GGRS 0.13: a distance
/// of 1 re-saves no frame, so it could never report a mismatch.
pub const CHECK_DISTANCES: std::ops::RangeInclusive<usize> = 2..=(MAX_PREDICTION - 1);
