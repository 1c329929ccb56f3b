//! Hooks for tests, fuzz targets and debug flags: the crate's insides that
//! a game's match never needs but its tests do (a driver stepped without
//! its match around it, a connection that claims
//! another protocol version, the control protocol's
//! encoding, the handshake machine, the GGRS socket over an in-memory
//! channel, catch-up encoding, the chat's flood limits, the signaling
//! client's error classification).
//!
//! **No semver promise**: anything here may change or go in any release.
//! A game's match needs none of it; twinstar's own tests and fuzz targets
//! (`tests/`, `fuzz/`), its diagnostic examples and one hidden debug flag
//! its tests drive (`--debug-protocol-skew`) do. The debug flags a
//! game may offer its users to make the link worse on purpose are not
//! here: [`LinkConfig`](crate::connect::LinkConfig) is part of
//! [`ConnectOptions`](crate::connect::ConnectOptions).

/// A connection (a player's [`ConnectOptions`](crate::connect::ConnectOptions)
/// or a spectator's [`WatchOptions`](crate::connect::WatchOptions)) that
/// claims a protocol version `by` above its own: what a build of another
/// version sends, for tests of the refusal both sides give.
pub fn skew_protocol(options: &mut impl ProtocolSkew, by: u32) {
    *options.skew() = by;
}

/// The options [`skew_protocol`] takes.
pub trait ProtocolSkew {
    /// The skew's field.
    fn skew(&mut self) -> &mut u32;
}

impl ProtocolSkew for crate::net::connect::ConnectOptions {
    fn skew(&mut self) -> &mut u32 {
        &mut self.protocol_skew
    }
}

impl ProtocolSkew for crate::net::watch::WatchOptions {
    fn skew(&mut self) -> &mut u32 {
        &mut self.protocol_skew
    }
}

/// Runs one frame of `driver` alone, without the match's lifecycle
/// around it (pacing, the end, the verdict: [`Match::advance`] is a game's
/// way to step): its report, or the error that would end the match. For
/// tests that step a synctest or local driver frame by frame.
///
/// [`Match::advance`]: crate::session::Match::advance
pub fn advance<G: crate::Game<N>, const N: usize>(
    driver: &mut crate::session::Driver<G, N>,
    inputs: [G::Input; N],
) -> Result<crate::session::FrameReport<G, N>, crate::session::SessionError> {
    driver.advance(inputs)
}

/// Debug aid: from frame `from` on, each simulation of a frame perturbs
/// the world differently, as a non-deterministic bug would. A synctest must
/// catch it, and an online match ends in a desync report; tests prove both
/// (a game's hidden `--inject-desync` flag drives it). Offline: the driver
/// of a match not begun yet. Online: see [`inject_desync_online`].
pub fn inject_desync<G: crate::Game<N>, const N: usize>(
    driver: crate::session::Driver<G, N>,
    from: crate::Frame,
) -> crate::session::Driver<G, N> {
    driver.inject_desync_from(from)
}

/// [`inject_desync`] for an online match, on this peer's side only.
pub fn inject_desync_online(options: &mut crate::session::OnlineOptions, from: crate::Frame) {
    options.inject_desync_from = Some(from);
}

/// Debug aid: this peer sends `per_second` garbage datagrams a second on
/// the GGRS channel, for tests that the peer shrugs them off.
pub fn send_garbage(options: &mut crate::session::OnlineOptions, per_second: u32) {
    options.garbage_per_second = per_second;
}

/// Debug aid: a player ([`OnlineOptions`](crate::session::OnlineOptions))
/// or a spectator ([`SpectatorOptions`](crate::session::SpectatorOptions))
/// sends `per_second` chat messages a second, mostly junk, for tests of
/// the other side's flood limits.
pub fn flood_chat(options: &mut impl ChatFlood, per_second: u32) {
    *options.flood() = per_second;
}

/// The options [`flood_chat`] takes.
pub trait ChatFlood {
    /// The flood's field.
    fn flood(&mut self) -> &mut u32;
}

impl ChatFlood for crate::session::OnlineOptions {
    fn flood(&mut self) -> &mut u32 {
        &mut self.chat_flood_per_second
    }
}

impl ChatFlood for crate::session::SpectatorOptions {
    fn flood(&mut self) -> &mut u32 {
        &mut self.chat_flood_per_second
    }
}

/// The most players a match may have (the const parameter `N`'s bound).
pub use crate::game::MAX_PLAYERS;

/// The control channel's messages (handshake, pause, chat, catch-up,
/// desync evidence) and their envelope.
pub mod protocol {
    pub use crate::net::protocol::{
        Claim, DesyncState, Hello, MAX_MESSAGE_BYTES, Message, PROTOCOL_VERSION, Watch, decode,
        encode,
    };
}

/// The handshake's machine: latency probes, the input delay, the agreement.
pub mod handshake {
    pub use crate::net::handshake::{Agreement, Handshake};
}

/// GGRS's socket over any packet channel, an in-memory pair of channels,
/// and GGRS's datagrams as bytes.
pub mod socket {
    /// What the link simulator did to the packets it carried.
    pub use crate::net::link_sim::LinkStats;
    pub use crate::net::socket::{
        ChannelClosed, GgrsSocket, MemoryChannel, PacketChannel, SocketStats, decode, encode,
        memory_pair,
    };
}

/// Rejoin tickets and the catch-up a rejoining player receives.
pub mod rejoin {
    pub use crate::net::protocol::chunk::Chunk;
    pub use crate::net::rejoin::{
        CatchUpReceiver, History, Ticket, encode_catch_up, encode_frames,
    };
}

/// The chat's machine and the slack it allows a peer's lines (the
/// limits a game needs are on [`ChatLine`](crate::session::ChatLine)).
pub mod chat {
    pub use crate::session::chat::{Action, Chat, ChatCounters, Command, NETWORK_SLACK};
}

/// The signaling client's insides: its websocket errors in words, its
/// socket builder, ICE servers as matchbox takes them.
pub mod signaling {
    pub use crate::net::ice::to_matchbox;
    pub use crate::net::signaling::{classify_socket_error, client_builder};
}
