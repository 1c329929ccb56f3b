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
mod tests {
    use super::*;

    /// Feeds frames `0..n` except those `lost(f)` drops, in order.
    fn feed(meter: &mut LossMeter, frames: std::ops::Range<i32>, lost: impl Fn(i32) -> bool) {
        for f in frames.filter(|&f| !lost(f)) {
            meter.heard(f);
        }
    }

    fn stats(meter: &LossMeter) -> LossStats {
        meter.stats().expect("enough frames settled")
    }

    #[test]
    fn a_clean_stream_has_no_loss_and_needs_two_seconds_to_say_so() {
        let mut m = LossMeter::default();
        feed(&mut m, 0..(MIN_SETTLED as i32), |_| false);
        // The newest frames are still awaited: not enough settled yet.
        assert_eq!(m.stats(), None);
        feed(&mut m, (MIN_SETTLED as i32)..1000, |_| false);
        assert_eq!(stats(&m), LossStats::NONE);
    }

    #[test]
    fn single_losses_and_bursts_are_told_apart() {
        // One in 20 lost alone: 5 %, bursts of 1.
        let mut m = LossMeter::default();
        feed(&mut m, 0..1200, |f| f % 20 == 7);
        assert_eq!(stats(&m).rate, 0.05);
        assert_eq!(stats(&m).mean_burst, 1.0);
        // Three in a row out of every 60: 5 % again, in bursts of 3.
        let mut m = LossMeter::default();
        feed(&mut m, 0..1200, |f| f % 60 < 3);
        assert_eq!(stats(&m).rate, 0.05);
        assert_eq!(stats(&m).mean_burst, 3.0);
    }

    #[test]
    fn reordering_and_duplicates_are_not_loss_but_very_late_is() {
        let mut m = LossMeter::default();
        // Pairs swapped (jitter above the frame spacing), every message
        // twice (a duplicating path, GGRS's resends).
        for pair in (0..1000).step_by(2) {
            for f in [pair + 1, pair, pair + 1] {
                m.heard(f);
            }
        }
        assert_eq!(stats(&m), LossStats::NONE);
        // A message REORDER_HORIZON frames behind a later one came too late
        // to matter: lost, once.
        let mut m = LossMeter::default();
        feed(&mut m, 0..320, |f| f == 300);
        m.heard(300);
        feed(&mut m, 320..800, |_| false);
        assert_eq!(stats(&m).rate, 1.0 / 600.0);
    }

    #[test]
    fn the_window_forgets_old_loss_and_a_new_sequence_starts_again() {
        let mut m = LossMeter::default();
        // The highest frame and the 15 before it are still awaited: up to
        // 615 settles 0..600.
        feed(&mut m, 0..616, |f| f % 10 == 3);
        assert_eq!(stats(&m).rate, 0.1);
        // Ten clean seconds later the loss is gone from the window.
        feed(&mut m, 616..1316, |_| false);
        assert_eq!(stats(&m), LossStats::NONE);
        // A rejoin's session counts from frame 0 again: a new sequence,
        // not 1,300 frames of loss or a sender stuck in the past.
        feed(&mut m, 0..100, |f| f % 4 == 1);
        assert_eq!(m.stats(), None);
        feed(&mut m, 100..416, |f| f % 4 == 1);
        assert_eq!(stats(&m).rate, 0.25);
        // The match's total keeps all three stretches: 60 + 2 (frames 603
        // and 613 settled in the clean stretch) + 100 lost of 600 + 700 +
        // 400 settled.
        assert_eq!(m.total().map(|t| t.rate), Some(162.0 / 1700.0));
    }

    #[test]
    fn a_burst_cut_by_the_window_edge_still_counts_once() {
        // A burst of 6 then clean frames until the burst straddles the
        // window's start: the part still inside is one burst.
        let mut m = LossMeter::default();
        feed(&mut m, 0..30, |_| false);
        feed(&mut m, 30..700, |f| (100..106).contains(&f));
        let s = stats(&m);
        assert_eq!(s.rate, 6.0 / 600.0);
        assert_eq!(s.mean_burst, 6.0);
        // Move the window to frames 103..=702: 3 lost frames, one burst.
        feed(&mut m, 700..719, |_| false);
        assert_eq!(stats(&m).rate, 3.0 / 600.0);
        assert_eq!(stats(&m).mean_burst, 3.0);
    }

    /// Two GGRS sessions over the game's socket, one direction through a
    /// simulated link losing 10 % of its packets: the receiving socket's
    /// meter reads that loss off GGRS's own input messages (the frame
    /// numbers `socket::wire` decodes), and the clean direction none.
    #[test]
    fn a_real_ggrs_stream_through_a_lossy_link_is_measured() {
        use crate::net::link_sim::LinkConfig;
        use crate::net::socket::{GgrsSocket, memory_pair};
        use ggrs::{GgrsRequest, PlayerType, SessionBuilder, SessionState};

        struct Config;
        impl ggrs::Config for Config {
            type Input = u8;
            type InputPredictor = ggrs::PredictRepeatLast;
            type State = u32;
            type Address = u8;
        }
        let (a, b) = memory_pair();
        let lossy = LinkConfig {
            loss_pct: 10.0,
            ..LinkConfig::default()
        };
        let a = GgrsSocket::with_link(a, lossy, 7);
        let b = GgrsSocket::new(b);
        let (a_stats, b_stats) = (a.stats_handle(), b.stats_handle());
        let session = |me: usize, socket| {
            SessionBuilder::<Config>::new()
                .add_player(PlayerType::Local, me)
                .and_then(|s| s.add_player(PlayerType::Remote(1 - me as u8), 1 - me))
                .and_then(|s| s.start_p2p_session(socket))
                .expect("a session")
        };
        let mut sessions = [session(0, a), session(1, b)];
        let mut frames = [0u32; 2];
        let start = web_time::Instant::now();
        while frames.iter().any(|&f| f < 1500) {
            assert!(start.elapsed().as_secs() < 60, "stuck at {frames:?}");
            for (i, s) in sessions.iter_mut().enumerate() {
                s.poll_remote_clients();
                if s.current_state() != SessionState::Running || frames[i] >= 1500 {
                    continue;
                }
                s.add_local_input(i, (frames[i] / 7 % 3) as u8).unwrap();
                let Ok(requests) = s.advance_frame() else {
                    continue;
                };
                for request in requests {
                    if let GgrsRequest::SaveGameState { cell, frame } = request {
                        cell.save(frame, Some(0), None);
                    }
                }
                frames[i] += 1;
            }
        }
        // b hears a through the lossy link; a hears b cleanly.
        let heard_by_b = b_stats.loss().expect("b counted 10 s of frames");
        assert!(
            (0.06..0.14).contains(&heard_by_b.rate),
            "b measured {heard_by_b:?} of 10 %"
        );
        assert_eq!(a_stats.loss(), Some(LossStats::NONE));
    }

    proptest::proptest! {
        /// Against a plain count: whatever is lost and however the rest
        /// is reordered within the horizon, the meter counts exactly the
        /// settled frames that never arrived, and their runs.
        #[test]
        fn counts_what_a_plain_tally_counts(
            lost in proptest::collection::vec(proptest::bool::weighted(0.15), 200..700),
            shuffle in proptest::collection::vec(0usize..8, 700),
        ) {
            let n = lost.len();
            // Arrival order: each frame delayed by a few slots, so frames
            // overtake one another by less than the horizon.
            let mut arrivals: Vec<(usize, i32)> = (0..n)
                .filter(|&f| f == 0 || !lost[f])
                .map(|f| (f + shuffle[f], f as i32))
                .collect();
            arrivals.sort();
            let mut m = LossMeter::default();
            for &(_, f) in &arrivals {
                m.heard(f);
            }
            // Frames settled: up to REORDER_HORIZON behind the highest heard.
            let highest = arrivals.iter().map(|a| a.1).max().unwrap() as usize;
            let settled = (highest + 1).saturating_sub(REORDER_HORIZON as usize);
            let first = arrivals[0].1 as usize;
            let outcomes: Vec<bool> = (first..settled).map(|f| lost[f] && f != 0).collect();
            let window = &outcomes[outcomes.len().saturating_sub(WINDOW)..];
            let want_lost = window.iter().filter(|&&l| l).count();
            let want_bursts = window
                .iter()
                .enumerate()
                .filter(|&(i, &l)| l && (i == 0 || !window[i - 1]))
                .count();
            proptest::prop_assert_eq!(m.lost, want_lost);
            proptest::prop_assert_eq!(m.bursts, want_bursts);
            proptest::prop_assert_eq!(m.settled.len(), window.len());
        }
    }
}
