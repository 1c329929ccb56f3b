//! The input-delay policy: how many frames each player's inputs are held
//! back, from the measured round-trip time and jitter, and the retuner that
//! moves it during a match without oscillating.
//!
//! Why: a remote input needed for frame `f` leaves the other machine when it
//! is at frame `f - delay` and arrives one-way-latency later. Every frame it
//! arrives late is a frame simulated on a prediction, i.e. up to that many
//! frames of rollback when the prediction was wrong. Delay costs the player
//! responsiveness on every press; rollback costs only on mispredictions and
//! is invisible when short. So the policy hides the first
//! `ROLLBACK_BUDGET` frames of latency with rollback and the rest with
//! delay. How often a rollback happens depends on how often the player's
//! input changes (the other side predicts "same as last frame"), so the
//! margin kept against late packets grows with this player's measured rate
//! of input changes (`ideal_delay_at`). The evidence behind the numbers
//! is in docs/architecture/input-delay.md and BENCHMARKS.md.

use std::fmt;
use std::str::FromStr;

use super::loss::LossStats;

/// Frames of one-way latency left to rollback instead of delay.
pub(crate) const ROLLBACK_BUDGET: f64 = 2.0;

/// Largest delay the auto policy picks (and `--input-delay` accepts).
/// Beyond ~130 ms of added latency a shooter is not worth playing, and
/// GGRS's 8-frame prediction window still covers the rest.
pub const MAX_INPUT_DELAY: u32 = 8;

/// `--input-delay auto|N`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DelaySetting {
    /// Derived from the measured latency, retuned during the match.
    #[default]
    Auto,
    /// Exactly this many frames for the whole match.
    Fixed(u32),
    /// From the measured round trip by the table netplay players use on
    /// Fightcade and nullDC (`table_delay`), fixed for the match: the
    /// community's bar for `Auto`.
    Table,
}

/// The ping-to-delay table of Fightcade/nullDC netplay: RTT below 25 ms →
/// 1 frame, below 60 → 2, below 100 → 3, below 130 → 4, below 155 → 5,
/// below 180 → 6, above → 7.
pub(crate) fn table_delay(rtt_ms: f64) -> u32 {
    const STEPS: [(f64, u32); 6] = [
        (25.0, 1),
        (60.0, 2),
        (100.0, 3),
        (130.0, 4),
        (155.0, 5),
        (180.0, 6),
    ];
    STEPS
        .iter()
        .find(|&&(below, _)| rtt_ms < below)
        .map_or(7, |&(_, delay)| delay)
}

impl FromStr for DelaySetting {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        if s.eq_ignore_ascii_case("auto") {
            return Ok(DelaySetting::Auto);
        }
        if s.eq_ignore_ascii_case("table") {
            return Ok(DelaySetting::Table);
        }
        match s.parse::<u32>() {
            Ok(n) if n <= MAX_INPUT_DELAY => Ok(DelaySetting::Fixed(n)),
            _ => Err(format!(
                "expected 'auto', 'table' or a number of frames from 0 to {MAX_INPUT_DELAY}"
            )),
        }
    }
}

impl fmt::Display for DelaySetting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DelaySetting::Auto => f.write_str("auto"),
            DelaySetting::Fixed(n) => write!(f, "{n}"),
            DelaySetting::Table => f.write_str("table"),
        }
    }
}

/// Input changes per second up to which a player counts as calm: each
/// change the other side mispredicts costs one rollback, and at this rate
/// (the scripted bots change about 1.7 times a second) a late packet now
/// and then leaves p99 rollback within [`ROLLBACK_BUDGET`] frames.
pub(crate) const CALM_CHANGES_PER_S: f64 = 2.0;
/// From this rate on a player counts as busy (people playing: 3.5-4.5
/// changes a second for the human-like bot, more in a fight). Three times
/// as many rollbacks as a calm player's make the tail of late packets
/// (jitter, a frame boundary just missed) show up in p99.
pub(crate) const BUSY_CHANGES_PER_S: f64 = 4.0;
/// Extra margin for a busy player: this many more jitters...
const BUSY_JITTER_MARGIN: f64 = 0.6;
/// ...plus this much for packets that just miss a frame boundary (a link
/// whose one-way latency ends a hair before a whole frame).
const BUSY_MARGIN_MS: f64 = 2.0;

/// How busy `changes_per_s` is: 0 calm, 1 busy, linear in between. Not a
/// number (no measurement yet) counts as busy: the safe side.
fn busyness(changes_per_s: f64) -> f64 {
    if changes_per_s.is_nan() {
        return 1.0;
    }
    ((changes_per_s - CALM_CHANGES_PER_S) / (BUSY_CHANGES_PER_S - CALM_CHANGES_PER_S))
        .clamp(0.0, 1.0)
}

/// Share of a busy player's input changes that may arrive a frame late
/// for lost packets at no cost: p99 rollback over both players' frames
/// leaves a player changing 4 times a second (one frame in 15) about 15 %
/// of its changes to be late, and jitter takes part of that. Loss up to
/// this (5 % on the grid's lossy links, where the policy without a loss
/// margin already keeps p99 within 2 frames) adds nothing...
const LOSS_TAIL_FREE: f64 = 0.06;
/// ...and from this share on, a whole frame per step of lateness.
const LOSS_TAIL_FULL: f64 = 0.15;
/// Steps of lateness considered: beyond 8 frames GGRS stalls anyway.
const LOSS_MAX_STEPS: u32 = MAX_INPUT_DELAY;

/// Frames of margin for lost packets. GGRS sends every unacknowledged
/// input in each frame's message, so an input whose message is lost
/// arrives with the next one, a frame later; `k` lost in a row make it
/// `k` frames late. With loss rate `p` in runs of mean length `b` (a
/// two-state chain: a loss follows a loss with probability `1 - 1/b`), an
/// input is at least `k` frames late with probability
/// `p (1 - 1/b)^(k-1)`; each step of lateness whose probability passes
/// [`LOSS_TAIL_FREE`] adds up to a frame, in proportion, so the retuner's
/// hysteresis sees a margin that grows smoothly with the loss. Scaled by
/// how busy the player is, like the jitter margin: a calm player's rare
/// changes are rarely the late ones.
pub(crate) fn loss_margin_frames(loss: LossStats, changes_per_s: f64) -> f64 {
    let rate = loss.rate.clamp(0.0, 1.0);
    if rate.is_nan() {
        return 0.0;
    }
    let again = if loss.mean_burst > 1.0 {
        1.0 - 1.0 / loss.mean_burst
    } else {
        0.0
    };
    let mut tail = rate;
    let mut margin = 0.0;
    for _ in 0..LOSS_MAX_STEPS {
        let step = ((tail - LOSS_TAIL_FREE) / (LOSS_TAIL_FULL - LOSS_TAIL_FREE)).clamp(0.0, 1.0);
        if step == 0.0 {
            break;
        }
        margin += step;
        tail *= again;
    }
    busyness(changes_per_s) * margin
}

/// The ideal delay in fractional frames for a player whose input changes
/// `changes_per_s` times a second: one-way latency plus one jitter of
/// margin (more for a busy player), minus the rollback budget, plus the
/// frames lost packets make inputs late ([`loss_margin_frames`]).
/// Negative means "no delay needed".
pub(crate) fn ideal_delay_at(
    fps: u32,
    rtt_ms: f64,
    jitter_ms: f64,
    changes_per_s: f64,
    loss: LossStats,
) -> f64 {
    let jitter = jitter_ms.max(0.0);
    let margin = busyness(changes_per_s) * (BUSY_JITTER_MARGIN * jitter + BUSY_MARGIN_MS);
    let one_way = rtt_ms.max(0.0) / 2.0 + jitter + margin;
    // `* fps / 1000` rather than `/ frame_ms`: exact for whole frames, so
    // 100 ms is 6 frames and not 6.000000001 (which would round up to 7).
    one_way * f64::from(fps) / 1000.0 - ROLLBACK_BUDGET + loss_margin_frames(loss, changes_per_s)
}

/// The ideal delay before the player's input has been seen (the
/// handshake): a busy player's, the safe side; on a link whose loss is
/// not known yet (a handful of probes cannot tell 5 % from 0).
pub(crate) fn ideal_delay(fps: u32, rtt_ms: f64, jitter_ms: f64) -> f64 {
    ideal_delay_at(fps, rtt_ms, jitter_ms, BUSY_CHANGES_PER_S, LossStats::NONE)
}

/// The policy: the ideal delay rounded up, clamped to `0..=MAX_INPUT_DELAY`.
pub(crate) fn input_delay_for(fps: u32, rtt_ms: f64, jitter_ms: f64) -> u32 {
    clamp_frames(ideal_delay(fps, rtt_ms, jitter_ms).ceil())
}

/// Whether a jitter read from a handful of round trips may have picked
/// the wrong delay: the delay differs between half and twice that jitter
/// (what 5 samples' median absolute deviation spans on a jittery link).
/// A steady link's fraction of a millisecond never moves it.
pub(crate) fn jitter_in_doubt(fps: u32, rtt_ms: f64, jitter_ms: f64) -> bool {
    input_delay_for(fps, rtt_ms, jitter_ms / 2.0) != input_delay_for(fps, rtt_ms, jitter_ms * 2.0)
}

/// The policy for a player whose input rate has been measured, on a link
/// with this loss (what the tests hold the tuning to).
#[cfg(test)]
pub(crate) fn input_delay_at(
    fps: u32,
    rtt_ms: f64,
    jitter_ms: f64,
    changes_per_s: f64,
    loss: LossStats,
) -> u32 {
    clamp_frames(ideal_delay_at(fps, rtt_ms, jitter_ms, changes_per_s, loss).ceil())
}

fn clamp_frames(frames: f64) -> u32 {
    if frames.is_nan() {
        return 0;
    }
    frames.clamp(0.0, MAX_INPUT_DELAY as f64) as u32
}

/// Median and jitter of round-trip samples in milliseconds. Jitter is the
/// median absolute deviation from the median: one late outlier (a GC pause,
/// a retransmission) moves neither, and a steady link has zero jitter.
pub(crate) fn rtt_stats(samples: &[f64]) -> Option<(f64, f64)> {
    if samples.is_empty() {
        return None;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    let mut deviations: Vec<f64> = sorted.iter().map(|s| (s - median).abs()).collect();
    deviations.sort_by(f64::total_cmp);
    let jitter = if n % 2 == 1 {
        deviations[n / 2]
    } else {
        (deviations[n / 2 - 1] + deviations[n / 2]) / 2.0
    };
    Some((median, jitter))
}

/// Ping samples kept for retuning (one every [`Retuner::SAMPLE_EVERY`] frames).
const WINDOW: usize = 10;
/// How far (in frames) the ideal delay must pass a boundary before a change:
/// a link sitting right on a boundary must not flip the delay back and forth.
const HYSTERESIS_FRAMES: f64 = 0.25;
/// Consecutive evaluations that must agree on a change.
const AGREEING_EVALUATIONS: u32 = 3;
/// The same for a step down: a whole window of fresh samples. Consecutive
/// windows share all but one sample, so three agreeing evaluations are
/// one unlucky window (its median and deviation vary by several ms on a
/// jittery link); a step down costs the other player rollbacks at once,
/// a step up only a frame of latency.
const AGREEING_EVALUATIONS_DOWN: u32 = WINDOW as u32;
/// A step up passes on [`AGREEING_EVALUATIONS`] only when the ideal delay
/// is at least this far above the current one (the path got slower, or
/// the player busier: followed within 1.5 s); a smaller excursion, what a
/// 10-sample window's noise makes on a jittery link, needs a whole
/// window of fresh samples like a step down.
const QUICK_STEP_UP_FRAMES: f64 = 1.0;
/// Seconds after a change during which no other change happens.
const SETTLE_SECONDS: u32 = 5;
/// Input-change counts kept (one per sample: the last 10 s).
const RATE_WINDOW: usize = 20;
/// Counts needed before the measured rate replaces the busy assumption.
const RATE_MIN_SAMPLES: usize = 6;

/// Moves the delay when the measured RTT, or how often the local player's
/// input changes, moves enough, with hysteresis. Pure: fed samples and
/// frame numbers, it returns decisions.
///
/// The input that matters is this peer's own: its delay decides how late
/// its inputs reach the other peer, and each of its changes that arrives
/// late is a misprediction there. Each peer sets only its own delay (GGRS
/// input delay is per local player and never changes what is simulated),
/// so the two peers' delays may differ, like their ping samples do.
#[derive(Clone, Debug)]
pub(crate) struct Retuner {
    current: u32,
    samples: Vec<f64>,
    /// Local input changes in each sampling interval.
    changes: Vec<u32>,
    /// Proposed delay and how many evaluations in a row proposed it.
    pending: Option<(u32, u32)>,
    last_change_frame: u32,
    /// The game's frames a second.
    fps: u32,
}

impl Retuner {
    /// Frames between ping samples.
    pub(crate) const SAMPLE_EVERY: u32 = 30;

    /// A retuner starting at `current` frames, for a game running `fps`
    /// frames a second.
    pub fn new(current: u32, fps: u32) -> Self {
        Retuner {
            fps,
            current,
            samples: Vec::with_capacity(WINDOW),
            changes: Vec::with_capacity(RATE_WINDOW),
            pending: None,
            last_change_frame: 0,
        }
    }

    #[cfg(test)]
    pub(crate) fn current(&self) -> u32 {
        self.current
    }

    /// The window's median RTT and jitter, once there are samples.
    pub fn measured(&self) -> Option<(f64, f64)> {
        rtt_stats(&self.samples)
    }

    /// The local player's input changes per second over the window, once
    /// there are enough intervals to tell.
    pub(crate) fn changes_per_s(&self) -> Option<f64> {
        if self.changes.len() < RATE_MIN_SAMPLES {
            return None;
        }
        let changes: u32 = self.changes.iter().sum();
        let frames = self.changes.len() as f64 * f64::from(Self::SAMPLE_EVERY);
        Some(f64::from(changes) * f64::from(self.fps) / frames)
    }

    /// Adds a ping sample taken at `frame`, the local input changes since
    /// the previous sample (over [`Retuner::SAMPLE_EVERY`] frames) and the
    /// loss measured on the path from the other peer so far (`None`
    /// before there is a measure: counted as none); returns the new delay
    /// when it should change now.
    ///
    /// The other peer's messages stand for ours: both directions of a
    /// path usually lose alike, and what this peer sends is only counted
    /// where it arrives.
    pub fn sample(
        &mut self,
        frame: u32,
        rtt_ms: f64,
        input_changes: u32,
        loss: Option<LossStats>,
    ) -> Option<u32> {
        if self.changes.len() == RATE_WINDOW {
            self.changes.remove(0);
        }
        self.changes.push(input_changes);
        if !rtt_ms.is_finite() || rtt_ms < 0.0 {
            return None;
        }
        if self.samples.len() == WINDOW {
            self.samples.remove(0);
        }
        self.samples.push(rtt_ms);
        if self.samples.len() < WINDOW / 2 {
            return None;
        }
        let (rtt, jitter) = rtt_stats(&self.samples)?;
        let rate = self.changes_per_s().unwrap_or(BUSY_CHANGES_PER_S);
        let ideal = ideal_delay_at(self.fps, rtt, jitter, rate, loss.unwrap_or(LossStats::NONE));
        let current = self.current as f64;
        // Up when the ideal clearly exceeds the current delay, down when it
        // is clearly below the next lower one; in between, stay.
        let clearly_up = ideal > current + HYSTERESIS_FRAMES;
        let clearly_down = ideal < current - 1.0 - HYSTERESIS_FRAMES;
        let proposed = if clearly_up || clearly_down {
            clamp_frames(ideal.ceil())
        } else {
            self.current
        };
        if proposed == self.current {
            self.pending = None;
            return None;
        }
        let agreeing = match self.pending {
            Some((delay, n)) if delay == proposed => n + 1,
            _ => 1,
        };
        self.pending = Some((proposed, agreeing));
        let settled = frame.saturating_sub(self.last_change_frame) >= SETTLE_SECONDS * self.fps;
        let needed = if proposed < self.current || ideal < current + QUICK_STEP_UP_FRAMES {
            AGREEING_EVALUATIONS_DOWN
        } else {
            AGREEING_EVALUATIONS
        };
        if agreeing >= needed && settled {
            self.current = proposed;
            self.pending = None;
            self.last_change_frame = frame;
            return Some(proposed);
        }
        None
    }
}

#[cfg(test)]
#[path = "delay_tests.rs"]
mod tests;
