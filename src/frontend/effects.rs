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
//!
//! What the effects look like is decided here too ([`shake`], [`hit_mark`],
//! [`ship_alpha`]), so that reduced motion (no shake, no flash, no blink)
//! is tested without a window; `scene` only draws what they say.

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

/// Frames a player's death shakes the screen.
pub const SHAKE_TICKS: u32 = 24;
/// Frames a hit enemy stays marked.
pub const HIT_FLASH_TICKS: u32 = 6;

/// The screen's shake at `now`, in arena pixels (times the layout's
/// scale on screen): strongest at a player's death, gone `SHAKE_TICKS`
/// later. None at all with reduced motion.
pub fn shake(ledger: &EventLedger, now: u32, reduced_motion: bool) -> [f32; 2] {
    if reduced_motion {
        return [0.0, 0.0];
    }
    let strength = ledger
        .recent(now, SHAKE_TICKS)
        .filter(|(_, e)| matches!(e, Event::PlayerKilled { .. }))
        .map(|(age, _)| 1.0 - age as f32 / SHAKE_TICKS as f32)
        .fold(0.0f32, f32::max);
    if strength <= 0.0 {
        return [0.0, 0.0];
    }
    let t = now as f32;
    [
        (t * 2.3).sin() * 4.0 * strength,
        (t * 3.1).cos() * 4.0 * strength,
    ]
}

/// The enemies hit in the last `HIT_FLASH_TICKS` frames, by id.
pub fn hit_enemies(ledger: &EventLedger, now: u32) -> Vec<u32> {
    ledger
        .recent(now, HIT_FLASH_TICKS)
        .filter_map(|(_, e)| match e {
            Event::EnemyHit { id, .. } => Some(*id),
            _ => None,
        })
        .collect()
}

/// How a hit enemy is marked (sizes in arena pixels).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HitMark {
    /// A filled white disc over the enemy: a flash.
    Flash { radius: f32, alpha: f32 },
    /// A thin, half-transparent ring around it: a gentle change.
    Ring {
        radius: f32,
        thickness: f32,
        alpha: f32,
    },
}

/// A hit's mark: a flash, or with reduced motion a thin ring.
pub fn hit_mark(reduced_motion: bool) -> HitMark {
    if reduced_motion {
        HitMark::Ring {
            radius: 11.0,
            thickness: 1.0,
            alpha: 0.5,
        }
    } else {
        HitMark::Flash {
            radius: 9.0,
            alpha: 0.55,
        }
    }
}

/// A ship's opacity at `frame`: an invulnerable one blinks (every 4
/// frames), or with reduced motion stays steadily faded.
pub fn ship_alpha(invulnerable: bool, frame: u32, reduced_motion: bool) -> f32 {
    match (invulnerable, reduced_motion) {
        (false, _) => 1.0,
        (true, true) => 0.6,
        (true, false) if (frame / 4).is_multiple_of(2) => 0.35,
        (true, false) => 1.0,
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
            points: 100,
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

    /// A frame with a player's death and an enemy hit: with reduced motion
    /// nothing shakes, no frame flashes (the hit is a ring) and an
    /// invulnerable ship does not blink; without it, all three happen.
    #[test]
    fn reduced_motion_draws_no_shake_no_flash_and_no_blink() {
        let mut ledger = EventLedger::new();
        let death = Event::PlayerKilled {
            player: 0,
            pos: Vec2::default(),
        };
        let hit = Event::EnemyHit { id: 7, player: 1 };
        ledger.apply(&report((100, 100), &[(100, death), (100, hit)]));
        let after: Vec<u32> = (100..100 + SHAKE_TICKS).collect();
        assert_eq!(hit_enemies(&ledger, 103), vec![7]);
        assert!(hit_enemies(&ledger, 100 + HIT_FLASH_TICKS + 1).is_empty());

        for &now in &after {
            assert_eq!(shake(&ledger, now, true), [0.0, 0.0], "frame {now}");
        }
        assert!(matches!(hit_mark(true), HitMark::Ring { thickness, .. } if thickness <= 1.0));
        let steady: Vec<f32> = after.iter().map(|&f| ship_alpha(true, f, true)).collect();
        assert!(
            steady.iter().all(|&a| a == steady[0] && a < 1.0),
            "{steady:?}"
        );

        let moved = after
            .iter()
            .map(|&now| shake(&ledger, now, false))
            .map(|[x, y]| x.hypot(y))
            .fold(0.0f32, f32::max);
        assert!(moved > 1.0, "no shake without reduced motion: {moved}");
        assert_eq!(shake(&ledger, 100 + SHAKE_TICKS + 1, false), [0.0, 0.0]);
        assert!(matches!(hit_mark(false), HitMark::Flash { .. }));
        let blinking: Vec<f32> = after.iter().map(|&f| ship_alpha(true, f, false)).collect();
        assert!(blinking.contains(&1.0) && blinking.iter().any(|&a| a < 1.0));
        assert_eq!(ship_alpha(false, 101, true), 1.0);
    }
}
