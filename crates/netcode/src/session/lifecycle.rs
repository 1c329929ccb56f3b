//! One match from its first frame to its verdict, the same for every
//! frontend: when frames are due, when the match is over, the end-of-match
//! checksum exchange with a peer, and the recording's end record. Like a
//! GGRS session it returns what to do next instead of calling back:
//!
//! ```text
//! loop {
//!     match game.next(Instant::now()) {
//!         Next::Frame => { let report = game.advance(inputs); /* effects */ }
//!         Next::Wait(until) => { /* draw, or sleep until `until` */ }
//!         Next::Over => break game.finish(),
//!     }
//! }
//! ```

use web_time::{Duration, Instant};

use crate::{Frame, Game};

use super::driver::Driver;
use super::report::{FrameReport, FrameState};
use super::{ChatError, ChatLine, Pacer, PeerGone, SessionError};

/// How long a peer that confirmed its last frame keeps the match going so
/// the other can confirm too and send its checksum.
const END_WAIT: Duration = Duration::from_secs(5);
/// How often the connection is serviced while a match closes.
const CLOSE_SERVICE_PERIOD: Duration = Duration::from_millis(5);
/// How often a match with a peer wants polling between frames. GGRS's
/// synchronisation is round trips that each wait for the other side's
/// next poll: a game that slept until its next frame, as `Next::Wait`
/// invited, spent 85-170 ms synchronising on loopback (Pong) where one
/// that napped 1 ms spent 6-12 (twinstar's headless loop); inputs that
/// arrive between frames are read sooner too.
const NET_POLL_PERIOD: Duration = Duration::from_millis(1);
/// While paused nothing is due; the frontend draws its pause menu and
/// asks again this often.
const PAUSED_POLL_PERIOD: Duration = Duration::from_millis(16);

/// How frames are timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pacing {
    /// Every frame at once (headless local runs: tests, benchmarks).
    Unpaced,
    /// The game's frame rate from the wall clock (windows, online play).
    RealTime,
}

/// What the frontend does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// A frame is due: call [`Match::advance`] with this frame's inputs.
    Frame,
    /// No frame is due before this instant (with a peer, no later than a
    /// millisecond away: its messages want polling between frames too):
    /// draw, or sleep until then.
    Wait(Instant),
    /// The match is over: call [`Match::finish`] for the verdict.
    Over,
}

/// How a match ended.
#[derive(Debug)]
pub enum Outcome {
    /// Every planned frame was played and, online, both peers reported
    /// the same checksum for the last one (or the peer could not say).
    Completed,
    /// This player left before the planned end (Esc, window closed).
    Left,
    /// A mismatch, a desync, a lost peer, a protocol error.
    Failed(SessionError),
}

/// A finished match: its driver (for the summary) and how it ended.
pub struct Finished<G: Game<N>, const N: usize> {
    /// The driver, with the final state and the summary.
    pub driver: Driver<G, N>,
    /// How the match ended.
    pub outcome: Outcome,
}

/// One match of `G` (`N` players) from its first frame to its verdict.
pub struct Match<G: Game<N>, const N: usize> {
    driver: Driver<G, N>,
    pacer: Option<Pacer>,
    /// When our last frame was confirmed and our checksum sent (online).
    ending_since: Option<Instant>,
    /// When the peer was seen gone before our last frame was confirmed.
    peer_gone_since: Option<Instant>,
    outcome: Option<Outcome>,
    /// Once the outcome is known: until when the connection is serviced so
    /// the last messages reach the peer (see [`Backend::close_linger`]).
    closing_until: Option<Instant>,
    /// The closing linger is over: `next` says `Over`.
    closed: bool,
    /// The player paused a match nobody else plays: no frame is due.
    paused: bool,
}

impl<G: Game<N>, const N: usize> Match<G, N> {
    /// Starts a match that ends after `frames` confirmed frames, or only
    /// when the player leaves or something fails if `None`.
    pub fn new(mut driver: Driver<G, N>, pacing: Pacing, frames: Option<Frame>) -> Self {
        driver.log.set_limit(frames);
        Match {
            driver,
            pacer: (pacing == Pacing::RealTime).then(|| Pacer::new(Instant::now(), G::INFO.fps)),
            ending_since: None,
            peer_gone_since: None,
            outcome: None,
            closing_until: None,
            closed: false,
            paused: false,
        }
    }

    /// The driver: the state to draw, status, summary.
    pub fn driver(&self) -> &Driver<G, N> {
        &self.driver
    }

    /// Polls the network, checks whether the match is over, and says
    /// whether a frame is due at `now`.
    pub fn next(&mut self, now: Instant) -> Next {
        if self.outcome.is_none()
            && let Err(e) = self.driver.poll()
        {
            self.outcome = Some(Outcome::Failed(e));
        }
        if self.outcome.is_none() {
            self.outcome = self.check_end(now);
        }
        if self.outcome.is_some() {
            return self.close(now);
        }
        if self.paused {
            return Next::Wait(now + PAUSED_POLL_PERIOD);
        }
        let Some(pacer) = &mut self.pacer else {
            return Next::Frame;
        };
        let skip = self.driver.backend.take_skip_frames();
        if pacer.due(now, self.driver.backend.frames_ahead(), skip) {
            Next::Frame
        } else if self.driver.backend.has_peer() {
            Next::Wait(pacer.next_due().min(now + NET_POLL_PERIOD))
        } else {
            Next::Wait(pacer.next_due())
        }
    }

    /// Runs the due frame with this frame's local inputs. A failure ends
    /// the match: the next [`Match::next`] says `Over`.
    pub fn advance(&mut self, inputs: [G::Input; N]) -> FrameReport<G, N> {
        let over = || FrameReport {
            state: FrameState::Over,
            ..FrameReport::default()
        };
        if self.outcome.is_some() {
            return over();
        }
        let report = self.driver.advance(inputs).unwrap_or_else(|e| {
            self.outcome = Some(Outcome::Failed(e));
            over()
        });
        if report.state == FrameState::Waiting
            && G::frame(self.driver.world()) == 0
            && let Some(pacer) = &mut self.pacer
        {
            // Not begun (still synchronizing): no frame ran, so none is
            // owed a period. The first runs within a poll of the
            // synchronization, not at the next 60 Hz slot (half a frame,
            // ~7 ms, of every connect). A wait later in the match (a
            // pause, a spectator's stream) keeps the 60 Hz pace.
            pacer.restart(Instant::now() + NET_POLL_PERIOD);
        }
        report
    }

    /// Whether the match is over and closed: the last [`Match::next`] said
    /// `Over` (asking does not poll or use up a frame).
    pub fn is_over(&self) -> bool {
        self.closed
    }

    /// How far the clock is between the last frame and the next (0..=1),
    /// for drawing motion in between; 1 when unpaced.
    pub fn alpha(&self, now: Instant) -> f32 {
        self.pacer.as_ref().map_or(1.0, |p| p.alpha(now))
    }

    /// Whether the player may pause: a match paced in real time that no
    /// one else plays or watches live (local, solo, synctest). Online the
    /// peer's game runs on, so a pause there could only be a stall.
    pub fn can_pause(&self) -> bool {
        let backend = &self.driver.backend;
        self.pacer.is_some() && !backend.has_peer() && backend.watch_status().is_none()
    }

    /// Stops the match's clock, if [`Match::can_pause`]: until
    /// [`Match::resume`] no frame is due, so none is simulated or recorded.
    /// Says whether it paused.
    pub fn pause(&mut self) -> bool {
        self.paused = self.paused || self.can_pause();
        self.paused
    }

    /// Starts the clock again from `now` (the paused time is not caught up).
    pub fn resume(&mut self, now: Instant) {
        if std::mem::take(&mut self.paused)
            && let Some(pacer) = &mut self.pacer
        {
            pacer.restart(now);
        }
    }

    /// Whether the match is paused.
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// The player leaves: the peer is told at once.
    pub fn leave(&mut self, reason: &str) {
        if self.outcome.is_none() {
            let driver = &mut self.driver;
            driver.backend.say_goodbye(reason, &driver.log);
            self.outcome = Some(Outcome::Left);
        }
    }

    /// Watching a match: pause, resume, jump back to live (nothing for
    /// players).
    pub fn watch_control(&mut self, control: super::WatchControl) {
        self.driver.backend.watch_control(control);
    }

    /// Whether there is anyone to chat with (online: the other player;
    /// watching: the room).
    pub fn can_chat(&self) -> bool {
        self.driver.backend.can_chat()
    }

    /// Sends a chat line to the other player and records it in the replay
    /// (each peer records both sides' lines). Refused, with the reason, if
    /// it is empty, too long, not printable or over the rate limit, and
    /// always in local and synctest matches: there is no one to read it
    /// ([`ChatError::NoPeer`]; an echo would only fill the replay).
    pub fn say(&mut self, text: &str) -> Result<(), ChatError> {
        let driver = &mut self.driver;
        driver.backend.send_chat(text, &mut driver.log)
    }

    /// Chat lines sent and received since the last call, for the
    /// frontend to show.
    pub fn take_chat(&mut self) -> Vec<ChatLine> {
        self.driver.backend.take_chat()
    }

    /// The outcome is known: the peer is told a completed match is over,
    /// then the connection is serviced for the backend's close linger
    /// (polled like everything else, never blocking) before `Over`.
    fn close(&mut self, now: Instant) -> Next {
        let backend = &mut self.driver.backend;
        let log = &self.driver.log;
        let until = *self.closing_until.get_or_insert_with(|| {
            match &self.outcome {
                Some(Outcome::Completed) => {
                    backend.say_goodbye("the match reached its last frame", log)
                }
                // A failure the peer cannot know of (our side could not
                // follow it, or its catch-up): told at once, or it would
                // wait out its reconnect window for us.
                Some(Outcome::Failed(e)) => {
                    if let Some(reason) = e.reason_for_peer() {
                        backend.say_goodbye(&reason, log);
                    }
                }
                Some(Outcome::Left) | None => {}
            }
            now + backend.close_linger()
        });
        if now >= until {
            self.closed = true;
            return Next::Over;
        }
        backend.service();
        Next::Wait(until.min(now + CLOSE_SERVICE_PERIOD))
    }

    /// The verdict, the world after the last confirmed frame (see
    /// [`Driver::world`]), and the recording's end record. Called before
    /// `Next::Over` (a window closed mid-match) this counts as leaving,
    /// without the closing linger.
    pub fn finish(mut self) -> Finished<G, N> {
        let mut outcome = self.outcome.take().unwrap_or_else(|| {
            let driver = &mut self.driver;
            driver.backend.say_goodbye("the player left", &driver.log);
            Outcome::Left
        });
        if let Err(e) = self.driver.settle() {
            tracing::error!("{e}");
            if !matches!(outcome, Outcome::Failed(_)) {
                outcome = Outcome::Failed(e);
            }
        }
        let reason = match &outcome {
            Outcome::Completed => "completed".to_string(),
            Outcome::Left => "left by the player".to_string(),
            Outcome::Failed(e) => e.to_string(),
        };
        self.driver.finish_recording(&reason);
        Finished {
            driver: self.driver,
            outcome,
        }
    }

    /// The end of the match, once it has come.
    fn check_end(&mut self, now: Instant) -> Option<Outcome> {
        let done = self.driver.log.limit_reached();
        if !self.driver.backend.has_peer() {
            return done.then_some(Outcome::Completed);
        }
        let (frame, ours) = self.driver.checksum_state();
        let backend = &mut self.driver.backend;
        let log = &self.driver.log;
        // The peer ended its match and left before we confirmed ours: its
        // last inputs may still be in flight; wait for them, not forever.
        if backend.peer_gone() && !done {
            let since = *self.peer_gone_since.get_or_insert(now);
            if now.duration_since(since) > END_WAIT {
                let frame = frame + 1;
                let why = PeerGone::LeftBeforeConfirmed { frame };
                return Some(Outcome::Failed(SessionError::PeerLost(why)));
            }
        }
        if !done {
            return None;
        }
        // Paused at the end (the peer dropped before its `Done` came): our
        // `Done` goes, again if it went before, and the end wait starts
        // afresh once the peer is back; the pause's own limit bounds it.
        if !backend.send_done(frame, ours, log) {
            self.ending_since = None;
            return None;
        }
        let since = *self.ending_since.get_or_insert(now);
        match backend.peer_done() {
            Some((their_frame, theirs)) if their_frame == frame && theirs != ours => {
                backend.report_desync(frame, ours, theirs, &self.driver.sim, &mut self.driver.log);
                Some(Outcome::Failed(SessionError::Desync {
                    frame,
                    ours,
                    theirs,
                }))
            }
            // The peer has confirmed its last frame, so it has all our
            // inputs; our own `Done` left before its arrived, and `finish`
            // keeps the connection up long enough for it to land.
            Some((their_frame, _)) => {
                if their_frame != frame {
                    tracing::warn!(
                        "the other player stopped at frame {their_frame}, we at {frame}: checksums not compared"
                    );
                }
                Some(Outcome::Completed)
            }
            None if backend.peer_gone() || now.duration_since(since) > END_WAIT => {
                tracing::warn!(
                    "the other player did not report its final checksum; ours stands alone"
                );
                Some(Outcome::Completed)
            }
            None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use super::*;
    use crate::session::backend::{Backend, LocalBackend};
    use crate::session::frame_log::FrameLog;
    use crate::session::simulation::Simulation;
    use crate::session::{DriverOptions, Mode, ProtocolError};
    use crate::test_game::TestGame;

    type Driver = super::Driver<TestGame, 2>;
    type Match = super::Match<TestGame, 2>;
    type Finished = super::Finished<TestGame, 2>;
    type FrameReport = super::FrameReport<TestGame, 2>;
    /// The test game's input and players.
    type Input = u8;
    const PLAYERS: usize = 2;
    type Twinstar = TestGame;

    fn driver(mode: Mode, inject_desync_from: Option<Frame>) -> Driver {
        let config = TestGame::preset("default").expect("default preset");
        let driver = match mode {
            Mode::SyncTest { check_distance } => Driver::synctest(9, config, check_distance),
            _ => Driver::local(9, config),
        };
        let driver = driver.expect("a local session");
        match inject_desync_from {
            Some(from) => driver.inject_desync_from(from),
            None => driver,
        }
    }

    /// Plays `game` with two scripted players the way every frontend does.
    fn play(mut game: Match) -> Finished {
        let mut frame = 0u32;
        loop {
            match game.next(Instant::now()) {
                Next::Frame => {
                    game.advance([(frame / 7 % 16) as u8, (frame / 11 % 16) as u8]);
                    frame += 1;
                }
                Next::Wait(until) => {
                    std::thread::sleep(until.saturating_duration_since(Instant::now()))
                }
                Next::Over => return game.finish(),
            }
        }
    }

    #[test]
    fn a_local_match_completes_exactly_at_its_last_frame() {
        let finished = play(Match::new(
            driver(Mode::Local, None),
            Pacing::Unpaced,
            Some(120),
        ));
        assert!(matches!(finished.outcome, Outcome::Completed));
        assert_eq!(finished.driver.world().frame, 120);
        assert_eq!(finished.driver.confirmed_frames(), 120);
    }

    #[test]
    fn a_synctest_mismatch_ends_the_match_as_a_failure() {
        let synctest = Mode::SyncTest { check_distance: 2 };
        let finished = play(Match::new(
            driver(synctest, Some(30)),
            Pacing::Unpaced,
            Some(120),
        ));
        match finished.outcome {
            Outcome::Failed(SessionError::Mismatch { frame, .. }) => assert!(frame >= 30),
            other => panic!("expected a mismatch, got {other:?}"),
        }
    }

    #[test]
    fn leaving_ends_the_match_at_once_and_real_time_pacing_waits() {
        let mut game = Match::new(driver(Mode::Local, None), Pacing::RealTime, None);
        let start = Instant::now();
        assert_eq!(game.next(start), Next::Frame);
        game.advance(Default::default());
        // The next frame is due one period (1/60 s) later, not now.
        assert!(matches!(game.next(start), Next::Wait(t) if t > start));
        game.leave("test");
        // A local backend has nothing to deliver: closed at the next poll.
        assert!(!game.is_over());
        assert_eq!(game.next(start), Next::Over);
        assert!(game.is_over());
        assert!(matches!(game.finish().outcome, Outcome::Left));
    }

    /// What the peer of [`FakePeerBackend`] has been told, and what the
    /// test makes happen.
    #[derive(Default)]
    struct FakePeer {
        paused: bool,
        /// The next poll fails as a message that does not decode would.
        broken: bool,
        said_done: bool,
        dones_sent: Vec<(Frame, u128)>,
        goodbyes: Vec<String>,
        peer_done: Option<(Frame, u128)>,
    }

    /// Local play that acts as if a peer were there: its `Done` is held
    /// while `paused`, as `OnlineBackend`'s is during a rejoin pause.
    struct FakePeerBackend {
        local: LocalBackend<Twinstar, PLAYERS>,
        peer: Rc<RefCell<FakePeer>>,
    }

    impl Backend<Twinstar, PLAYERS> for FakePeerBackend {
        fn advance(
            &mut self,
            inputs: [Input; PLAYERS],
            sim: &mut Simulation<Twinstar, PLAYERS>,
            log: &mut FrameLog<Input, PLAYERS>,
        ) -> Result<FrameReport, SessionError> {
            self.local.advance(inputs, sim, log)
        }

        fn has_peer(&self) -> bool {
            true
        }

        fn poll(
            &mut self,
            _sim: &mut Simulation<Twinstar, PLAYERS>,
            _log: &mut FrameLog<Input, PLAYERS>,
        ) -> Result<(), SessionError> {
            if self.peer.borrow().broken {
                let differ = ProtocolError::InputsDiffer { frame: 7 };
                return Err(SessionError::Protocol(differ));
            }
            Ok(())
        }

        fn say_goodbye(&mut self, reason: &str, _log: &FrameLog<Input, PLAYERS>) {
            self.peer.borrow_mut().goodbyes.push(reason.to_string());
        }

        fn send_done(
            &mut self,
            frame: Frame,
            checksum: u128,
            _log: &FrameLog<Input, PLAYERS>,
        ) -> bool {
            // As `Stage::say_done`: once, and again after a pause.
            let mut peer = self.peer.borrow_mut();
            if peer.paused {
                peer.said_done = false;
                return false;
            }
            if !std::mem::replace(&mut peer.said_done, true) {
                peer.dones_sent.push((frame, checksum));
            }
            true
        }

        fn peer_done(&self) -> Option<(Frame, u128)> {
            self.peer.borrow().peer_done
        }
    }

    /// A 60-frame match against a [`FakePeer`].
    fn with_fake_peer(peer: FakePeer) -> (Match, Rc<RefCell<FakePeer>>) {
        with_fake_peer_paced(peer, Pacing::Unpaced)
    }

    fn with_fake_peer_paced(peer: FakePeer, pacing: Pacing) -> (Match, Rc<RefCell<FakePeer>>) {
        let peer = Rc::new(RefCell::new(peer));
        let backend = FakePeerBackend {
            local: LocalBackend::new(0).expect("a local session"),
            peer: peer.clone(),
        };
        let options = DriverOptions {
            seed: 9,
            config: TestGame::preset("default").expect("default preset"),
            mode: Mode::Local,
            inject_desync_from: None,
        };
        let driver = Driver::with_backend(Box::new(backend), options);
        (Match::new(driver, pacing, Some(60)), peer)
    }

    #[test]
    fn a_paused_local_match_runs_no_frame_and_resumes_without_catching_up() {
        let mut game = Match::new(driver(Mode::Local, None), Pacing::RealTime, None);
        let start = Instant::now();
        assert!(game.can_pause());
        assert_eq!(game.next(start), Next::Frame);
        game.advance(Default::default());
        assert!(game.pause() && game.is_paused());
        // A minute later nothing is due: the clock stood still.
        let later = start + Duration::from_secs(60);
        assert!(matches!(game.next(later), Next::Wait(t) if t > later));
        assert_eq!(game.driver().confirmed_frames(), 1);
        game.resume(later);
        assert!(!game.is_paused());
        // One frame now, the next a period later: no burst of the minute.
        assert_eq!(game.next(later), Next::Frame);
        game.advance(Default::default());
        assert!(matches!(game.next(later), Next::Wait(t) if t > later));
        // Leaving while paused still ends the match.
        game.pause();
        game.leave("test");
        assert_eq!(game.next(later), Next::Over);
    }

    #[test]
    fn a_match_with_a_peer_cannot_pause() {
        let (mut game, _peer) = with_fake_peer_paced(FakePeer::default(), Pacing::RealTime);
        assert!(!game.can_pause());
        assert!(!game.pause());
        let start = Instant::now();
        assert_eq!(game.next(start), Next::Frame);
        // Unpaced (headless) matches have no clock to stop either.
        let mut unpaced = Match::new(driver(Mode::Local, None), Pacing::Unpaced, None);
        assert!(!unpaced.pause());
    }

    #[test]
    fn a_match_with_a_peer_asks_to_be_polled_between_frames() {
        let (mut game, _peer) = with_fake_peer_paced(FakePeer::default(), Pacing::RealTime);
        let mut local = Match::new(driver(Mode::Local, None), Pacing::RealTime, None);
        let start = Instant::now();
        assert_eq!(game.next(start), Next::Frame);
        game.advance(Default::default());
        // The next frame is 1/60 s away; the peer's messages want a poll sooner.
        assert_eq!(game.next(start), Next::Wait(start + NET_POLL_PERIOD));
        // Alone, a match waits for its next frame.
        assert_eq!(local.next(start), Next::Frame);
        local.advance(Default::default());
        assert!(matches!(local.next(start), Next::Wait(t) if t > start + 10 * NET_POLL_PERIOD));
    }

    #[test]
    fn a_failure_the_peer_cannot_know_of_is_told_before_closing() {
        let (mut game, peer) = with_fake_peer(FakePeer::default());
        let start = Instant::now();
        for _ in 0..10 {
            assert_eq!(game.next(start), Next::Frame);
            game.advance(Default::default());
        }
        peer.borrow_mut().broken = true;
        let mut now = start;
        while !game.is_over() {
            game.next(now);
            now += CLOSE_SERVICE_PERIOD;
        }
        assert_eq!(
            peer.borrow().goodbyes,
            vec![
                "it could not follow our messages: the other player's confirmed inputs of frame 7 differ from ours"
                    .to_string()
            ]
        );
        assert!(matches!(
            game.finish().outcome,
            Outcome::Failed(SessionError::Protocol(_))
        ));
    }

    #[test]
    fn a_match_paused_at_its_end_holds_its_done_and_its_end_wait_until_the_peer_is_back() {
        let (mut game, peer) = with_fake_peer(FakePeer {
            paused: true,
            ..FakePeer::default()
        });
        let start = Instant::now();
        while game.driver().confirmed_frames() < 60 {
            assert_eq!(game.next(start), Next::Frame);
            game.advance(Default::default());
        }
        // Paused far longer than the end wait: no Done, no verdict.
        for seconds in [0, 3, 6, 30] {
            game.next(start + Duration::from_secs(seconds));
            assert!(!game.is_over(), "ended while paused, at {seconds} s");
            assert!(
                peer.borrow().dones_sent.is_empty(),
                "a Done sent while paused"
            );
        }
        // The peer is back: the Done goes, and the end wait starts now.
        peer.borrow_mut().paused = false;
        let back = start + Duration::from_secs(31);
        game.next(back);
        let (frame, ours) = game.driver().checksum_state();
        assert_eq!(peer.borrow().dones_sent, vec![(frame, ours)]);
        game.next(back + Duration::from_secs(4));
        assert!(
            !game.is_over(),
            "the end wait counts from the peer's return"
        );
        peer.borrow_mut().peer_done = Some((frame, ours));
        let mut now = back + Duration::from_secs(4);
        while !game.is_over() {
            now += CLOSE_SERVICE_PERIOD;
            game.next(now);
        }
        assert!(matches!(game.finish().outcome, Outcome::Completed));
        assert_eq!(peer.borrow().dones_sent.len(), 1, "our Done goes once");
    }

    #[test]
    fn a_drop_after_our_done_sends_it_again_and_restarts_the_end_wait_once_the_peer_is_back() {
        let (mut game, peer) = with_fake_peer(FakePeer::default());
        let start = Instant::now();
        while game.driver().confirmed_frames() < 60 {
            assert_eq!(game.next(start), Next::Frame);
            game.advance(Default::default());
        }
        game.next(start);
        assert_eq!(peer.borrow().dones_sent.len(), 1);
        // The peer drops before its own Done: the match pauses.
        peer.borrow_mut().paused = true;
        for seconds in [1, 4, 8, 30] {
            game.next(start + Duration::from_secs(seconds));
            assert!(!game.is_over(), "ended while paused, at {seconds} s");
        }
        peer.borrow_mut().paused = false;
        let back = start + Duration::from_secs(31);
        game.next(back);
        assert_eq!(peer.borrow().dones_sent.len(), 2, "our Done goes again");
        game.next(back + Duration::from_secs(4));
        assert!(
            !game.is_over(),
            "the end wait counts from the peer's return"
        );
        // Never answered: ours stands alone, the end wait after the return.
        let mut now = back + END_WAIT + Duration::from_millis(1);
        while !game.is_over() {
            game.next(now);
            now += CLOSE_SERVICE_PERIOD;
        }
        assert!(matches!(game.finish().outcome, Outcome::Completed));
        assert_eq!(peer.borrow().dones_sent.len(), 2);
    }

    #[test]
    fn a_local_match_refuses_chat() {
        let mut game = Match::new(driver(Mode::Local, None), Pacing::Unpaced, Some(10));
        assert!(!game.can_chat());
        assert_eq!(game.say("hello"), Err(ChatError::NoPeer));
        assert!(game.take_chat().is_empty());
        assert!(matches!(play(game).outcome, Outcome::Completed));
    }
}
