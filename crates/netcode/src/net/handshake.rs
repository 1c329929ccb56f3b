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
#[path = "handshake_tests.rs"]
mod tests;
