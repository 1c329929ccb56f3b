//! One or two peers' recordings of one twinstar match, inspected from
//! their bytes: each is a replay and, when present, its telemetry sidecar
//! (`A.tsn`, the netcode's `replay::telemetry`) and the desync reports
//! its match wrote. Per peer its netcode figures (rollbacks, frames ahead,
//! stalls, RTT, loss, events); with two, the first frame where they differ
//! and the world's fields that differ there (re-simulated from the inputs;
//! a desync that re-simulation does not reproduce, a recording's own
//! non-determinism, takes its fields from a desync report). Then the
//! report as JSON, an SVG timeline and a self-contained HTML page, and the
//! world at any frame ([`Scrubber`]).
//!
//! No file I/O: `twinstar inspect` reads the files natively
//! (src/app/inspect.rs) and the page's inspector (crates/inspect-web)
//! hands it what the user picked.

mod analysis;
mod diff;
mod figures;
mod html;
mod recording;
mod scrubber;
mod timeline;

pub use analysis::{Divergent, divergence};
pub use diff::{Divergence, first_divergence, first_state_difference};
pub use figures::json_report;
pub use html::html_report;
pub use recording::{Recording, Sidecar};
pub use scrubber::{Scrubber, drawn};
pub use timeline::{LEFT, WIDTH, svg_element, svg_timeline};

use twinstar_netcode::replay as netcode;
use twinstar_sim::{Frame, Input, PLAYERS, Twinstar, World};

/// A twinstar replay, read.
pub type Replay = netcode::Replay<Input, PLAYERS>;

/// A twinstar replay from its bytes.
pub fn read_replay(bytes: &[u8]) -> Result<Replay, netcode::ReplayError> {
    netcode::read_bytes::<Twinstar, PLAYERS>(bytes)
}

/// The world after `frame` frames of the replay (clamped to its length);
/// `None` when its header's rules are unreadable.
pub fn simulate_to(replay: &Replay, frame: Frame) -> Option<Box<World>> {
    netcode::simulate_to::<Twinstar, PLAYERS>(replay, frame)
}

/// Whether the replay re-simulates to every checksum it recorded.
pub fn reproduces(replay: &Replay) -> bool {
    netcode::verify::<Twinstar, PLAYERS>(replay).is_some_and(|v| v.first_mismatch.is_none())
}
