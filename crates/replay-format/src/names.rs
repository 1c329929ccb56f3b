//! The names players go by in a match: the defaults (`P1`, `P2`) and what
//! a name from a peer or a replay must look like. Below both the netcode's
//! chat and the replay header, which read and check names alike.

use twinstar_signaling_protocol::PlayerName;

/// A player's name in the chat: `P1` for player 0.
pub fn player_name(player: usize) -> String {
    format!("P{}", player + 1)
}

/// A sender's name as it may stand before a line: a display name
/// ([`PlayerName`]: letters, digits, spaces, `_`, `-`; what
/// [`player_name`] makes, and the netcode's spectator names, are such names too), with
/// ` (2)` to ` (99)` after it for the second and later of one name. No
/// `:`, so a name from a peer or a replay cannot forge the `: ` of a line.
pub fn valid_name(name: &str) -> bool {
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
