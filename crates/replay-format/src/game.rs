//! What a game is to the netcode and to a replay: a deterministic step from
//! one frame's inputs to the next state, a checksum of the state, and its
//! identity. Everything the netcode does for a game (rollback, replays,
//! catch-ups, desync checks) goes through this trait, and so does a server
//! that re-simulates an uploaded replay; neither looks inside a state.

use std::fmt::Debug;

use crate::{Frame, GameInfo, GameInput};

/// A deterministic game of `N` players: the count is the game's type, and
/// only what works for it compiles. Local play, synctest and replays take
/// any `N`; an online match and watching one take two (the netcode's
/// `Driver::online`). The rules of determinism are the
/// game's to keep: `step` must give the same state for the same state and
/// inputs on every machine (no floats that differ between targets, no
/// clocks, no I/O, no randomness but from the state).
pub trait Game<const N: usize>: 'static {
    /// Who the game is: checked at the handshake and in replays.
    const INFO: GameInfo;
    /// One player's input on one frame: plain old data, the only thing
    /// besides the netcode's own messages on the wire.
    type Input: GameInput + Default + serde::Serialize + serde::de::DeserializeOwned;
    /// The rules a match is played by: plain old data, so a replay can
    /// store their exact bytes whatever a later build's presets say.
    type Config: bytemuck::Pod + PartialEq + Debug + Send + Sync;
    /// A match's whole state, saved and restored by copy (a rollback
    /// restores one several times a second).
    type State: Clone + Send + Sync + 'static;
    /// What a step tells the frontends (a sound to play, a hit to show).
    type Event: Clone + Debug;

    /// The rules a preset name stands for (`GameInfo::presets`).
    fn preset(name: &str) -> Option<Self::Config>;
    /// The name of the preset `config` is, if it is one.
    fn preset_name(config: &Self::Config) -> Option<&'static str>;
    /// Why rules read from a file cannot be played, if they cannot (a
    /// replay's header carries any bytes).
    fn check_config(_config: &Self::Config) -> Result<(), String> {
        Ok(())
    }
    /// The state at frame 0 of a match.
    fn start(seed: u64, config: &Self::Config) -> Self::State;
    /// One frame: `inputs` are player 1's first.
    fn step(state: &mut Self::State, inputs: [Self::Input; N], events: &mut Vec<Self::Event>);
    /// The frame `state` stands at (0 at the start, +1 per step).
    fn frame(state: &Self::State) -> Frame;
    /// A 128-bit hash of the whole state: equal states, equal checksums.
    fn checksum(state: &Self::State) -> u128;

    /// A test hook (`--inject-desync`): changes the state by `salt`, as a
    /// non-deterministic bug would, so tests can watch a desync being
    /// caught and explained. A game that leaves it out cannot be tested
    /// that way.
    fn inject_desync(_state: &mut Self::State, _salt: u32) {}

    /// The state's bytes, for a desync report: the peer's copy is compared
    /// field by field with [`Game::diff`]. `None` leaves states out of
    /// reports (they then name the frame, the checksums and the inputs).
    fn state_bytes(_state: &Self::State) -> Option<Vec<u8>> {
        None
    }

    /// A state from a peer's [`Game::state_bytes`]: any bytes, so `None`
    /// unless they are exactly one state.
    fn state_from_bytes(_bytes: &[u8]) -> Option<Self::State> {
        None
    }

    /// What the room list shows of a public room's match, once a second:
    /// a level (twinstar: the wave) and a score.
    fn figures(_state: &Self::State) -> (u32, u64) {
        (0, 0)
    }

    /// Every field that differs between two states, in the state's order.
    fn diff(_ours: &Self::State, _theirs: &Self::State) -> Vec<FieldDiff> {
        Vec::new()
    }
}

/// One field that differs between two states.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FieldDiff {
    /// Where, e.g. `enemies[3] (id 17).pos`.
    pub path: String,
    /// What the first state has there.
    pub a: String,
    /// What the second state has there.
    pub b: String,
}

/// The most players a match may have: bounds what a peer's message may
/// claim before any allocation (GGRS itself carries any number).
pub const MAX_PLAYERS: usize = 8;
