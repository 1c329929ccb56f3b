use std::marker::PhantomData;

use ggrs::{GgrsRequest, InputStatus, PredictRepeatLast, SessionBuilder, SyncTestSession};

use super::online::Online;
use super::{CHECK_DISTANCES, MAX_PREDICTION, SessionError, Summary, hex_checksum};
use crate::net::handshake::Role;
use crate::replay::Writer;
use crate::sim::{Event, EventSink, Input, PLAYERS, SimConfig, World};

/// GGRS type bundle. `A` is the peer address type of the transport.
pub struct GgrsConfig<A>(PhantomData<A>);

impl<A> ggrs::Config for GgrsConfig<A>
where
    A: Clone + PartialEq + Eq + std::hash::Hash + Send + Sync + std::fmt::Debug + 'static,
{
    type Input = Input;
    type InputPredictor = PredictRepeatLast;
    type State = Box<World>;
    type Address = A;
}

/// Synctest and local sessions have no peers; their address type is unit.
type LocalConfig = GgrsConfig<()>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every frame is rolled back `check_distance` frames and re-simulated.
    SyncTest { check_distance: usize },
    /// Both players on this machine; no rollback.
    Local,
    /// Against a peer over the network (`host`, `join`, quick match).
    Online(Role),
}

impl Mode {
    pub fn name(&self) -> &'static str {
        match self {
            Mode::SyncTest { .. } => "synctest",
            Mode::Local => "local",
            Mode::Online(Role::Host) => "host",
            Mode::Online(Role::Join) => "join",
            Mode::Online(Role::Quick) => "quick",
        }
    }
}

#[derive(Clone, Debug)]
pub struct DriverOptions {
    pub seed: u64,
    pub config: SimConfig,
    pub mode: Mode,
    /// Debug aid: from this frame on, each simulation of a frame perturbs the
    /// world differently, as a non-deterministic bug would. Synctest must
    /// catch it; tests prove that it does.
    pub inject_desync_from: Option<u32>,
}

/// What one `advance` did.
#[derive(Debug, Default)]
pub struct FrameReport {
    /// Frames simulated for the first time.
    pub new_frames: u32,
    /// Frames simulated again after a rollback.
    pub resimulated: u32,
    /// Events of every frame simulated in this advance, tagged with the
    /// frame whose step emitted them. A frame simulated twice in one advance
    /// (a rollback) keeps only its last simulation's events, so frontends
    /// can diff them against what they already showed (`frontend::effects`).
    pub events: Vec<(u32, Event)>,
    /// The lowest and highest frame simulated in this advance (frame numbers
    /// after the step), when any was.
    pub simulated: Option<(u32, u32)>,
    /// The inputs the newest simulated frame was stepped with (online, the
    /// other player's is GGRS's prediction until it is confirmed).
    pub inputs: Option<[Input; PLAYERS]>,
    /// Online: GGRS refused to run further ahead of the peer (a stall).
    pub stalled: bool,
    /// Online: the session is still synchronizing with the peer.
    pub waiting: bool,
}

/// Tags each event with the frame that emitted it.
struct FrameEvents<'a> {
    frame: u32,
    out: &'a mut Vec<(u32, Event)>,
}

impl EventSink for FrameEvents<'_> {
    fn emit(&mut self, event: Event) {
        self.out.push((self.frame, event));
    }
}

pub(super) enum Backend {
    Local(Box<SyncTestSession<LocalConfig>>),
    Online(Box<Online>),
}

/// Recent simulated frames, so that confirmed ones can be recorded once
/// their inputs are final. Longer than any rollback (GGRS predicts at most
/// `MAX_PREDICTION` frames ahead).
const FRAME_LOG: usize = 64;

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LogEntry {
    /// The frame these inputs advanced from (-1: empty slot).
    frame: i64,
    inputs: [Input; PLAYERS],
    /// Checksum of the world after the frame, once GGRS saved it.
    checksum_after: Option<u128>,
}

pub struct Driver {
    pub(super) backend: Backend,
    pub(super) world: Box<World>,
    pub(super) options: DriverOptions,
    /// Newest frame simulated so far: an advance at or below it is a re-simulation.
    pub(super) newest_frame: u32,
    /// First checksum seen for recent frames, keyed by frame % len.
    first_checksums: [(i32, u128); 32],
    steps: u64,
    pub(super) rollback_frames: u64,
    mismatches: u32,
    /// Where confirmed frames go, if the run is recorded.
    pub(super) recorder: Option<Writer>,
    /// The finished recording's path, for the summary.
    replay_path: Option<String>,
    log: Box<[LogEntry; FRAME_LOG]>,
    /// Frames confirmed (and recorded, if recording) so far: 0..confirmed.
    pub(super) confirmed: u32,
    /// Checksum of the world after `confirmed` frames.
    pub(super) confirmed_checksum: u128,
    /// Confirm no frame at or beyond this (the end of a `--frames N` match).
    pub(super) confirm_limit: Option<u32>,
}

impl Driver {
    pub fn new(options: DriverOptions) -> Result<Self, SessionError> {
        let check_distance = match options.mode {
            Mode::SyncTest { check_distance } => {
                debug_assert!(CHECK_DISTANCES.contains(&check_distance));
                check_distance
            }
            Mode::Local | Mode::Online(_) => 0,
        };
        let session = SessionBuilder::<LocalConfig>::new()
            .with_num_players(PLAYERS)?
            .with_max_prediction_window(MAX_PREDICTION)
            .with_check_distance(check_distance)
            .start_synctest_session()?;
        Ok(Self::with_backend(
            Backend::Local(Box::new(session)),
            options,
        ))
    }

    pub(super) fn with_backend(backend: Backend, options: DriverOptions) -> Self {
        let world = World::new(options.seed, options.config);
        let confirmed_checksum = world.checksum();
        let empty = LogEntry {
            frame: -1,
            ..LogEntry::default()
        };
        Driver {
            backend,
            world,
            options,
            newest_frame: 0,
            first_checksums: [(-1, 0); 32],
            steps: 0,
            rollback_frames: 0,
            mismatches: 0,
            recorder: None,
            replay_path: None,
            log: Box::new([empty; FRAME_LOG]),
            confirmed: 0,
            confirmed_checksum,
            confirm_limit: None,
        }
    }

    pub fn world(&self) -> &World {
        &self.world
    }

    pub fn options(&self) -> &DriverOptions {
        &self.options
    }

    /// Frames whose inputs are final (all of them, in local modes).
    pub fn confirmed_frames(&self) -> u32 {
        self.confirmed
    }

    /// Runs one frame. Local modes take both inputs; online play takes the
    /// local player's from its slot (see [`Driver::local_players`]).
    pub fn advance(&mut self, inputs: [Input; PLAYERS]) -> Result<FrameReport, SessionError> {
        let session = match &mut self.backend {
            Backend::Online(_) => return self.advance_online(inputs),
            Backend::Local(session) => session,
        };
        for (handle, input) in inputs.into_iter().enumerate() {
            session.add_local_input(handle, input)?;
        }
        let requests = match session.advance_frame() {
            Ok(requests) => requests,
            Err(ggrs::GgrsError::MismatchedChecksum {
                mismatched_frames, ..
            }) => {
                // Our own check on save normally fires first, with both checksums.
                self.mismatches += 1;
                let frame = mismatched_frames.first().copied().unwrap_or(-1);
                return Err(SessionError::GgrsMismatch { frame });
            }
            Err(e) => return Err(e.into()),
        };
        let mut report = FrameReport::default();
        for request in requests {
            self.fulfil(request, &mut report)?;
        }
        Ok(report)
    }

    /// Which player slots this machine controls.
    pub fn local_players(&self) -> Vec<usize> {
        match &self.backend {
            Backend::Local(_) => (0..PLAYERS).collect(),
            Backend::Online(online) => vec![online.local],
        }
    }

    pub(super) fn fulfil<A>(
        &mut self,
        request: GgrsRequest<GgrsConfig<A>>,
        report: &mut FrameReport,
    ) -> Result<(), SessionError>
    where
        GgrsConfig<A>: ggrs::Config<Input = Input, State = Box<World>>,
    {
        match request {
            GgrsRequest::SaveGameState { cell, frame } => {
                let checksum = self.world.checksum();
                self.check_first_checksum(frame, checksum)?;
                if frame > 0 {
                    let entry = &mut self.log[(frame as usize - 1) % FRAME_LOG];
                    if entry.frame == i64::from(frame) - 1 {
                        entry.checksum_after = Some(checksum);
                    }
                }
                cell.save(frame, Some(self.world.clone()), Some(checksum));
            }
            GgrsRequest::LoadGameState { cell, frame } => {
                let saved = cell.data().ok_or(SessionError::MissingState(frame))?;
                *self.world = **saved;
            }
            GgrsRequest::AdvanceFrame { inputs } => {
                let mut frame_inputs = [Input::default(); PLAYERS];
                for (slot, (input, status)) in frame_inputs.iter_mut().zip(inputs) {
                    // A disconnected player's input is a dummy: treat as idle.
                    *slot = if status == InputStatus::Disconnected {
                        Input::default()
                    } else {
                        input
                    };
                }
                self.step(frame_inputs, report);
            }
        }
        Ok(())
    }

    fn step(&mut self, inputs: [Input; PLAYERS], report: &mut FrameReport) {
        let frame = self.world.frame;
        let is_new = frame >= self.newest_frame;
        // A re-simulation from here replaces the events of this frame and
        // of every later one (they are all re-simulated after it).
        let stepped = frame.wrapping_add(1);
        report.events.retain(|(f, _)| *f < stepped);
        let mut sink = FrameEvents {
            frame: stepped,
            out: &mut report.events,
        };
        self.world.step(inputs, &mut sink);
        // Steps run in frame order, so the last one is the newest frame.
        report.inputs = Some(inputs);
        report.simulated = Some(match report.simulated {
            None => (stepped, stepped),
            Some((lo, hi)) => (lo.min(stepped), hi.max(stepped)),
        });
        if is_new {
            self.newest_frame = self.world.frame;
            report.new_frames += 1;
        } else {
            self.rollback_frames += 1;
            report.resimulated += 1;
        }
        self.steps += 1;
        if let Some(from) = self.options.inject_desync_from
            && self.world.frame >= from
        {
            // Differs between the first simulation of a frame and any re-run.
            self.world.players[0].score ^= self.steps as u32;
        }
        self.log[frame as usize % FRAME_LOG] = LogEntry {
            frame: i64::from(frame),
            inputs,
            checksum_after: None,
        };
        // Synctest and local inputs are all local, so a frame's first
        // simulation is its confirmed one. Online frames are confirmed later,
        // from the log, when GGRS has every player's input for them.
        if is_new && matches!(self.backend, Backend::Local(_)) {
            let world = &self.world;
            Self::record(&mut self.recorder, inputs, || world.checksum());
            self.confirmed = self.world.frame;
        }
    }

    /// Confirms logged frames up to GGRS's confirmed frame. Call right after
    /// fulfilling an advance's requests: any rollback its inputs needed has
    /// run, so the log holds each frame's final inputs and checksum.
    pub(super) fn confirm_up_to(&mut self, ggrs_confirmed: i32) -> Result<(), SessionError> {
        let through = u32::try_from(ggrs_confirmed + 1).unwrap_or(0);
        let limit = through
            .min(self.newest_frame)
            .min(self.confirm_limit.unwrap_or(u32::MAX));
        while self.confirmed < limit {
            let frame = self.confirmed;
            let entry = self.log[frame as usize % FRAME_LOG];
            if entry.frame != i64::from(frame) {
                return Err(SessionError::MissingState(frame as i32));
            }
            // GGRS saves a frame's resulting state at the start of the next
            // advance: the newest frame's checksum comes one call later.
            let Some(checksum) = entry.checksum_after else {
                break;
            };
            Self::record(&mut self.recorder, entry.inputs, || checksum);
            self.confirmed = frame + 1;
            self.confirmed_checksum = checksum;
        }
        Ok(())
    }

    fn record(
        recorder: &mut Option<Writer>,
        inputs: [Input; PLAYERS],
        checksum: impl FnOnce() -> u128,
    ) {
        if let Some(writer) = recorder
            && let Err(e) = writer.frame(inputs, checksum)
        {
            tracing::warn!("recording stopped: {}: {e}", writer.path().display());
            *recorder = None;
        }
    }

    /// Adds a match event (interruption, delay change, desync) to the replay.
    pub(super) fn record_event(&mut self, kind: crate::replay::EventKind, detail: &str) {
        if let Some(writer) = &mut self.recorder
            && let Err(e) = writer.event(kind, detail)
        {
            tracing::warn!("recording stopped: {}: {e}", writer.path().display());
            self.recorder = None;
        }
    }

    /// Records every confirmed frame from now on (call before the first frame).
    pub fn record_to(&mut self, writer: Writer) {
        self.recorder = Some(writer);
    }

    /// Where the replay is being written, if anywhere.
    pub fn recording_path(&self) -> Option<std::path::PathBuf> {
        self.recorder.as_ref().map(|w| w.path().to_path_buf())
    }

    /// Closes the recording with an end record; the path goes in the summary.
    pub fn finish_recording(&mut self, reason: &str) {
        let last = self.checksum_state().1;
        if let Some(writer) = self.recorder.take() {
            let path = writer.path().display().to_string();
            match writer.finish(last, reason) {
                Ok(_) => self.replay_path = Some(path),
                Err(e) => tracing::warn!("could not finish the replay {path}: {e}"),
            }
        }
    }

    /// The frame the summary's checksum is of, and the checksum: the newest
    /// world in local modes, the last confirmed frame online.
    pub fn checksum_state(&self) -> (u32, u128) {
        match self.backend {
            Backend::Local(_) => (self.world.frame, self.world.checksum()),
            Backend::Online(_) => (self.confirmed, self.confirmed_checksum),
        }
    }

    /// Synctest: the first checksum of a frame must equal any later one.
    fn check_first_checksum(&mut self, frame: i32, checksum: u128) -> Result<(), SessionError> {
        if !matches!(self.options.mode, Mode::SyncTest { .. }) {
            return Ok(());
        }
        let slot = &mut self.first_checksums[frame as usize % 32];
        if slot.0 == frame && slot.1 != checksum {
            self.mismatches += 1;
            return Err(SessionError::Mismatch {
                frame,
                first: slot.1,
                resimulated: checksum,
            });
        }
        *slot = (frame, checksum);
        Ok(())
    }

    pub fn summary(&self) -> Summary {
        let w = &self.world;
        let (checksum_frame, checksum) = self.checksum_state();
        let mut summary = Summary {
            mode: self.options.mode.name().to_string(),
            frames: self.confirmed,
            checksum_frame,
            checksum: hex_checksum(checksum),
            mismatches: self.mismatches,
            rollback_frames: self.rollback_frames,
            connection: "local".to_string(),
            seed: self.options.seed,
            preset: self
                .options
                .config
                .preset_name()
                .unwrap_or("custom")
                .to_string(),
            check_distance: match self.options.mode {
                Mode::SyncTest { check_distance } => Some(check_distance),
                Mode::Local | Mode::Online(_) => None,
            },
            wave: w.spawner.wave,
            score: [w.players[0].score, w.players[1].score],
            shared_score: w.shared_score(),
            restarts: w.restarts,
            replay: self.replay_path.clone(),
            ..Summary::default()
        };
        if let Backend::Online(online) = &self.backend {
            online.fill_summary(&mut summary);
        }
        summary
    }
}
