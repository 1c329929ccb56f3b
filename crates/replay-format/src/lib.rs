//! The replay format of twinstar's games, and the contract it re-simulates
//! by: the [`Game`] trait (a deterministic step, a checksum, an identity),
//! the `.tsr` input log (format v1, `docs/replay-format.md`): [`replay::Writer`],
//! [`replay::read_bytes`], [`replay::verify`]), and a checksum's text form.
//!
//! No networking: the netcode (`twinstar-netcode`) builds on this crate and
//! re-exports it under its own names, and a server that re-simulates
//! uploaded replays links this crate and a game's simulation without the
//! netcode's WebRTC stack (`scripts/check-crate-boundaries.sh`).

#![deny(missing_docs)]

pub mod checksum;
pub mod game;
pub mod input_runs;
pub mod names;
pub mod replay;

pub use checksum::{BadChecksum, hex_checksum, parse_hex_checksum};
pub use game::{FieldDiff, Game, MAX_PLAYERS};

/// A frame number: 0 is the first simulated frame.
pub type Frame = u32;

/// What one player's input on one frame may be: plain old data (sent as
/// its bytes, saved by copy), comparable (GGRS predicts "the same as last
/// frame" and checks), and sendable to the connection's threads. Any type
/// that is all of these is one.
pub trait GameInput: bytemuck::Pod + PartialEq + std::fmt::Debug + Send + Sync {}

impl<T: bytemuck::Pod + PartialEq + std::fmt::Debug + Send + Sync> GameInput for T {}

/// What a game tells the netcode about itself. Two peers play only if their
/// protocol, `name` and `sim_version` agree; `version` is what a mismatch
/// shows the player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameInfo {
    /// The game's name, in mismatch messages and the room list's version tag.
    pub name: &'static str,
    /// The build's version (the crate version, typically).
    pub version: &'static str,
    /// Bumped whenever the simulation's results change for the same inputs.
    pub sim_version: u32,
    /// Simulated frames a second: turns milliseconds into frames of delay.
    pub fps: u32,
    /// The rule presets a host may pick, by name (the first is the
    /// default); the handshake refuses any other.
    pub presets: &'static [&'static str],
}

impl GameInfo {
    /// Whether `name` is one of the game's presets.
    pub fn has_preset(&self, name: &str) -> bool {
        self.presets.contains(&name)
    }

    /// Milliseconds a frame lasts.
    pub fn frame_ms(&self) -> f64 {
        1000.0 / f64::from(self.fps)
    }
}

// The game the tests play, here and in the netcode's own tests (feature
// `test-game`, a dev-dependency's): not part of the API.
#[cfg(any(test, feature = "test-game"))]
#[doc(hidden)]
pub mod test_game {
    //! The game the tests play: two players at 60 frames a second adding
    //! their inputs into a running sum, like a tiny twinstar.

    use super::{Frame, Game, GameInfo};

    pub struct TestGame;

    /// The rules: how much each input counts.
    #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
    #[repr(C)]
    pub struct Rules {
        pub weight: u32,
    }

    /// The whole state: the frame and the running sum.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct State {
        pub frame: Frame,
        pub sum: u64,
        pub weight: u32,
    }

    impl Game<2> for TestGame {
        const INFO: GameInfo = GameInfo {
            name: "testgame",
            version: "0.1.0",
            sim_version: 1,
            fps: 60,
            presets: &["default", "stress"],
        };
        type Input = u8;
        type Config = Rules;
        type State = State;
        type Event = u64;

        fn preset(name: &str) -> Option<Rules> {
            match name {
                "default" => Some(Rules { weight: 1 }),
                "stress" => Some(Rules { weight: 7 }),
                _ => None,
            }
        }

        fn preset_name(rules: &Rules) -> Option<&'static str> {
            match rules.weight {
                1 => Some("default"),
                7 => Some("stress"),
                _ => None,
            }
        }

        fn start(seed: u64, rules: &Rules) -> State {
            State {
                frame: 0,
                sum: seed,
                weight: rules.weight,
            }
        }

        fn step(state: &mut State, inputs: [u8; 2], events: &mut Vec<u64>) {
            state.frame += 1;
            let weight = u64::from(state.weight);
            state.sum = (state.sum.wrapping_mul(31))
                .wrapping_add(weight * (u64::from(inputs[0]) * 3 + u64::from(inputs[1])));
            if state.frame.is_multiple_of(60) {
                events.push(state.sum);
            }
        }

        fn frame(state: &State) -> Frame {
            state.frame
        }

        fn checksum(state: &State) -> u128 {
            u128::from(state.sum) << 32 | u128::from(state.frame)
        }

        fn inject_desync(state: &mut State, salt: u32) {
            state.sum = state.sum.wrapping_add(u64::from(salt));
        }

        fn state_bytes(state: &State) -> Option<Vec<u8>> {
            let mut bytes = state.frame.to_le_bytes().to_vec();
            bytes.extend_from_slice(&state.sum.to_le_bytes());
            bytes.extend_from_slice(&state.weight.to_le_bytes());
            Some(bytes)
        }

        fn state_from_bytes(bytes: &[u8]) -> Option<State> {
            let bytes: &[u8; 16] = bytes.try_into().ok()?;
            let (frame, rest) = bytes.split_at(4);
            let (sum, weight) = rest.split_at(8);
            Some(State {
                frame: u32::from_le_bytes(frame.try_into().ok()?),
                sum: u64::from_le_bytes(sum.try_into().ok()?),
                weight: u32::from_le_bytes(weight.try_into().ok()?),
            })
        }

        fn diff(ours: &State, theirs: &State) -> Vec<crate::game::FieldDiff> {
            let mut out = Vec::new();
            let mut field = |path: &str, a: String, b: String| {
                if a != b {
                    out.push(crate::game::FieldDiff {
                        path: path.into(),
                        a,
                        b,
                    });
                }
            };
            field("frame", ours.frame.to_string(), theirs.frame.to_string());
            field("sum", ours.sum.to_string(), theirs.sum.to_string());
            field("weight", ours.weight.to_string(), theirs.weight.to_string());
            out
        }
    }

    /// The test game's identity.
    pub const GAME: GameInfo = <TestGame as Game<2>>::INFO;
}
