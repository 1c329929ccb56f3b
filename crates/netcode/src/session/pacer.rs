//! Real-time frame pacing for online play: 60 frames a second, a little
//! slower while GGRS says this peer runs ahead, and pauses when GGRS
//! recommends waiting, so neither peer drifts ahead of the other.

use web_time::{Duration, Instant};

/// Stretch of the frame period while ahead of the peer (GGRS's examples use
/// the same 10 %): slow enough to let the peer catch up within a second or
/// two, gentle enough not to be seen.
const SLOWDOWN: f64 = 1.1;
/// Longest stretch of late frames caught up at once; beyond it the clock
/// restarts from now instead of bursting.
const MAX_CATCH_UP: Duration = Duration::from_millis(250);

#[derive(Clone, Debug)]
pub struct Pacer {
    next: Instant,
    period: Duration,
}

impl Pacer {
    /// A pacer of `fps` frames a second from `now`.
    pub fn new(now: Instant, fps: u32) -> Self {
        Pacer {
            next: now,
            period: Duration::from_secs(1) / fps.max(1),
        }
    }

    /// Whether a frame is due at `now`; consumes it if so. `frames_ahead`
    /// and `skip_frames` come from the session (0 in local modes).
    pub fn due(&mut self, now: Instant, frames_ahead: i32, skip_frames: u32) -> bool {
        if skip_frames > 0 {
            self.next += self.period * skip_frames;
        }
        if now < self.next {
            return false;
        }
        if now.duration_since(self.next) > MAX_CATCH_UP {
            self.next = now;
        }
        let period = if frames_ahead > 0 {
            self.period.mul_f64(SLOWDOWN)
        } else {
            self.period
        };
        self.next += period;
        true
    }

    /// How far `now` is between the last frame and the next, 0.0..=1.0:
    /// the window draws motion interpolated by this much.
    pub fn alpha(&self, now: Instant) -> f32 {
        let left = self.next.saturating_duration_since(now).as_secs_f32();
        (1.0 - left / self.period.as_secs_f32()).clamp(0.0, 1.0)
    }

    /// The next frame is due at `now` (after a pause: the time paused is
    /// not caught up).
    pub fn restart(&mut self, now: Instant) {
        self.next = now;
    }

    /// When the next frame is due (to sleep until then).
    pub(crate) fn next_due(&self) -> Instant {
        self.next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames_in(pacer: &mut Pacer, start: Instant, secs: u64, ahead: i32) -> u32 {
        let mut n = 0;
        for ms in 0..secs * 1000 {
            if pacer.due(start + Duration::from_millis(ms), ahead, 0) {
                n += 1;
            }
        }
        n
    }

    #[test]
    fn sixty_a_second_and_slower_when_ahead() {
        let start = Instant::now();
        let mut p = Pacer::new(start, 60);
        assert!((59..=61).contains(&frames_in(&mut p, start, 1, 0)));
        let mut p = Pacer::new(start, 60);
        let slow = frames_in(&mut p, start, 10, 2);
        assert!((540..=550).contains(&slow), "{slow}");
    }

    #[test]
    fn alpha_runs_from_zero_to_one_between_frames() {
        let start = Instant::now();
        let mut p = Pacer::new(start, 60);
        assert!(p.due(start, 0, 0));
        assert!(p.alpha(start) < 0.01);
        let half = p.alpha(start + Duration::from_micros(8_333));
        assert!((0.45..=0.55).contains(&half), "{half}");
        assert_eq!(p.alpha(start + Duration::from_millis(40)), 1.0);
    }

    #[test]
    fn skips_and_no_bursts_after_a_stall() {
        let start = Instant::now();
        let mut p = Pacer::new(start, 60);
        assert!(p.due(start, 0, 0));
        // Asked to wait 3 frames: nothing due for 4 periods.
        assert!(!p.due(start + Duration::from_millis(60), 0, 3));
        assert!(p.due(start + Duration::from_millis(70), 0, 0));
        // A 2 s stall yields one frame, then normal pacing, not 120 at once.
        let later = start + Duration::from_secs(2);
        assert!(p.due(later, 0, 0));
        assert!(!p.due(later + Duration::from_millis(1), 0, 0));
    }
}
