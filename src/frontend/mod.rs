//! Frontends drive a `session::Driver`: headless (tests, CI, benchmarks)
//! or a macroquad window (menus, the match with its HUD, effects, sounds
//! and network overlay, the replay viewer).

pub mod assets;
pub mod audio;
pub mod chat_box;
pub mod effects;
pub mod headless;
pub mod hud;
pub mod menu;
pub mod overlay;
pub mod replay_view;
pub mod scene;
pub mod window;
use crate::input::{BotStyle, HumanBot, Input, KeyMap, ScriptBot};
use crate::sim::World;

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
    Human(Box<HumanBot>),
    Keys(KeyMap),
}

impl InputSource {
    /// A bot of this style for `player`, seeded from the match seed.
    pub fn bot(style: BotStyle, seed: u64, player: usize) -> InputSource {
        match style {
            BotStyle::Script => InputSource::Bot(ScriptBot::new(seed, player)),
            BotStyle::Human => InputSource::Human(Box::new(HumanBot::new(seed, player))),
        }
    }

    /// The next frame's input. `world` is the world that frame starts from
    /// (the human bot reacts to it; online that is this peer's current,
    /// possibly predicted, world, so each peer's bot is reproducible for
    /// that peer's run); `is_down` answers for keyboard sources.
    pub fn next(
        &mut self,
        world: &World,
        is_down: impl Fn(macroquad::input::KeyCode) -> bool,
    ) -> Input {
        match self {
            InputSource::Bot(bot) => bot.next_input(),
            InputSource::Human(bot) => bot.next_input(world),
            InputSource::Keys(map) => map.read(is_down),
        }
    }
}
