//! The deterministic simulation of twinstar: pure, fixed-point, no I/O, no
//! clock, no renderer, no netcode. The game (`src/`) plays it; a server
//! re-simulates uploaded replays with it (`twinstar-verify`). Its `Game`
//! impl ([`Twinstar`]) is here too, so both use the same one.
//!
//! Invariants (see ARCHITECTURE.md): no float types (lint below plus a test
//! that scans these sources), iteration in array order only, every random
//! draw from an entity's own `Mwc`, and all state inside `World`.

#![deny(clippy::float_arithmetic, clippy::float_cmp, clippy::float_cmp_const)]

mod config;
mod daily;
mod diff;
mod directions;
mod director;
mod enemies;
mod event;
mod game;
mod grid;
mod input;
mod kinds;
mod math;
mod rng;
mod step;
mod world;

// The netcode shows checksums in the same text form everywhere.
pub use config::{PRESET_NAMES, SCENARIO_STRESS, SCENARIO_WAVES, SimConfig};
pub use daily::daily_seed;
pub use diff::{FieldDiff, world_diff};
pub use directions::DIRECTION_COUNT;
pub use director::{TABLE_WAVES, is_boss_wave, wave_loop};
pub use event::{Event, EventSink};
pub use game::{GAME, Twinstar};
pub use input::Input;
pub use math::{Fx, Vec2, fx, nearest_direction};
pub use rng::Mwc;
pub use twinstar_replay_format::{BadChecksum, hex_checksum, parse_hex_checksum};
pub use world::*;

/// Bumped whenever a rule change alters the bits a given input log produces;
/// replays and peers refuse a different version.
pub const SIM_VERSION: u32 = 2;

/// The simulation's rate: every duration in the rules (cooldowns, respawn
/// times) counts frames of 1/60 s. Displays draw at any rate; the match
/// ticks at this one.
pub const FPS: u32 = 60;

/// A frame number: the world after `n` steps is frame `n`. One type for the
/// simulation, the session and replays; GGRS's signed frames are converted
/// where they enter the session.
pub type Frame = u32;
