//! The online backend: a GGRS P2P session over our WebRTC socket, plus what
//! GGRS leaves to the game: reacting to its events, retuning the input
//! delay, confirming frames for the replay, carrying the end-of-match
//! messages and noticing a peer that left; and, when the connection to
//! the peer is lost, keeping the match until its player rejoins (`rejoin`)
//! or reconnecting (`reconnect`).
//!
//! What to do about each of those is decided by [`machine::Machine`],
//! which does no I/O: this file and the ones beside it are its shell. They
//! feed it what GGRS, the control channel and the room report, and carry
//! out what it answers (`perform`).

pub mod machine;
mod perform;
mod poll;
mod reconnect;
mod rejoin;
mod room_chat;
mod spectators;
mod tally;

use crate::Game;
use machine::{Event, Paused, Settings};

use tally::Tally;

use web_time::{Duration, Instant};

use futures::channel::mpsc::UnboundedSender;
use ggrs::{DesyncDetection, GgrsError, P2PSession, PlayerType, SessionBuilder, SessionState};
use matchbox_socket::{Packet, PeerId, WebRtcSocket};

use super::backend::Backend;
use super::chat::{Chat, ChatError, ChatLine, player_names};
use super::desync::{Evidence, Forensics};
use super::frame_log::FrameLog;
use super::report::{FrameReport, GgrsConfig};
use super::server_desk::ServerDesk;
use super::simulation::{DESYNC_CHECK_INTERVAL, Simulation};
use super::summary::rounded;
use super::{ConnectBreakdown, FeltLatency, MAX_PREDICTION, MatchSummary, SessionError};
use crate::net::connect::ConnectOptions;
use crate::net::connect::{ConnectTimes, Connection, PlayerConnector};
use crate::net::control::ControlChannel;
use crate::net::delay::{DelaySetting, Retuner};
use crate::net::handshake::{Agreement, Message, Role};
use crate::net::link_sim::LinkConfig;
use crate::net::room_code::RoomCode;
use crate::net::socket::{GgrsSocket, SharedChannel, StatsHandle};
use crate::replay::EventKind;
use crate::tasks::{LoopHandle, NetRuntime};
use crate::{Frame, hex_checksum};

type OnlineConfig<G, const N: usize> = GgrsConfig<G, PeerId, N>;

/// How long a finished match keeps its connection open so that its last
/// messages are delivered (loopback needs a few ms, a real link one RTT).
const CLOSE_LINGER: Duration = Duration::from_millis(250);
/// After a desync, how long we wait for the peer's state at that frame
/// (a few KiB on the reliable channel) before reporting without it.
const DESYNC_STATE_WAIT: Duration = Duration::from_secs(2);
/// Whether a fresh socket the server has not answered yet is replaced when
/// due. Natively yes: a connect stuck in TCP's backoff during a cut is
/// dropped and a new one gets through as soon as the network is back. Not
/// in the browser: a dropped page websocket keeps connecting, and Chromium
/// lets only one connect to an address at a time, so replacements only
/// queue behind the stuck one and then arrive in a burst, each taking the
/// seat from the one before while player 2 handshakes (measured in
/// docs/nat-testbed.md, "A browser's own network cut").
const REPLACE_UNANSWERED: bool = !cfg!(target_arch = "wasm32");

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
    /// Chat lines sent once the match reaches their frame (`--say`: 0).
    pub say: Vec<(Frame, String)>,
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
    /// The pause began with the peer saying its game went to the
    /// background (`Away`).
    pub peer_away: bool,
}

pub(super) struct OnlineBackend<G: Game<N>, const N: usize> {
    session: P2PSession<OnlineConfig<G, N>>,
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
    last_local_input: G::Input,
    local_input_changes: u32,
    input_delay: u32,
    /// When each step of connecting ended, and GGRS's first
    /// synchronisation (the summary's connect breakdown).
    times: ConnectTimes,
    synced_at: Option<Instant>,
    first_frame_at: Option<Instant>,
    skip_frames: u32,
    /// When the last poll ended: the next one measures our stall from it.
    poll_ended: Option<Instant>,
    /// The page's going to the background is armed to tell the partner.
    away_armed: bool,
    connection: Option<&'static str>,
    last_ping: Option<f64>,
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
    /// What is decided: playing, paused (player 1 keeping the match for
    /// player 2, or player 2 knocking on a fresh connection), or ending.
    machine: machine::Machine<PeerId, G::Input, N>,
    /// Knocking: the fresh connection being made (`reconnect`), by number.
    attempt: Option<(u32, PlayerConnector<G::Input, N>)>,
    /// What the first connection was made with; a reconnect reuses it.
    connect_options: ConnectOptions,
    /// A reconnect happened: log the new path once it is known.
    path_after_reconnect: bool,
    /// What the summary counts.
    tally: Tally,
    /// After a desync: our evidence (sent) and the peer's (once it came).
    desync: Forensics<G, N>,
    chat: Chat,
    /// What this player asks the room's server (figures, kicks, reports).
    desk: ServerDesk,
    /// Spectators this player streams the match to (`spectators`).
    spectators: spectators::Spectators,
    // Last: dropped after everything that runs on it.
    _message_loop: LoopHandle,
    _runtime: NetRuntime,
}

/// A P2P session with the peer from the agreement's slots and delay,
/// dropping it after `disconnect_timeout` of silence.
fn start_session<G: Game<N>, const N: usize>(
    agreement: &Agreement,
    peer: PeerId,
    socket: GgrsSocket<SharedChannel>,
    disconnect_timeout: Duration,
) -> Result<P2PSession<OnlineConfig<G, N>>, SessionError> {
    let local = agreement.local_handle;
    Ok(SessionBuilder::<OnlineConfig<G, N>>::new()
        .with_num_players(N)?
        .with_max_prediction_window(MAX_PREDICTION)
        .with_input_delay(agreement.input_delay as usize)
        .with_desync_detection_mode(DesyncDetection::On {
            interval: DESYNC_CHECK_INTERVAL,
        })
        .with_disconnect_timeout(disconnect_timeout)
        .with_disconnect_notify_delay(machine::INTERRUPTION_NOTICE)
        .add_player(PlayerType::Local, local)?
        .add_player(PlayerType::Remote(peer), 1 - local)?
        .start_p2p_session(socket)?)
}

impl<G: Game<N>, const N: usize> OnlineBackend<G, N> {
    fn disconnect_timeout(&self) -> Duration {
        self.machine.settings().disconnect_timeout()
    }

    /// The simulated link (`--sim-*`) for a connection or session made
    /// `now`: a simulated cut counts from the first session's start.
    pub(super) fn link_for_new_connection(&self, now: Instant) -> LinkConfig {
        self.link.for_new_connection(self.session_started, now)
    }

    pub(super) fn new(
        connection: Connection<G::Input, N>,
        options: OnlineOptions,
    ) -> Result<Self, SessionError> {
        let Connection::<G::Input, N> {
            runtime,
            socket,
            message_loop,
            ggrs_channel,
            control,
            peer,
            agreement,
            times,
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
        let names = player_names(&agreement.names);
        let chat = Chat::new(names[local].clone(), names[remote].clone())
            .with_greeting(options.say.clone())
            .with_flood(options.chat_flood_per_second, G::INFO.fps);
        let settings = Settings {
            local,
            reconnect_window: options.reconnect_window,
            rejoinable: room.is_some(),
            match_id: agreement.match_id,
        };
        let session = start_session(&agreement, peer, ggrs_socket, settings.disconnect_timeout())?;
        let desk = ServerDesk::for_player(&connect_options);
        let catch_up_bytes = history.as_ref().map_or(0, |h| h.bytes as u64);
        let base = history.as_ref().map_or(0, |h| h.frames);
        let rejoined = history.map(|h| (h, agreement.peer_confirmed));
        // Nothing armed or noted by an earlier match carries over.
        crate::visibility::when_hidden(None);
        crate::visibility::take_hidden_since();
        Ok(OnlineBackend {
            session,
            local,
            remote,
            peer,
            socket,
            control,
            stats,
            input_delay: agreement.input_delay,
            retuner: Retuner::new(agreement.input_delay, G::INFO.fps),
            last_local_input: G::Input::default(),
            local_input_changes: 0,
            agreement,
            options,
            times,
            synced_at: None,
            first_frame_at: None,
            skip_frames: 0,
            poll_ended: None,
            away_armed: false,
            connection: None,
            last_ping: None,
            garbage,
            garbage_owed: 0.0,
            base,
            ggrs_channel,
            link,
            link_seed,
            session_started: Instant::now(),
            room,
            role,
            machine: machine::Machine::new(settings, rejoined),
            attempt: None,
            connect_options,
            path_after_reconnect: false,
            tally: Tally {
                catch_up_bytes,
                ..Tally::default()
            },
            desync: Forensics::default(),
            chat,
            desk,
            spectators: spectators::Spectators::default(),
            _message_loop: message_loop,
            _runtime: runtime,
        })
    }

    /// The partner's desync evidence: kept for our report, unless it
    /// does not decode (said in the log; the report goes on without it).
    pub(super) fn heard_desync_state(&mut self, state: crate::net::protocol::DesyncState) {
        match Evidence::from_message(state) {
            Ok(theirs) => self.desync.theirs = Some(theirs),
            Err(e) => tracing::warn!("the other player's desync evidence: {e}"),
        }
    }

    /// Feeds GGRS's ping to the retuner every so often (auto delay only).
    fn retune(&mut self, frame: Frame, log: &mut FrameLog<G::Input, N>) {
        if !frame.is_multiple_of(Retuner::SAMPLE_EVERY) {
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
        let loss = self.stats.loss();
        let Some(delay) = self.retuner.sample(frame, ping, changes, loss) else {
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
        let loss = loss.map_or("not yet measured".to_string(), |l| {
            format!("{:.1} % in runs of {:.1}", l.rate * 100.0, l.mean_burst)
        });
        let detail = format!(
            "{} -> {delay} frames at frame {frame} (rtt {rtt:.0} ms, jitter {jitter:.0} ms, input changes {rate}, loss {loss})",
            self.input_delay
        );
        tracing::info!("input delay {detail}");
        self.input_delay = delay;
        self.tally.delay_changes += 1;
        log.event(EventKind::InputDelay, &detail);
    }
}

impl<G: Game<N>, const N: usize> Backend<G, N> for OnlineBackend<G, N> {
    fn advance(
        &mut self,
        inputs: [G::Input; N],
        sim: &mut Simulation<G, N>,
        log: &mut FrameLog<G::Input, N>,
    ) -> Result<FrameReport<G, N>, SessionError> {
        let mut report = FrameReport::default();
        if self.machine.paused().is_some() {
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
            self.desk.list_figures::<G, N>(sim.world(), Instant::now());
        }
        let confirmed = Frame::try_from(self.session.confirmed_frame() + 1).unwrap_or(0);
        log.confirm_through(self.base + confirmed, sim.newest_frame())?;
        if report.new_frames > 0 {
            self.retune(G::frame(sim.world()), log);
        }
        Ok(report)
    }

    fn has_peer(&self) -> bool {
        true
    }

    fn poll(
        &mut self,
        sim: &mut Simulation<G, N>,
        log: &mut FrameLog<G::Input, N>,
    ) -> Result<(), SessionError> {
        let result = self.poll_stage(sim, log);
        match &result {
            Ok(()) if self.machine.paused().is_none() => {
                self.serve_spectators(log, false);
                // Once the match runs, so that the other player, which
                // hears spectators' lines relayed, is past its handshake.
                if self.first_frame_at.is_some() {
                    self.room_chat().hear_spectators(log);
                }
                for id in self.desk.take_answers(&mut self.chat, log.confirmed()) {
                    if let Some(peer) = self.spectators.removed_by_id(&id) {
                        self.spectators.tell_removed(&mut self.control, peer);
                    }
                }
            }
            Ok(()) => {}
            Err(e) => {
                if let SessionError::Desync {
                    frame,
                    ours,
                    theirs,
                } = e
                {
                    self.report_desync(*frame, *ours, *theirs, sim, log);
                }
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
        let paused = self.machine.paused();
        Some(NetStatus {
            synchronized: self.session.current_state() == SessionState::Running,
            ping_ms: self.last_ping,
            input_delay: self.input_delay,
            frames_ahead: self.session.frames_ahead(),
            interrupted: self.machine.interrupted(),
            gives_up_in: self.machine.gives_up_in(Instant::now()),
            reconnect_window: self.disconnect_timeout(),
            peer_player: self.remote as u32 + 1,
            connection: self.connection,
            bytes_sent: stats.bytes_sent,
            bytes_received: stats.bytes_received,
            stalled_frames: self.tally.stalled_frames,
            awaiting_rejoin: paused == Some(Paused::Keeping),
            reconnecting: paused == Some(Paused::Knocking),
            peer_away: self.machine.partner_away(),
        })
    }

    fn fill_summary(&self, summary: &mut MatchSummary) {
        self.summarize(summary);
    }

    fn send_done(&mut self, frame: Frame, checksum: u128, log: &FrameLog<G::Input, N>) -> bool {
        let said = self
            .machine
            .handle(Instant::now(), Event::LastFrame { frame, checksum });
        self.say(said, log);
        self.machine.done_said()
    }

    fn peer_done(&self) -> Option<(Frame, u128)> {
        self.machine.peer_done()
    }

    fn peer_gone(&self) -> bool {
        self.machine.peer_gone()
    }

    fn say_goodbye(&mut self, reason: &str, log: &FrameLog<G::Input, N>) {
        let said = (self.machine).handle(Instant::now(), Event::Goodbye(reason.to_string()));
        self.say(said, log);
    }

    fn close_linger(&self) -> Duration {
        if self.desync.awaiting_theirs() {
            DESYNC_STATE_WAIT
        } else {
            CLOSE_LINGER
        }
    }

    fn service(&mut self) {
        self.session.poll_remote_clients();
        self.control.flush();
        // The match has stopped: only the partner's desync evidence is
        // still heard (the machine passes nothing else on).
        if self.desync.awaiting_theirs() {
            let read = self.control.receive();
            for output in self.machine.handle(Instant::now(), Event::Received(read)) {
                if let machine::Output::PeerDesyncState(state) = output {
                    self.heard_desync_state(state);
                }
            }
        }
    }

    fn desync_forensics(&self) -> Option<&Forensics<G, N>> {
        self.desync.ours.as_ref().map(|_| &self.desync)
    }

    /// Tells the peer about a desync we found (not one it told us about),
    /// records it, and sends our evidence to the peer and the spectators.
    fn report_desync(
        &mut self,
        frame: Frame,
        ours: u128,
        theirs: u128,
        sim: &Simulation<G, N>,
        log: &mut FrameLog<G::Input, N>,
    ) {
        self.tally.desyncs += 1;
        let found = Event::FoundDesync {
            frame,
            ours,
            theirs,
        };
        let said = self.machine.handle(Instant::now(), found);
        self.say(said, log);
        // Our evidence, after the `Desync` (whoever found it first).
        let evidence = Evidence::gather(frame, ours, sim, log);
        let state = Message::DesyncState(evidence.to_message());
        self.control.send(&state);
        // Spectators get it after the frames they lack: each compares its
        // own world there.
        self.tell_spectators(log, &state);
        self.desync.ours = Some(evidence);
        self.desync.room = self.room.as_ref().map(|code| code.to_string());
        self.desync.local = self.local;
        log.event(
            EventKind::Desync,
            &format!(
                "frame {frame}: ours {}, theirs {}",
                hex_checksum(ours),
                hex_checksum(theirs)
            ),
        );
    }

    fn send_chat(&mut self, text: &str, log: &mut FrameLog<G::Input, N>) -> Result<(), ChatError> {
        self.room_chat().say(text, log)
    }

    fn player_names(&self) -> [String; N] {
        let (ours, theirs) = (self.chat.name(), self.chat.partner());
        std::array::from_fn(|p| if p == self.local { ours } else { theirs }.to_owned())
    }

    fn take_chat(&mut self) -> Vec<ChatLine> {
        self.chat.take_new()
    }
}

impl<G: Game<N>, const N: usize> OnlineBackend<G, N> {
    fn send_garbage(&mut self) {
        let Some(sender) = &self.garbage else { return };
        self.garbage_owed += f64::from(self.options.garbage_per_second) / f64::from(G::INFO.fps);
        while self.garbage_owed >= 1.0 {
            self.garbage_owed -= 1.0;
            let len = 1 + rand::random::<u8>() as usize % 120;
            let bytes: Vec<u8> = (0..len).map(|_| rand::random()).collect();
            let _ = sender.unbounded_send((self.peer, Packet::from(bytes)));
        }
    }

    fn summarize(&self, summary: &mut MatchSummary) {
        let stats = self.stats.get();
        summary.input_delay = self.input_delay;
        summary.rtt_ms = Some(
            self.retuner
                .measured()
                .map_or(self.agreement.rtt_ms, |(rtt, _)| rtt),
        );
        summary.jitter_ms = Some(self.agreement.jitter_ms);
        summary.handshake_rtt_ms = Some(self.agreement.rtt_ms);
        if let Some(loss) = self.stats.total_loss() {
            summary.loss_pct = Some(rounded(loss.rate * 100.0, 2));
            summary.loss_burst = Some(rounded(loss.mean_burst, 2));
        }
        summary.bytes_sent = stats.bytes_sent;
        summary.bytes_received = stats.bytes_received;
        summary.packets_malformed = Some(stats.packets_dropped_malformed);
        summary.packets_sent = Some(stats.packets_sent);
        summary.packets_received = Some(stats.packets_received);
        summary.connection = self.connection.unwrap_or("unknown").to_string();
        summary.connect_ms = self
            .first_frame_at
            .map(|t| t.duration_since(self.times.started).as_millis() as u64);
        summary.connect_breakdown_ms = self
            .first_frame_at
            .map(|t| ConnectBreakdown::of(&self.times, self.synced_at, t));
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
            .map(|t| rounded(t.elapsed().as_secs_f64(), 3));
        let played_s = summary.elapsed_s.unwrap_or(0.0).max(1e-3);
        summary.felt_latency = Some(FeltLatency::new(
            G::INFO.fps,
            summary
                .mean_input_delay
                .unwrap_or(f64::from(self.input_delay)),
            summary.rtt_ms,
            summary.rollback_frames as f64 / played_s,
        ));
    }
}
