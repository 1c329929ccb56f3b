//! Rollback netcode for a deterministic game: GGRS over WebRTC data
//! channels (matchbox), room codes through a signaling server, a latency
//! handshake that picks the input delay, reconnects, rejoins, spectators and
//! chat, natively and in the browser.
//!
//! The crate knows no game. A game names itself with a [`GameInfo`] (its
//! name and version, its simulation's version, its frame rate and the rule
//! presets a host may pick), checked at the handshake so two
//! builds that would desync never play; its input is any plain-old-data
//! type, the only thing on the wire besides the crate's own messages.
//!
//! What a game uses:
//!
//! - the crate root: the [`Game`] trait and what it names ([`GameInfo`],
//!   [`GameInput`], [`Frame`], [`FieldDiff`]), and a checksum's text form
//!   ([`hex_checksum`]);
//! - [`connect`]: from a room code to a connection, for a player or a
//!   spectator, polled so a window can draw progress;
//! - [`session`]: a match of a [`Game`] under GGRS: synctest, local play,
//!   online against a peer (pause, reconnect, rejoin, chat), watching; the
//!   match lifecycle and its summary;
//! - [`replay`]: input logs of any game that re-simulate bit for bit;
//! - [`tickets`]: where a player's rejoin tickets are kept between runs.
//!
//! The parts inside (the handshake and room machines, the control
//! protocol, the GGRS socket, the link simulator, catch-ups, the background
//! tasks) are public only with the `internals` feature, which twinstar's own
//! frontends, tests and fuzz targets use; they have no semver promise.
//! `public-api.txt` beside this crate's manifest lists the API, and the
//! test command checks it.
//!
//! # A whole game on the netcode
//!
//! Pong, the workspace's second game (`crates/pong/src/lib.rs`, included
//! here verbatim and compiled as this page's test), is a [`Game`]: its
//! state, its input, a fixed-point step, a checksum. The `main` after it
//! runs it the way the `pong` binary does: a synctest that rolls every
//! frame back, and an online match by room code (not run here: it needs a
//! signaling server, `twinstar serve`). Reconnecting after a cut,
//! rejoining, spectators, chat and replays come with the session; the
//! game writes none of it.
//!

#![cfg_attr(not(feature = "internals"), deny(missing_docs))]
#![doc = concat!("```\n", include_str!("../doc/pong.rs"), include_str!("../doc/pong_main.rs"), "```")]

/// `pub use` with the `internals` feature, `pub(crate) use` without: the
/// inner items a public module also offers twinstar's frontends.
macro_rules! inner_use {
    ($($tree:tt)*) => {
        #[cfg(feature = "internals")]
        pub use $($tree)*;
        #[cfg(not(feature = "internals"))]
        #[allow(unused_imports)]
        pub(crate) use $($tree)*;
    };
}

// The crate's inner modules: public with the `internals` feature, private
// (to the crate) without it. Twinstar's own frontends, tests and fuzz
// targets reach into them; a game needs only what the crate root,
// [`connect`], [`session`], [`replay`] and [`tickets`] export, and nothing
// inside has a semver promise. Without the feature some of their items
// serve only those frontends, hence `dead_code` allowed there (with the
// feature every such item is public, which no lint checks either). Each is
// declared twice, not by a macro: rustfmt does not format a module that a
// macro declares.
#[cfg(feature = "internals")]
pub mod checksum;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
mod checksum;
#[cfg(feature = "internals")]
pub mod game;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
mod game;
#[cfg(feature = "internals")]
pub mod input_runs;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
mod input_runs;
#[cfg(feature = "internals")]
pub mod net;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
mod net;
#[cfg(feature = "internals")]
pub mod panics;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
mod panics;
#[cfg(feature = "internals")]
pub mod tasks;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
mod tasks;
#[cfg(feature = "internals")]
pub mod visibility;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
mod visibility;

mod names;

pub mod connect;
pub mod replay;
pub mod session;
pub mod tickets;

pub use checksum::hex_checksum;
inner_use!(checksum::{BadChecksum, parse_hex_checksum});
pub use game::{FieldDiff, Game};
inner_use!(game::MAX_PLAYERS);

// The game's contract and a frame's number are the replay format's (a
// replay re-simulates by them, and a server re-simulates without the
// netcode): the same names here.
pub use twinstar_replay_format::{Frame, GameInfo, GameInput};

// The game the tests play: the replay format's (feature `test-game`).
#[cfg(test)]
pub(crate) use twinstar_replay_format::test_game;
