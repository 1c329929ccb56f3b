//! Meeting the other player, or watching them: from a room code to a
//! connection that [`crate::session::Driver`] turns into a match.
//!
//! A [`Connector`] does one attempt for a seat: a player's
//! ([`PlayerSeat`], given [`ConnectOptions`]: the room, the server, the seed
//! the host offers, rejoin tickets) or a spectator's ([`SpectatorSeat`],
//! given [`WatchOptions`]). It runs on its own in the background from
//! [`Connector::start`] (every millisecond, so latency probes are answered
//! on time whatever its owner does); a window asks it for its [`Status`]
//! and [`Connector::poll`]s for the outcome once a frame, a headless run
//! [`Connector::wait`]s for it.
//! What it yields, a [`Connection`] or a [`WatchConnection`], goes whole to
//! [`Driver::online`](crate::session::Driver::online) or
//! [`Driver::watch`](crate::session::Driver::watch).
//!
//! Across NATs the peers need STUN and TURN servers ([`IceServers`] in
//! [`ConnectOptions::ice`]); a twinstar server hands out its own at
//! `GET /ice`, which [`ice_servers_of`] asks for (natively).
//!
//! [`LinkConfig`] makes the link worse on purpose (delay, jitter, loss, an
//! [`Outage`], or a recorded [`LinkTrace`]) to test a game on a bad network; [`NetRuntime`] is where the
//! connection's background work runs (threads natively, the page's event
//! loop in the browser).

/// The STUN and TURN servers the signaling server at `server` (`ws://` or
/// `wss://`) offers its players, with a TURN credential minted for this
/// one (`GET /ice` of a `twinstar serve`). `Ok(None)`: it offers none (a
/// LAN server, an older one). Natively; it blocks for one HTTP request.
#[cfg(not(target_arch = "wasm32"))]
pub fn ice_servers_of(server: &str) -> Result<Option<IceServers>, String> {
    match crate::net::signaling::native_client::fetch_ice_offer(server)? {
        Some(offer) => offer
            .into_servers()
            .map(Some)
            .map_err(|e| format!("{server}: the ICE servers it offers do not check: {e}")),
        None => Ok(None),
    }
}
pub use crate::net::connect::{
    ConnectError, ConnectOptions, Connection, Connector, FailedAttempt, Lobby, Meeting, Offer,
    PlayerConnector, PlayerSeat, Rejoin, Seat, SimulatedLink, Stage, StageLog, Status,
};
pub use crate::net::delay::{DelaySetting, MAX_INPUT_DELAY};
pub use crate::net::handshake::Role;
pub use crate::net::ice::{IceServers, TurnServer};
pub use crate::net::link_sim::{LinkConfig, LinkConfigError, Outage};
pub use crate::net::link_trace::{
    LINK_TRACE_VERSION, LinkSample, LinkTrace, LinkTraceError, SAMPLE_MS as LINK_TRACE_SAMPLE_MS,
};
/// Why a handshake failed ([`ConnectError::Handshake`]), and why a control
/// message did not decode.
pub use crate::net::protocol::HandshakeError;
/// Why a rejoin's catch-up (the match so far) was refused
/// ([`ConnectError::CatchUp`]), and why a batch of its messages was.
pub use crate::net::rejoin::{CatchUpError, CatchUpReadError};
pub use crate::net::signaling::JoinError;
pub use crate::net::watch::{SpectatorSeat, WatchConnection, WatchOptions};
pub use crate::tasks::{MaybeSend, NetRuntime};
/// ICE servers as one of [`IceServers::entry`]'s entries, and why servers
/// given (flags, a server's offer) do not check.
pub use twinstar_signaling_protocol::{IceEntry, IceError};
