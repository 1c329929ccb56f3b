//! Ranked replays and their leaderboards: what a game provides to verify an
//! upload ([`replays`]), the boards that rank the results ([`boards`], in
//! memory, or [`redis_boards`] across nodes), where replays are kept
//! ([`replay_store`]), and the HTTP routes that take and serve them
//! ([`replay_routes`], with the state they share in [`replay_state`]).

pub mod boards;
pub mod redis_boards;
pub(crate) mod replay_routes;
pub(crate) mod replay_state;
pub mod replay_store;
pub mod replays;
