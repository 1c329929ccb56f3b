//! The names players and spectators go by in a match: the defaults (`P1`,
//! `S1`) and what a name from a peer or a replay must look like. Below
//! both the chat (`session::chat`) and the replay header (`replay`), which
//! read and check names alike.

use crate::net::signaling::PlayerName;

/// A player's name in the chat: `P1` for player 0.
pub(crate) fn player_name(player: usize) -> String {
    format!("P{}", player + 1)
}

/// A spectator's name in the chat: `S1` for the first one a player streamed
/// to.
pub(crate) fn spectator_name(number: u32) -> String {
    format!("S{number}")
}

/// A sender's name as it may stand before a line: a display name
/// ([`PlayerName`]: letters, digits, spaces, `_`, `-`; what
/// [`player_name`] and [`spectator_name`] make are such names too), with
/// ` (2)` to ` (99)` after it for the second and later of one name. No
/// `:`, so a name from a peer or a replay cannot forge the `: ` of a line.
pub(crate) fn valid_name(name: &str) -> bool {
    let numbered = name.strip_suffix(')').and_then(|n| n.rsplit_once(" ("));
    let base = match numbered {
        Some((base, n))
            if !n.starts_with('0') && n.parse::<u8>().is_ok_and(|n| (2..=99).contains(&n)) =>
        {
            base
        }
        _ => name,
    };
    PlayerName::parse(base).is_ok_and(|p| p.as_str() == base)
}
