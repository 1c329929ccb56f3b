//! The handshake both peers run on the reliable channel before the first
//! frame, and the few control messages that share that channel during the
//! match (end-of-match checksum, goodbye).
//!
//! Sans-IO like GGRS: [`Handshake`] is fed received messages and the time,
//! and returns messages to send; the caller owns the channel and the clock.
//! Steps, in any interleaving (the simulated link may reorder them):
//! 1. both send `Hello` (versions, role, seed, preset, delay setting), again
//!    every `HELLO_RESEND` until the peer is heard, and once more then;
//! 2. once the peer is heard, both send [`PROBES`] pings (up to
//!    `MAX_PROBES` where those leave the delay in doubt) and answer the
//!    other's pings;
//! 3. when its own probes are back, each sends `Measured` (median RTT,
//!    jitter);
//! 4. with the other's `Hello` and `Measured` in hand, each derives the same
//!    [`Agreement`]: who is player 1, the seed and preset (player 1's), and
//!    the input delay from the combined measurements.

use std::collections::HashMap;
use web_time::{Duration, Instant};

use super::delay::{DelaySetting, input_delay_for, jitter_in_doubt, rtt_stats, table_delay};
use super::protocol::phase::{Connecting, Heard};
use super::signaling::PlayerName;
use crate::{Frame, GameInfo};

// The messages are the protocol's; the handshake is one of their users.
pub use super::protocol::message::{Claim, HandshakeError, Hello, Message, Role, Watch};

/// Round trips measured before the match.
///
/// The delay decision needs the median round trip and its spread (the
/// median absolute deviation), and the match's retuner refines both from
/// GGRS's own pings within seconds. Five probes give the same median as
/// sixteen on a steady link and the same delay on every link of the grid
/// (`a_short_probe_measures_what_the_full_one_did`), in a fifth of the
/// time: 16 probes at 10 ms were 165 ms of every connect.
pub const PROBES: u32 = 5;
/// Round trips measured when the first [`PROBES`] leave the automatic
/// delay in doubt: on a jittery link their median absolute deviation is
/// noisy (5 samples of a 20 ms jitter read 2-14 ms), and each side's
/// jitter is the larger of two such readings, so a few matches in ten
/// started a frame above the link's delay and spent seconds stepping down
/// (BENCHMARKS.md, the repeated grid). 16 samples narrow it to about 4-9
/// ms for 33 ms more of connecting, paid only where it changes the delay.
pub(crate) const MAX_PROBES: u32 = 16;
/// Spacing of the probes: 3 ms chose the long probe's delay as often as 5
/// did on the grid's links (57 and 58 of 60 steady, 56 and 53 of 60
/// jittery, in the two tests below) for 8 ms less of every connect; at 2
/// ms the samples on a jittery link were too alike and both tests failed.
pub(crate) const PROBE_INTERVAL: Duration = Duration::from_millis(3);
/// How often `Hello` is repeated until the peer is heard from.
///
/// Why at all, on a reliable channel: matchbox reports a peer connected when
/// *its own* end of the data channel opens. A message sent before the other
/// end has opened is acknowledged by SCTP and then dropped by the receiving
/// data channel (measured: a lost `Hello` about once in 100 loopback matches
/// under CPU load, which left the peer waiting for the 10 s timeout). Once a
/// message from the peer arrives, both ends are open and nothing else is lost.
pub(crate) const HELLO_RESEND: Duration = Duration::from_millis(100);
/// A probe unanswered this long is sent again under a new number: a safety
/// net, as probing starts only once the peer is heard and nothing sent after
/// that is lost.
const PROBE_RESEND: Duration = Duration::from_millis(1000);

/// What both peers agreed on; identical on both sides except `local_handle`.
#[derive(Clone, Debug, PartialEq)]
pub struct Agreement {
    /// 0 = player 1 (the host), 1 = player 2.
    pub local_handle: usize,
    /// The match's seed (the host's offer).
    pub seed: u64,
    /// The leader's rule preset, one of the game's (the game resolves it).
    pub preset: String,
    /// Mean of both peers' median RTTs, and the larger jitter.
    pub rtt_ms: f64,
    /// The larger of both peers' jitters, in ms.
    pub jitter_ms: f64,
    /// Frames of input delay for the local player (policy or override).
    pub input_delay: u32,
    /// The other peer's game version, as its `Hello` said.
    pub peer_version: String,
    /// Names this match for rejoining: the same on both sides, different
    /// for every match (mixed from both peers' random nonces).
    pub match_id: u64,
    /// This agreement continues a paused match (a player rejoined): the
    /// keeper sends the match so far before the new session starts.
    pub rejoin: bool,
    /// Resuming: the frames the other side has confirmed (its `Hello`).
    pub peer_confirmed: Frame,
    /// The players' display names, player 1's first (`None`: none given,
    /// or one that is not a valid name).
    pub names: [Option<PlayerName>; 2],
}

/// The handshake's machine: hellos, latency probes, the delay decision and the agreement. Fed the other peer's messages, it says what to send; no I/O of its own.
pub struct Handshake {
    game: GameInfo,
    ours: Hello,
    delay: DelaySetting,
    theirs: Option<Hello>,
    their_measure: Option<(u64, u64)>,
    /// Round trips to measure: [`PROBES`], or [`MAX_PROBES`] once those
    /// leave the delay in doubt.
    probes: u32,
    /// The most `probes` may grow to.
    max_probes: u32,
    /// Sent, unanswered pings.
    in_flight: HashMap<u32, Instant>,
    next_seq: u32,
    last_probe: Option<Instant>,
    rtts_ms: Vec<f64>,
    last_hello: Option<Instant>,
    /// A message from the peer arrived: its end of the channel is open.
    heard_peer: bool,
    /// A `Hello` left after the peer was heard, so it cannot have been lost.
    hello_delivered: bool,
    sent_measure: bool,
    outcome: Option<Result<Agreement, HandshakeError>>,
}

impl Handshake {
    /// A handshake of `game` that starts by sending `ours`.
    pub fn new(game: &GameInfo, ours: Hello, delay: DelaySetting) -> Self {
        Handshake {
            game: *game,
            ours,
            delay,
            theirs: None,
            their_measure: None,
            probes: PROBES,
            max_probes: if delay == DelaySetting::Auto {
                MAX_PROBES
            } else {
                // A fixed delay or the ping table does not use the jitter.
                PROBES
            },
            in_flight: HashMap::new(),
            next_seq: 0,
            last_probe: None,
            rtts_ms: Vec::new(),
            last_hello: None,
            heard_peer: false,
            hello_delivered: false,
            sent_measure: false,
            outcome: None,
        }
    }

    /// The same handshake measuring `probes` round trips (the tests
    /// compare a short probe with a long one).
    #[cfg(test)]
    fn with_probes(mut self, probes: u32) -> Self {
        self.probes = probes;
        self.max_probes = probes;
        self
    }

    /// Round trips measured so far and to measure (a progress display).
    pub(crate) fn probes(&self) -> (u32, u32) {
        (self.rtts_ms.len() as u32, self.probes)
    }

    /// The result, once there is one.
    pub fn outcome(&self) -> Option<&Result<Agreement, HandshakeError>> {
        self.outcome.as_ref()
    }

    /// Messages due at `now`.
    pub fn poll(&mut self, now: Instant) -> Vec<Message> {
        let mut out = Vec::new();
        if self.outcome.is_some() {
            return out;
        }
        let repeat_due = self.last_hello.is_none_or(|t| now >= t + HELLO_RESEND);
        if !self.hello_delivered && (self.heard_peer || repeat_due) {
            out.push(self.hello(now));
        }
        if !self.heard_peer {
            // Probes sent now could be lost like the Hello; wait.
            return out;
        }
        if self.rtts_ms.len() as u32 == self.probes
            && self.probes < self.max_probes
            && rtt_stats(&self.rtts_ms)
                .is_some_and(|(rtt, jitter)| jitter_in_doubt(self.game.fps, rtt, jitter))
        {
            self.probes = self.max_probes;
        }
        let measuring = (self.rtts_ms.len() as u32) < self.probes;
        let due = self.last_probe.is_none_or(|t| now >= t + PROBE_INTERVAL);
        let wanted = (self.probes - self.rtts_ms.len() as u32) as usize;
        self.in_flight.retain(|_, sent| now < *sent + PROBE_RESEND);
        if measuring && due && self.in_flight.len() < wanted {
            self.last_probe = Some(now);
            self.in_flight.insert(self.next_seq, now);
            out.push(Message::Ping { seq: self.next_seq });
            self.next_seq += 1;
        }
        if !measuring && !self.sent_measure {
            self.sent_measure = true;
            let (rtt, jitter) = rtt_stats(&self.rtts_ms).unwrap_or((0.0, 0.0));
            out.push(Message::Measured {
                rtt_us: (rtt * 1000.0) as u64,
                jitter_us: (jitter * 1000.0) as u64,
            });
        }
        self.try_finish();
        out
    }

    /// Handles one received message; returns an immediate reply, if any.
    pub fn receive(&mut self, now: Instant, message: Message) -> Option<Message> {
        self.heard_peer = true;
        let Heard::Expected(message) = message.heard_as::<Connecting>() else {
            // Another phase's message on the shared channel.
            self.try_finish();
            return None;
        };
        match message {
            Connecting::Hello(hello) => {
                if !hello.same_build(&self.ours) {
                    self.outcome = Some(Err(HandshakeError::VersionMismatch {
                        ours: self.ours.describe(),
                        theirs: hello.describe(),
                    }));
                    // Refused: `poll` sends nothing more, but our Hello
                    // must reach the peer, or it could only report that we
                    // left.
                    if !self.hello_delivered {
                        return Some(self.hello(now));
                    }
                } else if let Err(e) = rejoin_slot(&self.ours, &hello) {
                    self.outcome = Some(Err(e));
                    if !self.hello_delivered {
                        return Some(self.hello(now));
                    }
                }
                self.theirs = Some(hello);
            }
            Connecting::Ping { seq } => return Some(Message::Pong { seq }),
            Connecting::Pong { seq } => {
                if let Some(sent) = self.in_flight.remove(&seq)
                    && (self.rtts_ms.len() as u32) < self.probes
                {
                    self.rtts_ms
                        .push(now.duration_since(sent).as_secs_f64() * 1000.0);
                }
            }
            Connecting::Measured { rtt_us, jitter_us } => {
                self.their_measure = Some((rtt_us, jitter_us));
            }
            Connecting::Busy => {
                if self.outcome.is_none() {
                    self.outcome = Some(Err(HandshakeError::MatchRunning));
                }
            }
        }
        self.try_finish();
        None
    }

    /// Our `Hello`, noting when it left and whether it can have been lost.
    fn hello(&mut self, now: Instant) -> Message {
        self.last_hello = Some(now);
        self.hello_delivered = self.heard_peer;
        Message::Hello(self.ours.clone())
    }

    fn try_finish(&mut self) {
        if self.outcome.is_some() || !self.sent_measure {
            return;
        }
        let (Some(theirs), Some((their_rtt_us, their_jitter_us))) =
            (&self.theirs, self.their_measure)
        else {
            return;
        };
        self.outcome = Some(agree(
            &self.game,
            &self.ours,
            theirs,
            &self.rtts_ms,
            (their_rtt_us, their_jitter_us),
            self.delay,
        ));
    }
}

fn agree(
    game: &GameInfo,
    ours: &Hello,
    theirs: &Hello,
    our_rtts_ms: &[f64],
    (their_rtt_us, their_jitter_us): (u64, u64),
    delay: DelaySetting,
) -> Result<Agreement, HandshakeError> {
    let rejoin = rejoin_slot(ours, theirs)?;
    let we_lead = match (rejoin, ours.role.cmp(&theirs.role)) {
        // A rejoined player keeps its slot.
        (Some(claim), _) => claim.player == 1,
        (None, std::cmp::Ordering::Less) => true,
        (None, std::cmp::Ordering::Greater) => false,
        (None, std::cmp::Ordering::Equal) if ours.nonce == theirs.nonce => {
            return Err(HandshakeError::Tie);
        }
        (None, std::cmp::Ordering::Equal) => ours.nonce < theirs.nonce,
    };
    // The seed and preset are the match's: the keeper's when resuming.
    let leader = match (&ours.resume, rejoin) {
        (Some(_), _) => ours,
        (None, Some(_)) => theirs,
        (None, None) if we_lead => ours,
        (None, None) => theirs,
    };
    if !game.has_preset(&leader.preset) {
        return Err(HandshakeError::UnknownPreset(leader.preset.clone()));
    }
    // Both sides must compute identical numbers: work in whole microseconds
    // as sent, in the same order (player 1's first).
    let (our_rtt, our_jitter) = rtt_stats(our_rtts_ms).unwrap_or((0.0, 0.0));
    let ours_us = ((our_rtt * 1000.0) as u64, (our_jitter * 1000.0) as u64);
    let theirs_us = (their_rtt_us, their_jitter_us);
    let (first_nonce, second_nonce) = if we_lead {
        (ours.nonce, theirs.nonce)
    } else {
        (theirs.nonce, ours.nonce)
    };
    let match_id = match rejoin {
        Some(claim) => claim.match_id,
        None => first_nonce ^ second_nonce.rotate_left(29),
    };
    let (first, second) = if we_lead {
        (ours_us, theirs_us)
    } else {
        (theirs_us, ours_us)
    };
    // The peer's numbers are any u64: add them without overflow.
    let rtt_ms = (u128::from(first.0) + u128::from(second.0)) as f64 / 2000.0;
    let jitter_ms = first.1.max(second.1) as f64 / 1000.0;
    let input_delay = match delay {
        DelaySetting::Auto => input_delay_for(game.fps, rtt_ms, jitter_ms),
        DelaySetting::Fixed(n) => n,
        DelaySetting::Table => table_delay(rtt_ms),
    };
    let name = |hello: &Hello| PlayerName::parse(&hello.name).ok();
    let names = if we_lead {
        [name(ours), name(theirs)]
    } else {
        [name(theirs), name(ours)]
    };
    Ok(Agreement {
        names,
        local_handle: if we_lead { 0 } else { 1 },
        seed: leader.seed,
        preset: leader.preset.clone(),
        rtt_ms,
        jitter_ms,
        input_delay,
        peer_version: theirs.game_version.clone(),
        match_id,
        rejoin: rejoin.is_some(),
        peer_confirmed: theirs.confirmed,
    })
}

/// Whether these two peers continue a paused match: the claim of the local
/// player if so, `None` for a new match, an error if one side holds a
/// paused match the other did not play (the same verdict on both sides).
fn rejoin_slot(ours: &Hello, theirs: &Hello) -> Result<Option<Claim>, HandshakeError> {
    let (keeper, rejoiner, we_keep) = match (ours.resume, theirs.resume) {
        // Both kept the match, each for the other: a drop the two sides saw
        // differently (player 2 heard player 1's connection close while
        // player 1 only heard silence). Each resumes in its own seat, and
        // the catch-ups cross as between a keeper and a rejoiner.
        (Some(kept), Some(other)) if other == kept.partner() => return Ok(Some(kept)),
        (Some(_), Some(_)) => return Err(HandshakeError::BothResuming),
        (Some(kept), None) => (kept, theirs, true),
        (None, Some(kept)) => (kept, ours, false),
        (None, None) => return Ok(None),
    };
    let wanted = keeper.partner();
    if rejoiner.rejoin.contains(&wanted) {
        Ok(Some(if we_keep { keeper } else { wanted }))
    } else if rejoiner.rejoin.is_empty() {
        Err(HandshakeError::Paused {
            waiting_for: wanted.player,
        })
    } else {
        Err(HandshakeError::NotThisMatch {
            waiting_for: wanted.player,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::link_sim::{LinkConfig, LinkSim};
    use crate::test_game::GAME;

    fn hello(role: Role, seed: u64) -> Hello {
        Hello::new(&GAME, role, seed, "default", DelaySetting::Auto)
    }

    type Outcomes = (
        Result<Agreement, HandshakeError>,
        Result<Agreement, HandshakeError>,
    );

    /// Runs two handshakes against each other with a fixed one-way delay.
    fn run(a: Handshake, b: Handshake, one_way: Duration) -> Outcomes {
        run_opening_late(a, b, one_way, Duration::ZERO)
    }

    /// Like [`run`], but `b`'s end of the channel opens `b_opens` after
    /// `a`'s: until then `b` is not polled and what `a` sends it is lost
    /// (what a WebRTC data channel does to data that arrives before it opens).
    fn run_opening_late(
        mut a: Handshake,
        mut b: Handshake,
        one_way: Duration,
        b_opens: Duration,
    ) -> Outcomes {
        let start = Instant::now();
        // (deliver at, to a?, message)
        let mut wire: Vec<(Instant, bool, Message)> = Vec::new();
        let mut now = start;
        for _ in 0..10_000 {
            if let (Some(x), Some(y)) = (a.outcome(), b.outcome()) {
                return (x.clone(), y.clone());
            }
            for m in a.poll(now) {
                wire.push((now + one_way, false, m));
            }
            let b_open = now >= start + b_opens;
            if b_open {
                for m in b.poll(now) {
                    wire.push((now + one_way, true, m));
                }
            }
            let (due, later): (Vec<_>, Vec<_>) = wire.into_iter().partition(|(t, ..)| *t <= now);
            wire = later;
            for (_, to_a, m) in due {
                if !to_a && !b_open {
                    continue;
                }
                let (me, reply_to_a) = if to_a {
                    (&mut a, false)
                } else {
                    (&mut b, true)
                };
                if let Some(reply) = me.receive(now, m) {
                    wire.push((now + one_way, reply_to_a, reply));
                }
            }
            now += Duration::from_millis(1);
        }
        panic!("handshake did not finish");
    }

    /// Runs two handshakes whose messages cross the link simulator as the
    /// control channel's do (`net::control`: delay and jitter, reordered,
    /// never lost), on a 1 ms clock; returns player 1's agreement.
    fn run_over(link: LinkConfig, seed: u64, probes: u32) -> Agreement {
        run_over_as(link, seed, Some(probes)).0
    }

    /// [`run_over`] with the handshake's own probe count (`None`) or a
    /// fixed one; also returns how many round trips each side measured.
    fn run_over_as(link: LinkConfig, seed: u64, probes: Option<u32>) -> (Agreement, [u32; 2]) {
        let side = |role, nonce| {
            let h = Handshake::new(&GAME, hello(role, nonce), DelaySetting::Auto);
            match probes {
                Some(n) => h.with_probes(n),
                None => h,
            }
        };
        let mut sides = [side(Role::Host, 1), side(Role::Join, 2)];
        let mut links = [
            LinkSim::new(link.clone(), seed),
            LinkSim::new(link.clone(), seed ^ 0x5EED),
        ];
        let mut now = Instant::now();
        for _ in 0..10_000 {
            if let (Some(Ok(a)), Some(Ok(_))) = (sides[0].outcome(), sides[1].outcome()) {
                return (a.clone(), sides.each_ref().map(|s| s.probes().0));
            }
            for from in 0..2 {
                for message in sides[from].poll(now) {
                    links[from].push(now, message);
                }
            }
            for from in 0..2 {
                for message in links[from].pop_ready(now) {
                    if let Some(reply) = sides[1 - from].receive(now, message) {
                        links[1 - from].push(now, reply);
                    }
                }
            }
            now += Duration::from_millis(1);
        }
        panic!("handshake did not finish over {link:?}");
    }

    /// The short probe against the 16 round trips it replaced, on the
    /// delay grid's links (RTT 0-200 ms, jitter 0 or 20 ms), five seeds
    /// each: the round trip within 10 % on fixed delays, and the input
    /// delay it leads to never more than a frame from the long probe's.
    #[test]
    fn a_short_probe_measures_what_the_full_one_did() {
        let (mut runs, mut same_delay, mut differ) = (0, 0, Vec::new());
        for rtt in [0.0, 40.0, 80.0, 120.0, 160.0, 200.0] {
            for jitter in [0.0, 20.0] {
                for seed in 1..=5 {
                    let link = LinkConfig {
                        latency_ms: rtt / 2.0,
                        jitter_ms: jitter,
                        ..LinkConfig::default()
                    };
                    let short = run_over(link.clone(), seed, PROBES);
                    let full = run_over(link, seed, 16);
                    if jitter == 0.0 {
                        // Within 10 %, or a millisecond (the clock's step)
                        // on loopback.
                        let bound = (full.rtt_ms * 0.1).max(1.0);
                        assert!(
                            (short.rtt_ms - full.rtt_ms).abs() <= bound,
                            "rtt {rtt}: {} against {}",
                            short.rtt_ms,
                            full.rtt_ms
                        );
                        assert_eq!(short.input_delay, full.input_delay, "rtt {rtt}");
                    }
                    assert!(
                        short.input_delay.abs_diff(full.input_delay) <= 1,
                        "rtt {rtt} jitter {jitter} seed {seed}: {} frames against {}",
                        short.input_delay,
                        full.input_delay
                    );
                    runs += 1;
                    if short.input_delay == full.input_delay {
                        same_delay += 1;
                    } else {
                        differ.push((rtt, seed, short.input_delay, full.input_delay));
                    }
                }
            }
        }
        eprintln!(
            "the short probe chose the long one's delay in {same_delay} of {runs} runs; \
             elsewhere (rtt, seed, short, long): {differ:?}"
        );
        assert!(same_delay * 10 >= runs * 9, "{same_delay} of {runs}");
    }

    /// On the grid's jittery links (20 ms each way), against a long
    /// measure (64 round trips): five probes' jitter strays far from it
    /// (the larger of two 5-sample deviations), probing on where that
    /// could change the delay keeps it closer, and picks the long
    /// measure's delay at least as often. On steady links nothing is in
    /// doubt: five probes, no more.
    #[test]
    fn round_trips_that_leave_the_delay_in_doubt_are_measured_longer() {
        let (mut runs, mut five_right, mut adaptive_right, mut extended) = (0, 0, 0, 0);
        let (mut five_off, mut adaptive_off) = (0.0f64, 0.0f64);
        for rtt in [0.0, 40.0, 80.0, 120.0, 160.0, 200.0] {
            let steady = LinkConfig {
                latency_ms: rtt / 2.0,
                ..LinkConfig::default()
            };
            let (_, probes) = run_over_as(steady.clone(), 1, None);
            assert_eq!(probes, [PROBES; 2], "steady rtt {rtt}");
            let jittery = LinkConfig {
                jitter_ms: 20.0,
                ..steady.clone()
            };
            for seed in 1..=10 {
                let reference = run_over(jittery.clone(), seed, 64);
                let five = run_over(jittery.clone(), seed, PROBES);
                let (adaptive, probes) = run_over_as(jittery.clone(), seed, None);
                for n in probes {
                    assert!(n == PROBES || n == MAX_PROBES, "{n} probes");
                }
                runs += 1;
                five_right += u32::from(five.input_delay == reference.input_delay);
                adaptive_right += u32::from(adaptive.input_delay == reference.input_delay);
                extended += u32::from(probes.contains(&MAX_PROBES));
                five_off = five_off.max((five.jitter_ms - reference.jitter_ms).abs());
                adaptive_off = adaptive_off.max((adaptive.jitter_ms - reference.jitter_ms).abs());
            }
        }
        eprintln!(
            "of {runs} jittery handshakes ({extended} probed longer), the long measure's delay \
             was chosen by 5 probes in {five_right}, adaptive probing in {adaptive_right}; \
             jitter at most {five_off} ms and {adaptive_off} ms from it"
        );
        assert!(
            adaptive_right >= five_right,
            "{adaptive_right} vs {five_right}"
        );
        assert!(adaptive_off < five_off, "{adaptive_off} vs {five_off}");
    }

    #[test]
    fn both_sides_agree_and_the_host_leads() {
        let a = Handshake::new(&GAME, hello(Role::Host, 7), DelaySetting::Auto);
        let b = Handshake::new(&GAME, hello(Role::Join, 99), DelaySetting::Auto);
        let (x, y) = run(a, b, Duration::from_millis(50));
        let (x, y) = (x.unwrap(), y.unwrap());
        assert_eq!((x.local_handle, y.local_handle), (0, 1));
        assert_eq!((x.seed, y.seed), (7, 7));
        assert_eq!(x.rtt_ms, y.rtt_ms);
        assert_eq!(x.jitter_ms, y.jitter_ms);
        // 100 ms round trip measured on a 1 ms clock step.
        assert!((99.0..=103.0).contains(&x.rtt_ms), "{}", x.rtt_ms);
        assert_eq!(
            x.input_delay,
            input_delay_for(GAME.fps, x.rtt_ms, x.jitter_ms)
        );
        assert_eq!(x.input_delay, y.input_delay);
    }

    #[test]
    fn what_is_sent_before_the_other_end_opens_is_repeated() {
        // The joiner's end opens 5, 30 or 250 ms after the host's: the
        // host's first Hellos are lost; later ones, and probes, are not.
        for b_opens in [5, 30, 250] {
            let a = Handshake::new(&GAME, hello(Role::Host, 7), DelaySetting::Auto);
            let b = Handshake::new(&GAME, hello(Role::Join, 99), DelaySetting::Auto);
            let (x, y) = run_opening_late(
                a,
                b,
                Duration::from_millis(2),
                Duration::from_millis(b_opens),
            );
            let (x, y) = (x.unwrap(), y.unwrap());
            assert_eq!((x.local_handle, y.local_handle), (0, 1));
            assert_eq!((x.seed, y.seed), (7, 7));
            // No probe waited for a resend: the RTT is the link's.
            assert!((3.0..=6.0).contains(&x.rtt_ms), "{}", x.rtt_ms);
        }
    }

    #[test]
    fn hello_is_repeated_only_until_the_peer_is_heard() {
        let mut host = Handshake::new(&GAME, hello(Role::Host, 1), DelaySetting::Auto);
        let start = Instant::now();
        let hellos = |out: &[Message]| {
            out.iter()
                .filter(|m| matches!(m, Message::Hello(_)))
                .count()
        };
        assert_eq!(hellos(&host.poll(start)), 1);
        assert_eq!(host.poll(start + Duration::from_millis(50)), vec![]);
        assert_eq!(hellos(&host.poll(start + HELLO_RESEND)), 1);
        let t = start + HELLO_RESEND + Duration::from_millis(10);
        host.receive(t, Message::Hello(hello(Role::Join, 2)));
        // Heard: one more Hello, now certain to arrive, and probing starts.
        let out = host.poll(t);
        assert_eq!(hellos(&out), 1);
        assert!(out.iter().any(|m| matches!(m, Message::Ping { .. })));
        let later = host.poll(t + Duration::from_secs(1));
        assert_eq!(hellos(&later), 0);
    }

    #[test]
    fn quick_match_breaks_the_tie_by_nonce() {
        let mut ha = hello(Role::Quick, 1);
        let mut hb = hello(Role::Quick, 2);
        ha.nonce = 5;
        hb.nonce = 3;
        let (x, y) = run(
            Handshake::new(&GAME, ha, DelaySetting::Auto),
            Handshake::new(&GAME, hb, DelaySetting::Auto),
            Duration::ZERO,
        );
        let (x, y) = (x.unwrap(), y.unwrap());
        assert_eq!((x.local_handle, y.local_handle), (1, 0));
        assert_eq!((x.seed, y.seed), (2, 2));
    }

    #[test]
    fn a_new_match_gets_the_same_fresh_id_on_both_sides() {
        let (x, y) = run(
            Handshake::new(&GAME, hello(Role::Host, 1), DelaySetting::Auto),
            Handshake::new(&GAME, hello(Role::Join, 2), DelaySetting::Auto),
            Duration::ZERO,
        );
        let (x, y) = (x.unwrap(), y.unwrap());
        assert_eq!(x.match_id, y.match_id);
        assert!(!x.rejoin && !y.rejoin);
        let (z, _) = run(
            Handshake::new(&GAME, hello(Role::Host, 1), DelaySetting::Auto),
            Handshake::new(&GAME, hello(Role::Join, 2), DelaySetting::Auto),
            Duration::ZERO,
        );
        assert_ne!(z.unwrap().match_id, x.match_id);
    }

    /// The keeper of paused match 77 as player 2 (its seed 9), and a
    /// newcomer with these tickets, joining with `role` and seed 1.
    fn resume(tickets: &[Claim], role: Role) -> Outcomes {
        let mut keeper = hello(Role::Join, 9);
        keeper.resume = Some(Claim {
            match_id: 77,
            player: 2,
        });
        let mut newcomer = hello(role, 1);
        newcomer.rejoin = tickets.to_vec();
        run(
            Handshake::new(&GAME, keeper, DelaySetting::Auto),
            Handshake::new(&GAME, newcomer, DelaySetting::Auto),
            Duration::from_millis(3),
        )
    }

    #[test]
    fn a_rejoining_player_keeps_its_slot_and_the_match_its_seed() {
        let tickets = [
            Claim {
                match_id: 5,
                player: 2,
            },
            Claim {
                match_id: 77,
                player: 1,
            },
        ];
        // Player 1 of match 77 rejoins with `join`: still player 1.
        let (keeper, rejoiner) = resume(&tickets, Role::Join);
        let (keeper, rejoiner) = (keeper.unwrap(), rejoiner.unwrap());
        assert_eq!((keeper.local_handle, rejoiner.local_handle), (1, 0));
        assert_eq!((keeper.seed, rejoiner.seed), (9, 9));
        assert_eq!((keeper.match_id, rejoiner.match_id), (77, 77));
        assert!(keeper.rejoin && rejoiner.rejoin);
    }

    /// The two keepers of paused match 77: player 2 heard player 1's
    /// connection close (a crash, it thought), player 1 heard silence; both
    /// wait for the other. They meet when player 1 reopens its signaling.
    #[test]
    fn two_keepers_of_the_same_match_resume_it_each_in_its_seat() {
        let keeper = |role: Role, player: u8, match_id: u64, confirmed: Frame| {
            let mut hello = hello(role, 9);
            hello.resume = Some(Claim { match_id, player });
            hello.confirmed = confirmed;
            Handshake::new(&GAME, hello, DelaySetting::Auto)
        };
        let (one, two) = run(
            keeper(Role::Host, 1, 77, 608),
            keeper(Role::Join, 2, 77, 609),
            Duration::from_millis(3),
        );
        let (one, two) = (one.unwrap(), two.unwrap());
        assert_eq!((one.local_handle, two.local_handle), (0, 1));
        assert_eq!((one.match_id, two.match_id), (77, 77));
        assert!(one.rejoin && two.rejoin);
        assert_eq!((one.peer_confirmed, two.peer_confirmed), (609, 608));
        // Keepers of different matches, or of the same seat, are refused.
        for (match_id, player) in [(78, 2), (77, 1)] {
            let (x, y) = run(
                keeper(Role::Host, 1, 77, 608),
                keeper(Role::Join, player, match_id, 609),
                Duration::from_millis(3),
            );
            assert_eq!(x, Err(HandshakeError::BothResuming));
            assert_eq!(y, Err(HandshakeError::BothResuming));
        }
    }

    #[test]
    fn only_the_dropped_player_of_the_paused_match_gets_in() {
        let paused = HandshakeError::Paused { waiting_for: 1 };
        let (keeper, newcomer) = resume(&[], Role::Join);
        assert_eq!((keeper, newcomer), (Err(paused.clone()), Err(paused)));
        // A ticket of another match, and one of the player still there.
        for ticket in [(78, 1), (77, 2)] {
            let claim = Claim {
                match_id: ticket.0,
                player: ticket.1,
            };
            let other = HandshakeError::NotThisMatch { waiting_for: 1 };
            let (keeper, newcomer) = resume(&[claim], Role::Join);
            assert_eq!((keeper, newcomer), (Err(other.clone()), Err(other)));
        }
    }

    #[test]
    fn fixed_delay_overrides_only_its_own_side() {
        let (x, y) = run(
            Handshake::new(&GAME, hello(Role::Host, 1), DelaySetting::Fixed(5)),
            Handshake::new(&GAME, hello(Role::Join, 1), DelaySetting::Auto),
            Duration::ZERO,
        );
        assert_eq!(x.unwrap().input_delay, 5);
        assert_eq!(y.unwrap().input_delay, 0);
    }

    #[test]
    fn version_mismatch_fails_both_sides() {
        let mut old = hello(Role::Join, 1);
        old.protocol += 1;
        old.game_version = "9.9.9".into();
        let (x, y) = run(
            Handshake::new(&GAME, hello(Role::Host, 1), DelaySetting::Auto),
            Handshake::new(&GAME, old, DelaySetting::Auto),
            Duration::ZERO,
        );
        let e = x.unwrap_err();
        assert!(matches!(e, HandshakeError::VersionMismatch { .. }));
        assert!(e.to_string().contains("9.9.9"), "{e}");
        assert!(matches!(y, Err(HandshakeError::VersionMismatch { .. })));
    }

    #[test]
    fn a_side_refusing_before_its_first_poll_still_sends_its_hello() {
        let mut newer = hello(Role::Join, 1);
        newer.protocol += 1;
        let mut host = Handshake::new(&GAME, hello(Role::Host, 1), DelaySetting::Auto);
        let mut joiner = Handshake::new(&GAME, newer, DelaySetting::Auto);
        let now = Instant::now();
        let host_hello = host.poll(now).remove(0);
        // The joiner hears the host before it ever polled.
        let reply = joiner.receive(now, host_hello);
        assert!(matches!(
            joiner.outcome(),
            Some(Err(HandshakeError::VersionMismatch { .. }))
        ));
        let reply = reply.expect("the refusing side answers with its Hello");
        assert!(matches!(reply, Message::Hello(_)));
        host.receive(now, reply);
        assert!(matches!(
            host.outcome(),
            Some(Err(HandshakeError::VersionMismatch { .. }))
        ));
    }

    #[test]
    fn busy_ends_the_handshake_with_match_running() {
        let mut newcomer = Handshake::new(&GAME, hello(Role::Join, 1), DelaySetting::Auto);
        let now = Instant::now();
        newcomer.poll(now);
        assert_eq!(newcomer.receive(now, Message::Busy), None);
        assert_eq!(newcomer.outcome(), Some(&Err(HandshakeError::MatchRunning)));
        assert!(newcomer.poll(now + HELLO_RESEND).is_empty());
        assert_eq!(Message::decode(&Message::Busy.encode()), Ok(Message::Busy));
    }

    #[test]
    fn unknown_preset_and_garbage_are_errors() {
        let mut odd = hello(Role::Host, 1);
        odd.preset = "turbo".into();
        let (x, _) = run(
            Handshake::new(&GAME, odd, DelaySetting::Auto),
            Handshake::new(&GAME, hello(Role::Join, 1), DelaySetting::Auto),
            Duration::ZERO,
        );
        assert_eq!(x, Err(HandshakeError::UnknownPreset("turbo".into())));

        // Bytes on the control channel that are not a message.
        assert_eq!(
            Message::decode(b"\x00\xffnot json"),
            Err(HandshakeError::Malformed { bytes: 10 })
        );
    }

    #[test]
    fn messages_round_trip_on_the_wire_and_as_json_for_transcripts() {
        for m in [
            Message::Hello(hello(Role::Quick, 3)),
            Message::Ping { seq: 4 },
            Message::Done {
                frame: 900,
                checksum: u128::MAX - 7,
            },
            Message::Desync {
                frame: 70,
                sender: 1,
                receiver: 0xabc,
            },
            Message::Bye {
                reason: "esc".into(),
            },
            Message::Busy,
            Message::CatchUp {
                chunks: vec![0, 1, 2],
            },
            Message::CaughtUp {
                frame: 36_000,
                checksum: 5,
            },
            Message::Chat {
                text: "gg \"wp\" é".into(),
            },
        ] {
            assert_eq!(Message::decode(&m.encode()), Ok(m.clone()));
            let json = serde_json::to_string(&m).unwrap();
            assert_eq!(serde_json::from_str::<Message>(&json).unwrap(), m, "{json}");
        }
    }

    #[test]
    fn a_checksum_that_is_not_32_hex_digits_does_not_decode() {
        // In a transcript, as JSON.
        let good = r#"{"done":{"frame":900,"checksum":"000000000000000000000000000000ab"}}"#;
        assert!(serde_json::from_str::<Message>(good).is_ok());
        for bad in ["ab", "zz000000000000000000000000000000", ""] {
            let text = format!(r#"{{"done":{{"frame":900,"checksum":"{bad}"}}}}"#);
            assert!(serde_json::from_str::<Message>(&text).is_err(), "{bad:?}");
        }
        // On the wire, as 16 bytes and nothing else.
        let mut wire = Message::Done {
            frame: 900,
            checksum: 0xab,
        }
        .encode();
        let at = wire.len() - 17;
        assert_eq!(wire[at], 16);
        wire[at] = 15;
        wire.pop();
        assert!(Message::decode(&wire).is_err());
    }
}
