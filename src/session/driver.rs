use std::marker::PhantomData;

use ggrs::{GgrsRequest, InputStatus, PredictRepeatLast, SessionBuilder, SyncTestSession};

use super::{CHECK_DISTANCES, MAX_PREDICTION, SessionError, Summary, hex_checksum};
use crate::replay::Writer;
use crate::sim::{Event, Input, PLAYERS, SimConfig, World};

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
}

impl Mode {
    pub fn name(&self) -> &'static str {
        match self {
            Mode::SyncTest { .. } => "synctest",
            Mode::Local => "local",
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
    /// Events of the newly simulated frames (never of re-simulations).
    pub events: Vec<Event>,
}

pub struct Driver {
    session: SyncTestSession<LocalConfig>,
    world: Box<World>,
    options: DriverOptions,
    /// Newest frame simulated so far: an advance at or below it is a re-simulation.
    newest_frame: u32,
    /// First checksum seen for recent frames, keyed by frame % len.
    first_checksums: [(i32, u128); 32],
    steps: u64,
    rollback_frames: u64,
    mismatches: u32,
    /// Where confirmed frames go, if the run is recorded.
    recorder: Option<Writer>,
    /// The finished recording's path, for the summary.
    replay_path: Option<String>,
}

impl Driver {
    pub fn new(options: DriverOptions) -> Result<Self, SessionError> {
        let check_distance = match options.mode {
            Mode::SyncTest { check_distance } => {
                debug_assert!(CHECK_DISTANCES.contains(&check_distance));
                check_distance
            }
            Mode::Local => 0,
        };
        let session = SessionBuilder::<LocalConfig>::new()
            .with_num_players(PLAYERS)?
            .with_max_prediction_window(MAX_PREDICTION)
            .with_check_distance(check_distance)
            .start_synctest_session()?;
        Ok(Driver {
            session,
            world: World::new(options.seed, options.config),
            options,
            newest_frame: 0,
            first_checksums: [(-1, 0); 32],
            steps: 0,
            rollback_frames: 0,
            mismatches: 0,
            recorder: None,
            replay_path: None,
        })
    }

    pub fn world(&self) -> &World {
        &self.world
    }

    pub fn options(&self) -> &DriverOptions {
        &self.options
    }

    /// Runs one frame with these local inputs (one per player).
    pub fn advance(&mut self, inputs: [Input; PLAYERS]) -> Result<FrameReport, SessionError> {
        for (handle, input) in inputs.into_iter().enumerate() {
            self.session.add_local_input(handle, input)?;
        }
        let requests = match self.session.advance_frame() {
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

    fn fulfil(
        &mut self,
        request: GgrsRequest<LocalConfig>,
        report: &mut FrameReport,
    ) -> Result<(), SessionError> {
        match request {
            GgrsRequest::SaveGameState { cell, frame } => {
                let checksum = self.world.checksum();
                self.check_first_checksum(frame, checksum)?;
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
        let is_new = self.world.frame >= self.newest_frame;
        if is_new {
            self.world.step(inputs, &mut report.events);
            self.newest_frame = self.world.frame;
            report.new_frames += 1;
        } else {
            self.world.step(inputs, &mut ());
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
        // Synctest and local inputs are all local, so a frame's first
        // simulation is its confirmed one.
        if is_new && let Some(writer) = &mut self.recorder {
            if let Err(e) = writer.frame(inputs, &self.world) {
                tracing::warn!("recording stopped: {}: {e}", writer.path().display());
                self.recorder = None;
            }
        }
    }

    /// Records every confirmed frame from now on (call before the first frame).
    pub fn record_to(&mut self, writer: Writer) {
        self.recorder = Some(writer);
    }

    /// Closes the recording with an end record; the path goes in the summary.
    pub fn finish_recording(&mut self, reason: &str) {
        if let Some(writer) = self.recorder.take() {
            let path = writer.path().display().to_string();
            match writer.finish(&self.world, reason) {
                Ok(_) => self.replay_path = Some(path),
                Err(e) => tracing::warn!("could not finish the replay {path}: {e}"),
            }
        }
    }

    /// Synctest: the first checksum of a frame must equal any later one.
    fn check_first_checksum(&mut self, frame: i32, checksum: u128) -> Result<(), SessionError> {
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
        Summary {
            mode: self.options.mode.name().to_string(),
            frames: w.frame,
            checksum_frame: w.frame,
            checksum: hex_checksum(w.checksum()),
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
                Mode::Local => None,
            },
            wave: w.spawner.wave,
            score: [w.players[0].score, w.players[1].score],
            shared_score: w.shared_score(),
            restarts: w.restarts,
            replay: self.replay_path.clone(),
            ..Summary::default()
        }
    }
}
