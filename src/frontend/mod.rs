//! Frontends drive a `session::Driver`: headless (tests, CI, benchmarks)
//! or a macroquad window (menus, the match with its HUD, effects, sounds
//! and network overlay, the replay viewer).

pub mod assets;
pub mod audio;
pub mod effects;
pub mod headless;
pub mod hud;
pub mod menu;
pub mod overlay;
pub mod replay_view;
pub mod scene;
pub mod window;
use crate::input::{Input, KeyMap, ScriptBot};

/// Fails with [`window::WindowError::NoDisplay`] when no window could open:
/// commands check this before any work, so the error comes first and alone.
pub fn require_display() -> Result<(), window::WindowError> {
    if window::display_available() {
        Ok(())
    } else {
        Err(window::WindowError::NoDisplay)
    }
}

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
