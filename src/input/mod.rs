//! Where inputs come from: the `Input` bits (defined by the sim, which reads
//! them), seeded bots, and keyboard bindings.

mod bot;
mod keymap;

pub use crate::sim::Input;
pub use bot::ScriptBot;
pub use keymap::KeyMap;
