//! How long the match took to begin, for the summary's connect breakdown:
//! the connector's steps, then GGRS's first synchronisation, then the
//! first frame.

use web_time::Instant;

use crate::net::connect::ConnectTimes;
use crate::session::summary::rounded;
use crate::session::{ConnectBreakdown, MatchSummary};

/// When each step of connecting ended, up to the first frame.
pub(super) struct ConnectTiming {
    times: ConnectTimes,
    synced_at: Option<Instant>,
    first_frame_at: Option<Instant>,
}

impl ConnectTiming {
    pub(super) fn new(times: ConnectTimes) -> Self {
        ConnectTiming {
            times,
            synced_at: None,
            first_frame_at: None,
        }
    }

    /// GGRS synchronised with the peer (only the first time counts: a
    /// rejoin's session synchronises again).
    pub(super) fn synced(&mut self) {
        self.synced_at.get_or_insert_with(Instant::now);
    }

    /// A frame advanced (only the first counts). The first says how long
    /// connecting took, step by step: the one line a page or a log shows
    /// of it when no summary is printed (a match started from the menu).
    pub(super) fn advanced(&mut self) {
        if self.first_frame_at.is_none() {
            let now = Instant::now();
            self.first_frame_at = Some(now);
            let breakdown = ConnectBreakdown::of(&self.times, self.synced_at, now);
            let ms = now.duration_since(self.times.started).as_millis();
            tracing::info!("connected in {ms} ms: {breakdown}");
        }
    }

    /// The first frame has advanced: the match is under way.
    pub(super) fn begun(&self) -> bool {
        self.first_frame_at.is_some()
    }

    /// Milliseconds from the start of connecting to the first frame, once
    /// there was one.
    pub(super) fn connect_ms(&self) -> Option<u64> {
        self.first_frame_at
            .map(|t| t.duration_since(self.times.started).as_millis() as u64)
    }

    /// How long connecting took, and its steps.
    pub(super) fn fill(&self, summary: &mut MatchSummary) {
        summary.connect_ms = self.connect_ms();
        summary.connect_breakdown_ms = self
            .first_frame_at
            .map(|t| ConnectBreakdown::of(&self.times, self.synced_at, t));
    }

    /// Seconds since the first frame.
    pub(super) fn elapsed_s(&self) -> Option<f64> {
        self.first_frame_at
            .map(|t| rounded(t.elapsed().as_secs_f64(), 3))
    }
}
