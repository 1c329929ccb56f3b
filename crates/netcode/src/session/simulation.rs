//! The world under GGRS: fulfils save, load and advance requests, counts
//! re-simulations, and in synctest compares every re-saved frame with its
//! first checksum. It knows nothing of networks or frontends.

use ggrs::{GgrsRequest, InputStatus};

use super::SessionError;
use super::frame_log::FrameLog;
use super::report::{FrameReport, GgrsConfig};
use crate::{Frame, Game};

/// Recent frames' first checksums kept for the synctest comparison; more
/// than any check distance.
const FIRST_CHECKSUMS: usize = 32;

/// GGRS compares the peers' checksums of every confirmed frame that is a
/// multiple of this (counted from the session's start; 6 a second).
pub(super) const DESYNC_CHECK_INTERVAL: u32 = 10;

/// Copies of the world kept at checked frames, for a desync report: GGRS
/// finds a desync a round trip or more after the frame (32 copies span
/// 320 frames, over 5 s), and a copy is ~1 KiB.
const CHECKPOINTS: usize = 32;

/// The state of a match of `G` (`N` players) under GGRS.
pub(super) struct Simulation<G: Game<N>, const N: usize> {
    world: G::State,
    /// Newest frame simulated so far: a step at or below it is a re-simulation.
    newest_frame: Frame,
    /// Synctest only: the first checksum seen of recent frames, by frame % len.
    first_checksums: Option<[Option<(Frame, u128)>; FIRST_CHECKSUMS]>,
    steps: u64,
    rollback_frames: u64,
    mismatches: u32,
    /// Debug aid: from this frame on, each simulation of a frame perturbs
    /// the world differently, as a non-deterministic bug would.
    inject_desync_from: Option<Frame>,
    /// The world as last saved at each recent checked frame, by the world's
    /// own frame: what a desync report compares with the peer's.
    checkpoints: std::collections::VecDeque<G::State>,
    /// The events of one step, reused.
    events: Vec<G::Event>,
}

impl<G: Game<N>, const N: usize> Simulation<G, N> {
    pub(super) fn new(
        seed: u64,
        config: G::Config,
        synctest: bool,
        inject_desync_from: Option<Frame>,
    ) -> Self {
        Simulation {
            world: G::start(seed, &config),
            newest_frame: 0,
            first_checksums: synctest.then_some([None; FIRST_CHECKSUMS]),
            steps: 0,
            rollback_frames: 0,
            mismatches: 0,
            inject_desync_from,
            checkpoints: std::collections::VecDeque::with_capacity(CHECKPOINTS),
            events: Vec::new(),
        }
    }

    /// Debug aid: perturb every simulation of a frame from `from` on.
    pub(super) fn inject_desync_from(&mut self, from: Frame) {
        self.inject_desync_from = Some(from);
    }

    /// The world at `frame` if a copy of it is kept: a checked frame's last
    /// save, or the world itself when it stands there.
    pub(super) fn world_at(&self, frame: Frame) -> Option<&G::State> {
        if G::frame(&self.world) == frame {
            return Some(&self.world);
        }
        self.checkpoints.iter().rev().find(|w| G::frame(w) == frame)
    }

    /// Keeps a copy of the world at a checked frame; a re-save (after a
    /// rollback) replaces the earlier copy, so the copy kept is the one
    /// GGRS last hashed.
    fn keep_checkpoint(&mut self) {
        let frame = G::frame(&self.world);
        if let Some(kept) = self.checkpoints.iter_mut().find(|w| G::frame(w) == frame) {
            kept.clone_from(&self.world);
            return;
        }
        if self.checkpoints.len() == CHECKPOINTS {
            self.checkpoints.pop_front();
        }
        self.checkpoints.push_back(self.world.clone());
    }

    pub(super) fn world(&self) -> &G::State {
        &self.world
    }

    pub(super) fn newest_frame(&self) -> Frame {
        self.newest_frame
    }

    /// Goes on from `world` (a rejoin restarts from the match's confirmed
    /// frame, re-simulated); later frames are simulated anew, so copies
    /// kept of them are of predictions that no longer hold.
    pub(super) fn restart_from(&mut self, world: G::State) {
        let frame = G::frame(&world);
        self.checkpoints.retain(|kept| G::frame(kept) <= frame);
        self.newest_frame = frame;
        self.world = world;
    }

    /// Drops the frames simulated past `confirmed` (predicted ones, or
    /// ones past the match's last frame): the world becomes the one after
    /// the `confirmed` frames whose inputs are `inputs`, rebuilt from the
    /// newest copy kept at or before it (else from `start`, frame 0), and
    /// must hash to `checksum`, that frame's confirmed checksum. A kept
    /// copy at or before the confirmed frame is final: GGRS never rolls
    /// back past a confirmed frame, and a rejoin drops the copies it
    /// invalidates. At most [`DESYNC_CHECK_INTERVAL`] steps, as a rule.
    pub(super) fn settle_at(
        &mut self,
        confirmed: Frame,
        checksum: u128,
        inputs: &[[G::Input; N]],
        start: impl FnOnce() -> G::State,
    ) -> Result<(), SessionError> {
        if G::frame(&self.world) == confirmed {
            return Ok(());
        }
        let kept = self.checkpoints.iter().filter(|w| G::frame(w) <= confirmed);
        let mut world = match kept.max_by_key(|w| G::frame(w)) {
            Some(copy) => copy.clone(),
            None => start(),
        };
        let from = G::frame(&world) as usize;
        for frame_inputs in inputs.get(from..confirmed as usize).unwrap_or_default() {
            G::step(&mut world, *frame_inputs, &mut self.events);
            self.events.clear();
        }
        let rebuilt = G::checksum(&world);
        if G::frame(&world) != confirmed || rebuilt != checksum {
            return Err(SessionError::Unsettled {
                frame: confirmed,
                rebuilt,
                confirmed: checksum,
            });
        }
        self.world = world;
        self.newest_frame = confirmed;
        Ok(())
    }

    pub(super) fn rollback_frames(&self) -> u64 {
        self.rollback_frames
    }

    pub(super) fn mismatches(&self) -> u32 {
        self.mismatches
    }

    /// GGRS's own synctest check fired (it carries no checksums).
    pub(super) fn ggrs_mismatch(&mut self, frame: i32) -> SessionError {
        self.mismatches += 1;
        SessionError::GgrsMismatch {
            frame: Frame::try_from(frame).unwrap_or(0),
        }
    }

    /// Carries out one GGRS request; steps are logged in `log` and reported.
    pub(super) fn fulfil<A>(
        &mut self,
        request: GgrsRequest<GgrsConfig<G, A, N>>,
        log: &mut FrameLog<G::Input, N>,
        report: &mut FrameReport<G, N>,
    ) -> Result<(), SessionError>
    where
        GgrsConfig<G, A, N>: ggrs::Config<Input = G::Input, State = G::State>,
    {
        match request {
            GgrsRequest::SaveGameState { cell, frame } => {
                let frame = ggrs_frame(frame)?;
                let checksum = G::checksum(&self.world);
                self.check_first_checksum(frame, checksum)?;
                // The world's own frame: a rejoin starts a new GGRS session,
                // whose frame 0 is the match's confirmed frame.
                log.saved(G::frame(&self.world), checksum);
                if frame % DESYNC_CHECK_INTERVAL == 0 {
                    self.keep_checkpoint();
                }
                cell.save(frame as i32, Some(self.world.clone()), Some(checksum));
            }
            GgrsRequest::LoadGameState { cell, frame } => {
                let saved = cell
                    .data()
                    .ok_or(SessionError::MissingState(ggrs_frame(frame)?))?;
                self.world.clone_from(&saved);
            }
            GgrsRequest::AdvanceFrame { inputs } => {
                let mut frame_inputs = [G::Input::default(); N];
                for (slot, (input, status)) in frame_inputs.iter_mut().zip(inputs) {
                    // A disconnected player's input is a dummy: treat as idle.
                    *slot = if status == InputStatus::Disconnected {
                        G::Input::default()
                    } else {
                        input
                    };
                }
                self.step(frame_inputs, log, report);
            }
        }
        Ok(())
    }

    /// A frame confirmed elsewhere (a spectator's stream, a rejoin's
    /// catch-up): stepped once and confirmed ([`FrameLog::confirm_caught_up`];
    /// `last`: the final frame of a catch-up). With `report` its events are
    /// reported; without (a fast-forward) none are made.
    pub(super) fn step_known(
        &mut self,
        inputs: [G::Input; N],
        log: &mut FrameLog<G::Input, N>,
        report: Option<&mut FrameReport<G, N>>,
        last: bool,
    ) {
        match report {
            Some(report) => self.step(inputs, log, report),
            None => {
                G::step(&mut self.world, inputs, &mut self.events);
                self.events.clear();
                self.newest_frame = G::frame(&self.world);
                self.steps += 1;
            }
        }
        let world = &self.world;
        log.confirm_caught_up(inputs, || G::checksum(world), last);
    }

    fn step(
        &mut self,
        inputs: [G::Input; N],
        log: &mut FrameLog<G::Input, N>,
        report: &mut FrameReport<G, N>,
    ) {
        let frame = G::frame(&self.world);
        let is_new = frame >= self.newest_frame;
        // A re-simulation from here replaces the events of this frame and
        // of every later one (they are all re-simulated after it).
        let stepped = frame.wrapping_add(1);
        report.events.retain(|(f, _)| *f < stepped);
        G::step(&mut self.world, inputs, &mut self.events);
        (report.events).extend(self.events.drain(..).map(|event| (stepped, event)));
        // Steps run in frame order, so the last one is the newest frame.
        report.inputs = Some(inputs);
        report.simulated = Some(match report.simulated {
            None => (stepped, stepped),
            Some((lo, hi)) => (lo.min(stepped), hi.max(stepped)),
        });
        if is_new {
            self.newest_frame = G::frame(&self.world);
            report.new_frames += 1;
        } else {
            self.rollback_frames += 1;
            report.resimulated += 1;
        }
        self.steps += 1;
        if let Some(from) = self.inject_desync_from
            && G::frame(&self.world) >= from
        {
            // Differs between the first simulation of a frame and any
            // re-run (the step count differs), and adds up: an XOR of step
            // counts would cancel out over four steps from a multiple of 4.
            G::inject_desync(&mut self.world, 1 + self.steps as u32);
        }
        log.stepped(frame, inputs);
    }

    /// Synctest: the first checksum of a frame must equal any later one.
    fn check_first_checksum(&mut self, frame: Frame, checksum: u128) -> Result<(), SessionError> {
        let Some(first) = &mut self.first_checksums else {
            return Ok(());
        };
        let slot = &mut first[frame as usize % FIRST_CHECKSUMS];
        if let Some((seen, first)) = *slot
            && seen == frame
            && first != checksum
        {
            self.mismatches += 1;
            return Err(SessionError::Mismatch {
                frame,
                first,
                resimulated: checksum,
            });
        }
        *slot = Some((frame, checksum));
        Ok(())
    }
}

/// GGRS numbers frames with `i32` and uses -1 for "none"; a request for a
/// negative frame would be a GGRS bug, reported rather than wrapped.
fn ggrs_frame(frame: i32) -> Result<Frame, SessionError> {
    Frame::try_from(frame).map_err(|_| SessionError::NegativeFrame(frame))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_game::TestGame;

    type Sim = Simulation<TestGame, 2>;

    fn rules() -> <TestGame as Game<2>>::Config {
        TestGame::preset("default").expect("default preset")
    }

    fn start() -> <TestGame as Game<2>>::State {
        TestGame::start(9, &rules())
    }

    /// Scripted inputs, different every few frames, so that a world a
    /// frame off hashes differently.
    fn inputs(frames: u32) -> Vec<[u8; 2]> {
        (0..frames)
            .map(|f| [(f / 3 % 16) as u8, (f / 5 % 16) as u8])
            .collect()
    }

    /// `sim` stepped through `inputs`, keeping a copy at every tenth frame
    /// as GGRS's saves do online.
    fn run(sim: &mut Sim, inputs: &[[u8; 2]]) {
        let mut log = FrameLog::new(0);
        let mut report = FrameReport::default();
        for frame_inputs in inputs {
            sim.step(*frame_inputs, &mut log, &mut report);
            if TestGame::frame(&sim.world).is_multiple_of(DESYNC_CHECK_INTERVAL) {
                sim.keep_checkpoint();
            }
        }
    }

    /// The world after `frames` of `inputs`, simulated from the start.
    fn reference(inputs: &[[u8; 2]], frames: u32) -> u128 {
        let mut sim = Sim::new(9, rules(), false, None);
        run(&mut sim, &inputs[..frames as usize]);
        TestGame::checksum(sim.world())
    }

    #[test]
    fn settling_drops_the_frames_simulated_past_the_confirmed_one() {
        let script = inputs(80);
        // Past the last copy kept (70), before it (63), and before any (7).
        for (simulated, confirmed) in [(80, 74), (68, 63), (12, 7), (80, 70)] {
            let mut sim = Sim::new(9, rules(), false, None);
            run(&mut sim, &script[..simulated]);
            let checksum = reference(&script, confirmed);
            sim.settle_at(confirmed, checksum, &script[..confirmed as usize], start)
                .expect("settled");
            assert_eq!(TestGame::frame(sim.world()), confirmed);
            assert_eq!(TestGame::checksum(sim.world()), checksum);
            assert_eq!(sim.newest_frame(), confirmed);
        }
    }

    #[test]
    fn a_world_that_does_not_rebuild_to_the_confirmed_checksum_is_an_error_and_kept() {
        let script = inputs(40);
        let mut sim = Sim::new(9, rules(), false, None);
        run(&mut sim, &script);
        let wrong = reference(&script, 34);
        match sim.settle_at(35, wrong, &script[..35], start) {
            Err(SessionError::Unsettled {
                frame: 35,
                confirmed,
                ..
            }) => {
                assert_eq!(confirmed, wrong)
            }
            other => panic!("expected Unsettled, got {other:?}"),
        }
        // Inputs missing for the frames to rebuild: an error too.
        let right = reference(&script, 35);
        assert!(sim.settle_at(35, right, &script[..20], start).is_err());
        assert_eq!(TestGame::frame(sim.world()), 40, "the world is left alone");
    }

    #[test]
    fn a_restart_drops_the_copies_kept_of_frames_after_it() {
        let script = inputs(60);
        let mut sim = Sim::new(9, rules(), false, None);
        run(&mut sim, &script);
        // Predicted frames 36..60 are dropped; frame 35 is confirmed.
        let mut confirmed = Sim::new(9, rules(), false, None);
        run(&mut confirmed, &script[..35]);
        sim.restart_from(*confirmed.world());
        assert!(sim.world_at(30).is_some());
        assert!(sim.world_at(40).is_none(), "a copy of a dropped prediction");
        assert_eq!(sim.newest_frame(), 35);
    }
}
