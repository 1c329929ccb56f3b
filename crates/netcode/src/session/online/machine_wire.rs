//! Two machines playing one match on a simulated wire, with just enough of
//! their shells around them: a GGRS that confirms a frame once the other
//! side's input for it came (8 frames of prediction at most) and reports
//! silences as GGRS does; the end of a match as `session::lifecycle` judges
//! it (the end wait, the closing linger); the signaling server taking
//! player 2's seat back when it knocks; the connector's catch-up.
//!
//! The wire loses and duplicates input packets and delays them by 5–60 ms,
//! so they overtake each other; control messages are delayed 5–40 ms and
//! keep their order on a connection (the real channel is reliable and
//! ordered). Cuts of the whole network lose every packet; a control
//! message held up by a cut arrives after it, unless its connection was
//! given up meanwhile (a knock replaced it, or its sender closed).

use std::collections::VecDeque;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::tests::{agreement, catch_up};
use super::*;

/// Frames in the match.
pub(super) const FRAMES: Frame = 300;
pub(super) const WINDOW: Duration = Duration::from_secs(20);
const TICK: Duration = Duration::from_millis(4);
const FRAME_TIME: Duration = Duration::from_millis(16);
const PREDICTION: Frame = 8;
/// `session::lifecycle`'s: the end wait and the closing linger.
const END_WAIT: Duration = Duration::from_secs(5);
const CLOSE_LINGER: Duration = Duration::from_millis(250);
/// How long a knock's handshake takes once the server has seated it.
const HANDSHAKE: Duration = Duration::from_millis(150);
/// Every frame's checksum, the same on both sides.
const CHECKSUM: u128 = 42;
/// Both sides give up by then at the latest.
const RUN_LIMIT: Duration = Duration::from_secs(120);

/// How a side's match ended.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Verdict {
    /// Completed, having compared checksums with the peer or not.
    Completed {
        compared: bool,
    },
    Failed(Stop),
}

/// What a wire does: its random choices and its cuts (start, length).
#[derive(Clone, Debug)]
pub(super) struct Chaos {
    pub seed: u64,
    pub loss_pct: u32,
    pub cuts: Vec<(Duration, Duration)>,
}

/// A knock under way: its connection and when it gives up.
struct Attempt {
    conn: u32,
    deadline: Instant,
    /// When the room would agree with it (the server reached, the
    /// handshake run).
    agree_at: Option<Instant>,
}

struct Side {
    machine: Machine<u32, u8, 2>,
    played: Frame,
    confirmed: Frame,
    /// The highest frame of the other side's inputs received.
    known_other: Frame,
    /// The connection GGRS and the control channel are on; messages go
    /// to `send_conn` (none while keeping with no one agreed).
    conn: u32,
    send_conn: Option<u32>,
    last_heard: Instant,
    ggrs_interrupted: bool,
    ggrs_dropped: bool,
    next_frame: Instant,
    attempt: Option<Attempt>,
    /// What the knock's connector caught up on: the keeper's frames.
    connector_caught_up: Option<Frame>,
    ending_since: Option<Instant>,
    peer_gone_since: Option<Instant>,
    verdict: Option<Verdict>,
    closes_at: Option<Instant>,
}

impl Side {
    fn new(local: usize, now: Instant) -> Side {
        let settings = Settings {
            local,
            reconnect_window: WINDOW,
            rejoinable: true,
            match_id: agreement(0).match_id,
        };
        Side {
            machine: Machine::new(settings, None),
            played: 0,
            confirmed: 0,
            known_other: 0,
            conn: 0,
            send_conn: Some(0),
            last_heard: now,
            ggrs_interrupted: false,
            ggrs_dropped: false,
            next_frame: now,
            attempt: None,
            connector_caught_up: None,
            ending_since: None,
            peer_gone_since: None,
            verdict: None,
            closes_at: None,
        }
    }

    fn closed(&self, now: Instant) -> bool {
        self.closes_at.is_some_and(|t| now >= t)
    }

    /// A new GGRS session on `conn` from the confirmed frame.
    fn restart(&mut self, conn: u32, now: Instant) {
        self.conn = conn;
        self.send_conn = Some(conn);
        self.played = self.confirmed;
        self.known_other = self.confirmed;
        self.last_heard = now;
        self.ggrs_interrupted = false;
        self.ggrs_dropped = false;
    }
}

struct Flight {
    at: Instant,
    conn: u32,
    message: Message,
}

pub(super) struct Wire {
    now: Instant,
    start: Instant,
    rng: StdRng,
    loss_pct: u32,
    cuts: Vec<(Instant, Instant)>,
    sides: [Side; 2],
    /// Control messages by sender, in order.
    control: [VecDeque<Flight>; 2],
    /// Input packets: when, from, connection, frame played.
    inputs: Vec<(Instant, usize, u32, Frame)>,
    /// The room's decisions on their way to a side: when, to whom.
    room: Vec<(Instant, usize, room::Output<u32>)>,
    /// Who holds player 2's seat in the server (its latest websocket).
    seat_2: u32,
    next_conn: u32,
}

impl Wire {
    pub(super) fn new(chaos: &Chaos) -> Wire {
        let now = Instant::now();
        Wire {
            now,
            start: now,
            rng: StdRng::seed_from_u64(chaos.seed),
            loss_pct: chaos.loss_pct,
            cuts: (chaos.cuts.iter())
                .map(|(at, length)| (now + *at, now + *at + *length))
                .collect(),
            sides: [Side::new(0, now), Side::new(1, now)],
            control: [VecDeque::new(), VecDeque::new()],
            inputs: Vec::new(),
            room: Vec::new(),
            seat_2: 0,
            next_conn: 1,
        }
    }

    fn cut_at(&self, t: Instant) -> Option<Instant> {
        (self.cuts.iter())
            .find(|(from, to)| t >= *from && t < *to)
            .map(|c| c.1)
    }

    /// Runs the match until both sides have a verdict (or the limit).
    pub(super) fn run(&mut self) -> [Option<Verdict>; 2] {
        while self.now < self.start + RUN_LIMIT && self.sides.iter().any(|s| s.verdict.is_none()) {
            self.now += TICK;
            self.deliver();
            for side in 0..2 {
                self.step(side);
            }
        }
        [self.sides[0].verdict.clone(), self.sides[1].verdict.clone()]
    }

    pub(super) fn confirmed(&self) -> [Frame; 2] {
        [self.sides[0].confirmed, self.sides[1].confirmed]
    }

    fn deliver(&mut self) {
        let now = self.now;
        let cut = self.cut_at(now).is_some();
        // Input packets: lost in a cut, stale after a new session.
        let (due, later) = std::mem::take(&mut self.inputs)
            .into_iter()
            .partition(|p| p.0 <= now);
        self.inputs = later;
        for (_, from, conn, frame) in due {
            let to = &mut self.sides[1 - from];
            if cut || to.conn != conn || to.machine.paused().is_some() || to.closed(now) {
                continue;
            }
            to.known_other = to.known_other.max(frame);
            to.last_heard = now;
            if std::mem::take(&mut to.ggrs_interrupted) {
                self.handle(1 - from, Event::Resumed);
            }
        }
        // Control messages, in order, in one read; a cut holds them back.
        for from in 0..2 {
            let mut read = Vec::new();
            while !cut && self.control[from].front().is_some_and(|f| f.at <= now) {
                read.push(self.control[from].pop_front().expect("a flight"));
            }
            self.receive(1 - from, from, read);
        }
        let (due, later) = std::mem::take(&mut self.room)
            .into_iter()
            .partition(|r| r.0 <= now && !cut);
        self.room = later;
        for (_, to, event) in due {
            if !self.sides[to].closed(now) {
                self.handle(to, Event::Room(event));
            }
        }
    }

    fn receive(&mut self, to: usize, from: usize, read: Vec<Flight>) {
        let now = self.now;
        if read.is_empty() || self.sides[from].closed(now) || self.sides[to].closed(now) {
            return;
        }
        let side = &mut self.sides[to];
        let mut batch = Vec::new();
        for flight in read {
            // The knock's connector reads the keeper's catch-up.
            if side.attempt.as_ref().is_some_and(|a| a.conn == flight.conn) {
                if let Message::CaughtUp { frame, .. } = flight.message {
                    side.connector_caught_up = Some(frame);
                }
            // Paused, the room hears only the player agreed with (if any).
            } else if Some(flight.conn) == side.send_conn {
                batch.push(Ok(flight.message));
            }
        }
        if !batch.is_empty() {
            self.handle(to, Event::Received(batch));
        }
    }

    fn send(&mut self, from: usize, message: Message) {
        let Some(conn) = self.sides[from].send_conn else {
            return;
        };
        let delay = Duration::from_millis(self.rng.gen_range(5..=40));
        let last = self.control[from].back().map(|f| f.at);
        let at = last.map_or(self.now + delay, |l| l.max(self.now + delay));
        self.control[from].push_back(Flight { at, conn, message });
    }

    fn send_input(&mut self, from: usize) {
        let side = &self.sides[from];
        let copies = if self.rng.gen_range(0..10) == 0 { 2 } else { 1 };
        for _ in 0..copies {
            if self.rng.gen_range(0..100) < self.loss_pct {
                continue;
            }
            let at = self.now + Duration::from_millis(self.rng.gen_range(5..=60));
            self.inputs.push((at, from, side.conn, side.played));
        }
    }

    fn handle(&mut self, side: usize, event: Event<u32>) {
        let outputs = self.sides[side].machine.handle(self.now, event);
        self.perform(side, outputs);
    }

    /// What the shell does with the machine's outputs.
    fn perform(&mut self, side: usize, outputs: Vec<Output<u32, u8, 2>>) {
        let now = self.now;
        for output in outputs {
            let s = &mut self.sides[side];
            match output {
                Output::Send(message) => self.send(side, message),
                Output::SendCatchUp { known } => {
                    for message in catch_up(known, s.confirmed) {
                        self.send(side, message);
                    }
                }
                Output::CatchUp(history) => s.confirmed = s.confirmed.max(history.0.frames),
                Output::Keep { .. } => s.send_conn = None,
                Output::StartAttempt { timeout, .. } => self.start_attempt(side, timeout),
                Output::DropAttempt => s.attempt = None,
                Output::Adopt => {
                    if let Some(attempt) = s.attempt.take() {
                        s.conn = attempt.conn;
                        s.send_conn = Some(attempt.conn);
                    }
                }
                Output::Resume(Resume::Rejoined { peer, history, .. }) => {
                    s.confirmed = s.confirmed.max(history.0.frames);
                    s.restart(peer, now);
                }
                Output::Resume(Resume::Reconnected { .. }) => {
                    let theirs = s.connector_caught_up.take().unwrap_or(0);
                    s.confirmed = s.confirmed.max(theirs);
                    let conn = s.conn;
                    s.restart(conn, now);
                }
                Output::Stop(stop) => {
                    // A failure the peer cannot know of is told (`lifecycle`).
                    if let Stop::Protocol(why) = &stop {
                        let bye = s.machine.handle(now, Event::Goodbye(why.to_string()));
                        self.perform(side, bye);
                    }
                    self.finish(side, Verdict::Failed(stop));
                    return;
                }
                Output::TellSpectators(_)
                | Output::Knock { .. }
                | Output::ReopenSignaling
                | Output::LinkResumed { .. }
                | Output::Stalled { .. }
                | Output::PartnerAway
                | Output::PeerLeft { .. }
                | Output::Chat { .. }
                | Output::Relayed { .. }
                | Output::PeerDesyncState(_) => {}
            }
        }
    }

    /// Player 2 knocks: its fresh websocket takes its seat back (player 1
    /// hears the seat's last holder left), then the paused room hears it.
    fn start_attempt(&mut self, side: usize, timeout: Duration) {
        let conn = self.next_conn;
        self.next_conn += 1;
        let reachable = self.cut_at(self.now).is_none();
        let deadline = if reachable {
            self.now + timeout
        } else {
            // The server is not reached: the attempt fails soon.
            self.now + timeout.min(RETRY_AFTER)
        };
        let mut agree_at = None;
        if reachable && !self.sides[1 - side].closed(self.now) {
            let left = room::Output::PartnerLeft(self.seat_2);
            self.room.push((self.now + TICK, 1 - side, left));
            self.seat_2 = conn;
            agree_at = Some(self.now + HANDSHAKE);
        }
        self.sides[side].attempt = Some(Attempt {
            conn,
            deadline,
            agree_at,
        });
        self.sides[side].connector_caught_up = None;
    }

    fn finish(&mut self, side: usize, verdict: Verdict) {
        let s = &mut self.sides[side];
        if s.verdict.is_some() {
            return;
        }
        s.verdict = Some(verdict);
        s.closes_at = Some(self.now + CLOSE_LINGER);
        // Its websocket closes with it: the other side hears it left.
        let conn = s.conn;
        let left = room::Output::PartnerLeft(conn);
        self.room
            .push((self.now + CLOSE_LINGER + TICK, 1 - side, left));
    }

    /// One poll of a side, as `OnlineBackend` and `Match` do it.
    fn step(&mut self, side: usize) {
        let now = self.now;
        if self.sides[side].verdict.is_some() {
            return;
        }
        let seen = Seen {
            confirmed: self.sides[side].confirmed,
            ..Seen::default()
        };
        self.handle(side, Event::Tick(seen));
        self.knock_progress(side);
        let s = &mut self.sides[side];
        if s.verdict.is_some() {
            return;
        }
        if s.machine.paused().is_none() {
            let silence = now.saturating_duration_since(s.last_heard);
            if silence >= INTERRUPTION_NOTICE && !s.ggrs_interrupted && !s.ggrs_dropped {
                s.ggrs_interrupted = true;
                let timeout = WINDOW - INTERRUPTION_NOTICE;
                self.handle(side, Event::Interrupted { timeout });
            }
            let s = &mut self.sides[side];
            if silence >= WINDOW && !s.ggrs_dropped {
                s.ggrs_dropped = true;
                self.handle(side, Event::Disconnected);
            }
            let s = &mut self.sides[side];
            if s.verdict.is_none() && s.machine.paused().is_none() && now >= s.next_frame {
                s.next_frame = now + FRAME_TIME;
                if s.played < s.confirmed + PREDICTION {
                    s.played += 1;
                }
                // Stalled or not, GGRS sends what is not acknowledged yet.
                self.send_input(side);
            }
            let s = &mut self.sides[side];
            s.confirmed = s.confirmed.max(s.played.min(s.known_other).min(FRAMES));
        }
        self.check_end(side);
    }

    /// A knock's attempt: agreed by the paused room, caught up, or over.
    fn knock_progress(&mut self, side: usize) {
        let now = self.now;
        let Some(attempt) = &mut self.sides[side].attempt else {
            return;
        };
        let conn = attempt.conn;
        if attempt.agree_at.is_some_and(|t| now >= t) {
            attempt.agree_at = None;
            // The handshake needs both ends reachable and the room paused.
            let other = &self.sides[1 - side];
            if self.cut_at(now).is_none()
                && !other.closed(now)
                && other.machine.paused() == Some(Paused::Keeping)
            {
                let confirmed = self.sides[side].confirmed;
                self.sides[1 - side].send_conn = Some(conn);
                let agreed = room::Output::Agreed(conn, agreement(confirmed));
                self.handle(1 - side, Event::Room(agreed));
            }
        }
        let s = &mut self.sides[side];
        if s.connector_caught_up.is_some() && s.attempt.is_some() {
            let knock = Knock::Agreed {
                rejoin: true,
                match_id: agreement(0).match_id,
                peer_confirmed: self.sides[1 - side].confirmed,
            };
            self.handle(side, Event::Knocked(knock));
        } else if s.attempt.as_ref().is_some_and(|a| now >= a.deadline) {
            s.attempt = None;
            self.handle(side, Event::Knocked(Knock::Failed));
        }
    }

    /// `session::lifecycle`'s end of a match with a peer.
    fn check_end(&mut self, side: usize) {
        let now = self.now;
        let s = &mut self.sides[side];
        if s.verdict.is_some() {
            return;
        }
        let done = s.confirmed >= FRAMES;
        if s.machine.peer_gone() && !done {
            let since = *s.peer_gone_since.get_or_insert(now);
            if now.duration_since(since) > END_WAIT {
                let frame = s.confirmed + 1;
                let why = Stop::PeerLost(PeerGone::LeftBeforeConfirmed { frame });
                return self.finish(side, Verdict::Failed(why));
            }
        }
        if !done {
            return;
        }
        let last = Event::LastFrame {
            frame: FRAMES,
            checksum: CHECKSUM,
        };
        self.handle(side, last);
        let s = &mut self.sides[side];
        if s.verdict.is_some() {
            return;
        }
        if !s.machine.done_said() {
            s.ending_since = None;
            return;
        }
        let since = *s.ending_since.get_or_insert(now);
        let verdict = match s.machine.peer_done() {
            Some(_) => Verdict::Completed { compared: true },
            None if s.machine.peer_gone() || now.duration_since(since) > END_WAIT => {
                Verdict::Completed { compared: false }
            }
            None => return,
        };
        let bye = Event::Goodbye("the match reached its last frame".into());
        let outputs = s.machine.handle(now, bye);
        self.perform(side, outputs);
        self.finish(side, verdict);
    }
}

/// A wire that cuts whatever it likes, within the reconnect window.
fn chaos() -> impl Strategy<Value = Chaos> {
    // Anywhere, or about when the match ends (the Dones cross then).
    let start = prop_oneof![0u64..9_000, 4_700u64..5_000];
    let cut = (start, 0u64..7_000)
        .prop_map(|(at, length)| (Duration::from_millis(at), Duration::from_millis(length)));
    (any::<u64>(), 0u32..30, proptest::collection::vec(cut, 0..3)).prop_map(
        |(seed, loss_pct, cuts)| Chaos {
            seed,
            loss_pct,
            cuts,
        },
    )
}

/// Both sides completed the same match: every frame confirmed on each.
fn assert_same_end(chaos: &Chaos, verdicts: &[Option<Verdict>; 2], confirmed: [Frame; 2]) {
    let completed = |v: &Option<Verdict>| matches!(v, Some(Verdict::Completed { .. }));
    assert!(
        completed(&verdicts[0]) && completed(&verdicts[1]),
        "{chaos:?}: {verdicts:?} at frames {confirmed:?}"
    );
    assert_eq!(confirmed, [FRAMES; 2], "{chaos:?}");
}

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn whatever_the_wire_does_within_the_window_both_sides_end_alike(chaos in chaos()) {
        let mut wire = Wire::new(&chaos);
        let verdicts = wire.run();
        assert_same_end(&chaos, &verdicts, wire.confirmed());
    }
}

#[test]
fn a_clean_wire_ends_with_both_checksums_compared() {
    let chaos = Chaos {
        seed: 1,
        loss_pct: 0,
        cuts: Vec::new(),
    };
    let mut wire = Wire::new(&chaos);
    let verdicts = wire.run();
    let compared = Some(Verdict::Completed { compared: true });
    assert_eq!(verdicts, [compared.clone(), compared]);
    assert_eq!(wire.confirmed(), [FRAMES; 2]);
}

#[test]
fn a_long_cut_mid_match_is_reconnected_and_both_sides_compare_checksums() {
    for seed in 0..20 {
        let chaos = Chaos {
            seed,
            loss_pct: 10,
            cuts: vec![(Duration::from_secs(2), Duration::from_secs(6))],
        };
        let mut wire = Wire::new(&chaos);
        let verdicts = wire.run();
        let compared = Some(Verdict::Completed { compared: true });
        assert_eq!(verdicts, [compared.clone(), compared], "seed {seed}");
        assert_eq!(wire.confirmed(), [FRAMES; 2]);
    }
}

/// Cuts as the two `Done`s cross, where bugs 6 and 7 lived: whichever
/// `Done` the cut takes down, both sides end the match alike.
#[test]
fn a_cut_as_the_dones_cross_ends_the_match_alike_on_both_sides() {
    for seed in 0..400 {
        let chaos = Chaos {
            seed,
            loss_pct: (seed % 20) as u32,
            cuts: vec![(
                Duration::from_millis(4_700 + seed % 400),
                Duration::from_millis(300 + seed * 37 % 6_000),
            )],
        };
        let mut wire = Wire::new(&chaos);
        let verdicts = wire.run();
        assert_same_end(&chaos, &verdicts, wire.confirmed());
    }
}
