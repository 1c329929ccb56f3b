//! The online backend: a GGRS P2P session over our WebRTC socket, plus what
//! GGRS leaves to the game: reacting to its events, retuning the input
//! delay, confirming frames for the replay, carrying the end-of-match
//! messages and noticing a peer that left; and, when the connection to
//! the peer is lost, keeping the match until its player rejoins (`rejoin`)
//! or reconnecting (`reconnect`).
//!
//! What to do about each of those is decided by `machine::Machine`,
//! which does no I/O: this file and the ones beside it are its shell. They
//! feed it what GGRS, the control channel and the room report, and carry
//! out what it answers (`perform`).

mod ggrs_session;
pub mod machine;
mod noise;
mod path;
mod perform;
mod poll;
mod reconnect;
mod rejoin;
mod retune;
mod room_chat;
mod spectators;
mod tally;
mod timing;
mod wire;

use crate::Game;
use ggrs_session::GgrsSession;
use machine::{Event, Paused, Settings};
use noise::Noise;
use path::Path;
use poll::OwnStops;
use reconnect::Redial;
use retune::DelayTuning;
use room_chat::Audience;
use tally::Tally;
use timing::ConnectTiming;
use wire::Wire;

use web_time::{Duration, Instant};

use ggrs::GgrsError;
use matchbox_socket::PeerId;

use super::backend::Backend;
use super::chat::{ChatError, ChatLine};
use super::desync::{Evidence, Forensics};
use super::frame_log::FrameLog;
use super::report::{FrameReport, FrameState, GgrsConfig};
use super::simulation::Simulation;
use super::summary::rounded;
use super::telemetry::LinkReading;
use super::{FeltLatency, MatchSummary, SessionError};
use crate::net::connect::{Connection, SimulatedLink};
use crate::net::delay::DelaySetting;
use crate::net::handshake::{Agreement, Message};
use crate::net::socket::{GgrsSocket, SharedChannel};
use crate::replay::EventKind;
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

/// How an online match behaves: the delay, the reconnect window, the chat
/// lines to say, whether to record the link (and, set through
/// [`crate::testing`] only, the debug aids tests use).
#[derive(Clone, Debug, Default)]
pub struct OnlineOptions {
    /// `--input-delay`: auto retunes, fixed never changes.
    pub delay: DelaySetting,
    /// Debug aid for tests ([`crate::testing::send_garbage`]): garbage
    /// datagrams per second sent to the peer's GGRS channel.
    pub(crate) garbage_per_second: u32,
    /// Debug aid for tests ([`crate::testing::inject_desync`]): perturb
    /// this peer's simulation from this frame.
    pub(crate) inject_desync_from: Option<Frame>,
    /// How long to wait for the peer's packets to come back before the
    /// match ends; zero: `DISCONNECT_TIMEOUT`, a lost peer as before.
    pub reconnect_window: Duration,
    /// Chat lines sent once the match reaches their frame (`--say`: 0).
    pub say: Vec<(Frame, String)>,
    /// Debug aid for tests ([`crate::testing::flood_chat`]): chat messages
    /// per second sent to the peer, mostly junk.
    pub(crate) chat_flood_per_second: u32,
    /// `--record-link`: record the link's conditions as this peer sees
    /// them, for [`Driver::link_trace`](super::Driver::link_trace).
    pub record_link: bool,
}

/// What a frontend shows of an online match: where it is with the other
/// player ([`OnlineState`]) and the link's figures.
#[derive(Clone, Debug)]
pub struct NetStatus {
    /// Where the match is with the other player.
    pub state: OnlineState,
    /// The last measured round trip to the other player.
    pub ping_ms: Option<f64>,
    /// Frames between a local input and the frame it plays on.
    pub input_delay: u32,
    /// How far this side runs ahead of the other (GGRS's estimate).
    pub frames_ahead: i32,
    /// The whole wait an interruption is given (`--reconnect-window`, or 2 s).
    pub reconnect_window: Duration,
    /// The other player's number (1 or 2).
    pub peer_player: u32,
    /// The ICE path in use (`host`, `srflx`, `prflx`, `relay`), once known.
    pub connection: Option<&'static str>,
    /// Bytes sent to and received from the other player.
    pub bytes_sent: u64,
    /// See `bytes_sent`.
    pub bytes_received: u64,
    /// Frames this side could not run for want of the other's inputs.
    pub stalled_frames: u64,
}

/// Where an online match is with the other player: one state at a time, in
/// the order a frontend tells them (the waits carry the time left before
/// the match ends unless the other player is back).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnlineState {
    /// GGRS is synchronizing with the other player: no frame has run yet.
    Synchronizing,
    /// Frames run.
    Playing,
    /// No packets from the other player: the match waits for them to come
    /// back by themselves.
    Interrupted {
        /// Time left before the match ends.
        gives_up_in: Duration,
    },
    /// The other player's game went to the background (it said so): the
    /// match waits for it to return.
    PeerAway {
        /// Time left before the match ends.
        gives_up_in: Duration,
    },
    /// This player is opening a fresh connection to the other through the
    /// server.
    Reconnecting {
        /// Time left before the match ends.
        gives_up_in: Duration,
    },
    /// The connection to the other player was lost: the match waits for
    /// them to rejoin (by themselves, or with the room code after a crash).
    AwaitingRejoin {
        /// Time left before the match ends.
        gives_up_in: Duration,
    },
}

pub(super) struct OnlineBackend<G: Game<N>, const N: usize> {
    // First: dropped before the connection it runs on (`wire`, last).
    ggrs: GgrsSession<G, N>,
    /// Our player slot (the partner's is the other one).
    local: usize,
    agreement: Agreement,
    tuning: DelayTuning<G::Input>,
    timing: ConnectTiming,
    path: Path,
    stops: OwnStops,
    noise: Noise,
    redial: Redial<G::Input, N>,
    /// What is decided: playing, paused (player 1 keeping the match for
    /// player 2, or player 2 knocking on a fresh connection), or ending.
    machine: machine::Machine<PeerId, G::Input, N>,
    /// What the summary counts.
    tally: Tally,
    /// After a desync: our evidence (sent) and the peer's (once it came).
    desync: Forensics<G, N>,
    audience: Audience,
    // Last: dropped after everything that runs on it.
    wire: Wire,
}

impl<G: Game<N>, const N: usize> OnlineBackend<G, N> {
    fn disconnect_timeout(&self) -> Duration {
        self.machine.settings().disconnect_timeout()
    }

    /// The partner's player slot.
    fn remote(&self) -> usize {
        1 - self.local
    }

    pub(super) fn new(
        connection: Connection<G::Input, N>,
        options: OnlineOptions,
    ) -> Result<Self, SessionError> {
        let Connection::<G::Input, N> {
            transport,
            ggrs_channel,
            control,
            peer,
            agreement,
            times,
            history,
            options: connect_options,
            ..
        } = connection;
        let garbage = (options.garbage_per_second > 0).then(|| ggrs_channel.sender_clone());
        let ggrs_channel = SharedChannel::new(ggrs_channel);
        let SimulatedLink {
            config: link,
            seed: link_seed,
        } = connect_options.link.clone();
        let ggrs_socket = GgrsSocket::with_link(ggrs_channel.clone(), link.clone(), link_seed);
        let settings = Settings {
            local: agreement.local_handle,
            reconnect_window: options.reconnect_window,
            rejoinable: connect_options.meeting.room.is_some(),
            match_id: agreement.match_id,
        };
        let base = history.as_ref().map_or(0, |h| h.frames);
        let timeout = settings.disconnect_timeout();
        let ggrs = GgrsSession::start(&agreement, peer, ggrs_channel, ggrs_socket, base, timeout)?;
        if options.record_link {
            (ggrs.stats).record_link(Instant::now(), G::INFO.fps, agreement.rtt_ms);
        }
        let rejoining = history.is_some();
        let audience =
            Audience::for_match(&G::INFO, &agreement, &options, &connect_options, rejoining);
        let tally = Tally {
            catch_up_bytes: history.as_ref().map_or(0, |h| h.bytes as u64),
            ..Tally::default()
        };
        let rejoined = history.map(|h| (h, agreement.peer_confirmed));
        // Nothing armed or noted by an earlier match carries over.
        crate::visibility::when_hidden(None);
        crate::visibility::take_hidden_since();
        Ok(OnlineBackend {
            ggrs,
            local: agreement.local_handle,
            tuning: DelayTuning::new(options.delay, agreement.input_delay, G::INFO.fps),
            agreement,
            timing: ConnectTiming::new(times),
            path: Path::default(),
            stops: OwnStops::default(),
            noise: Noise::new(link, link_seed, garbage, options.garbage_per_second),
            redial: Redial::new(connect_options),
            machine: machine::Machine::new(settings, rejoined),
            tally,
            desync: Forensics::default(),
            audience,
            wire: Wire { control, transport },
        })
    }

    /// `--record-link`: GGRS's latest ping and the loss meter's counts,
    /// for the recording (a no-op without one).
    fn record_link_figures(&self) {
        if !self.ggrs.stats.recording_link() {
            return;
        }
        let ping = (self.ggrs.session.network_stats(self.remote()))
            .ok()
            .map(|s| s.ping as f64);
        self.ggrs.stats.record_measured(Instant::now(), ping);
    }

    /// The partner's desync evidence: kept for our report, unless it
    /// does not decode (said in the log; the report goes on without it).
    pub(super) fn heard_desync_state(&mut self, state: crate::net::protocol::DesyncState) {
        match Evidence::from_message(state) {
            Ok(theirs) => self.desync.theirs = Some(theirs),
            Err(e) => tracing::warn!("the other player's desync evidence: {e}"),
        }
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
            report.state = FrameState::Waiting;
            if let Some(t) = log.telemetry() {
                t.waited();
            }
            return Ok(report);
        }
        if !self.ggrs.running() {
            self.ggrs.session.poll_remote_clients();
            report.state = FrameState::Waiting;
            if let Some(t) = log.telemetry() {
                t.waited();
            }
            return Ok(report);
        }
        let local_input = inputs[self.local];
        self.ggrs
            .session
            .add_local_input(self.local, local_input)
            .map_err(SessionError::ggrs)?;
        let requests = match self.ggrs.session.advance_frame() {
            Ok(requests) => requests,
            Err(GgrsError::PredictionThreshold) => {
                self.tally.stalled_frames += 1;
                report.state = FrameState::Stalled;
                let (confirmed, ahead) = (log.confirmed(), self.ggrs.session.frames_ahead());
                if let Some(t) = log.telemetry() {
                    t.stalled(confirmed, ahead);
                }
                return Ok(report);
            }
            Err(GgrsError::NotSynchronized) => {
                report.state = FrameState::Waiting;
                if let Some(t) = log.telemetry() {
                    t.waited();
                }
                return Ok(report);
            }
            Err(e) => return Err(SessionError::ggrs(e)),
        };
        for request in requests {
            sim.fulfil(request, log, &mut report)?;
        }
        self.tuning.note_input(local_input);
        if report.new_frames > 0 {
            self.timing.advanced();
            let delay = self.tuning.input_delay;
            self.tally
                .frame(report.new_frames, report.resimulated, delay);
            self.note_telemetry(&report, G::frame(sim.world()), log);
        }
        (self.noise).send_garbage(self.ggrs.peer, G::INFO.fps);
        if self.timing.begun() {
            self.room_chat().service(log);
            (self.audience.desk).list_figures::<G, N>(sim.world(), Instant::now());
            (self.audience.desk).report_connect(self.timing.connect_ms(), self.path.kind);
        }
        log.confirm_through(self.ggrs.confirmed_through(), sim.newest_frame())?;
        self.record_link_figures();
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
                let served = self.audience.spectators.served;
                self.serve_spectators(log, false);
                let joined = self.audience.spectators.served.saturating_sub(served);
                let confirmed = log.confirmed();
                if let (true, Some(t)) = (joined > 0, log.telemetry()) {
                    let total = served + joined;
                    t.event(confirmed, "spectator", &format!("{total} watching so far"));
                }
                // Once the match runs, so that the other player, which
                // hears spectators' lines relayed, is past its handshake.
                if self.timing.begun() {
                    self.room_chat().hear_spectators(log);
                }
                let audience = &mut self.audience;
                for id in (audience.desk).take_answers(&mut audience.chat, log.confirmed()) {
                    if let Some(peer) = audience.spectators.removed_by_id(&id) {
                        (audience.spectators).tell_removed(&mut self.wire.control, peer);
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
        self.ggrs.session.frames_ahead()
    }

    fn take_skip_frames(&mut self) -> u32 {
        std::mem::take(&mut self.ggrs.skip_frames)
    }

    fn link_trace(&self) -> Option<crate::net::link_trace::LinkTrace> {
        self.ggrs.stats.link_trace(Instant::now())
    }

    fn net_status(&self) -> Option<NetStatus> {
        let stats = self.ggrs.stats.get();
        Some(NetStatus {
            state: self.online_state(Instant::now()),
            ping_ms: self.tuning.last_ping,
            input_delay: self.tuning.input_delay,
            frames_ahead: self.ggrs.session.frames_ahead(),
            reconnect_window: self.disconnect_timeout(),
            peer_player: self.remote() as u32 + 1,
            connection: self.path.kind,
            bytes_sent: stats.bytes_sent,
            bytes_received: stats.bytes_received,
            stalled_frames: self.tally.stalled_frames,
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
        self.ggrs.session.poll_remote_clients();
        self.wire.control.flush();
        // The match has stopped: only the partner's desync evidence is
        // still heard (the machine passes nothing else on).
        if self.desync.awaiting_theirs() {
            let read = self.wire.control.receive();
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
        self.wire.control.send(&state);
        // Spectators get it after the frames they lack: each compares its
        // own world there.
        self.tell_spectators(log, &state);
        self.desync.ours = Some(evidence);
        self.desync.room = self
            .redial
            .options
            .meeting
            .room
            .as_ref()
            .map(|code| code.to_string());
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
        let chat = &self.audience.chat;
        let (ours, theirs) = (chat.name(), chat.partner());
        std::array::from_fn(|p| if p == self.local { ours } else { theirs }.to_owned())
    }

    fn take_chat(&mut self) -> Vec<ChatLine> {
        self.audience.chat.take_new()
    }
}

impl<G: Game<N>, const N: usize> OnlineBackend<G, N> {
    fn online_state(&self, now: Instant) -> OnlineState {
        online_state(
            self.machine.gives_up_in(now),
            self.machine.partner_away(),
            self.machine.paused(),
            self.ggrs.running(),
        )
    }
}

/// The one state a frontend shows, from the machine's: a wait first (why
/// the match waits, with the time left), then synchronizing, then playing.
fn online_state(
    gives_up_in: Option<Duration>,
    partner_away: bool,
    paused: Option<Paused>,
    running: bool,
) -> OnlineState {
    match (gives_up_in, paused) {
        (Some(gives_up_in), _) if partner_away => OnlineState::PeerAway { gives_up_in },
        (Some(gives_up_in), Some(Paused::Knocking)) => OnlineState::Reconnecting { gives_up_in },
        (Some(gives_up_in), Some(Paused::Keeping)) => OnlineState::AwaitingRejoin { gives_up_in },
        (Some(gives_up_in), None) => OnlineState::Interrupted { gives_up_in },
        (None, _) if running => OnlineState::Playing,
        (None, _) => OnlineState::Synchronizing,
    }
}

impl<G: Game<N>, const N: usize> OnlineBackend<G, N> {
    /// The telemetry of an advance that ran frames up to `newest`, and at
    /// each second's last frame the link's figures.
    fn note_telemetry(
        &mut self,
        report: &FrameReport<G, N>,
        newest: Frame,
        log: &mut FrameLog<G::Input, N>,
    ) {
        let ahead = self.ggrs.session.frames_ahead();
        let fps = G::INFO.fps.max(1);
        let second_ended = newest / fps > newest.saturating_sub(report.new_frames) / fps;
        let link = second_ended.then(|| {
            let stats = self.ggrs.stats.get();
            let ping = (self.ggrs.session.network_stats(self.remote()))
                .ok()
                .map(|s| s.ping as f64);
            LinkReading {
                ping_ms: ping,
                bytes_sent: stats.bytes_sent,
                bytes_received: stats.bytes_received,
                loss_counted: self.ggrs.stats.loss_counted(),
                path: self.path.kind,
            }
        });
        let Some(t) = log.telemetry() else {
            return;
        };
        t.frame(newest, report.resimulated, ahead);
        if let Some(link) = link {
            t.second(newest, link);
        }
    }

    fn summarize(&self, summary: &mut MatchSummary) {
        let stats = self.ggrs.stats.get();
        summary.input_delay = self.tuning.input_delay;
        summary.rtt_ms =
            Some((self.tuning.retuner.measured()).map_or(self.agreement.rtt_ms, |(rtt, _)| rtt));
        summary.jitter_ms = Some(self.agreement.jitter_ms);
        summary.handshake_rtt_ms = Some(self.agreement.rtt_ms);
        if let Some(loss) = self.ggrs.stats.total_loss() {
            summary.loss_pct = Some(rounded(loss.rate * 100.0, 2));
            summary.loss_burst = Some(rounded(loss.mean_burst, 2));
        }
        summary.bytes_sent = stats.bytes_sent;
        summary.bytes_received = stats.bytes_received;
        summary.packets_malformed = Some(stats.packets_dropped_malformed);
        summary.packets_sent = Some(stats.packets_sent);
        summary.packets_received = Some(stats.packets_received);
        summary.connection = self.path.kind.unwrap_or("unknown").to_string();
        self.timing.fill(summary);
        self.tally.fill(summary);
        summary.player = Some(self.local as u32 + 1);
        let chat = self.audience.chat.counters();
        summary.chat_sent = Some(chat.sent);
        summary.chat_received = Some(chat.received);
        summary.chat_dropped = Some(chat.dropped);
        summary.spectators = Some(self.audience.spectators.served);
        summary.spectator_bytes_sent = Some(self.audience.spectators.bytes_sent);
        summary.elapsed_s = self.timing.elapsed_s();
        let played_s = summary.elapsed_s.unwrap_or(0.0).max(1e-3);
        summary.felt_latency = Some(FeltLatency::new(
            G::INFO.fps,
            summary
                .mean_input_delay
                .unwrap_or(f64::from(self.tuning.input_delay)),
            summary.rtt_ms,
            summary.rollback_frames as f64 / played_s,
        ));
    }
}

#[cfg(test)]
mod online_state_tests {
    use super::*;

    const LEFT: Duration = Duration::from_secs(3);

    #[test]
    fn a_wait_outranks_running_and_says_why() {
        let state = |away, paused| online_state(Some(LEFT), away, paused, true);
        let left = LEFT;
        assert_eq!(
            state(false, None),
            OnlineState::Interrupted { gives_up_in: left }
        );
        assert_eq!(
            state(false, Some(Paused::Keeping)),
            OnlineState::AwaitingRejoin { gives_up_in: left }
        );
        assert_eq!(
            state(false, Some(Paused::Knocking)),
            OnlineState::Reconnecting { gives_up_in: left }
        );
        // The partner said it went away: that is the reason shown, whichever
        // side keeps the match.
        assert_eq!(
            state(true, Some(Paused::Keeping)),
            OnlineState::PeerAway { gives_up_in: left }
        );
    }

    #[test]
    fn without_a_wait_it_is_synchronizing_until_ggrs_runs() {
        assert_eq!(
            online_state(None, false, None, false),
            OnlineState::Synchronizing
        );
        assert_eq!(online_state(None, false, None, true), OnlineState::Playing);
        // A pause the machine holds without a deadline shows as play: the
        // banner needs the time left.
        assert_eq!(
            online_state(None, false, Some(Paused::Keeping), true),
            OnlineState::Playing
        );
    }
}
