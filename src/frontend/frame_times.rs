//! Milliseconds a window spent per frame on one job (drawing, simulating),
//! kept for the match summary's figures.

use web_time::Duration;

/// One sample per frame, in milliseconds.
#[derive(Clone, Debug, Default)]
pub struct FrameTimes {
    samples: Vec<f32>,
}

/// A [`FrameTimes`]' figures, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Figures {
    pub mean: f64,
    pub p50: f64,
    pub p99: f64,
}

impl FrameTimes {
    pub fn add(&mut self, d: Duration) {
        // A 10-minute match at 60 Hz is 36k samples: fine to keep.
        self.samples.push(d.as_secs_f32() * 1000.0);
    }

    /// Mean, median and 99th percentile, when anything was measured.
    pub fn figures(&self) -> Option<Figures> {
        if self.samples.is_empty() {
            return None;
        }
        let mut sorted = self.samples.clone();
        sorted.sort_by(f32::total_cmp);
        let mean = sorted.iter().map(|&s| f64::from(s)).sum::<f64>() / sorted.len() as f64;
        let at = |percent: usize| {
            f64::from(sorted[(sorted.len() * percent / 100).min(sorted.len() - 1)])
        };
        Some(Figures {
            mean,
            p50: at(50),
            p99: at(99),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_figures_are_the_samples_mean_median_and_99th_percentile() {
        let mut times = FrameTimes::default();
        assert_eq!(times.figures(), None);
        // 1..=100 ms: mean 50.5, the 50th sample (index 50) is 51.
        for ms in (1..=100).rev() {
            times.add(Duration::from_millis(ms));
        }
        let f = times.figures().unwrap();
        assert!((f.mean - 50.5).abs() < 1e-3, "{f:?}");
        assert!((f.p50 - 51.0).abs() < 1e-3, "{f:?}");
        assert!((f.p99 - 100.0).abs() < 1e-3, "{f:?}");
    }
}
