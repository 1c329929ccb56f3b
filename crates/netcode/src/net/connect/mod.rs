//! From a room code to a connection, for a player (an agreed match:
//! signaling, the WebRTC connection, the handshake; `player`) or a
//! spectator (the streaming player's answer; `net::watch`): one
//! [`Connector`], the seat it asks for as data. [`Connector::poll`] is
//! non-blocking and reports the stage it is in, so a window can draw
//! progress while a headless run just polls in a loop; control stays with
//! the caller.

mod attempt;
mod connector;
mod player;
mod transport;

use std::fmt;
use web_time::{Duration, Instant};

use matchbox_socket::{CandidateType, PeerId, WebRtcChannel};

use super::control::ControlChannel;
use super::delay::DelaySetting;
use super::handshake::{Agreement, Claim, HandshakeError, Role};
use super::ice::IceServers;
use super::link_sim::LinkConfig;
use super::rejoin::{CatchUpError, CatchUpReadError, History};
use super::room::Room;
use super::room_code::RoomCode;
use super::signaling::{ClientQuery, JoinError, PlayerName, SeatToken, VersionTag, room_url};
use crate::tasks::NetRuntime;
use crate::{Frame, GameInfo};
pub(crate) use attempt::RoomLink;
pub use connector::{Connector, PlayerConnector};
pub use player::PlayerSeat;
pub(crate) use transport::{Channels, Transport};

/// Channel 0 carries the handshake and control messages, reliably and in order.
pub(crate) const CONTROL_CHANNEL: usize = 0;
/// Channel 1 carries GGRS: unreliable and unordered, like UDP.
pub(crate) const GGRS_CHANNEL: usize = 1;
/// Longest wait for the signaling server to accept us ("server unreachable"
/// must be reported within 10 s).
pub(crate) const SIGNALING_TIMEOUT: Duration = Duration::from_secs(8);

/// Where a connection attempt is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Reaching the signaling server.
    Signaling,
    /// In the room, waiting for the other player and a WebRTC path to them.
    Connecting,
    /// Connected; handshake and latency probe running.
    Measuring,
    /// Rejoining a paused match: receiving the match so far.
    CatchingUp,
    /// A spectator in the room: the server introduces it to a player once
    /// both players are in.
    WaitingForPlayers,
    /// A spectator connected to a player, asking it for the match.
    Asking,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stage::Signaling => "contacting the signaling server",
            Stage::Connecting => "waiting for the other player",
            Stage::Measuring => "measuring latency",
            Stage::CatchingUp => "catching up on the match",
            Stage::WaitingForPlayers => "waiting for both players to be in the room",
            Stage::Asking => "asking the players for the match",
        })
    }
}

/// Logs each new [`Stage`] of a connect once, as it is reached (in the
/// browser's console these lines are the connect's timeline).
#[derive(Debug, Default)]
pub struct StageLog(Option<Stage>);

impl StageLog {
    /// Logs `stage` if it is not the one logged last.
    pub fn note(&mut self, stage: Stage) {
        if self.0 != Some(stage) {
            self.0 = Some(stage);
            tracing::info!("{stage}");
        }
    }
}

/// A player reached the room but left again before a WebRTC path to it
/// opened: what a joiner behind a strict NAT does when its own timeout ends.
/// The connector keeps waiting in the room; this is what it can tell its
/// user meanwhile (a window's host screen, a line on stderr).
///
/// matchbox reports nothing while a peer's connection is being negotiated,
/// only `Disconnected` for a peer that leaves the room; a peer that was never
/// `Connected` leaving is the sign that no path could be opened (or that the
/// other player cancelled early: from here the two look the same).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailedAttempt {
    /// The room's code; `None` in a quick match.
    pub room: Option<RoomCode>,
    /// Players who came and went without a connection, so far.
    pub count: u32,
    /// When the last one left, counted from the start of the attempt.
    pub after: Duration,
}

impl fmt::Display for FailedAttempt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a player reached {} but no direct network path could be opened (behind strict NATs, pass a relay with --turn); still waiting",
            place(self.room.as_ref())
        )
    }
}

/// What a player's connection attempt asks for ([`ConnectOptions::new`]
/// fills the usual defaults), in groups: where to meet, what this side
/// offers, how the lobby shows it, a rejoin, the network's settings.
#[derive(Clone, Debug)]
pub struct ConnectOptions {
    /// The game played: checked at the handshake.
    pub game: GameInfo,
    /// Where the players meet: the server, the room, the role, the seat.
    pub meeting: Meeting,
    /// What this side offers for the match (the host's offer is played).
    pub offer: Offer,
    /// How the server's room list and quick match see this player.
    pub lobby: Lobby,
    /// A match this player left in the room and may rejoin.
    pub rejoin: Rejoin,
    /// STUN and TURN servers for ICE: none by default (host candidates:
    /// enough on a LAN or loopback; twinstar fills in the server's `GET /ice`).
    pub ice: IceServers,
    /// Give up when no match is agreed by then.
    pub timeout: Duration,
    /// A simulated bad link on this peer's sends (pass-through by default).
    pub link: SimulatedLink,
    /// Debug aid for tests ([`crate::testing::skew_protocol`]): claim
    /// another protocol version.
    pub(crate) protocol_skew: u32,
}

/// Where the players meet.
#[derive(Clone, Debug)]
pub struct Meeting {
    /// `ws://host:port`, without a room path.
    pub server: String,
    /// `None`: quick match.
    pub room: Option<RoomCode>,
    /// Host, join or quick match: decides who is player 1.
    pub role: Role,
    /// This player's seat token (`signaling::seat`): a reconnect presents
    /// the same one and takes its seat back from the stale connection.
    pub seat: Option<SeatToken>,
}

/// What this side offers for the match: the host's offer is played.
#[derive(Clone, Debug)]
pub struct Offer {
    /// The seed.
    pub seed: u64,
    /// The rule preset, one of [`GameInfo::presets`](crate::GameInfo::presets).
    pub preset: String,
    /// How the input delay is chosen: measured (the default), fixed, or by table.
    pub delay: DelaySetting,
}

/// How the server's room list and quick match see this player.
#[derive(Clone, Debug, Default)]
pub struct Lobby {
    /// The player's display name, for the server's room list.
    pub name: Option<PlayerName>,
    /// A host's room is listed in the server's `GET /rooms` (with `name`).
    pub public: bool,
    /// Quick match: the best wave this player reached online; the server
    /// prefers partners close in it and in `rtt_ms`.
    pub level: Option<u32>,
    /// Quick match: this player's round trip to the server, in milliseconds.
    pub rtt_ms: Option<u32>,
    /// Quick match: pair only with a player who names the same challenge
    /// (twinstar's daily challenge is `daily-YYYY-MM-DD`: both players then
    /// offer that day's seed).
    pub challenge: Option<VersionTag>,
}

/// A match this player left in the room and may rejoin
/// ([`ConnectOptions::rejoin_from`] fills it from the machine's tickets).
#[derive(Clone, Debug, Default)]
pub struct Rejoin {
    /// The matches' claims (match id, seat).
    pub claims: Vec<Claim>,
    /// The frames of that match this player confirmed (a live player
    /// reconnecting; 0 after a crash).
    pub confirmed: Frame,
}

/// A simulated bad link on this peer's sends, seeded so that it replays.
#[derive(Clone, Debug, Default)]
pub struct SimulatedLink {
    /// Latency, jitter, loss, outages, or a recorded trace.
    pub config: LinkConfig,
    /// Seeds the simulation's randomness (loss, jitter).
    pub seed: u64,
}

impl ConnectOptions {
    /// A player of `game` asking `server` (`ws://host:port`) for a seat
    /// in `room` (`None`: quick match) as `role`, with what a game that
    /// names nothing else wants: the game's first preset, the automatic
    /// input delay, a plain link, no ICE servers beyond the host's own
    /// addresses (what a LAN or loopback needs; set `ice` for the
    /// internet), a seat token of its own for reconnecting, and a timeout
    /// of 10 minutes for a host, 20 s for anyone else.
    pub fn new(
        game: GameInfo,
        server: &str,
        room: Option<RoomCode>,
        role: Role,
        seed: u64,
    ) -> Self {
        let timeout = match role {
            Role::Host => Duration::from_secs(600),
            Role::Join | Role::Quick => Duration::from_secs(20),
        };
        let preset = game.presets.first().copied().unwrap_or("default");
        ConnectOptions {
            game,
            meeting: Meeting {
                server: server.to_string(),
                seat: room.is_some().then(SeatToken::random),
                room,
                role,
            },
            offer: Offer {
                seed,
                preset: preset.to_string(),
                delay: DelaySetting::Auto,
            },
            lobby: Lobby::default(),
            rejoin: Rejoin::default(),
            ice: IceServers::default(),
            timeout,
            link: SimulatedLink {
                config: LinkConfig::default(),
                seed: seed ^ role as u64,
            },
            protocol_skew: 0,
        }
    }
}

/// Why a connection attempt ended without a match: each says what the player can do.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The signaling server refused us (full room, bad code, version, ...).
    #[error(transparent)]
    Join(#[from] JoinError),
    /// The handshake failed (another version of the game, other rules, ...).
    #[error(transparent)]
    Handshake(#[from] HandshakeError),
    /// The signaling server did not answer in time.
    #[error("could not reach the signaling server at {server} within {secs} s")]
    SignalingTimeout {
        /// The server's URL.
        server: String,
        /// Seconds waited.
        secs: u64,
    },
    #[error(
        "no connection to another player in {} after {secs} s: nobody joined, or there is no direct network path between you (behind strict NATs, pass a relay with --turn)",
        place(room.as_ref())
    )]
    /// Nobody reachable joined the room in time.
    NoPeer {
        /// The room's code; `None` in a quick match.
        room: Option<RoomCode>,
        /// Seconds waited.
        secs: u64,
    },
    #[error(
        "nobody in {} after {secs} s: the match you left there is no longer waiting for you (its reconnect window ended, or the other player left)",
        place(room.as_ref())
    )]
    /// The match this player tried to rejoin is no longer waiting.
    NothingToRejoin {
        /// The room's code; `None` in a quick match.
        room: Option<RoomCode>,
        /// Seconds waited.
        secs: u64,
    },
    #[error(
        "a match is already running in {}; ask the host for a new room code, or wait until that match ends",
        place(room.as_ref())
    )]
    /// The room already holds a running match.
    MatchRunning {
        /// The room's code; `None` in a quick match.
        room: Option<RoomCode>,
    },
    /// The other player went silent during the handshake.
    #[error("the other player stopped answering during the latency probe")]
    HandshakeTimeout,
    /// The other player left before the match was agreed.
    #[error("the other player left before the match started")]
    PeerLeft,
    /// A rejoin's catch-up (the match so far) could not be received or read.
    #[error("could not catch up on the paused match: {0}")]
    CatchUp(#[from] CatchUpError),
    /// No players to watch in the room in time.
    #[error("no match to watch in room {room} after {secs} s: both players must be in the room")]
    NothingToWatch {
        /// The room's code.
        room: RoomCode,
        /// Seconds waited.
        secs: u64,
    },
    /// The streaming player cannot serve this spectator (another version).
    #[error("{0}")]
    WatchRefused(String),
    /// The connection's background loop ended unexpectedly.
    #[error("the connection's event loop stopped unexpectedly")]
    LoopGone,
    /// The WebRTC stack failed inside matchbox's loop (which panics then).
    #[error("the WebRTC connection failed: {0}")]
    WebRtcFailed(String),
    /// [`Connector`]'s owner cancelled the attempt.
    #[error("cancelled before the match started")]
    Cancelled,
}

/// "room K7Q-2XM" or "the quick-match queue", for messages.
fn place(room: Option<&RoomCode>) -> String {
    match room {
        Some(code) => format!("room {code}"),
        None => "the quick-match queue".to_string(),
    }
}

impl From<CatchUpReadError> for ConnectError {
    fn from(e: CatchUpReadError) -> Self {
        match e {
            CatchUpReadError::Message(e) => e.into(),
            CatchUpReadError::CatchUp(e) => e.into(),
        }
    }
}

impl ConnectError {
    /// Refusals caused by what the user asked for (exit 2); the rest are
    /// runtime failures (exit 1).
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            ConnectError::Join(
                JoinError::RoomFull(_)
                    | JoinError::TooManySpectators(_)
                    | JoinError::Refused { .. }
                    | JoinError::Untrusted(_)
            ) | ConnectError::MatchRunning { .. }
                | ConnectError::WatchRefused(_)
                | ConnectError::Handshake(
                    HandshakeError::VersionMismatch { .. }
                        | HandshakeError::Malformed { .. }
                        | HandshakeError::Paused { .. }
                        | HandshakeError::NotThisMatch { .. }
                )
        )
    }
}

/// How the connected peer is reached, for the summary's `connection`.
pub(crate) fn connection_kind(remote: CandidateType) -> &'static str {
    match remote {
        CandidateType::Host => "host",
        CandidateType::ServerReflexive => "srflx",
        CandidateType::PeerReflexive => "prflx",
        CandidateType::Relay => "relay",
    }
}

/// A connected, agreed peer: everything the P2P session needs (a game of
/// `N` players whose inputs are `I`).
pub struct Connection<I, const N: usize> {
    pub(crate) ggrs_channel: WebRtcChannel,
    pub(crate) control: ControlChannel,
    pub(crate) peer: PeerId,
    pub(crate) agreement: Agreement,
    /// When each step of connecting ended (the summary's `connect_ms`
    /// counts from `times.started` to the first frame).
    pub(crate) times: ConnectTimes,
    /// Rejoining a paused match: the match so far, from the other player.
    pub(crate) history: Option<History<I, N>>,
    /// What this connection was made with (a reconnect reuses it).
    pub(crate) options: ConnectOptions,
    // Last: dropped after the channels above.
    pub(crate) transport: Transport,
}

impl<I, const N: usize> Connection<I, N> {
    /// This machine's player: 0 for the host's seat, 1 for the joiner's
    /// (the index of its input in [`crate::Game::step`]).
    pub fn local_player(&self) -> usize {
        self.agreement.local_handle
    }

    /// The room the match was agreed in (`None` on a direct connection).
    pub fn room(&self) -> Option<&RoomCode> {
        self.options.meeting.room.as_ref()
    }

    /// Rejoining a paused match: how many of its frames this connection
    /// brought from the other player, to be re-simulated before play
    /// resumes. `None` for a new match.
    pub fn catching_up(&self) -> Option<Frame> {
        self.history.as_ref().map(|history| history.frames)
    }

    /// The match's seed, as the peers agreed it (the host's offer).
    pub fn seed(&self) -> u64 {
        self.agreement.seed
    }
}

/// When each step of a player's connecting ended: the summary breaks its
/// `connect_ms` down with these ([`crate::session::ConnectBreakdown`]).
#[derive(Clone, Copy, Debug)]
pub struct ConnectTimes {
    /// The attempt began: the signaling websocket opens.
    pub started: Instant,
    /// The signaling server gave us our id (we are in the room).
    pub signaled: Option<Instant>,
    /// The partner's data channel opened: waiting for it to arrive, ICE,
    /// DTLS and the channels' opening.
    pub channel_open: Option<Instant>,
    /// The handshake agreed (and a rejoiner's catch-up arrived).
    pub agreed: Instant,
}

/// What a connection asks the room for, and the state of asking: a
/// player's seat ([`PlayerSeat`]: the handshake, a rejoin's catch-up) or
/// a spectator's (`net::watch::SpectatorSeat`: `Watch` until
/// `Streaming`). The [`Connector`] around a seat owns the room's socket
/// until the connection takes it; the seat decides everything else.
///
/// A game names it as a bound (`fn f<S: Seat>(c: Connector<S>) ->
/// S::Connection`); only this crate's two seats implement it (sealed).
pub trait Seat: Sized + sealed::Sealed {
    /// What the seat is given: [`ConnectOptions`] or `WatchOptions`.
    type Options;
    /// What the seat yields: a [`Connection`] or a `WatchConnection`.
    type Connection;
    /// What a waiting screen shows.
    fn status(&self) -> Status;
    /// The signaling server the seat meets at.
    fn server(&self) -> &str;
    /// The room the seat asks for (`None`: quick match).
    fn room(&self) -> Option<&RoomCode>;
}

/// Keeps [`Seat`] to this crate's seats, and holds what only a
/// [`Connector`] calls: how a seat opens its room and steps.
pub(crate) mod sealed {
    use matchbox_socket::WebRtcChannel;
    use web_time::Instant;

    use super::{ConnectError, IceServers, RoomLink, Seat};

    /// Implemented by `PlayerSeat` and `SpectatorSeat` only.
    // A sealed trait's methods are unreachable from outside the crate, so
    // the crate's own types in them are not part of the public interface.
    #[allow(private_interfaces)]
    pub trait Sealed {
        /// The room URL the seat connects to.
        fn url(options: &<Self as Seat>::Options) -> String
        where
            Self: Seat;
        /// The STUN and TURN servers the seat's socket uses.
        fn ice(options: &<Self as Seat>::Options) -> &IceServers
        where
            Self: Seat;
        /// The seat, with the socket's two channels (taken at the start).
        fn new(
            options: <Self as Seat>::Options,
            control: Option<WebRtcChannel>,
            ggrs: Option<WebRtcChannel>,
        ) -> Self
        where
            Self: Seat;
        /// One poll; the connection once there is one.
        fn step(
            &mut self,
            link: &mut RoomLink,
            now: Instant,
        ) -> Result<Option<<Self as Seat>::Connection>, ConnectError>
        where
            Self: Seat;
    }
}

/// Where an attempt is, for a waiting screen or a log line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// Where the attempt is.
    pub stage: Stage,
    /// Latency probes done (a player's handshake)...
    pub probes: u32,
    /// ...of this many (more once the first leave the delay in doubt; a
    /// spectator's, none).
    pub probes_wanted: u32,
    /// A player came and went without a path (a player's seat).
    pub failed_attempt: Option<FailedAttempt>,
}

/// A player's control channel over `channel`, driven by `room`, through
/// the simulated link if `options` set one.
pub(crate) fn player_control(
    channel: WebRtcChannel,
    room: Room<PeerId>,
    options: &ConnectOptions,
) -> ControlChannel {
    ControlChannel::new(
        channel,
        room,
        options.link.config.clone(),
        options.link.seed ^ 0x0C01_7201,
    )
}

/// A player's room URL, with its seat token and, for a room, what the
/// server's room list shows (the name, the version, whether to list it);
/// for a quick match the version, so the server pairs only builds that
/// can play together.
pub(crate) fn seat_url(options: &ConnectOptions) -> String {
    let url = room_url(&options.meeting.server, options.meeting.room.as_ref());
    let query = if options.meeting.room.is_none() {
        ClientQuery {
            version: Some(super::protocol::version_tag(&options.game)),
            level: options.lobby.level,
            rtt_ms: options.lobby.rtt_ms,
            challenge: options.lobby.challenge.clone(),
            ..ClientQuery::default()
        }
    } else {
        ClientQuery {
            seat: options.meeting.seat,
            public: options.lobby.public && options.lobby.name.is_some(),
            name: options.lobby.name.clone(),
            version: (options.lobby.name.as_ref())
                .map(|_| super::protocol::version_tag(&options.game)),
            ..ClientQuery::default()
        }
    };
    match query.to_query() {
        Some(query) => format!("{url}?{query}"),
        None => url,
    }
}

/// A player's transport in its room (with its seat token), its message
/// loop started on `runtime`, and its two channels.
pub(crate) fn open_room_socket(
    runtime: NetRuntime,
    options: &ConnectOptions,
) -> (Transport, Channels) {
    Transport::open(runtime, &seat_url(options), &options.ice)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::signaling::SEAT_PARAM;
    use crate::test_game::GAME;

    fn options(room: Option<&str>, seat: Option<SeatToken>) -> ConnectOptions {
        let room = room.map(|r| RoomCode::parse(r).unwrap());
        let mut options = ConnectOptions::new(GAME, "wss://play.example.org/", room, Role::Join, 1);
        options.meeting.seat = seat;
        options.lobby.level = Some(7);
        options.lobby.rtt_ms = Some(23);
        options.lobby.challenge = Some(VersionTag::parse("daily-2026-11-28").unwrap());
        options
    }

    /// A player's seat token rides on its room's URL (so a reconnect takes
    /// the seat back); the quick-match queue has no seats to take back.
    #[test]
    fn a_seat_token_is_asked_for_in_a_room_only() {
        let token = SeatToken::random();
        assert_eq!(
            seat_url(&options(Some("K7Q-2XM"), Some(token))),
            format!("wss://play.example.org/K7Q2XM?{SEAT_PARAM}={token}")
        );
        assert_eq!(
            seat_url(&options(Some("K7Q-2XM"), None)),
            "wss://play.example.org/K7Q2XM"
        );
        let quick = seat_url(&options(None, Some(token)));
        assert!(!quick.contains(SEAT_PARAM), "{quick}");
        let asked = ClientQuery::parse(quick.split_once('?').map(|(_, q)| q)).unwrap();
        assert_eq!(
            asked.version,
            Some(crate::net::protocol::version_tag(&GAME)),
            "a quick match says its version: {quick}"
        );
        assert_eq!(
            (asked.level, asked.rtt_ms),
            (Some(7), Some(23)),
            "and its level and round trip: {quick}"
        );
        assert_eq!(
            asked.challenge.as_ref().map(VersionTag::as_str),
            Some("daily-2026-11-28"),
            "and the challenge it wants: {quick}"
        );
        let room = seat_url(&options(Some("K7Q-2XM"), None));
        assert!(!room.contains("level"), "a room has no ticket: {room}");
        assert!(!room.contains("challenge"), "a room's host picks: {room}");
    }

    /// A named host asking for a public room says so, with its name and
    /// version, in what the server parses; a name alone lists nothing.
    #[test]
    fn a_public_host_names_itself_and_its_version_in_the_room_url() {
        let mut public = options(Some("K7Q-2XM"), None);
        public.lobby.name = Some(PlayerName::parse("Ana María").unwrap());
        public.lobby.public = true;
        let url = seat_url(&public);
        let query = url.split_once('?').map(|(_, q)| q);
        let parsed = ClientQuery::parse(query).unwrap();
        assert!(parsed.public, "{url}");
        assert_eq!(parsed.name, public.lobby.name);
        assert_eq!(
            parsed.version,
            Some(crate::net::protocol::version_tag(&GAME))
        );
        public.lobby.public = false;
        let named = ClientQuery::parse(seat_url(&public).split_once('?').map(|(_, q)| q)).unwrap();
        assert!(!named.public);
    }

    /// The waiting screen's words for each stage, players' and spectators'.
    #[test]
    fn every_stage_reads_as_words() {
        let stages = [
            Stage::Signaling,
            Stage::Connecting,
            Stage::Measuring,
            Stage::CatchingUp,
            Stage::WaitingForPlayers,
            Stage::Asking,
        ];
        let words: std::collections::HashSet<String> =
            stages.iter().map(ToString::to_string).collect();
        assert_eq!(words.len(), stages.len(), "two stages read alike");
    }
}
