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
#[path = "lifecycle_tests.rs"]
mod tests;
