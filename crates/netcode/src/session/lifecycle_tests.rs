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
        Some(from) => crate::testing::inject_desync(driver, from),
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

    fn send_done(&mut self, frame: Frame, checksum: u128, _log: &FrameLog<Input, PLAYERS>) -> bool {
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
