//! The online backend of [`Driver`]: a GGRS P2P session over our WebRTC
//! socket, plus what GGRS leaves to the game: reacting to its events,
//! retuning the input delay, confirming frames for the replay, the
//! end-of-match checksum exchange and noticing a peer that left.

use std::time::{Duration, Instant};

use futures::channel::mpsc::UnboundedSender;
use ggrs::{
    DesyncDetection, GgrsError, GgrsEvent, P2PSession, PlayerType, SessionBuilder, SessionState,
};
use matchbox_socket::{Packet, PeerId, PeerState, WebRtcSocket};
use tokio::runtime::Runtime;

use super::driver::{Backend, Driver, DriverOptions, FrameReport, GgrsConfig, Mode};
use super::{MAX_PREDICTION, SessionError, Summary, hex_checksum, parse_hex_checksum};
use crate::net::connect::{Connection, connection_kind};
use crate::net::control::ControlChannel;
use crate::net::delay::{DelaySetting, Retuner};
use crate::net::handshake::{Agreement, Message};
use crate::net::socket::{GgrsSocket, StatsHandle};
use crate::replay::EventKind;
use crate::sim::{Input, PLAYERS};

type OnlineConfig = GgrsConfig<PeerId>;

/// Frames between GGRS desync checks (6 a second).
pub const DESYNC_CHECK_INTERVAL: u32 = 10;
/// No packet for this long: the peer is reported lost.
pub const DISCONNECT_TIMEOUT: Duration = Duration::from_millis(2000);
/// No packet for this long: "connection interrupted" is shown.
pub const INTERRUPTION_NOTICE: Duration = Duration::from_millis(500);

#[derive(Clone, Debug, Default)]
pub struct OnlineOptions {
    /// Confirm frames up to this one, then exchange checksums and stop.
    pub frames: Option<u32>,
    /// `--input-delay`: auto retunes, fixed never changes.
    pub delay: DelaySetting,
    /// Debug aid for tests: garbage datagrams per second sent to the peer's
    /// GGRS channel.
    pub garbage_per_second: u32,
    /// Debug aid for tests: perturb this peer's simulation from this frame.
    pub inject_desync_from: Option<u32>,
}

/// What the network overlay shows.
#[derive(Clone, Debug, Default)]
pub struct NetStatus {
    pub synchronized: bool,
    pub ping_ms: Option<f64>,
    pub input_delay: u32,
    pub frames_ahead: i32,
    pub interrupted: bool,
    pub connection: Option<&'static str>,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    pub stalled_frames: u64,
}

pub(super) struct Online {
    session: P2PSession<OnlineConfig>,
    pub(super) local: usize,
    remote: usize,
    peer: PeerId,
    socket: WebRtcSocket,
    control: ControlChannel,
    stats: StatsHandle,
    agreement: Agreement,
    options: OnlineOptions,
    retuner: Retuner,
    input_delay: u32,
    delay_changes: u32,
    started: Instant,
    first_frame_at: Option<Instant>,
    interrupted: bool,
    skip_frames: u32,
    stalled_frames: u64,
    /// Frames skipped on GGRS's wait recommendations.
    skipped_frames: u64,
    /// Frames by the rollback (re-simulated frames) that preceded them.
    rollback_histogram: [u64; MAX_PREDICTION + 1],
    /// Sum over this peer's new frames of the input delay in force.
    delay_frame_sum: u64,
    connection: Option<&'static str>,
    last_ping: Option<f64>,
    /// The peer's end-of-match message: (frame, checksum).
    peer_done: Option<(u32, String)>,
    sent_done: bool,
    /// The desync being reported came from the peer (do not echo it back).
    desync_reported_by_peer: bool,
    desyncs: u32,
    /// The peer closed the connection after the match ended.
    peer_gone: bool,
    garbage: Option<UnboundedSender<(PeerId, Packet)>>,
    garbage_owed: f64,
    control_garbage: u64,
    // Last: dropped after everything that runs on it.
    _message_loop: tokio::task::JoinHandle<Result<(), matchbox_socket::Error>>,
    _runtime: Runtime,
}

impl Driver {
    /// A driver for a match against the connected peer.
    pub fn online(connection: Connection, options: OnlineOptions) -> Result<Driver, SessionError> {
        let Connection {
            runtime,
            socket,
            message_loop,
            ggrs_channel,
            control,
            peer,
            agreement,
            started,
            role,
            link,
            link_seed,
            ..
        } = connection;
        let garbage = (options.garbage_per_second > 0).then(|| ggrs_channel.sender_clone());
        let ggrs_socket = GgrsSocket::with_link(ggrs_channel, link, link_seed);
        let stats = ggrs_socket.stats_handle();
        let local = agreement.local_handle;
        let remote = 1 - local;
        let session = SessionBuilder::<OnlineConfig>::new()
            .with_num_players(PLAYERS)?
            .with_max_prediction_window(MAX_PREDICTION)
            .with_input_delay(agreement.input_delay as usize)
            .with_desync_detection_mode(DesyncDetection::On {
                interval: DESYNC_CHECK_INTERVAL,
            })
            .with_disconnect_timeout(DISCONNECT_TIMEOUT)
            .with_disconnect_notify_delay(INTERRUPTION_NOTICE)
            .add_player(PlayerType::Local, local)?
            .add_player(PlayerType::Remote(peer), remote)?
            .start_p2p_session(ggrs_socket)?;
        let driver_options = DriverOptions {
            seed: agreement.seed,
            config: agreement.config,
            mode: Mode::Online(role),
            inject_desync_from: options.inject_desync_from,
        };
        let confirm_limit = options.frames;
        let online = Online {
            session,
            local,
            remote,
            peer,
            socket,
            control,
            stats,
            input_delay: agreement.input_delay,
            retuner: Retuner::new(agreement.input_delay),
            agreement,
            options,
            delay_changes: 0,
            started,
            first_frame_at: None,
            interrupted: false,
            skip_frames: 0,
            stalled_frames: 0,
            skipped_frames: 0,
            rollback_histogram: [0; MAX_PREDICTION + 1],
            delay_frame_sum: 0,
            connection: None,
            last_ping: None,
            peer_done: None,
            sent_done: false,
            desync_reported_by_peer: false,
            desyncs: 0,
            peer_gone: false,
            garbage,
            garbage_owed: 0.0,
            control_garbage: 0,
            _message_loop: message_loop,
            _runtime: runtime,
        };
        let mut driver = Driver::with_backend(Backend::Online(Box::new(online)), driver_options);
        driver.confirm_limit = confirm_limit;
        Ok(driver)
    }

    fn online_mut(&mut self) -> Option<&mut Online> {
        match &mut self.backend {
            Backend::Online(online) => Some(online),
            Backend::Local(_) => None,
        }
    }

    fn online_ref(&self) -> Option<&Online> {
        match &self.backend {
            Backend::Online(online) => Some(online),
            Backend::Local(_) => None,
        }
    }

    pub(super) fn advance_online(
        &mut self,
        inputs: [Input; PLAYERS],
    ) -> Result<FrameReport, SessionError> {
        let mut report = FrameReport::default();
        let online = self.online_mut().expect("online backend");
        if online.session.current_state() != SessionState::Running {
            online.session.poll_remote_clients();
            report.waiting = true;
            return Ok(report);
        }
        online
            .session
            .add_local_input(online.local, inputs[online.local])?;
        let requests = match online.session.advance_frame() {
            Ok(requests) => requests,
            Err(GgrsError::PredictionThreshold) => {
                online.stalled_frames += 1;
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
            self.fulfil(request, &mut report)?;
        }
        let online = self.online_mut().expect("online backend");
        if report.new_frames > 0 && online.first_frame_at.is_none() {
            online.first_frame_at = Some(Instant::now());
        }
        if report.new_frames > 0 {
            let bucket = (report.resimulated as usize).min(MAX_PREDICTION);
            online.rollback_histogram[bucket] += 1;
            online.delay_frame_sum += u64::from(online.input_delay) * u64::from(report.new_frames);
        }
        let confirmed = online.session.confirmed_frame();
        online.send_garbage();
        self.confirm_up_to(confirmed)?;
        if report.new_frames > 0 {
            self.retune();
        }
        Ok(report)
    }

    /// Online: receives packets, reacts to GGRS and WebRTC events and to
    /// control messages. Call it every loop iteration, also between frames.
    /// Local modes: nothing to do.
    pub fn poll(&mut self) -> Result<(), SessionError> {
        let Some(online) = self.online_mut() else {
            return Ok(());
        };
        online.session.poll_remote_clients();
        online.control.flush();
        let events: Vec<_> = online.session.events().collect();
        let mut log = Vec::new();
        let mut result = Ok(());
        for event in events {
            if let Err(e) = online.on_event(event, &mut log) {
                result = Err(e);
                break;
            }
        }
        if result.is_ok() {
            result = online.poll_peer();
        }
        if result.is_ok() {
            result = online.poll_control(&mut log);
        }
        for (kind, detail) in log {
            self.record_event(kind, &detail);
        }
        if let Err(SessionError::Desync {
            frame,
            ours,
            theirs,
        }) = &result
        {
            if let Some(o) = self.online_mut() {
                o.desyncs += 1;
                if !o.desync_reported_by_peer {
                    o.control.send(&Message::Desync {
                        frame: *frame,
                        sender: hex_checksum(*ours),
                        receiver: hex_checksum(*theirs),
                    });
                    o.control.drain(Duration::from_millis(200));
                }
            }
            self.record_event(
                EventKind::Desync,
                &format!(
                    "frame {frame}: ours {}, theirs {}",
                    hex_checksum(*ours),
                    hex_checksum(*theirs)
                ),
            );
        }
        result
    }

    /// Frames GGRS recommends waiting so the peer can catch up (taken: the
    /// next call returns 0 until GGRS recommends again).
    pub fn take_skip_frames(&mut self) -> u32 {
        self.online_mut()
            .map(|o| std::mem::take(&mut o.skip_frames))
            .unwrap_or(0)
    }

    /// How many frames this peer runs ahead of the other (0 locally).
    pub fn frames_ahead(&self) -> i32 {
        self.online_ref().map_or(0, |o| o.session.frames_ahead())
    }

    pub fn net_status(&self) -> Option<NetStatus> {
        let o = self.online_ref()?;
        let stats = o.stats.get();
        Some(NetStatus {
            synchronized: o.session.current_state() == SessionState::Running,
            ping_ms: o.last_ping,
            input_delay: o.input_delay,
            frames_ahead: o.session.frames_ahead(),
            interrupted: o.interrupted,
            connection: o.connection,
            bytes_sent: stats.bytes_sent,
            bytes_received: stats.bytes_received,
            stalled_frames: o.stalled_frames,
        })
    }

    /// Online with `--frames N`: every frame up to N is confirmed.
    pub fn target_confirmed(&self) -> bool {
        self.confirm_limit.is_some_and(|n| self.confirmed >= n)
    }

    /// Tells the peer our confirmed checksum at the target frame (once).
    pub fn announce_done(&mut self) {
        let (frame, checksum) = (self.confirmed, self.confirmed_checksum);
        if let Some(o) = self.online_mut()
            && !o.sent_done
        {
            o.sent_done = true;
            o.control.send(&Message::Done {
                frame,
                checksum: hex_checksum(checksum),
            });
        }
    }

    /// The peer's end-of-match message, once it arrived.
    pub fn peer_done(&self) -> Option<(u32, String)> {
        self.online_ref().and_then(|o| o.peer_done.clone())
    }

    /// The peer closed its connection after the match ended.
    pub fn peer_gone(&self) -> bool {
        self.online_ref().is_some_and(|o| o.peer_gone)
    }

    /// Tells the peer we leave on purpose, so it need not wait for a timeout.
    pub fn say_goodbye(&mut self, reason: &str) {
        if let Some(o) = self.online_mut() {
            o.control.send(&Message::Bye {
                reason: reason.to_string(),
            });
            o.control.drain(Duration::from_millis(200));
        }
    }

    /// Feeds GGRS's ping to the retuner every so often (auto delay only).
    fn retune(&mut self) {
        let frame = self.world.frame;
        let Some(o) = self.online_mut() else { return };
        if frame % Retuner::SAMPLE_EVERY != 0 {
            return;
        }
        let Ok(stats) = o.session.network_stats(o.remote) else {
            return;
        };
        let ping = stats.ping as f64;
        o.last_ping = Some(ping);
        if o.options.delay != DelaySetting::Auto {
            return;
        }
        let Some(delay) = o.retuner.sample(frame, ping) else {
            return;
        };
        if let Err(e) = o.session.set_input_delay(o.local, delay as usize) {
            tracing::warn!("could not change the input delay: {e}");
            return;
        }
        let (rtt, jitter) = o.retuner.measured().unwrap_or((ping, 0.0));
        let detail = format!(
            "{} -> {delay} frames at frame {frame} (rtt {rtt:.0} ms, jitter {jitter:.0} ms)",
            o.input_delay
        );
        tracing::info!("input delay {detail}");
        o.input_delay = delay;
        o.delay_changes += 1;
        self.record_event(EventKind::InputDelay, &detail);
    }
}

impl Online {
    fn on_event(
        &mut self,
        event: GgrsEvent<OnlineConfig>,
        log: &mut Vec<(EventKind, String)>,
    ) -> Result<(), SessionError> {
        match event {
            GgrsEvent::Synchronizing { count, total, .. } => {
                tracing::debug!("synchronizing with the peer: {count}/{total}");
            }
            GgrsEvent::Synchronized { .. } => tracing::info!("synchronized with the peer"),
            GgrsEvent::Disconnected { .. } => {
                if self.match_over() {
                    self.peer_gone = true;
                } else {
                    return Err(SessionError::PeerLost(format!(
                        "stopped responding (no packets for {} s)",
                        DISCONNECT_TIMEOUT.as_secs()
                    )));
                }
            }
            GgrsEvent::NetworkInterrupted {
                disconnect_timeout, ..
            } => {
                self.interrupted = true;
                tracing::warn!(
                    "connection interrupted; the peer is dropped in {disconnect_timeout} ms unless it recovers"
                );
                log.push((
                    EventKind::Interrupted,
                    format!("{disconnect_timeout} ms to timeout"),
                ));
            }
            GgrsEvent::NetworkResumed { .. } => {
                self.interrupted = false;
                tracing::info!("connection resumed");
                log.push((EventKind::Resumed, String::new()));
            }
            GgrsEvent::WaitRecommendation { skip_frames } => {
                tracing::debug!("GGRS recommends waiting {skip_frames} frames");
                self.skip_frames += skip_frames;
                self.skipped_frames += u64::from(skip_frames);
            }
            GgrsEvent::DesyncDetected {
                frame,
                local_checksum,
                remote_checksum,
                ..
            } => {
                return Err(SessionError::Desync {
                    frame,
                    ours: local_checksum,
                    theirs: remote_checksum,
                });
            }
        }
        Ok(())
    }

    /// WebRTC's view of the peer: connection kind, or gone.
    fn poll_peer(&mut self) -> Result<(), SessionError> {
        // Err: the signaling connection closed; the data channels may live on.
        let changes = self.socket.try_update_peers().unwrap_or_default();
        for (peer, state) in changes {
            if peer == self.peer && state == PeerState::Disconnected {
                if self.match_over() {
                    self.peer_gone = true;
                } else {
                    return Err(SessionError::PeerLost("closed the connection".into()));
                }
            }
        }
        if self.connection.is_none()
            && let Some(pair) = self.socket.candidate_pair(self.peer)
        {
            let kind = connection_kind(pair.remote);
            let kind = if pair.is_relayed() { "relay" } else { kind };
            tracing::info!("connection: {kind} ({pair:?})");
            self.connection = Some(kind);
        }
        Ok(())
    }

    fn poll_control(&mut self, log: &mut Vec<(EventKind, String)>) -> Result<(), SessionError> {
        for received in self.control.receive() {
            match received {
                Ok(Message::Done { frame, checksum }) => {
                    self.peer_done = Some((frame, checksum));
                }
                Ok(Message::Bye { reason }) => {
                    log.push((EventKind::PeerLeft, reason.clone()));
                    if self.match_over() {
                        self.peer_gone = true;
                    } else {
                        return Err(SessionError::PeerLost(format!("left the match ({reason})")));
                    }
                }
                Ok(Message::Desync {
                    frame,
                    sender,
                    receiver,
                }) => {
                    self.desync_reported_by_peer = true;
                    return Err(SessionError::Desync {
                        frame,
                        ours: parse_hex_checksum(&receiver).unwrap_or(0),
                        theirs: parse_hex_checksum(&sender).unwrap_or(0),
                    });
                }
                // A late probe from a peer still measuring: answer it.
                Ok(Message::Ping { seq }) => self.control.send(&Message::Pong { seq }),
                Ok(_) => {}
                Err(e) => {
                    self.control_garbage += 1;
                    if self.control_garbage <= 3 {
                        tracing::warn!("ignored a control message: {e}");
                    }
                }
            }
        }
        Ok(())
    }

    /// After either end-of-match message, the peer leaving is expected.
    fn match_over(&self) -> bool {
        self.sent_done || self.peer_done.is_some()
    }

    fn send_garbage(&mut self) {
        let Some(sender) = &self.garbage else { return };
        self.garbage_owed += f64::from(self.options.garbage_per_second) / f64::from(super::FPS);
        while self.garbage_owed >= 1.0 {
            self.garbage_owed -= 1.0;
            let len = 1 + rand::random::<u8>() as usize % 120;
            let bytes: Vec<u8> = (0..len).map(|_| rand::random()).collect();
            let _ = sender.unbounded_send((self.peer, Packet::from(bytes)));
        }
    }

    pub(super) fn fill_summary(&self, summary: &mut Summary) {
        let stats = self.stats.get();
        summary.input_delay = self.input_delay;
        summary.desyncs = self.desyncs;
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
        summary.stalled_frames = Some(self.stalled_frames);
        summary.skipped_frames = Some(self.skipped_frames);
        summary.rollback_histogram = Some(self.rollback_histogram.to_vec());
        let frames: u64 = self.rollback_histogram.iter().sum();
        summary.mean_input_delay = (frames > 0)
            .then(|| (self.delay_frame_sum as f64 / frames as f64 * 1000.0).round() / 1000.0);
        summary.delay_changes = Some(self.delay_changes);
        summary.player = Some(self.local as u32 + 1);
        summary.elapsed_s = self
            .first_frame_at
            .map(|t| (t.elapsed().as_secs_f64() * 1000.0).round() / 1000.0);
    }
}
