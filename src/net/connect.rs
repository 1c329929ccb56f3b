//! From a room code to an agreed match: signaling, the WebRTC connection,
//! and the handshake. [`Connector::poll`] is non-blocking and reports the
//! stage it is in, so a window can draw progress while a headless run just
//! polls in a loop; control stays with the caller.

use std::fmt;
use std::task::Poll;
use web_time::{Duration, Instant};

use matchbox_socket::{CandidateType, PeerId, PeerState, WebRtcChannel, WebRtcSocket};

use super::control::ControlChannel;
use super::delay::DelaySetting;
use super::handshake::{Agreement, Claim, HandshakeError, Hello, Role};
use super::ice::IceServers;
use super::link_sim::LinkConfig;
use super::protocol::phase::{CatchingUp, Heard};
use super::rejoin::{CatchUpError, CatchUpReceiver, History};
use super::room::{Output, Room};
use super::room_code::RoomCode;
use super::signaling::{
    JoinError, SEAT_PARAM, SeatToken, classify_socket_error, client_builder, room_url,
};
use super::task::{LoopEnd, LoopHandle, NetRuntime, poll_in_background};
use crate::sim::{Frame, PLAYERS};

/// Channel 0 carries the handshake and control messages, reliably and in order.
pub const CONTROL_CHANNEL: usize = 0;
/// Channel 1 carries GGRS: unreliable and unordered, like UDP.
pub const GGRS_CHANNEL: usize = 1;
/// Longest wait for the signaling server to accept us ("server unreachable"
/// must be reported within 10 s).
pub const SIGNALING_TIMEOUT: Duration = Duration::from_secs(8);

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
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stage::Signaling => "contacting the signaling server",
            Stage::Connecting => "waiting for the other player",
            Stage::Measuring => "measuring latency",
            Stage::CatchingUp => "catching up on the match",
        })
    }
}

/// Longest wait after a refusal for the peer to read our Hello and leave.
const REFUSAL_LINGER: Duration = Duration::from_millis(1500);
/// Longest stay after a `Busy` (see `linger_until_both_players_connected`):
/// connections open in well under a second on any link a match could use.
const BUSY_LINGER: Duration = Duration::from_secs(3);
/// How long after our end of a connection opens the far end may still be
/// opening its own (see ARCHITECTURE.md, "Reliable is not reliable at the
/// very start").
const FAR_END_OPENING: Duration = Duration::from_millis(300);

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
    /// "room K7Q-2XM", or "the quick-match queue".
    pub room: String,
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
            self.room
        )
    }
}

#[derive(Clone, Debug)]
pub struct ConnectOptions {
    /// `ws://host:port`, without a room path.
    pub server: String,
    /// `None`: quick match.
    pub room: Option<RoomCode>,
    pub role: Role,
    pub ice: IceServers,
    /// Give up when no match is agreed by then.
    pub timeout: Duration,
    pub seed: u64,
    pub preset: String,
    pub delay: DelaySetting,
    /// Simulated bad link on this peer's sends (pass-through by default).
    pub link: LinkConfig,
    pub link_seed: u64,
    /// Debug aid for tests: claim another protocol version.
    pub protocol_skew: u32,
    /// Matches this player left in this room and may rejoin (its tickets).
    pub rejoin: Vec<Claim>,
    /// With `rejoin`: the frames of that match this player confirmed (a
    /// live player reconnecting; 0 after a crash).
    pub confirmed: Frame,
    /// This player's seat token (`signaling::seat`): a reconnect presents
    /// the same one and takes its seat back from the stale connection.
    pub seat: Option<SeatToken>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error(transparent)]
    Join(#[from] JoinError),
    #[error(transparent)]
    Handshake(#[from] HandshakeError),
    #[error("could not reach the signaling server at {server} within {secs} s")]
    SignalingTimeout { server: String, secs: u64 },
    #[error(
        "no connection to another player in {room} after {secs} s: nobody joined, or there is no direct network path between you (behind strict NATs, pass a relay with --turn)"
    )]
    NoPeer { room: String, secs: u64 },
    #[error(
        "nobody in {room} after {secs} s: the match you left there is no longer waiting for you (its reconnect window ended, or the other player left)"
    )]
    NothingToRejoin { room: String, secs: u64 },
    #[error(
        "a match is already running in {room}; ask the host for a new room code, or wait until that match ends"
    )]
    MatchRunning { room: String },
    #[error("the other player stopped answering during the latency probe")]
    HandshakeTimeout,
    #[error("the other player left before the match started")]
    PeerLeft,
    #[error("could not catch up on the paused match: {0}")]
    CatchUp(#[from] CatchUpError),
    #[error("no match to watch in room {room} after {secs} s: both players must be in the room")]
    NothingToWatch { room: String, secs: u64 },
    /// The streaming player cannot serve this spectator (another version).
    #[error("{0}")]
    WatchRefused(String),
    #[error("the connection's event loop stopped unexpectedly")]
    LoopGone,
    #[error("cancelled before the match started")]
    Cancelled,
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
pub fn connection_kind(remote: CandidateType) -> &'static str {
    match remote {
        CandidateType::Host => "host",
        CandidateType::ServerReflexive => "srflx",
        CandidateType::PeerReflexive => "prflx",
        CandidateType::Relay => "relay",
    }
}

/// A connected, agreed peer: everything the P2P session needs.
pub struct Connection {
    /// Runs the WebRTC message loop; must outlive the socket.
    pub runtime: NetRuntime,
    pub socket: WebRtcSocket,
    pub message_loop: LoopHandle,
    pub ggrs_channel: WebRtcChannel,
    pub control: ControlChannel,
    pub peer: PeerId,
    pub agreement: Agreement,
    /// When the attempt started (the summary's `connect_ms` counts from here
    /// to the first frame).
    pub started: Instant,
    pub room: Option<RoomCode>,
    /// The signaling server's URL (`ws://host:port`).
    pub server: String,
    pub role: Role,
    pub link: LinkConfig,
    pub link_seed: u64,
    /// Rejoining a paused match: the match so far, from the other player.
    pub history: Option<History>,
    /// What this connection was made with (a reconnect reuses it).
    pub options: ConnectOptions,
}

pub struct Connector {
    runtime: Option<NetRuntime>,
    /// These move into the [`Connection`] at the end.
    socket: Option<WebRtcSocket>,
    message_loop: Option<LoopHandle>,
    control: Option<ControlChannel>,
    ggrs: Option<WebRtcChannel>,
    options: ConnectOptions,
    started: Instant,
    stage: Stage,
    /// The peer being heard, and since when (the probe's timeout).
    hearing: Option<(PeerId, Instant)>,
    failed_attempt: Option<FailedAttempt>,
    /// Refused or refusing: staying a moment before reporting `error`.
    leaving: Option<Leaving>,
    /// The partner and what was agreed with it.
    agreed: Option<(PeerId, Agreement)>,
    /// Rejoining: the match so far as it arrives, then all of it.
    catch_up: CatchUpReceiver,
    history: Option<History>,
}

/// After a refusal the connector stays a little (polled like the rest,
/// never blocking), so that both sides can explain it.
struct Leaving {
    until: Instant,
    wait_for: WaitFor,
    error: ConnectError,
}

enum WaitFor {
    /// Until our Hello has reached this peer and it has left (it refuses us
    /// too). Leaving at once raced with delivery.
    PeerToLeave(PeerId),
    /// Refused because a match is running (an uncapped server put us in a
    /// room with two players, and both open connections to us): until the
    /// connection to each player is open, plus a moment for the far end to
    /// open too. matchbox 0.15 panics in its message loop when a peer leaves
    /// while the handshake with it is still open ("Sender closed before
    /// channel was ready"), which takes that player's whole socket, and its
    /// match, down.
    BothPlayersConnected { all_open_at: Option<Instant> },
}

/// The latency probe must finish this soon after the peer connected.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

impl Connector {
    /// Opens the signaling connection on `runtime` (which the connection
    /// keeps). Does not block.
    pub fn start(runtime: NetRuntime, options: ConnectOptions) -> Connector {
        let (socket, message_loop, control, ggrs) = open_room_socket(&runtime, &options);
        let mut hello = Hello::new(options.role, options.seed, &options.preset, options.delay);
        hello.protocol += options.protocol_skew;
        hello.rejoin = options.rejoin.clone();
        hello.confirmed = options.confirmed;
        let control = control
            .map(|channel| player_control(channel, Room::seeking(hello, options.delay), &options));
        Connector {
            runtime: Some(runtime),
            socket: Some(socket),
            message_loop: Some(message_loop),
            control,
            ggrs,
            started: Instant::now(),
            stage: Stage::Signaling,
            hearing: None,
            failed_attempt: None,
            leaving: None,
            agreed: None,
            catch_up: CatchUpReceiver::after(options.confirmed),
            options,
            history: None,
        }
    }

    pub fn stage(&self) -> Stage {
        self.stage
    }

    /// Round trips measured so far, of [`super::handshake::PROBES`].
    pub fn probes_done(&self) -> u32 {
        self.control.as_ref().map_or(0, |c| c.room().probes_done())
    }

    pub fn options(&self) -> &ConnectOptions {
        &self.options
    }

    /// The last player who reached the room without a connection opening,
    /// if any; the connector is still waiting (see [`FailedAttempt`]).
    pub fn failed_attempt(&self) -> Option<&FailedAttempt> {
        self.failed_attempt.as_ref()
    }

    /// "room K7Q-2XM" or "the quick-match queue", for messages.
    fn room_name(&self) -> String {
        match &self.options.room {
            Some(code) => format!("room {code}"),
            None => "the quick-match queue".to_string(),
        }
    }

    /// A failed handshake as the user should read it.
    fn handshake_failed(&self, e: HandshakeError) -> ConnectError {
        match e {
            HandshakeError::MatchRunning => ConnectError::MatchRunning {
                room: self.room_name(),
            },
            e => e.into(),
        }
    }

    fn note_failed_attempt(&mut self, peer: PeerId) {
        let attempt = FailedAttempt {
            room: self.room_name(),
            count: self.failed_attempt.as_ref().map_or(0, |a| a.count) + 1,
            after: self.started.elapsed(),
        };
        tracing::warn!("{attempt} ({peer} left after no connection opened)");
        self.failed_attempt = Some(attempt);
    }

    /// Makes progress; `Ready` once, with the connection or the reason
    /// there is none.
    pub fn poll(&mut self) -> Poll<Result<Connection, ConnectError>> {
        match self.step() {
            Ok(true) => Poll::Ready(self.finish()),
            Ok(false) => Poll::Pending,
            Err(e) => Poll::Ready(Err(e)),
        }
    }

    /// One poll: the room hears what arrived and who came and went, then
    /// the connector acts on what it decided.
    fn step(&mut self) -> Result<bool, ConnectError> {
        let now = Instant::now();
        if self.leaving.is_some() {
            return self.keep_leaving(now);
        }
        let (changes, has_id) = poll_socket(
            self.socket.as_mut(),
            &mut self.message_loop,
            self.options.room.as_ref(),
        )?;
        let control = self.control.as_mut().ok_or(ConnectError::LoopGone)?;
        // Messages first: a peer that refused us (version mismatch) leaves
        // right after its Hello, which must be read before it is gone.
        control.pump();
        for (peer, state) in changes {
            control.peer_changed(peer, state);
        }
        let events = control.take_events();
        for event in events {
            self.on_event(event, now)?;
        }
        if self.leaving.is_some() {
            return Ok(false);
        }
        self.update_stage(now, has_id);
        self.check_timeouts(now)?;
        match &self.agreed {
            Some((_, agreement)) if agreement.rejoin => self.receive_catch_up(),
            Some(_) => Ok(true),
            None => Ok(false),
        }
    }

    /// Acts on what the room decided.
    fn on_event(&mut self, event: Output<PeerId>, now: Instant) -> Result<(), ConnectError> {
        match event {
            Output::Agreed(peer, agreement) => self.agreed = Some((peer, agreement)),
            // A busy peer plays on and never leaves; but its partner may
            // still be opening its connection to us.
            Output::Failed(_, HandshakeError::MatchRunning) => {
                let error = self.handshake_failed(HandshakeError::MatchRunning);
                let wait_for = WaitFor::BothPlayersConnected { all_open_at: None };
                self.leave_after(now + BUSY_LINGER, wait_for, error);
            }
            Output::Failed(peer, e) => {
                let error = self.handshake_failed(e);
                self.leave_after(now + REFUSAL_LINGER, WaitFor::PeerToLeave(peer), error);
            }
            Output::Malformed(_, e) => return Err(e.into()),
            Output::PartnerLeft(_) => {
                let outcome = self
                    .control
                    .as_ref()
                    .and_then(|c| c.room().candidate_outcome());
                return Err(match outcome {
                    Some(Err(e)) => self.handshake_failed(e.clone()),
                    _ => ConnectError::PeerLeft,
                });
            }
            Output::LeftUnconnected(peer) => self.note_failed_attempt(peer),
            _ => {}
        }
        Ok(())
    }

    /// Signaling until the server gives us an id; then connecting until a
    /// peer is heard, measuring while one is, catching up after a rejoin.
    fn update_stage(&mut self, now: Instant, has_id: bool) {
        let partner = self.control.as_ref().and_then(ControlChannel::partner);
        if partner != self.hearing.map(|(p, _)| p) {
            self.hearing = partner.map(|p| (p, now));
            if let Some(peer) = partner {
                tracing::info!("hearing {peer} after {:?}", self.started.elapsed());
            }
        }
        self.stage = match (self.stage, &self.agreed, partner) {
            (Stage::Signaling, ..) if !has_id => Stage::Signaling,
            (_, Some(_), _) => Stage::CatchingUp,
            (_, None, Some(_)) => Stage::Measuring,
            (_, None, None) => Stage::Connecting,
        };
    }

    fn check_timeouts(&self, now: Instant) -> Result<(), ConnectError> {
        let waited = now.duration_since(self.started);
        let room = self.room_name();
        match self.stage {
            Stage::Signaling if waited > SIGNALING_TIMEOUT => Err(ConnectError::SignalingTimeout {
                server: self.options.server.clone(),
                secs: SIGNALING_TIMEOUT.as_secs(),
            }),
            Stage::Connecting if waited > self.options.timeout => {
                let secs = self.options.timeout.as_secs();
                Err(if self.options.rejoin.is_empty() {
                    ConnectError::NoPeer { room, secs }
                } else {
                    ConnectError::NothingToRejoin { room, secs }
                })
            }
            Stage::Measuring | Stage::CatchingUp
                if self
                    .hearing
                    .is_some_and(|(_, since)| now.duration_since(since) > HANDSHAKE_TIMEOUT) =>
            {
                Err(ConnectError::HandshakeTimeout)
            }
            _ => Ok(()),
        }
    }

    /// Rejoining: the keeper's match so far, after the agreement.
    fn receive_catch_up(&mut self) -> Result<bool, ConnectError> {
        let control = self.control.as_mut().ok_or(ConnectError::LoopGone)?;
        for received in control.receive() {
            // The handshake's last probes.
            let Heard::Expected(message) = received?.heard_as::<CatchingUp>() else {
                continue;
            };
            match message {
                CatchingUp::CatchUp { chunks } => self.catch_up.add(&chunks)?,
                CatchingUp::CaughtUp { frame, checksum } => {
                    let received = std::mem::take(&mut self.catch_up);
                    self.history = Some(received.finish(frame, checksum)?);
                }
            }
        }
        Ok(self.history.is_some())
    }

    fn leave_after(&mut self, until: Instant, wait_for: WaitFor, error: ConnectError) {
        self.leaving = Some(Leaving {
            until,
            wait_for,
            error,
        });
    }

    /// One poll while leaving (see [`WaitFor`]); the refusal once done.
    fn keep_leaving(&mut self, now: Instant) -> Result<bool, ConnectError> {
        let done = self.leaving_done(now);
        match self.leaving.take() {
            Some(leaving) if done => Err(leaving.error),
            Some(leaving) => {
                self.leaving = Some(leaving);
                Ok(false)
            }
            None => Err(ConnectError::LoopGone),
        }
    }

    fn leaving_done(&mut self, now: Instant) -> bool {
        let (Some(leaving), Some(socket), Some(control)) = (
            &mut self.leaving,
            self.socket.as_mut(),
            self.control.as_mut(),
        ) else {
            return true;
        };
        if now >= leaving.until {
            return true;
        }
        let Ok(changes) = socket.try_update_peers() else {
            return true;
        };
        // Sends what is delayed, reads (and drops) what arrives.
        drop(control.receive());
        match &mut leaving.wait_for {
            WaitFor::PeerToLeave(peer) => changes.contains(&(*peer, PeerState::Disconnected)),
            WaitFor::BothPlayersConnected { all_open_at } => {
                for (peer, state) in changes {
                    control.peer_changed(peer, state);
                }
                drop(control.take_events());
                control.room().connected_count() >= PLAYERS
                    && now.duration_since(*all_open_at.get_or_insert(now)) >= FAR_END_OPENING
            }
        }
    }

    fn finish(&mut self) -> Result<Connection, ConnectError> {
        let (peer, agreement) = self.agreed.take().ok_or(ConnectError::LoopGone)?;
        let control = self.control.take().ok_or(ConnectError::LoopGone)?;
        let ggrs_channel = self.ggrs.take().ok_or(ConnectError::LoopGone)?;
        let runtime = self.runtime.take().ok_or(ConnectError::LoopGone)?;
        let message_loop = self.message_loop.take().ok_or(ConnectError::LoopGone)?;
        let socket = self.socket.take().ok_or(ConnectError::LoopGone)?;
        tracing::info!(
            "agreed: player {}, seed {}, preset {}, rtt {:.1} ms, jitter {:.1} ms, input delay {}",
            agreement.local_handle + 1,
            agreement.seed,
            agreement.preset,
            agreement.rtt_ms,
            agreement.jitter_ms,
            agreement.input_delay
        );
        Ok(Connection {
            runtime,
            socket,
            message_loop,
            ggrs_channel,
            control,
            peer,
            agreement,
            started: self.started,
            room: self.options.room.clone(),
            server: self.options.server.clone(),
            role: self.options.role,
            link: self.options.link,
            link_seed: self.options.link_seed,
            history: self.history.take(),
            options: self.options.clone(),
        })
    }
}

/// A player's control channel over `channel`, driven by `room`, through
/// the simulated link if `options` set one.
pub fn player_control(
    channel: WebRtcChannel,
    room: Room<PeerId>,
    options: &ConnectOptions,
) -> ControlChannel {
    ControlChannel::new(channel, room, options.link, options.link_seed ^ 0x0C01_7201)
}

/// A player's socket in its room (with its seat token), its message loop
/// started on `runtime`, and its two channels: control, GGRS.
pub fn open_room_socket(
    runtime: &NetRuntime,
    options: &ConnectOptions,
) -> (
    WebRtcSocket,
    LoopHandle,
    Option<WebRtcChannel>,
    Option<WebRtcChannel>,
) {
    let mut url = room_url(&options.server, options.room.as_ref());
    if let (Some(token), Some(_)) = (options.seat, &options.room) {
        url = format!("{url}?{SEAT_PARAM}={token}");
    }
    let (mut socket, message_loop) = client_builder(&url, options.ice.to_matchbox())
        .add_reliable_channel()
        .add_unreliable_channel()
        .build();
    let message_loop = runtime.spawn_message_loop(message_loop);
    // Both channels exist from the start; taking them cannot fail.
    let control = socket.take_channel(CONTROL_CHANNEL).ok();
    let ggrs = socket.take_channel(GGRS_CHANNEL).ok();
    (socket, message_loop, control, ggrs)
}

/// One poll of a room's socket (a player's or a spectator's): the peers'
/// changes and whether the server has given us an id; or, once the
/// socket's message loop has ended, why.
pub(super) fn poll_socket(
    socket: Option<&mut WebRtcSocket>,
    message_loop: &mut Option<LoopHandle>,
    room: Option<&RoomCode>,
) -> Result<(Vec<(PeerId, PeerState)>, bool), ConnectError> {
    if message_loop.as_ref().is_some_and(|h| h.is_finished()) {
        return Err(loop_error(message_loop, room));
    }
    let socket = socket.ok_or(ConnectError::LoopGone)?;
    match socket.try_update_peers() {
        Ok(changes) => Ok((changes, socket.id().is_some())),
        Err(_) => Err(loop_error(message_loop, room)),
    }
}

/// Why the message loop ended (it only ends on errors or a close).
fn loop_error(message_loop: &mut Option<LoopHandle>, room: Option<&RoomCode>) -> ConnectError {
    let Some(mut handle) = message_loop.take() else {
        return ConnectError::LoopGone;
    };
    match handle.take_end() {
        Some(LoopEnd::Returned(Err(e))) => classify_socket_error(&e, room).into(),
        Some(LoopEnd::Returned(Ok(()))) => {
            JoinError::Disconnected("the server closed the connection".into()).into()
        }
        Some(LoopEnd::Panicked) | None => ConnectError::LoopGone,
    }
}

/// A [`Connector`] polled every millisecond in the background (a thread, or
/// a timer task in the browser: see [`poll_in_background`]), for frontends
/// that poll slower than that (a window polls once per drawn frame, and the
/// first frames of a new window can take a long time): a pong answered late
/// would inflate the measured latency and so the input delay.
pub struct BackgroundConnect {
    status: std::sync::Arc<std::sync::Mutex<Progress>>,
    cancel: std::sync::Arc<std::sync::atomic::AtomicBool>,
    result: std::sync::mpsc::Receiver<Result<Connection, ConnectError>>,
    room: Option<RoomCode>,
    server: String,
}

/// What the polling thread last saw of its connector.
#[derive(Clone)]
struct Progress {
    stage: Stage,
    probes: u32,
    failed_attempt: Option<FailedAttempt>,
}

impl BackgroundConnect {
    pub fn spawn(mut connector: Connector) -> Self {
        use std::sync::atomic::Ordering;
        let status = std::sync::Arc::new(std::sync::Mutex::new(Progress {
            stage: Stage::Signaling,
            probes: 0,
            failed_attempt: None,
        }));
        let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (tx, result) = std::sync::mpsc::channel();
        let room = connector.options().room.clone();
        let server = connector.options().server.clone();
        let (shared, stop) = (status.clone(), cancel.clone());
        poll_in_background(Duration::from_millis(1), move || {
            if stop.load(Ordering::Relaxed) {
                return true;
            }
            let polled = connector.poll();
            if let Ok(mut s) = shared.lock() {
                s.stage = connector.stage();
                s.probes = connector.probes_done();
                if s.failed_attempt.as_ref() != connector.failed_attempt() {
                    s.failed_attempt = connector.failed_attempt().cloned();
                }
            }
            match polled {
                Poll::Ready(result) => {
                    let _ = tx.send(result);
                    true
                }
                Poll::Pending => false,
            }
        });
        BackgroundConnect {
            status,
            cancel,
            result,
            room,
            server,
        }
    }

    /// The signaling server's URL.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The stage and the latency probes done so far.
    pub fn status(&self) -> (Stage, u32) {
        self.status
            .lock()
            .map(|s| (s.stage, s.probes))
            .unwrap_or((Stage::Signaling, 0))
    }

    /// The last player who reached the room without a connection opening
    /// (see [`Connector::failed_attempt`]); still waiting for another.
    pub fn failed_attempt(&self) -> Option<FailedAttempt> {
        self.status
            .lock()
            .ok()
            .and_then(|s| s.failed_attempt.clone())
    }

    pub fn room(&self) -> Option<&RoomCode> {
        self.room.as_ref()
    }

    /// The outcome, once there is one.
    pub fn poll(&self) -> Poll<Result<Connection, ConnectError>> {
        match self.result.try_recv() {
            Ok(result) => Poll::Ready(result),
            Err(std::sync::mpsc::TryRecvError::Empty) => Poll::Pending,
            Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                Poll::Ready(Err(ConnectError::LoopGone))
            }
        }
    }
}

impl Drop for BackgroundConnect {
    fn drop(&mut self) {
        self.cancel
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }
}
