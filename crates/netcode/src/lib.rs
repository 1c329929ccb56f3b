//! Rollback netcode for a deterministic game: GGRS over WebRTC data
//! channels (matchbox), room codes through a signaling server, a latency
//! handshake that picks the input delay, reconnects, rejoins, spectators and
//! chat, natively and in the browser.
//!
//! A game is a [`Game`]: its state, its input, a step and a checksum. Here
//! is a whole one (two players add their input to a counter) played online
//! to its end by two peers on this machine: a signaling server in the
//! process, a room on it, two connectors that meet there over WebRTC, and
//! one loop that plays both sides' matches under GGRS:
//!
//! ```
//! use std::time::{Duration, Instant};
//! use twinstar_netcode::connect::{ConnectOptions, Connector, NetRuntime, PlayerSeat, Role};
//! use twinstar_netcode::session::{Driver, Match, Next, OnlineOptions, Outcome, Pacing};
//! use twinstar_netcode::{Game, GameInfo, RoomCode};
//!
//! struct Counter; // The state: (frame, sum of every input so far).
//! impl Game<2> for Counter {
//!     type Input = u8;
//!     type Config = u8; // No rules to pick: one preset.
//!     type State = (u32, u64);
//!     type Event = ();
//!     const INFO: GameInfo =
//!         GameInfo { name: "counter", version: "1", sim_version: 1, fps: 60, presets: &["default"] };
//!     fn preset(name: &str) -> Option<u8> { (name == "default").then_some(0) }
//!     fn preset_name(_: &u8) -> Option<&'static str> { Some("default") }
//!     fn start(seed: u64, _: &u8) -> (u32, u64) { (0, seed) }
//!     fn step(s: &mut (u32, u64), inputs: [u8; 2], _: &mut Vec<()>) {
//!         *s = (s.0 + 1, s.1 + u64::from(inputs[0]) + u64::from(inputs[1]));
//!     }
//!     fn frame(s: &(u32, u64)) -> u32 { s.0 }
//!     fn checksum(s: &(u32, u64)) -> u128 { u128::from(s.0) << 64 | u128::from(s.1) }
//! }
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let runtime = NetRuntime::new()?; // A signaling server on loopback, a room on it.
//! let server = runtime.tokio().block_on(async { twinstar_signaling::bind(([127, 0, 0, 1], 0).into(), None) })?;
//! let (url, room) = (format!("ws://{}", server.local_addr()), RoomCode::generate());
//! runtime.tokio().spawn(server.serve(std::future::pending()));
//! let player = |role| { // Each connector runs in the background until its match is agreed.
//!     let options = ConnectOptions::new(Counter::INFO, &url, Some(room.clone()), role, 7);
//!     Connector::<PlayerSeat<u8, 2>>::start(NetRuntime::new().unwrap(), options)
//! };
//! let (host, joiner) = (player(Role::Host), player(Role::Join));
//! let mut games = [host.wait()?, joiner.wait()?].map(|connection| {
//!     let driver = Driver::<Counter, 2>::online(connection, OnlineOptions::default()).unwrap();
//!     Match::new(driver, Pacing::RealTime, Some(120)) // Over once frame 120 is confirmed.
//! });
//! while games.iter().any(|game| !game.is_over()) {
//!     for (player, game) in games.iter_mut().enumerate() {
//!         if game.next(Instant::now()) == Next::Frame {
//!             game.advance([player as u8 + 1; 2]); // Each side gives its own player's input.
//!         }
//!     }
//!     std::thread::sleep(Duration::from_millis(1));
//! }
//! for game in games {
//!     let finished = game.finish();
//!     assert!(matches!(finished.outcome, Outcome::Completed));
//!     assert_eq!(*finished.driver.world(), (120, 7 + 3 * 120)); // The host's seed, 1 + 2 a frame.
//! }
//! # Ok(()) }
//! ```
//!
//! The same game in a synctest, the session mode that rolls every frame
//! back and re-simulates it, as an online match does when a prediction was
//! wrong, needs no network:
//!
//! ```
//! use twinstar_netcode::session::{Driver, Match, Next, Outcome, Pacing};
//! # use twinstar_netcode::{Game, GameInfo};
//! # struct Counter; // The state: (frame, sum of every input so far).
//! # impl Game<2> for Counter {
//! #     type Input = u8;
//! #     type Config = u8; // No rules to pick: one preset.
//! #     type State = (u32, u64);
//! #     type Event = ();
//! #     const INFO: GameInfo =
//! #         GameInfo { name: "counter", version: "1", sim_version: 1, fps: 60, presets: &["default"] };
//! #     fn preset(name: &str) -> Option<u8> { (name == "default").then_some(0) }
//! #     fn preset_name(_: &u8) -> Option<&'static str> { Some("default") }
//! #     fn start(seed: u64, _: &u8) -> (u32, u64) { (0, seed) }
//! #     fn step(s: &mut (u32, u64), inputs: [u8; 2], _: &mut Vec<()>) {
//! #         *s = (s.0 + 1, s.1 + u64::from(inputs[0]) + u64::from(inputs[1]));
//! #     }
//! #     fn frame(s: &(u32, u64)) -> u32 { s.0 }
//! #     fn checksum(s: &(u32, u64)) -> u128 { u128::from(s.0) << 64 | u128::from(s.1) }
//! # }
//!
//! let driver = Driver::<Counter, 2>::synctest(0, 0, 2)?; // Seed 0, rules 0, roll back 2 frames.
//! let mut game = Match::new(driver, Pacing::Unpaced, Some(120));
//! while game.next(std::time::Instant::now()) != Next::Over {
//!     game.advance([1, 2]); // Player 1 adds 1 a frame, player 2 adds 2.
//! }
//! let finished = game.finish();
//! assert!(matches!(finished.outcome, Outcome::Completed));
//! assert_eq!(*finished.driver.world(), (120, 3 * 120));
//! # Ok::<(), twinstar_netcode::session::SessionError>(())
//! ```
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
//!   [`GameInput`], [`Frame`], [`FieldDiff`]), a checksum's text form
//!   ([`hex_checksum`]), a room's code ([`RoomCode`]), and
//!   [`route_panics_from`] for a game's own threads;
//! - [`connect`]: from a room code to a connection, for a player or a
//!   spectator, polled so a window can draw progress;
//! - [`session`]: a match of a [`Game`] under GGRS: synctest, local play,
//!   online against a peer (pause, reconnect, rejoin, chat), watching; the
//!   match lifecycle and its summary; the evidence of a desync;
//! - [`replay`]: input logs of any game that re-simulate bit for bit;
//! - [`signaling`]: what a client asks the signaling server outside a
//!   match: the public rooms, the ICE servers, ranked replays and boards;
//! - [`tickets`]: where a player's rejoin tickets are kept between runs.
//!
//! The parts inside (the handshake and room machines, the control
//! protocol, the GGRS socket, the link simulator's insides, catch-ups, the
//! background tasks) are private. What tests, fuzz targets and debug flags
//! need of them is in one module, [`testing`], which has no semver promise.
//! There is one API: twinstar's own frontends use only what is listed in
//! `public-api.txt` beside this crate's manifest, which the test command
//! checks.
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

#![deny(missing_docs)]
#![doc = concat!("```\n", include_str!("../doc/pong.rs"), include_str!("../doc/pong_main.rs"), "```")]

// The crate's inner modules: what a game needs of them is exported by the
// public modules below; what only tests, fuzz targets and debug flags
// need, by [`testing`].
mod checksum;
mod game;
mod input_runs;
mod names;
mod net;
mod panics;
mod tasks;
mod visibility;

pub mod connect;
pub mod replay;
pub mod session;
pub mod signaling;
pub mod testing;
pub mod tickets;

pub use checksum::hex_checksum;
pub use game::{FieldDiff, Game};
pub use panics::route_panics_from;
// A room's code: what a player reads aloud, what [`connect`] meets by and
// what [`signaling`]'s room lists show.
pub use twinstar_signaling_protocol::{RoomCode, RoomCodeError};

// The game's contract and a frame's number are the replay format's (a
// replay re-simulates by them, and a server re-simulates without the
// netcode): the same names here.
pub use twinstar_replay_format::{Frame, GameInfo, GameInput};

// The game the tests play: the replay format's (feature `test-game`).
#[cfg(test)]
pub(crate) use twinstar_replay_format::test_game;
