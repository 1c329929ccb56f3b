//! The match between the connection and the game: today the online
//! match's decisions ([`online::machine`]); the sessions that drive GGRS
//! follow them here from the game (issue 35).

pub mod chat;
pub mod online;
