//! `Driver`: one match's world under one backend, one frame at a time. It
//! fulfils GGRS's requests, logs and records confirmed frames, and reports
//! what each frame did; it never sleeps, draws or prints. The match's
//! lifecycle around it (pacing, the end, the verdict) is `lifecycle::Match`.

use super::backend::{Backend, LocalBackend};
use super::frame_log::FrameLog;
use super::online::OnlineBackend;
use super::report::FrameReport;
use super::simulation::Simulation;
use super::spectator::{SpectatorBackend, SpectatorOptions};
use super::{MatchSummary, NetStatus, OnlineOptions, ProtocolError, SessionError, WatchStatus};
use crate::Game;
use crate::net::connect::Connection;
use crate::net::handshake::Role;
use crate::net::watch::WatchConnection;
use crate::replay::{Header, Writer};
use crate::{Frame, hex_checksum};

/// What a match runs under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every frame is rolled back `check_distance` frames and re-simulated.
    SyncTest {
        /// How far back each frame is rolled: one of 2 to 7.
        check_distance: usize,
    },
    /// Both players on this machine; no rollback.
    Local,
    /// Against a peer over the network (`host`, `join`, quick match).
    Online(Role),
    /// Watching a match played by others (`twinstar watch`).
    Watch,
}

impl Mode {
    /// The mode's name in summaries, replays and window titles.
    pub fn name(&self) -> &'static str {
        match self {
            Mode::SyncTest { .. } => "synctest",
            Mode::Local => "local",
            Mode::Online(role) => role.name(),
            Mode::Watch => "watch",
        }
    }
}

/// How a match was started ([`Driver::options`]); `C` is the game's config
/// (its rules). Each mode has its constructor: [`Driver::synctest`],
/// [`Driver::local`], [`Driver::online`], [`Driver::watch`].
#[derive(Clone, Debug)]
pub struct DriverOptions<C> {
    /// The seed the game starts from.
    pub seed: u64,
    /// The game's rules.
    pub config: C,
    /// What the match runs under.
    pub mode: Mode,
    /// Debug aid ([`crate::testing::inject_desync`]): from this frame on,
    /// each simulation of a frame perturbs the world differently.
    pub inject_desync_from: Option<Frame>,
}

/// One match of `G` (`N` players) under one backend.
pub struct Driver<G: Game<N>, const N: usize> {
    pub(super) backend: Box<dyn Backend<G, N>>,
    pub(super) sim: Simulation<G, N>,
    pub(super) log: FrameLog<G::Input, N>,
    options: DriverOptions<G::Config>,
    venue: Venue,
}

/// Where a match is played, for its replay's header: nothing offline; the
/// room, the peer and the agreed input delay online (the peer streaming
/// it, when watching).
#[derive(Clone, Debug, Default)]
struct Venue {
    room: Option<String>,
    peers: Vec<String>,
    input_delay: u32,
}

impl<G: Game<N>, const N: usize> Driver<G, N> {
    /// A synctest: every frame is rolled back `check_distance` frames (one
    /// of 2 to 7) and re-simulated, each checksum compared with the first
    /// simulation's. An out-of-range distance is an error.
    pub fn synctest(
        seed: u64,
        config: G::Config,
        check_distance: usize,
    ) -> Result<Self, SessionError> {
        if !CHECK_DISTANCES.contains(&check_distance) {
            let info = format!("check distance {check_distance} is not one of {CHECK_DISTANCES:?}");
            return Err(SessionError::ggrs(ggrs::GgrsError::InvalidRequest { info }));
        }
        let mode = Mode::SyncTest { check_distance };
        Self::offline(seed, config, mode, check_distance)
    }

    /// A local match: every player on this machine, no rollback.
    pub fn local(seed: u64, config: G::Config) -> Result<Self, SessionError> {
        Self::offline(seed, config, Mode::Local, 0)
    }

    /// Debug aid ([`crate::testing::inject_desync`]): from frame `from`
    /// on, each simulation of a frame perturbs the world differently.
    pub(crate) fn inject_desync_from(mut self, from: Frame) -> Self {
        self.options.inject_desync_from = Some(from);
        self.sim.inject_desync_from(from);
        self
    }

    fn offline(
        seed: u64,
        config: G::Config,
        mode: Mode,
        check_distance: usize,
    ) -> Result<Self, SessionError> {
        let backend = LocalBackend::<G, N>::new(check_distance)?;
        let options = DriverOptions {
            seed,
            config,
            mode,
            inject_desync_from: None,
        };
        Ok(Self::with_backend(Box::new(backend), options))
    }

    pub(super) fn with_backend(
        backend: Box<dyn Backend<G, N>>,
        options: DriverOptions<G::Config>,
    ) -> Self {
        let synctest = matches!(options.mode, Mode::SyncTest { .. });
        let sim = Simulation::<G, N>::new(
            options.seed,
            options.config,
            synctest,
            options.inject_desync_from,
        );
        let log = FrameLog::new(G::checksum(sim.world()));
        Driver {
            backend,
            sim,
            log,
            options,
            venue: Venue::default(),
        }
    }

    /// The match's state as it stands: the newest simulated frame while
    /// it runs (online, that includes predicted frames); once it is
    /// finished, the world after its last confirmed frame.
    pub fn world(&self) -> &G::State {
        self.sim.world()
    }

    /// What the driver was made with.
    pub fn options(&self) -> &DriverOptions<G::Config> {
        &self.options
    }

    /// Frames whose inputs are final (all of them, in local modes).
    pub fn confirmed_frames(&self) -> Frame {
        self.log.confirmed()
    }

    /// Runs one frame. Local modes take both inputs; online play takes only
    /// this machine's player's (its slot from the handshake), the other
    /// slot is ignored. A game steps a match with [`super::Match::advance`]
    /// (pacing, the end, the verdict around this); tests that step the
    /// driver alone use [`crate::testing::advance`].
    pub(crate) fn advance(
        &mut self,
        inputs: [G::Input; N],
    ) -> Result<FrameReport<G, N>, SessionError> {
        self.backend.advance(inputs, &mut self.sim, &mut self.log)
    }

    /// Online: receives packets, reacts to GGRS and WebRTC events and to
    /// control messages. Local modes: nothing to do.
    pub(super) fn poll(&mut self) -> Result<(), SessionError> {
        self.backend.poll(&mut self.sim, &mut self.log)
    }

    /// An online match's state and link figures, for a frontend (`None` offline).
    pub fn net_status(&self) -> Option<NetStatus> {
        self.backend.net_status()
    }

    /// Online with [`OnlineOptions::record_link`](super::OnlineOptions):
    /// the link's conditions this peer saw so far, 100 ms a sample
    /// (`None` offline, or before the first sample).
    pub fn link_trace(&self) -> Option<crate::connect::LinkTrace> {
        self.backend.link_trace()
    }

    /// Watching: the room and how far behind live.
    pub fn watch_status(&self) -> Option<WatchStatus> {
        self.backend.watch_status()
    }

    /// The players' names, player 1's first (`P1`, `P2` offline).
    pub fn player_names(&self) -> [String; N] {
        self.backend.player_names()
    }

    /// Records every confirmed frame from now on (call before the first frame).
    pub(crate) fn record_to(&mut self, writer: Writer<G::Input, N>) {
        self.log.record_to(writer);
    }

    /// The header of this match's replay: the game, the mode, the seed and
    /// the rules, the players' names, and online the room, the peer and
    /// the input delay.
    pub fn replay_header(&self) -> Header {
        let options = &self.options;
        let mut header = Header::new::<G, N>(options.mode.name(), options.seed, &options.config);
        header.room = self.venue.room.clone();
        header.peers = self.venue.peers.clone();
        header.input_delay = self.venue.input_delay;
        header.set_player_names(self.player_names());
        header
    }

    /// Records every confirmed frame from now on to a new replay file at
    /// `path` (replaced if it exists), under [`Driver::replay_header`];
    /// call before the first frame.
    pub fn record_to_file(&mut self, path: &std::path::Path) -> std::io::Result<()> {
        let writer = Writer::create(path, &G::INFO, &self.replay_header())?;
        self.record_to(writer);
        // Online, the network's telemetry beside it (`replay::telemetry`).
        if self.backend.has_peer() {
            self.log.record_telemetry(G::INFO.fps);
        }
        Ok(())
    }

    /// Where the replay is being written, if anywhere.
    pub fn recording_path(&self) -> Option<std::path::PathBuf> {
        self.log.recording_path()
    }

    /// The frame the summary's checksum is of, and the checksum: the newest
    /// world in local modes (every simulated frame is final), the last
    /// confirmed frame online.
    pub(crate) fn checksum_state(&self) -> (Frame, u128) {
        if self.backend.has_peer() {
            (self.log.confirmed(), self.log.confirmed_checksum())
        } else {
            let world = self.sim.world();
            (G::frame(world), G::checksum(world))
        }
    }

    /// At the match's end: the world becomes the one after the last
    /// confirmed frame, the frame the summary, the replay and the peer's
    /// checksum are of. Online, the simulation runs ahead of confirmation
    /// (predicted frames, and frames past a `--frames` end while the last
    /// ones confirm); the newest world would show, and claim, a score the
    /// replay does not hold.
    pub(super) fn settle(&mut self) -> Result<(), SessionError> {
        if !self.backend.has_peer() {
            return Ok(());
        }
        let inputs = self.log.history().map_or(&[][..], |h| &h.inputs[..]);
        let options = &self.options;
        self.sim.settle_at(
            self.log.confirmed(),
            self.log.confirmed_checksum(),
            inputs,
            || G::start(options.seed, &options.config),
        )
    }

    /// Closes the recording with an end record; the path goes in the summary.
    pub(super) fn finish_recording(&mut self, reason: &str) {
        let last = self.checksum_state().1;
        self.log.finish(last, reason);
    }

    /// After a desync online: both sides' evidence, as far as it came.
    pub fn desync_forensics(&self) -> Option<&super::desync::Forensics<G, N>> {
        self.backend.desync_forensics()
    }

    /// What the match reports in the `--json` summary (the game adds its own).
    pub fn match_summary(&self) -> MatchSummary {
        let (checksum_frame, checksum) = self.checksum_state();
        let mut summary = MatchSummary {
            mode: self.options.mode.name().to_string(),
            frames: self.log.confirmed(),
            checksum_frame,
            checksum: hex_checksum(checksum),
            mismatches: self.sim.mismatches(),
            rollback_frames: self.sim.rollback_frames(),
            connection: "local".to_string(),
            seed: self.options.seed,
            preset: G::preset_name(&self.options.config)
                .unwrap_or("custom")
                .to_string(),
            check_distance: match self.options.mode {
                Mode::SyncTest { check_distance } => Some(check_distance),
                Mode::Local | Mode::Online(_) | Mode::Watch => None,
            },
            replay: self.log.replay_path().map(str::to_string),
            telemetry: self.log.telemetry_file().map(|(p, _)| p.to_string()),
            telemetry_bytes: self.log.telemetry_file().map(|(_, n)| n),
            ..MatchSummary::default()
        };
        self.backend.fill_summary(&mut summary);
        summary
    }
}

/// Matches with other machines: two players, the only count an online
/// match supports (the handshake, the pause, chat and spectators hold two),
/// so a game of any other count has no `online` or `watch` to call.
impl<G: Game<2>> Driver<G, 2> {
    /// A match against the connected peer.
    pub fn online(
        mut connection: Connection<G::Input, 2>,
        options: OnlineOptions,
    ) -> Result<Self, SessionError> {
        let driver_options = DriverOptions {
            seed: connection.agreement.seed,
            config: agreed_rules::<G, 2>(&connection.agreement.preset)?,
            mode: Mode::Online(connection.options.meeting.role),
            inject_desync_from: options.inject_desync_from,
        };
        // Both seats' peer ids, in seat order, so that a server that
        // ranks the replay checks both sat in a match it paired.
        let other = connection.peer.to_string();
        let peers = match connection
            .transport
            .socket_mut()
            .id()
            .map(|own| own.to_string())
        {
            Some(own) if connection.agreement.local_handle == 0 => vec![own, other],
            Some(own) => vec![other, own],
            None => vec![other],
        };
        let venue = Venue {
            room: connection.room().map(ToString::to_string),
            peers,
            input_delay: connection.agreement.input_delay,
        };
        let backend = OnlineBackend::<G, 2>::new(connection, options)?;
        let mut driver = Self::with_backend(Box::new(backend), driver_options);
        driver.venue = venue;
        // What a player who rejoins is sent to catch up.
        driver.log.keep_history();
        Ok(driver)
    }

    /// A match others play, streamed by one of them.
    pub fn watch(
        connection: WatchConnection<G::Input, 2>,
        spectator: SpectatorOptions,
    ) -> Result<Self, SessionError> {
        let options = DriverOptions {
            seed: connection.seed,
            config: agreed_rules::<G, 2>(&connection.preset)?,
            mode: Mode::Watch,
            inject_desync_from: None,
        };
        let venue = Venue {
            room: Some(connection.room.to_string()),
            peers: vec![connection.peer.to_string()],
            input_delay: 0,
        };
        let backend = SpectatorBackend::<G, 2>::new(connection, spectator)?;
        let mut driver = Self::with_backend(Box::new(backend), options);
        driver.venue = venue;
        Ok(driver)
    }
}

/// The rules of a preset the peers agreed on (the handshake and the
/// spectator's connector accept only the game's presets).
fn agreed_rules<G: Game<N>, const N: usize>(preset: &str) -> Result<G::Config, SessionError> {
    G::preset(preset)
        .ok_or_else(|| SessionError::Protocol(ProtocolError::UnknownPreset(preset.to_owned())))
}

/// GGRS's default prediction window; synctest check distances must be below it.
pub const MAX_PREDICTION: usize = 8;

/// Check distances that actually compare checksums in GGRS 0.13: a distance
/// of 1 re-saves no frame, so it could never report a mismatch.
pub const CHECK_DISTANCES: std::ops::RangeInclusive<usize> = 2..=(MAX_PREDICTION - 1);
