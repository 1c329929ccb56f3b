//! What an online match counts as it goes, for its summary: stalls,
//! skips, rollbacks, input-delay changes, desyncs, reconnects and rejoins.
//! Written where each happens, read once at the end.

use crate::session::summary::rounded;
use crate::session::{MAX_PREDICTION, MatchSummary};

#[derive(Debug, Default)]
pub(super) struct Tally {
    /// Frames GGRS refused to advance (the prediction window was full).
    pub stalled_frames: u64,
    /// Frames skipped on GGRS's wait recommendations.
    pub skipped_frames: u64,
    /// Frames by the rollback (re-simulated frames) that preceded them.
    pub rollback_histogram: [u64; MAX_PREDICTION + 1],
    /// Sum over this peer's new frames of the input delay in force.
    pub delay_frame_sum: u64,
    pub delay_changes: u32,
    pub desyncs: u32,
    /// Reconnects over a fresh connection this match went through.
    pub reconnects: u32,
    /// Rejoins this peer kept the match through, and the catch-up bytes it
    /// sent (or, rejoining, received).
    pub rejoins: u32,
    pub catch_up_bytes: u64,
}

impl Tally {
    /// A frame advanced `new_frames` after re-simulating `resimulated`,
    /// with `input_delay` in force.
    pub fn frame(&mut self, new_frames: u32, resimulated: u32, input_delay: u32) {
        let bucket = (resimulated as usize).min(MAX_PREDICTION);
        self.rollback_histogram[bucket] += 1;
        self.delay_frame_sum += u64::from(input_delay) * u64::from(new_frames);
    }

    pub fn fill(&self, summary: &mut MatchSummary) {
        summary.desyncs = self.desyncs;
        summary.stalled_frames = Some(self.stalled_frames);
        summary.skipped_frames = Some(self.skipped_frames);
        summary.rollback_histogram = Some(self.rollback_histogram.to_vec());
        let frames: u64 = self.rollback_histogram.iter().sum();
        summary.mean_input_delay =
            (frames > 0).then(|| rounded(self.delay_frame_sum as f64 / frames as f64, 3));
        summary.delay_changes = Some(self.delay_changes);
        summary.rejoins = Some(self.rejoins);
        summary.reconnects = Some(self.reconnects);
        summary.catch_up_bytes = Some(self.catch_up_bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mean_input_delay_is_weighted_by_new_frames_and_rollbacks_are_bucketed() {
        let mut tally = Tally::default();
        tally.frame(1, 0, 2);
        tally.frame(1, 3, 4);
        tally.frame(2, 99, 4);
        let mut summary = MatchSummary::default();
        tally.fill(&mut summary);
        // Three frames reported, the last one of 2 new frames: (2 + 4 + 8) / 3.
        assert_eq!(summary.mean_input_delay, Some(4.667));
        let histogram = summary.rollback_histogram.unwrap();
        assert_eq!(
            (histogram[0], histogram[3], histogram[MAX_PREDICTION]),
            (1, 1, 1)
        );
    }
}
