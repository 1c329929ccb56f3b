//! The latency a player feels, in the terms players use: how long after a
//! press it takes effect on their own screen (the input delay), how much
//! of the network's one-way delay rollback hides instead (the other
//! player's moves appear that late and are corrected in place), and how
//! often those corrections happen. The F1 overlay and the `--json`
//! summary report the same figures (docs/architecture/input-delay.md: the
//! trade-off between them).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::summary::rounded;

/// What a player feels of the network.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeltLatency {
    /// Frames each local press waits before it takes effect (the match's
    /// mean when reported after it).
    pub input_delay_frames: f64,
    /// The same in milliseconds.
    pub input_delay_ms: f64,
    /// The one-way network delay (half the round trip) the input delay
    /// does not cover: the other player's presses arrive that much after
    /// the frame they are for, and rollback corrects the prediction.
    pub hidden_by_rollback_ms: f64,
    /// Frames simulated again per second: the corrections a player may
    /// see (0 when every prediction held).
    pub rollback_frames_per_s: f64,
}

impl FeltLatency {
    /// From the input delay in frames at `fps`, the round trip (`None`:
    /// not measured yet) and the re-simulated frames per second.
    pub fn new(
        fps: u32,
        input_delay_frames: f64,
        rtt_ms: Option<f64>,
        rollback_frames_per_s: f64,
    ) -> FeltLatency {
        let input_delay_ms = input_delay_frames * 1000.0 / f64::from(fps.max(1));
        let one_way = rtt_ms.map_or(0.0, |rtt| rtt.max(0.0) / 2.0);
        FeltLatency {
            input_delay_frames: rounded(input_delay_frames, 3),
            input_delay_ms: rounded(input_delay_ms, 1),
            hidden_by_rollback_ms: rounded((one_way - input_delay_ms).max(0.0), 1),
            rollback_frames_per_s: rounded(rollback_frames_per_s.max(0.0), 1),
        }
    }
}

/// `delay 2f (33 ms)  rollback hides 17 ms  6.0 rollback frames/s`
impl fmt::Display for FeltLatency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "delay {:.0}f ({:.0} ms)  rollback hides {:.0} ms  {:.1} rollback frames/s",
            self.input_delay_frames,
            self.input_delay_ms,
            self.hidden_by_rollback_ms,
            self.rollback_frames_per_s
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delay_covers_part_of_the_one_way_delay_and_rollback_hides_the_rest() {
        // 100 ms round trip: 50 ms one way; 2 frames at 60 Hz cover 33.3.
        let felt = FeltLatency::new(60, 2.0, Some(100.0), 12.0);
        assert_eq!(felt.input_delay_ms, 33.3);
        assert_eq!(felt.hidden_by_rollback_ms, 16.7);
        assert_eq!(felt.rollback_frames_per_s, 12.0);
        assert_eq!(
            felt.to_string(),
            "delay 2f (33 ms)  rollback hides 17 ms  12.0 rollback frames/s"
        );
    }

    #[test]
    fn a_delay_longer_than_the_one_way_delay_leaves_rollback_nothing_to_hide() {
        let felt = FeltLatency::new(60, 4.0, Some(40.0), 0.0);
        assert_eq!(felt.hidden_by_rollback_ms, 0.0);
        // No round trip measured yet: nothing hidden either.
        assert_eq!(
            FeltLatency::new(60, 0.0, None, 0.0).hidden_by_rollback_ms,
            0.0
        );
    }
}
