//! Where inputs come from: the `Input` bits (defined by the sim, which reads
//! them), seeded bots (a scripted one and a human-like one), and keyboard
//! bindings.

mod bot;
mod human;
mod keymap;

pub use crate::sim::Input;
pub use bot::ScriptBot;
pub use human::HumanBot;
pub use keymap::KeyMap;
