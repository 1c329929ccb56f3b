//! The input delay while playing. Under `--input-delay auto` the retuner
//! moves it with the link: GGRS's ping, the loss on our GGRS socket, and
//! how often our input changes (how often the peer mispredicts us).

use crate::Game;

use super::OnlineBackend;
use crate::Frame;
use crate::net::delay::{DelaySetting, Retuner};
use crate::replay::EventKind;
use crate::session::frame_log::FrameLog;

/// The input delay in force and what the retuner has measured.
pub(super) struct DelayTuning<I> {
    /// `--input-delay`: auto retunes, fixed never changes.
    pub(super) setting: DelaySetting,
    pub(super) retuner: Retuner,
    pub(super) input_delay: u32,
    /// GGRS's last ping, for the overlay (whatever the setting).
    pub(super) last_ping: Option<f64>,
    /// The last local input, and how many times it changed since the
    /// retuner's last sample (the auto policy's measure of how often the
    /// peer mispredicts us).
    last_local_input: I,
    local_input_changes: u32,
}

impl<I: Default + PartialEq> DelayTuning<I> {
    /// Starting at the handshake's `input_delay`; `fps`: the game's frames
    /// a second.
    pub(super) fn new(setting: DelaySetting, input_delay: u32, fps: u32) -> Self {
        DelayTuning {
            setting,
            retuner: Retuner::new(input_delay, fps),
            input_delay,
            last_ping: None,
            last_local_input: I::default(),
            local_input_changes: 0,
        }
    }

    /// A new session agreed on `input_delay`: what the retuner measured
    /// was the old path's.
    pub(super) fn restart(&mut self, input_delay: u32, fps: u32) {
        self.input_delay = input_delay;
        self.retuner = Retuner::new(input_delay, fps);
    }

    /// The local input of a frame GGRS advanced.
    pub(super) fn note_input(&mut self, input: I) {
        if input != self.last_local_input {
            self.local_input_changes += 1;
            self.last_local_input = input;
        }
    }
}

impl<G: Game<N>, const N: usize> OnlineBackend<G, N> {
    /// Feeds GGRS's ping to the retuner every so often (auto delay only).
    pub(super) fn retune(&mut self, frame: Frame, log: &mut FrameLog<G::Input, N>) {
        if !frame.is_multiple_of(Retuner::SAMPLE_EVERY) {
            return;
        }
        let remote = self.remote();
        let tuning = &mut self.tuning;
        let changes = std::mem::take(&mut tuning.local_input_changes);
        let Ok(stats) = self.ggrs.session.network_stats(remote) else {
            return;
        };
        let ping = stats.ping as f64;
        tuning.last_ping = Some(ping);
        if tuning.setting != DelaySetting::Auto {
            return;
        }
        let loss = self.ggrs.stats.loss();
        let Some(delay) = tuning.retuner.sample(frame, ping, changes, loss) else {
            return;
        };
        if let Err(e) = self
            .ggrs
            .session
            .set_input_delay(self.local, delay as usize)
        {
            tracing::warn!("could not change the input delay: {e}");
            return;
        }
        let (rtt, jitter) = tuning.retuner.measured().unwrap_or((ping, 0.0));
        let rate = (tuning.retuner.changes_per_s())
            .map_or("not yet measured".to_string(), |r| format!("{r:.1}/s"));
        let loss = loss.map_or("not yet measured".to_string(), |l| {
            format!("{:.1} % in runs of {:.1}", l.rate * 100.0, l.mean_burst)
        });
        let detail = format!(
            "{} -> {delay} frames at frame {frame} (rtt {rtt:.0} ms, jitter {jitter:.0} ms, input changes {rate}, loss {loss})",
            tuning.input_delay
        );
        tracing::info!("input delay {detail}");
        tuning.input_delay = delay;
        self.tally.delay_changes += 1;
        log.event(EventKind::InputDelay, &detail);
    }
}
