//! A seeded bot: a pure function of (seed, player, frame count), it never
//! looks at the world. That makes its inputs identical in every mode —
//! a P2P match and a local run with the same seeds see the same presses.

use super::Input;
use crate::sim::Mwc;

#[derive(Clone, Debug)]
pub struct ScriptBot {
    rng: Mwc,
    held: Input,
    frames_left: u32,
}

impl ScriptBot {
    pub fn new(seed: u64, player: usize) -> Self {
        let salt = (player as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        ScriptBot {
            rng: Mwc::from_seed(seed ^ salt),
            held: Input::default(),
            frames_left: 0,
        }
    }

    /// The buttons for the next frame: a random direction (or none) held for
    /// 10-60 frames, firing most of the time, sometimes focused, and start
    /// pressed now and then so a game over is followed by a restart.
    pub fn next_input(&mut self) -> Input {
        if self.frames_left == 0 {
            let directions = [
                0,
                Input::UP,
                Input::DOWN,
                Input::LEFT,
                Input::RIGHT,
                Input::UP | Input::LEFT,
                Input::UP | Input::RIGHT,
                Input::DOWN | Input::LEFT,
                Input::DOWN | Input::RIGHT,
            ];
            let r = &mut self.rng;
            let mut bits = directions[r.below(directions.len() as u32) as usize];
            if r.below(10) < 8 {
                bits |= Input::FIRE;
            }
            if r.below(10) < 2 {
                bits |= Input::FOCUS;
            }
            if r.below(10) < 3 {
                bits |= Input::START;
            }
            self.held = Input(bits);
            self.frames_left = r.range(10, 60);
        }
        self.frames_left -= 1;
        self.held
    }
}
