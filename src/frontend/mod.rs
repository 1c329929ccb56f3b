//! Frontends drive a `session::Driver`: headless (tests, CI, benchmarks)
//! or a macroquad window.

pub mod headless;
pub mod replay_view;
pub mod window;

use crate::input::{Input, KeyMap, ScriptBot};

/// Where one player's inputs come from.
#[derive(Clone, Debug)]
pub enum InputSource {
    Bot(ScriptBot),
    Keys(KeyMap),
}

impl InputSource {
    /// The next frame's input; `is_down` answers for keyboard sources.
    pub fn next(&mut self, is_down: impl Fn(macroquad::input::KeyCode) -> bool) -> Input {
        match self {
            InputSource::Bot(bot) => bot.next_input(),
            InputSource::Keys(map) => map.read(is_down),
        }
    }
}
