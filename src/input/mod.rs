//! Where inputs come from: the `Input` bits (defined by the sim, which reads
//! them), seeded bots (a scripted one and a human-like one), keyboard
//! bindings, and the pure mappings of gamepads and touch controls to the
//! same bits.

mod bot;
mod human;
mod keymap;
pub mod pad;
pub mod touch;

pub use crate::sim::Input;
pub use bot::ScriptBot;
pub use human::HumanBot;
pub use keymap::KeyMap;
pub use pad::{PadButton, PadMap, PadState, angle_to_aim};

/// Which bot plays a bot's slot (`--bot-style`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum BotStyle {
    /// Random presses from the seed alone, blind to the world (`ScriptBot`).
    #[default]
    Script,
    /// Reacts to the world with a person's timing and plays well enough to
    /// reach later waves (`HumanBot`).
    Human,
}
