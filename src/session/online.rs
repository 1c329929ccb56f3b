//! The online backend: a GGRS P2P session over our WebRTC socket, plus what
//! GGRS leaves to the game: reacting to its events, retuning the input
//! delay, confirming frames for the replay, carrying the end-of-match
//! messages and noticing a peer that left; and, when the connection to
//! the peer is lost, keeping the match until its player rejoins (`rejoin`).

mod reconnect;
mod rejoin;
mod room_chat;
mod spectators;
mod stage;
mod tally;

use stage::{SayDone, Stage};
use tally::Tally;

use web_time::{Duration, Instant};

use futures::channel::mpsc::UnboundedSender;
use ggrs::{
    DesyncDetection, GgrsError, GgrsEvent, P2PSession, PlayerType, SessionBuilder, SessionState,
};
use matchbox_socket::{Packet, PeerId, PeerState, WebRtcSocket};

use super::backend::Backend;
use super::chat::{Chat, ChatError, ChatLine, player_name};
use super::frame_log::FrameLog;
use super::simulation::Simulation;
use super::{FrameReport, GgrsConfig, MAX_PREDICTION, SessionError, Summary};
use crate::net::connect::{ConnectOptions, Connection, connection_kind};
use crate::net::control::ControlChannel;
use crate::net::delay::{DelaySetting, Retuner};
use crate::net::handshake::{Agreement, Message, Role};
use crate::net::link_sim::LinkConfig;
use crate::net::protocol::phase::{Heard, Playing};
use crate::net::rejoin::History;
use crate::net::room::Output;
use crate::net::room_code::RoomCode;
use crate::net::socket::{GgrsSocket, SharedChannel, StatsHandle};
use crate::platform::tasks::{LoopHandle, NetRuntime};
use crate::replay::EventKind;
use crate::sim::{FPS, Frame, Input, PLAYERS, hex_checksum};

type OnlineConfig = GgrsConfig<PeerId>;

/// Frames between GGRS desync checks (6 a second).
const DESYNC_CHECK_INTERVAL: u32 = 10;
/// With no reconnect window: no packet for this long, the peer is lost.
const DISCONNECT_TIMEOUT: Duration = Duration::from_millis(2000);
/// How long a finished match keeps its connection open so that its last
/// messages are delivered (loopback needs a few ms, a real link one RTT).
const CLOSE_LINGER: Duration = Duration::from_millis(250);
/// No packet for this long: "connection interrupted" is shown.
const INTERRUPTION_NOTICE: Duration = Duration::from_millis(500);

#[derive(Clone, Debug, Default)]
pub struct OnlineOptions {
    /// `--input-delay`: auto retunes, fixed never changes.
    pub delay: DelaySetting,
    /// Debug aid for tests: garbage datagrams per second sent to the peer's
    /// GGRS channel.
    pub garbage_per_second: u32,
    /// Debug aid for tests: perturb this peer's simulation from this frame.
    pub inject_desync_from: Option<Frame>,
    /// How long to wait for the peer's packets to come back before the
    /// match ends; zero: `DISCONNECT_TIMEOUT`, a lost peer as before.
    pub reconnect_window: Duration,
    /// Chat lines sent right after the first frame (`--say`).
    pub say: Vec<String>,
    /// Debug aid for tests: chat messages per second sent to the peer,
    /// mostly junk (`session::chat::flood_message`).
    pub chat_flood_per_second: u32,
}

/// What the network overlay shows.
#[derive(Clone, Debug, Default)]
pub struct NetStatus {
    pub synchronized: bool,
    pub ping_ms: Option<f64>,
    pub input_delay: u32,
    pub frames_ahead: i32,
    pub interrupted: bool,
    /// While interrupted: how long until the match ends unless packets
    /// come back.
    pub gives_up_in: Option<Duration>,
    /// The whole wait (`--reconnect-window`, or 2 s).
    pub reconnect_window: Duration,
    /// The other player's number (1 or 2).
    pub peer_player: u32,
    pub connection: Option<&'static str>,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    pub stalled_frames: u64,
    /// The connection to the peer was lost: the match waits for that
    /// player to rejoin (until `gives_up_in` runs out).
    pub awaiting_rejoin: bool,
    /// This player is opening a fresh connection to the peer (`reconnect`).
    pub reconnecting: bool,
}

pub(super) struct OnlineBackend {
    session: P2PSession<OnlineConfig>,
    local: usize,
    remote: usize,
    peer: PeerId,
    socket: WebRtcSocket,
    control: ControlChannel,
    stats: StatsHandle,
    agreement: Agreement,
    options: OnlineOptions,
    retuner: Retuner,
    /// The last local input, and how many times it changed since the
    /// retuner's last sample (the auto policy's measure of how often the
    /// peer mispredicts us).
    last_local_input: Input,
    local_input_changes: u32,
    input_delay: u32,
    started: Instant,
    first_frame_at: Option<Instant>,
    /// While interrupted: when the match ends unless packets come back,
    /// and when the silence began.
    interrupted: Option<(Instant, Instant)>,
    skip_frames: u32,
    connection: Option<&'static str>,
    last_ping: Option<f64>,
    /// The desync being reported came from the peer (do not echo it back).
    desync_reported_by_peer: bool,
    garbage: Option<UnboundedSender<(PeerId, Packet)>>,
    garbage_owed: f64,
    /// GGRS frame 0 of the current session is this frame of the match (a
    /// rejoin starts a new session from the confirmed frame).
    base: Frame,
    /// The GGRS channel, kept for the next session after a rejoin.
    ggrs_channel: SharedChannel,
    link: LinkConfig,
    link_seed: u64,
    /// When the first GGRS session started (a simulated cut counts from its
    /// first packet, about then).
    session_started: Instant,
    room: Option<RoomCode>,
    role: Role,
    /// Playing, paused (player 1 keeping the match for player 2, or
    /// player 2 knocking on a fresh connection), or ending.
    stage: Stage,
    /// What the first connection was made with; a reconnect reuses it.
    connect_options: ConnectOptions,
    /// A reconnect happened: log the new path once it is known.
    path_after_reconnect: bool,
    /// Our signaling connection closed (the match goes on peer to peer;
    /// a paused match reopens it, `rejoin::reopen_room`).
    signaling_lost: bool,
    /// This peer rejoined: the match so far, re-simulated at the first poll.
    history: Option<History>,
    /// What the summary counts.
    tally: Tally,
    chat: Chat,
    /// Spectators this player streams the match to (`spectators`).
    spectators: spectators::Spectators,
    // Last: dropped after everything that runs on it.
    _message_loop: LoopHandle,
    _runtime: NetRuntime,
}

/// The silence after which GGRS drops the peer: the reconnect window, or
/// the old 2 s when it is zero.
fn disconnect_timeout(options: &OnlineOptions) -> Duration {
    if options.reconnect_window.is_zero() {
        DISCONNECT_TIMEOUT
    } else {
        options.reconnect_window
    }
}

/// A P2P session with the peer from the agreement's slots and delay.
fn start_session(
    agreement: &Agreement,
    peer: PeerId,
    socket: GgrsSocket<SharedChannel>,
    options: &OnlineOptions,
) -> Result<P2PSession<OnlineConfig>, SessionError> {
    let local = agreement.local_handle;
    Ok(SessionBuilder::<OnlineConfig>::new()
        .with_num_players(PLAYERS)?
        .with_max_prediction_window(MAX_PREDICTION)
        .with_input_delay(agreement.input_delay as usize)
        .with_desync_detection_mode(DesyncDetection::On {
            interval: DESYNC_CHECK_INTERVAL,
        })
        .with_disconnect_timeout(disconnect_timeout(options))
        .with_disconnect_notify_delay(INTERRUPTION_NOTICE)
        .add_player(PlayerType::Local, local)?
        .add_player(PlayerType::Remote(peer), 1 - local)?
        .start_p2p_session(socket)?)
}

impl OnlineBackend {
    fn disconnect_timeout(&self) -> Duration {
        disconnect_timeout(&self.options)
    }

    /// The simulated link (`--sim-*`) for a connection or session made
    /// `now`: a simulated cut counts from the first session's start.
    pub(super) fn link_for_new_connection(&self, now: Instant) -> LinkConfig {
        self.link.for_new_connection(self.session_started, now)
    }

    pub(super) fn new(
        connection: Connection,
        options: OnlineOptions,
    ) -> Result<Self, SessionError> {
        let Connection {
            runtime,
            socket,
            message_loop,
            ggrs_channel,
            control,
            peer,
            agreement,
            started,
            link,
            link_seed,
            room,
            role,
            history,
            options: connect_options,
            ..
        } = connection;
        let garbage = (options.garbage_per_second > 0).then(|| ggrs_channel.sender_clone());
        let ggrs_channel = SharedChannel::new(ggrs_channel);
        let ggrs_socket = GgrsSocket::with_link(ggrs_channel.clone(), link, link_seed);
        let stats = ggrs_socket.stats_handle();
        let local = agreement.local_handle;
        let remote = 1 - local;
        let chat = Chat::new(player_name(local), player_name(remote))
            .with_greeting(options.say.clone())
            .with_flood(options.chat_flood_per_second);
        let session = start_session(&agreement, peer, ggrs_socket, &options)?;
        Ok(OnlineBackend {
            session,
            local,
            remote,
            peer,
            socket,
            control,
            stats,
            input_delay: agreement.input_delay,
            retuner: Retuner::new(agreement.input_delay),
            last_local_input: Input::default(),
            local_input_changes: 0,
            agreement,
            options,
            started,
            first_frame_at: None,
            interrupted: None,
            skip_frames: 0,
            connection: None,
            last_ping: None,
            desync_reported_by_peer: false,
            garbage,
            garbage_owed: 0.0,
            base: history.as_ref().map_or(0, |h| h.frames),
            ggrs_channel,
            link,
            link_seed,
            session_started: Instant::now(),
            room,
            role,
            stage: Stage::Playing,
            connect_options,
            path_after_reconnect: false,
            signaling_lost: false,
            tally: Tally {
                catch_up_bytes: history.as_ref().map_or(0, |h| h.bytes as u64),
                ..Tally::default()
            },
            history,
            chat,
            spectators: spectators::Spectators::default(),
            _message_loop: message_loop,
            _runtime: runtime,
        })
    }

    /// Feeds GGRS's ping to the retuner every so often (auto delay only).
    fn retune(&mut self, frame: Frame, log: &mut FrameLog) {
        if frame % Retuner::SAMPLE_EVERY != 0 {
            return;
        }
        let changes = std::mem::take(&mut self.local_input_changes);
        let Ok(stats) = self.session.network_stats(self.remote) else {
            return;
        };
        let ping = stats.ping as f64;
        self.last_ping = Some(ping);
        if self.options.delay != DelaySetting::Auto {
            return;
        }
        let Some(delay) = self.retuner.sample(frame, ping, changes) else {
            return;
        };
        if let Err(e) = self.session.set_input_delay(self.local, delay as usize) {
            tracing::warn!("could not change the input delay: {e}");
            return;
        }
        let (rtt, jitter) = self.retuner.measured().unwrap_or((ping, 0.0));
        let rate = self
            .retuner
            .changes_per_s()
            .map_or("not yet measured".to_string(), |r| format!("{r:.1}/s"));
        let detail = format!(
            "{} -> {delay} frames at frame {frame} (rtt {rtt:.0} ms, jitter {jitter:.0} ms, input changes {rate})",
            self.input_delay
        );
        tracing::info!("input delay {detail}");
        self.input_delay = delay;
        self.tally.delay_changes += 1;
        log.event(EventKind::InputDelay, &detail);
    }
}

impl Backend for OnlineBackend {
    fn advance(
        &mut self,
        inputs: [Input; PLAYERS],
        sim: &mut Simulation,
        log: &mut FrameLog,
    ) -> Result<FrameReport, SessionError> {
        let mut report = FrameReport::default();
        if self.stage.is_paused() {
            report.waiting = true;
            return Ok(report);
        }
        if self.session.current_state() != SessionState::Running {
            self.session.poll_remote_clients();
            report.waiting = true;
            return Ok(report);
        }
        let local_input = inputs[self.local];
        self.session.add_local_input(self.local, local_input)?;
        let requests = match self.session.advance_frame() {
            Ok(requests) => requests,
            Err(GgrsError::PredictionThreshold) => {
                self.tally.stalled_frames += 1;
                report.stalled = true;
                return Ok(report);
            }
            Err(GgrsError::NotSynchronized) => {
                report.waiting = true;
                return Ok(report);
            }
            Err(e) => return Err(e.into()),
        };
        for request in requests {
            sim.fulfil(request, log, &mut report)?;
        }
        if local_input != self.last_local_input {
            self.local_input_changes += 1;
            self.last_local_input = local_input;
        }
        if report.new_frames > 0 {
            self.first_frame_at.get_or_insert_with(Instant::now);
            (self.tally).frame(report.new_frames, report.resimulated, self.input_delay);
        }
        self.send_garbage();
        if self.first_frame_at.is_some() {
            self.room_chat().service(log);
        }
        let confirmed = Frame::try_from(self.session.confirmed_frame() + 1).unwrap_or(0);
        log.confirm_through(self.base + confirmed, sim.newest_frame())?;
        if report.new_frames > 0 {
            self.retune(sim.world().frame, log);
        }
        Ok(report)
    }

    fn has_peer(&self) -> bool {
        true
    }

    fn poll(&mut self, sim: &mut Simulation, log: &mut FrameLog) -> Result<(), SessionError> {
        if let Some(history) = self.history.take() {
            // Rejoined after a crash: we know no frame, the keeper waits
            // for our end all the same.
            self.send_catch_up(self.agreement.peer_confirmed, log);
            self.catch_up(history, sim, log)?;
        }
        if self.stage.knocking().is_some() {
            return self.knock(sim, log);
        }
        if self.stage.waiting().is_some() {
            let result = self.wait_for_rejoin(sim, log);
            if let Err(e) = &result {
                let bye = Message::Bye {
                    reason: e.to_string(),
                };
                self.tell_spectators(log, &bye);
            }
            return result;
        }
        self.session.poll_remote_clients();
        self.control.flush();
        let events: Vec<_> = self.session.events().collect();
        let mut result = events
            .into_iter()
            .try_for_each(|event| self.on_event(event, log));
        // Messages first: a peer that reported a desync or said goodbye
        // and then closed the connection must be heard out.
        if result.is_ok() {
            result = self.poll_control(log);
        }
        if result.is_ok() {
            result = self.poll_peer(log);
        }
        if let Err(SessionError::Desync {
            frame,
            ours,
            theirs,
        }) = &result
        {
            self.report_desync(*frame, *ours, *theirs, log);
        }
        if result.is_ok() && self.should_knock() {
            self.start_knocking(log);
        } else if result.is_ok() && self.should_keep() {
            self.start_keeping(log);
        }
        match &result {
            Ok(()) => {
                self.serve_spectators(log, false);
                // Once the match runs, so that the other player, which
                // hears spectators' lines relayed, is past its handshake.
                if self.first_frame_at.is_some() {
                    self.room_chat().hear_spectators(log);
                }
            }
            Err(e) => {
                let bye = Message::Bye {
                    reason: e.to_string(),
                };
                self.tell_spectators(log, &bye);
            }
        }
        result
    }

    fn frames_ahead(&self) -> i32 {
        self.session.frames_ahead()
    }

    fn take_skip_frames(&mut self) -> u32 {
        std::mem::take(&mut self.skip_frames)
    }

    fn net_status(&self) -> Option<NetStatus> {
        let stats = self.stats.get();
        Some(NetStatus {
            synchronized: self.session.current_state() == SessionState::Running,
            ping_ms: self.last_ping,
            input_delay: self.input_delay,
            frames_ahead: self.session.frames_ahead(),
            interrupted: self.interrupted.is_some(),
            gives_up_in: self
                .interrupted
                .map(|(deadline, _)| deadline.saturating_duration_since(Instant::now())),
            reconnect_window: self.disconnect_timeout(),
            peer_player: self.remote as u32 + 1,
            connection: self.connection,
            bytes_sent: stats.bytes_sent,
            bytes_received: stats.bytes_received,
            stalled_frames: self.tally.stalled_frames,
            awaiting_rejoin: self.stage.waiting().is_some(),
            reconnecting: self.stage.knocking().is_some(),
        })
    }

    fn fill_summary(&self, summary: &mut Summary) {
        self.summarize(summary);
    }

    fn send_done(&mut self, frame: Frame, checksum: u128, log: &FrameLog) -> bool {
        match self.stage.say_done() {
            SayDone::Now => {
                let done = Message::Done { frame, checksum };
                self.control.send(&done);
                self.tell_spectators(log, &done);
                true
            }
            SayDone::AlreadySaid => true,
            SayDone::NotWhilePaused => false,
        }
    }

    fn peer_done(&self) -> Option<(Frame, u128)> {
        self.stage.ending().and_then(|e| e.peer_done)
    }

    fn peer_gone(&self) -> bool {
        self.stage.ending().is_some_and(|e| e.peer_gone)
    }

    fn say_goodbye(&mut self, reason: &str, log: &FrameLog) {
        let bye = Message::Bye {
            reason: reason.to_string(),
        };
        self.control.send(&bye);
        if !self.stage.ending().is_some_and(|e| e.sent_done) {
            self.tell_spectators(log, &bye);
        }
    }

    fn close_linger(&self) -> Duration {
        CLOSE_LINGER
    }

    fn service(&mut self) {
        self.session.poll_remote_clients();
        self.control.flush();
    }

    /// Tells the peer about a desync we found (not one it told us about),
    /// and records it.
    fn report_desync(&mut self, frame: Frame, ours: u128, theirs: u128, log: &mut FrameLog) {
        self.tally.desyncs += 1;
        if !self.desync_reported_by_peer {
            self.control.send(&Message::Desync {
                frame,
                sender: ours,
                receiver: theirs,
            });
        }
        log.event(
            EventKind::Desync,
            &format!(
                "frame {frame}: ours {}, theirs {}",
                hex_checksum(ours),
                hex_checksum(theirs)
            ),
        );
    }

    fn send_chat(&mut self, text: &str, log: &mut FrameLog) -> Result<(), ChatError> {
        self.room_chat().say(text, log)
    }

    fn take_chat(&mut self) -> Vec<ChatLine> {
        self.chat.take_new()
    }
}

impl OnlineBackend {
    fn on_event(
        &mut self,
        event: GgrsEvent<OnlineConfig>,
        log: &mut FrameLog,
    ) -> Result<(), SessionError> {
        match event {
            GgrsEvent::Synchronizing { count, total, .. } => {
                tracing::debug!("synchronizing with the peer: {count}/{total}");
            }
            GgrsEvent::Synchronized { .. } => tracing::info!("synchronized with the peer"),
            GgrsEvent::Disconnected { .. } => {
                if !self.stage.peer_left() {
                    return Err(SessionError::PeerLost(format!(
                        "stopped responding (no packets for {} s)",
                        self.disconnect_timeout().as_secs_f64()
                    )));
                }
            }
            GgrsEvent::NetworkInterrupted {
                disconnect_timeout, ..
            } => {
                let now = Instant::now();
                let deadline = now + Duration::from_millis(disconnect_timeout as u64);
                self.interrupted = Some((deadline, now - INTERRUPTION_NOTICE));
                tracing::warn!(
                    "connection to player {} interrupted; waiting up to {} s in all for it to come back ({disconnect_timeout} ms more)",
                    self.remote + 1,
                    self.disconnect_timeout().as_secs_f64()
                );
                log.event(
                    EventKind::Interrupted,
                    &format!("{disconnect_timeout} ms to timeout"),
                );
            }
            GgrsEvent::NetworkResumed { .. } => {
                let silent = self
                    .interrupted
                    .take()
                    .map_or(0, |(_, since)| since.elapsed().as_millis());
                tracing::info!("connection resumed after {silent} ms without packets");
                log.event(EventKind::Resumed, &format!("after {silent} ms"));
            }
            GgrsEvent::WaitRecommendation { skip_frames } => {
                tracing::debug!("GGRS recommends waiting {skip_frames} frames");
                self.skip_frames += skip_frames;
                self.tally.skipped_frames += u64::from(skip_frames);
            }
            GgrsEvent::DesyncDetected {
                frame,
                local_checksum,
                remote_checksum,
                ..
            } => {
                return Err(SessionError::Desync {
                    frame: self.base + Frame::try_from(frame).unwrap_or(0),
                    ours: local_checksum,
                    theirs: remote_checksum,
                });
            }
        }
        Ok(())
    }

    /// WebRTC's view of the peer: connection kind, or gone.
    fn poll_peer(&mut self, log: &mut FrameLog) -> Result<(), SessionError> {
        let partner_left =
            (self.room_events().into_iter()).any(|event| matches!(event, Output::PartnerLeft(_)));
        // Gone after our `Done` but before its own: it crashed or was cut
        // at the end, and may come back for what it lacks.
        let unfinished = !self.peer_said_done() && self.can_wait_for_rejoin();
        if partner_left && (unfinished || !self.stage.peer_left()) {
            if !self.can_wait_for_rejoin() {
                return Err(SessionError::PeerLost("closed the connection".into()));
            }
            self.start_waiting_for_rejoin(log);
            return Ok(());
        }
        if self.connection.is_none()
            && let Some(pair) = self.socket.candidate_pair(self.peer)
        {
            let kind = connection_kind(pair.remote);
            let kind = if pair.is_relayed() { "relay" } else { kind };
            tracing::info!("connection: {kind} ({pair:?})");
            self.connection = Some(kind);
            if std::mem::take(&mut self.path_after_reconnect) {
                log.event(
                    EventKind::Resumed,
                    &format!("path after reconnecting: {kind}"),
                );
            }
        }
        Ok(())
    }

    /// matchbox's peer changes, to the spectators and the room; what the
    /// room decided since the last call.
    pub(super) fn room_events(&mut self) -> Vec<Output<PeerId>> {
        // Err: the signaling connection closed; the data channels may live on.
        let changes = match self.socket.try_update_peers() {
            Ok(changes) => changes,
            Err(_) => {
                self.signaling_lost = true;
                Vec::new()
            }
        };
        for (peer, state) in changes {
            if state == PeerState::Disconnected && self.spectators.drop_peer(peer) {
                tracing::info!("spectator {peer} left");
            }
            self.control.peer_changed(peer, state);
        }
        self.control.take_events()
    }

    fn poll_control(&mut self, log: &mut FrameLog) -> Result<(), SessionError> {
        for received in self.control.receive() {
            // The channel is reliable and both ends run the same version:
            // bytes that do not decode are a broken peer, and guessing (a
            // checksum of 0, say) would report a false desync.
            let received =
                received.map_err(|e| SessionError::Protocol(format!("control message: {e}")))?;
            // Another phase's message: the handshake's last `Pong`s.
            let Heard::Expected(message) = received.heard_as::<Playing>() else {
                continue;
            };
            match message {
                Playing::Done { frame, checksum } => self.stage.peer_done(frame, checksum),
                Playing::Bye { reason } => {
                    log.event(EventKind::PeerLeft, &reason);
                    if !self.stage.peer_left() {
                        return Err(SessionError::PeerLost(format!("left the match ({reason})")));
                    }
                }
                Playing::Desync {
                    frame,
                    sender,
                    receiver,
                } => {
                    self.desync_reported_by_peer = true;
                    return Err(SessionError::Desync {
                        frame,
                        ours: receiver,
                        theirs: sender,
                    });
                }
                // A late probe from a peer still measuring: answer it.
                Playing::Ping { seq } => self.control.send(&Message::Pong { seq }),
                Playing::Chat { text } => self.room_chat().hear_partner(&text, log),
                Playing::Relayed { from, text, .. } => {
                    self.room_chat().hear_relayed(&from, &text, log)
                }
            }
        }
        Ok(())
    }

    /// The peer's `Done` came: it has confirmed its last frame, so it
    /// holds all our inputs and has nothing to come back for. Until then a
    /// drop pauses the match, even once ours is sent (it may lack our last
    /// inputs, and our `Done` may have gone down with the link).
    pub(super) fn peer_said_done(&self) -> bool {
        self.stage.ending().is_some_and(|e| e.peer_done.is_some())
    }

    fn send_garbage(&mut self) {
        let Some(sender) = &self.garbage else { return };
        self.garbage_owed += f64::from(self.options.garbage_per_second) / f64::from(FPS);
        while self.garbage_owed >= 1.0 {
            self.garbage_owed -= 1.0;
            let len = 1 + rand::random::<u8>() as usize % 120;
            let bytes: Vec<u8> = (0..len).map(|_| rand::random()).collect();
            let _ = sender.unbounded_send((self.peer, Packet::from(bytes)));
        }
    }

    fn summarize(&self, summary: &mut Summary) {
        let stats = self.stats.get();
        summary.input_delay = self.input_delay;
        summary.rtt_ms = Some(
            self.retuner
                .measured()
                .map_or(self.agreement.rtt_ms, |(rtt, _)| rtt),
        );
        summary.jitter_ms = Some(self.agreement.jitter_ms);
        summary.handshake_rtt_ms = Some(self.agreement.rtt_ms);
        summary.bytes_sent = stats.bytes_sent;
        summary.bytes_received = stats.bytes_received;
        summary.packets_malformed = Some(stats.packets_dropped_malformed);
        summary.packets_sent = Some(stats.packets_sent);
        summary.packets_received = Some(stats.packets_received);
        summary.connection = self.connection.unwrap_or("unknown").to_string();
        summary.connect_ms = self
            .first_frame_at
            .map(|t| t.duration_since(self.started).as_millis() as u64);
        self.tally.fill(summary);
        summary.player = Some(self.local as u32 + 1);
        let chat = self.chat.counters();
        summary.chat_sent = Some(chat.sent);
        summary.chat_received = Some(chat.received);
        summary.chat_dropped = Some(chat.dropped);
        summary.spectators = Some(self.spectators.served);
        summary.spectator_bytes_sent = Some(self.spectators.bytes_sent);
        summary.elapsed_s = self
            .first_frame_at
            .map(|t| (t.elapsed().as_secs_f64() * 1000.0).round() / 1000.0);
    }
}
