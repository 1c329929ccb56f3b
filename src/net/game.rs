//! Everything the netcode takes from the game, in one place: the seam the
//! netcode library's `Game` trait will stand for when `net` leaves this
//! crate (issue 35). Nothing else under `net/` names a game module; the
//! test below keeps it so.
//!
//! - [`Frame`]: the frame number type (u32 everywhere);
//! - [`Input`] and [`PLAYERS`]: what one frame's inputs are (plain old
//!   data, the only thing on the wire) and how many players a match has;
//! - [`SIM_VERSION`]: the simulation's identity, checked at the handshake
//!   beside the protocol version;
//! - [`FPS`]: frames a second, which turns milliseconds into frames of
//!   input delay;
//! - [`SimConfig`]: the rules a preset name stands for (the handshake
//!   agrees on the leader's preset; a spectator is told it);
//! - the checksum's text form, and the replay's input runs and checksum
//!   interval, which the wire's chunks share.

pub use crate::replay::CHECKSUM_INTERVAL;
pub(crate) use crate::replay::{put_input_runs, read_input_runs};
pub use crate::sim::{FPS, Frame, Input, PLAYERS, SIM_VERSION, SimConfig};
pub use crate::sim::{hex_checksum, parse_hex_checksum};

#[cfg(test)]
mod tests {
    /// Only this file of `net/` names the game's modules (`sim`, `replay`,
    /// `input`, `session`, `frontend`, `app`, `settings`), so the seam the
    /// library's `Game` trait replaces stays one file wide.
    #[test]
    fn net_uses_the_game_only_here() {
        let net = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/net");
        let mut offenders = Vec::new();
        let mut stack = vec![net];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                if path.file_name().is_some_and(|n| n == "game.rs") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                for module in [
                    "sim", "replay", "input", "session", "frontend", "app", "settings",
                ] {
                    if text.contains(&format!("crate::{module}::"))
                        || text.contains(&format!("crate::{module};"))
                    {
                        offenders.push(format!("{} uses crate::{module}", path.display()));
                    }
                }
            }
        }
        assert!(offenders.is_empty(), "{offenders:#?}");
    }
}
