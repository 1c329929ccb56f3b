//! Packet loss and its burstiness on the path from the other peer, read
//! off the input messages GGRS already sends: no packets of our own.
//!
//! Why they work as a sequence: GGRS sends one input message per frame the
//! sender advances, carrying every input the receiver has not acknowledged,
//! so the last frame a message carries goes up by one per message sent. A
//! frame number that never arrives is a lost message; the next message
//! carries its input one frame later, so `k` messages lost in a row make an
//! input up to `k` frames late, which is what the delay policy must hide
//! ([`crate::net::delay`]). Resends (GGRS repeats its pending inputs after
//! 200 ms of silence) and duplicates carry a frame already seen and count
//! once; a message that arrives after later ones fills its gap unless it is
//! more than `REORDER_HORIZON` frames late, when it was as good as lost.
//!
//! Pure: fed the frame numbers as they arrive, it returns figures.

use std::collections::VecDeque;

/// Frames a message may arrive behind a later one and still count as
/// arrived: 16 frames is 267 ms of reordering, far beyond any jitter a
/// playable link has.
const REORDER_HORIZON: u32 = 16;
/// Outcomes kept: the last 10 s of a 60 fps sender.
const WINDOW: usize = 600;
/// Outcomes needed before the figures mean anything (2 s at 60 fps).
const MIN_SETTLED: usize = 120;
/// A jump forward by more than this is not loss but a new sequence (a
/// rejoin's new session, a sender that skipped ahead): start again. GGRS
/// stops a sender within its 8-frame prediction window when nothing comes
/// back, so real loss never leaves a gap this wide.
const RESTART_GAP: u32 = 64;

/// What the meter has seen over its window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LossStats {
    /// Share of messages lost, 0 to 1.
    pub rate: f64,
    /// Mean length of a run of lost messages (1 when every loss is alone;
    /// 1 too when nothing was lost).
    pub mean_burst: f64,
}

impl LossStats {
    /// A lossless link.
    pub const NONE: LossStats = LossStats {
        rate: 0.0,
        mean_burst: 1.0,
    };

    fn of(settled: f64, lost: f64, bursts: f64) -> LossStats {
        LossStats {
            rate: lost / settled,
            mean_burst: if bursts == 0.0 { 1.0 } else { lost / bursts },
        }
    }
}

/// Counts lost messages in the other peer's input stream.
#[derive(Clone, Debug, Default)]
pub(crate) struct LossMeter {
    /// The highest frame heard.
    highest: Option<i32>,
    /// The first frame heard in this sequence: frames before it were
    /// never awaited.
    first: i32,
    /// Bit `i` set: frame `highest - i` was heard (for `i` below the
    /// horizon; older frames are settled).
    heard: u32,
    /// Settled frames, oldest first: `true` for lost.
    settled: VecDeque<bool>,
    lost: usize,
    /// Runs of lost frames that start inside the window.
    bursts: usize,
    /// The same over every sequence since the meter was made.
    total: Totals,
}

#[derive(Clone, Copy, Debug, Default)]
struct Totals {
    settled: u64,
    lost: u64,
    bursts: u64,
}

impl LossMeter {
    /// Records a message whose last input is for `frame`.
    pub fn heard(&mut self, frame: i32) {
        let Some(highest) = self.highest else {
            self.start(frame);
            return;
        };
        if frame <= highest {
            let behind = highest.abs_diff(frame);
            if behind < REORDER_HORIZON {
                self.heard |= 1 << behind;
            } else if behind > RESTART_GAP {
                self.start(frame);
            }
            return;
        }
        let ahead = frame.abs_diff(highest);
        if ahead > RESTART_GAP {
            self.start(frame);
            return;
        }
        for step in 1..=ahead as i32 {
            // The oldest frame still awaited leaves the horizon; frames
            // before the first one heard were never awaited.
            let leaving = highest + step - REORDER_HORIZON as i32;
            if leaving >= self.first {
                self.settle(self.heard & (1 << (REORDER_HORIZON - 1)) == 0);
            }
            self.heard = (self.heard << 1) & ((1 << REORDER_HORIZON) - 1);
        }
        self.highest = Some(frame);
        self.heard |= 1;
    }

    /// Starts a new sequence at `frame`, forgetting the old one.
    fn start(&mut self, frame: i32) {
        *self = LossMeter {
            highest: Some(frame),
            first: frame,
            heard: 1,
            total: self.total,
            ..LossMeter::default()
        };
    }

    fn settle(&mut self, lost: bool) {
        if self.settled.len() == WINDOW
            && let Some(gone) = self.settled.pop_front()
            && gone
        {
            self.lost -= 1;
            // The run it started goes on if the next one is lost too.
            if !self.settled.front().copied().unwrap_or(false) {
                self.bursts -= 1;
            }
        }
        let starts_a_run = lost && !self.settled.back().copied().unwrap_or(false);
        self.lost += usize::from(lost);
        self.bursts += usize::from(starts_a_run);
        self.total.settled += 1;
        self.total.lost += u64::from(lost);
        self.total.bursts += u64::from(starts_a_run);
        self.settled.push_back(lost);
    }

    /// The figures over the last 10 s, once 2 s have settled.
    pub fn stats(&self) -> Option<LossStats> {
        (self.settled.len() >= MIN_SETTLED).then(|| {
            LossStats::of(
                self.settled.len() as f64,
                self.lost as f64,
                self.bursts as f64,
            )
        })
    }

    /// Frames settled and lost over everything counted.
    pub fn counts(&self) -> (u64, u64) {
        (self.total.settled, self.total.lost)
    }

    /// The figures over everything counted (a match's summary), once 2 s
    /// have settled.
    pub fn total(&self) -> Option<LossStats> {
        let t = self.total;
        (t.settled >= MIN_SETTLED as u64)
            .then(|| LossStats::of(t.settled as f64, t.lost as f64, t.bursts as f64))
    }
}

#[cfg(test)]
#[path = "loss_tests.rs"]
mod tests;
