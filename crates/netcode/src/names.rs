//! The names players and spectators go by in a match: the defaults (`P1`,
//! `S1`) and what a name from a peer or a replay must look like. The
//! players' names and the check are the replay format's (a replay header
//! carries names); the spectators' are only the chat's.

pub(crate) use twinstar_replay_format::names::{player_name, valid_name};

/// A spectator's name in the chat: `S1` for the first one a player streamed
/// to.
pub(crate) fn spectator_name(number: u32) -> String {
    format!("S{number}")
}
