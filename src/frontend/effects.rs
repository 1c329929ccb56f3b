//! Rollback-safe presentation events.
//!
//! Every advance reports the events of each frame it simulated, re-runs
//! included. The ledger keeps, per recent frame, the events the latest
//! simulation of that frame emitted, and diffs each report against it:
//!
//! - an event a rollback re-simulated identically is neither new nor gone,
//!   so its sound does not fire twice and its explosion keeps its age;
//! - an event a rollback erased is removed (its effect disappears, a long
//!   sound is stopped);
//! - an event a rollback created fires then.
//!
//! Effects are drawn from the ledger itself with their age measured in
//! simulation frames, so what is on screen always matches the current
//! timeline. Nothing here touches the simulation; it is pure and tested.

use std::collections::BTreeMap;

use crate::session::FrameReport;
use crate::sim::Event;

/// Frames of history kept: longer than any effect lasts, and longer than
/// GGRS can roll back (8), so every re-simulated frame is still known.
pub const HISTORY_FRAMES: u32 = 64;

#[derive(Debug, Default)]
pub struct EventLedger {
    frames: BTreeMap<u32, Vec<Event>>,
}

/// What one report changed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Events seen for the first time: play their sound.
    pub fired: Vec<(u32, Event)>,
    /// Events a rollback erased.
    pub cancelled: Vec<(u32, Event)>,
}

impl EventLedger {
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes one advance's report; returns what appeared and what vanished.
    pub fn apply(&mut self, report: &FrameReport) -> Changes {
        let mut changes = Changes::default();
        let Some((lo, hi)) = report.simulated else {
            return changes;
        };
        for frame in lo..=hi {
            let new: Vec<Event> = report
                .events
                .iter()
                .filter(|(f, _)| *f == frame)
                .map(|(_, e)| *e)
                .collect();
            let old = self.frames.remove(&frame).unwrap_or_default();
            let mut unmatched_old = old.clone();
            for event in &new {
                match unmatched_old.iter().position(|o| o == event) {
                    Some(i) => {
                        unmatched_old.swap_remove(i);
                    }
                    None => changes.fired.push((frame, *event)),
                }
            }
            changes
                .cancelled
                .extend(unmatched_old.into_iter().map(|e| (frame, e)));
            if !new.is_empty() {
                self.frames.insert(frame, new);
            }
        }
        // A rollback may also have rewound past frames it did not reach
        // again yet (never with GGRS, which re-simulates to the present):
        // those are dropped with the rest of the future.
        let future: Vec<u32> = self.frames.range(hi + 1..).map(|(f, _)| *f).collect();
        for frame in future {
            if let Some(events) = self.frames.remove(&frame) {
                changes
                    .cancelled
                    .extend(events.into_iter().map(|e| (frame, e)));
            }
        }
        let oldest = hi.saturating_sub(HISTORY_FRAMES);
        self.frames = self.frames.split_off(&oldest);
        changes
    }

    /// Events of frames after `now - max_age`, with their age in frames
    /// (0 = emitted by the newest step), oldest first.
    pub fn recent(&self, now: u32, max_age: u32) -> impl Iterator<Item = (u32, &Event)> {
        self.frames
            .range(now.saturating_sub(max_age)..=now)
            .flat_map(move |(f, events)| events.iter().map(move |e| (now - f, e)))
    }

    /// The events the latest simulation of `frame` emitted.
    pub fn events_at(&self, frame: u32) -> &[Event] {
        self.frames.get(&frame).map_or(&[], Vec::as_slice)
    }

    pub fn clear(&mut self) {
        self.frames.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Vec2;

    fn report(simulated: (u32, u32), events: &[(u32, Event)]) -> FrameReport {
        FrameReport {
            simulated: Some(simulated),
            events: events.to_vec(),
            ..FrameReport::default()
        }
    }

    fn kill(id: u32) -> Event {
        Event::EnemyKilled {
            id,
            kind: 0,
            player: 0,
            pos: Vec2::default(),
        }
    }

    #[test]
    fn a_resimulated_event_does_not_fire_twice() {
        let mut ledger = EventLedger::new();
        let first = ledger.apply(&report((10, 10), &[(10, kill(1))]));
        assert_eq!(first.fired, vec![(10, kill(1))]);
        // Rollback to 8, re-simulate 9..=11: frame 10 emits the same kill.
        let again = ledger.apply(&report((9, 11), &[(10, kill(1))]));
        assert!(again.fired.is_empty(), "{again:?}");
        assert!(again.cancelled.is_empty(), "{again:?}");
        assert_eq!(ledger.recent(11, 5).count(), 1);
    }

    #[test]
    fn an_erased_event_is_cancelled_and_leaves_the_screen() {
        let mut ledger = EventLedger::new();
        ledger.apply(&report((10, 10), &[(10, kill(1))]));
        // The remote input arrived: the kill happened one frame later, to another enemy.
        let changes = ledger.apply(&report((9, 11), &[(11, kill(2))]));
        assert_eq!(changes.cancelled, vec![(10, kill(1))]);
        assert_eq!(changes.fired, vec![(11, kill(2))]);
        let shown: Vec<_> = ledger.recent(11, 5).collect();
        assert_eq!(shown, vec![(0, &kill(2))]);
    }

    #[test]
    fn identical_events_in_one_frame_are_counted() {
        let mut ledger = EventLedger::new();
        let shot = Event::PlayerShot { player: 0 };
        ledger.apply(&report((5, 5), &[(5, shot), (5, shot)]));
        let changes = ledger.apply(&report((5, 5), &[(5, shot)]));
        assert_eq!(changes.cancelled, vec![(5, shot)]);
        assert!(changes.fired.is_empty());
    }

    #[test]
    fn old_frames_are_forgotten_and_ages_count_frames() {
        let mut ledger = EventLedger::new();
        ledger.apply(&report((1, 1), &[(1, kill(1))]));
        ledger.apply(&report((30, 30), &[(30, kill(2))]));
        let ages: Vec<u32> = ledger.recent(31, 40).map(|(age, _)| age).collect();
        assert_eq!(ages, vec![30, 1]);
        ledger.apply(&report((200, 200), &[]));
        assert_eq!(ledger.recent(200, 500).count(), 0);
    }
}
