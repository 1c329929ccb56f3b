//! twinstar's signaling server: pairs players by room code, serves the web
//! client, hands out ICE servers; probes (`/livez`, `/readyz`) and private
//! `/metrics`; ranked replays. A library: the
//! game's `twinstar serve` and its tests run it in process, and the
//! operators' binary, `twinstar-server` (crates/server), wraps it. It
//! depends on no game and on no desktop library (a game's replay verifier
//! comes in through [`ReplayVerifier`]); what it shares with clients is in
//! `twinstar_signaling_protocol`.
//!
//! The source is one folder per service; this file only declares them and
//! re-exports what other crates use:
//!
//! - `rooms/`: the [`Registry`] of rooms, seats and relaying (pure
//!   bookkeeping, unit-tested), one client's websocket (`connection`), its
//!   per-address limits, a room's own requests, the shared room
//!   [`directory`];
//! - `ranking/`: ranked replays ([`replays`]: `POST /replays`,
//!   `GET /replays/ID`, `GET /leaderboard`) behind a [`ReplayVerifier`] a
//!   game provides; [`boards`] ranks them, [`replay_store`] and
//!   [`redis_boards`] keep them;
//! - `config/`: the command line ([`cli`], `ServeArgs`) and the config
//!   file ([`config_file`]), checked and run;
//! - `ops/`: `/metrics`, the probes, the [`logs`] format, the reports file;
//! - `http/`: the routes around the registry, binding and serving (over
//!   [`tls`] too), the ICE servers ([`turn`]) and the web client, served on
//!   plain HTTP `GET`s by the same server.
//!
//! Speaks matchbox's signaling protocol from our own axum routes ([`bind`],
//! [`serve`]): matchbox's full-mesh topology lets any number of peers into a
//! room, we need rooms of two, and its server builder can neither bound a
//! websocket's memory, check liveness, nor serve TLS.
//!
//! - `ws://HOST:PORT/K7Q2XM` joins room K7Q2XM (any spelling `RoomCode`
//!   parses; the canonical form is the room). The first two get in; a third
//!   is refused with HTTP 409 *before* the websocket upgrade.
//! - `ws://HOST:PORT/watch-K7Q2XM` watches room K7Q2XM: up to
//!   [`MAX_SPECTATORS`] spectators beside the two players (the next is
//!   refused with 409). A spectator is introduced only to the room's first
//!   player, once both players are in; never to the other player, nor to
//!   another spectator ([`Registry`] keeps the rule).
//! - `ws://HOST:PORT/` or `/quick` is a quick match: paired with the next
//!   client that also asked for one.
//! - A player may add `?seat=TOKEN` ([`SeatToken`]): a later connection with
//!   the same token takes that seat back at once (see `SeatToken`).
//! - Anything else is refused with HTTP 400.
//! - A plain `GET` (no websocket upgrade) is no client: `/` answers with the
//!   web client's page when the server has one, see [`WebClient`]. Its players
//!   open `http://HOST:PORT/#K7Q-2XM` (`browser_link` in the game).
//!
//! Why refuse before the upgrade: after it, stock matchbox clients have no
//! way to learn why the server closed (a close frame ends their socket
//! future with `Ok(())`), while a refused upgrade surfaces on the client as a
//! `tungstenite::Error::Http` carrying our status and body, which
//! the game's `classify_socket_error` turns into "room CODE is full".
//!
//! The admission check and the join are separate steps (the HTTP request,
//! then a task after the upgrade), so admission *reserves* a
//! seat under the same lock that counts the members; two clients racing for
//! the last seat cannot both get it. A reservation whose upgrade never
//! completes expires after [`RESERVATION_TTL`].

mod config;
mod http;
mod ops;
mod ranking;
mod rooms;

pub use config::{cli, config_file};
pub use http::reply::refusal_status;
pub use http::{tls, turn};
pub use ops::logs;
pub use ranking::{boards, redis_boards, replay_store, replays};
pub use rooms::directory;

pub use http::server::{
    BoundServer, DEFAULT_DRAIN_TIMEOUT, DEFAULT_HANDSHAKE_TIMEOUT, RoomState, ServeOptions,
    ServerError, bind, bind_with, serve,
};
pub use http::web::{WEB_DIR_ENV, WEB_FILES, WebClient, WebError, respond};
pub use ops::metrics::{RoomCounts, sample};
pub use ops::metrics_access::{DEFAULT_METRICS_PORT, MIN_TOKEN_CHARS, MetricsAccess, MetricsToken};
pub use ranking::replay_routes::MAX_UPLOAD_BYTES;
pub use ranking::replays::{ReplayVerifier, VerifiedReplay, VerifierPool};
pub use rooms::connection::DEFAULT_IDLE_TIMEOUT;
pub use rooms::limits::DEFAULT_MAX_PER_ADDRESS;
pub use rooms::registry::{HostedMatch, Registry, RelayError};
pub use twinstar_signaling_protocol::*;
