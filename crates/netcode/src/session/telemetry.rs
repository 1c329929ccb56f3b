//! The telemetry of an online match as it is played (`replay::telemetry`
//! is the file): the online backend notes each advance and each second,
//! the frame log mirrors its events, and the whole is written beside the
//! replay when the recording finishes.

use std::collections::VecDeque;

use crate::Frame;
use crate::net::delay::rtt_stats;
use crate::replay::EventKind;
use crate::replay::telemetry::{FrameSample, NetEvent, SecondSample, Telemetry, known_path};

/// Round trips kept for the jitter (one a second).
const JITTER_WINDOW: usize = 10;

/// Collects one match's telemetry.
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    data: Telemetry,
    /// Advances since the last frame that stalled, or waited.
    stalls: u16,
    waits: u16,
    /// The last advance stalled (a new stall is an event).
    stalling: bool,
    /// Totals at the last second's sample: bytes sent, received, input
    /// messages settled, lost.
    last: (u64, u64, u64, u64),
    pings: VecDeque<f64>,
}

/// What the link's counters say at the end of a second.
pub(crate) struct LinkReading {
    pub ping_ms: Option<f64>,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    /// Input messages from the peer settled and lost, since the match began.
    pub loss_counted: (u64, u64),
    pub path: Option<&'static str>,
}

impl Recorder {
    pub(crate) fn new(fps: u32) -> Self {
        Recorder {
            data: Telemetry {
                fps,
                ..Telemetry::default()
            },
            ..Recorder::default()
        }
    }

    /// An advance that ran frames up to `newest` after re-simulating
    /// `rollback`, `ahead` of the peer.
    pub(crate) fn frame(&mut self, newest: Frame, rollback: u32, ahead: i32) {
        self.data.frames.push(FrameSample {
            frame: newest,
            rollback: rollback.min(u32::from(u16::MAX)) as u16,
            ahead: ahead.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
            stalls: std::mem::take(&mut self.stalls),
            waits: std::mem::take(&mut self.waits),
        });
        self.stalling = false;
    }

    /// An advance GGRS refused (the prediction window is full); a first
    /// one after frames ran is a `stall` event at `confirmed`.
    pub(crate) fn stalled(&mut self, confirmed: Frame, ahead: i32) {
        self.stalls = self.stalls.saturating_add(1);
        if !std::mem::replace(&mut self.stalling, true) {
            self.event(confirmed, "stall", &format!("{ahead} frames ahead"));
        }
    }

    /// An advance that waited for the peer.
    pub(crate) fn waited(&mut self) {
        self.waits = self.waits.saturating_add(1);
    }

    /// A second of play ended at `frame`.
    pub(crate) fn second(&mut self, frame: Frame, link: LinkReading) {
        if let Some(ping) = link.ping_ms {
            if self.pings.len() == JITTER_WINDOW {
                self.pings.pop_front();
            }
            self.pings.push_back(ping);
        }
        let pings: Vec<f64> = self.pings.iter().copied().collect();
        let jitter = rtt_stats(&pings).map(|(_, j)| j.round() as u32);
        let (settled, lost) = link.loss_counted;
        let (sent0, received0, settled0, lost0) = self.last;
        let due = settled.saturating_sub(settled0);
        let loss = (due > 0).then(|| (lost.saturating_sub(lost0) * 1000 / due) as u32);
        self.data.seconds.push(SecondSample {
            frame,
            rtt_ms: link.ping_ms.map(|p| p.round() as u32),
            jitter_ms: jitter,
            loss_permille: loss,
            bytes_sent: link.bytes_sent.saturating_sub(sent0),
            bytes_received: link.bytes_received.saturating_sub(received0),
            path: known_path(link.path),
        });
        self.last = (link.bytes_sent, link.bytes_received, settled, lost);
    }

    /// An event (`frame`: frames confirmed, as a replay's events count).
    pub(crate) fn event(&mut self, frame: Frame, kind: &str, detail: &str) {
        self.data.events.push(NetEvent {
            frame,
            kind: kind.to_string(),
            detail: detail.to_string(),
        });
    }

    /// A replay event, mirrored (chat lines are the players' words, not the
    /// network's: left out).
    pub(crate) fn replay_event(&mut self, frame: Frame, kind: &EventKind, detail: &str) {
        if *kind != EventKind::Chat {
            self.event(frame, kind.as_str(), detail);
        }
    }

    pub(crate) fn telemetry(&self) -> &Telemetry {
        &self.data
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_count_their_own_bytes_and_loss_and_stalls_are_events_once() {
        let mut r = Recorder::new(60);
        let reading = |sent, counted| LinkReading {
            ping_ms: Some(100.0),
            bytes_sent: sent,
            bytes_received: sent,
            loss_counted: counted,
            path: Some("relay"),
        };
        r.second(60, reading(1000, (60, 0)));
        r.second(120, reading(2500, (120, 3)));
        r.stalled(100, 8);
        r.stalled(100, 8);
        r.frame(121, 4, 7);
        r.stalled(101, 8);
        let t = r.telemetry();
        assert_eq!(t.seconds[1].bytes_sent, 1500);
        assert_eq!(t.seconds[1].loss_permille, Some(50));
        assert_eq!(t.seconds[1].path, Some("relay"));
        assert_eq!(t.frames[0].stalls, 2);
        assert_eq!(t.events.iter().filter(|e| e.kind == "stall").count(), 2);
    }
}
