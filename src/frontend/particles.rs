//! Particles for kills, deaths, hits on shields and pickups, and score
//! pop-ups for kills. Nothing is kept between frames: each frame computes
//! them from the recent events in the `EventLedger` and their age, with
//! each particle's direction from a hash of the event's frame and place.
//! So a rollback that erased an event erases its particles and pop-up
//! (the ledger no longer has it), and a re-simulated one does not start
//! over. Reduced motion draws a quarter of the particles and no drift of
//! the pop-ups.

use macroquad::prelude::*;

use super::assets::{Align, BitmapFont};
use super::effects::EventLedger;
use super::layout::Layout;
use crate::sim::{EnemyKind, Event, PickupKind, Vec2 as SimVec2};

/// Frames a particle lives.
pub const PARTICLE_TICKS: u32 = 36;
/// Frames a score pop-up rises and fades.
pub const POPUP_TICKS: u32 = 50;

/// One particle, in arena units.
#[derive(Clone, Debug, PartialEq)]
pub struct Particle {
    pub pos: Vec2,
    pub color: Color,
    /// Radius in arena units.
    pub size: f32,
}

/// A score pop-up, in arena units.
#[derive(Clone, Debug, PartialEq)]
pub struct Popup {
    pub pos: Vec2,
    pub text: String,
    pub alpha: f32,
}

fn arena(p: SimVec2) -> Vec2 {
    vec2(p.x.to_num::<f32>(), p.y.to_num::<f32>())
}

/// How many particles, how fast (units a frame) and how big a burst is.
fn burst(event: &Event) -> Option<(SimVec2, usize, f32, f32, Color)> {
    Some(match event {
        Event::EnemyKilled { pos, kind, .. } => {
            let kind = EnemyKind::from_u8(*kind);
            let boss = matches!(kind, EnemyKind::Warden | EnemyKind::Hydra);
            let n = if boss { 40 } else { 12 };
            (*pos, n, 1.6, 2.0, super::telegraphs::kind_colour(kind))
        }
        Event::BossDefeated { pos, .. } => (*pos, 60, 2.6, 3.0, Color::new(1.0, 0.8, 0.3, 1.0)),
        Event::PlayerKilled { pos, player } | Event::PlayerDowned { pos, player } => {
            let color = super::look::player_color(usize::from(*player));
            (*pos, 24, 2.0, 2.5, color)
        }
        Event::PickupTaken { pos, kind, .. } => {
            let (color, _) = super::telegraphs::pickup_look(PickupKind::from_u8(*kind));
            (*pos, 10, 1.0, 1.5, color)
        }
        _ => return None,
    })
}

/// A well-mixed 32-bit hash (splitmix's finaliser), for directions.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The particles alive at frame `now`.
pub fn particles(ledger: &EventLedger, now: u32, reduced_motion: bool) -> Vec<Particle> {
    let mut out = Vec::new();
    for (age, event) in ledger.recent(now, PARTICLE_TICKS - 1) {
        let Some((pos, n, speed, size, color)) = burst(event) else {
            continue;
        };
        let n = if reduced_motion { n.div_ceil(4) } else { n };
        let origin = arena(pos);
        let seed = u64::from(now - age) << 32
            ^ u64::from(origin.x.to_bits())
            ^ u64::from(origin.y.to_bits()).rotate_left(16);
        let life = 1.0 - age as f32 / PARTICLE_TICKS as f32;
        for i in 0..n {
            let h = mix(seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
            let angle = (h & 0xffff) as f32 / 65536.0 * std::f32::consts::TAU;
            let fast = 0.4 + ((h >> 16) & 0xff) as f32 / 255.0 * 0.6;
            // Slowing down as it goes: the distance grows like sqrt(age).
            let travelled = speed * fast * (age as f32 * 6.0).sqrt() * 2.0;
            let dir = vec2(angle.cos(), angle.sin());
            out.push(Particle {
                pos: origin + dir * travelled,
                color: Color { a: life, ..color },
                size: size * (0.5 + 0.5 * life),
            });
        }
    }
    out
}

/// The score pop-ups alive at frame `now`: each kill's points, rising.
pub fn popups(ledger: &EventLedger, now: u32, reduced_motion: bool) -> Vec<Popup> {
    ledger
        .recent(now, POPUP_TICKS - 1)
        .filter_map(|(age, event)| match event {
            Event::EnemyKilled { pos, points, .. } if *points > 0 => {
                let rise = if reduced_motion {
                    0.0
                } else {
                    age as f32 * 0.5
                };
                Some(Popup {
                    pos: arena(*pos) - vec2(0.0, 10.0 + rise),
                    text: format!("+{points}"),
                    alpha: 1.0 - age as f32 / POPUP_TICKS as f32,
                })
            }
            Event::WaveCleared { bonus, .. } if *bonus > 0 => Some(Popup {
                pos: vec2(320.0, 140.0),
                text: format!("WAVE BONUS +{bonus}"),
                alpha: 1.0 - age as f32 / POPUP_TICKS as f32,
            }),
            _ => None,
        })
        .collect()
}

/// Draws both over the arena.
pub fn draw(font: &BitmapFont, ledger: &EventLedger, now: u32, layout: &Layout) {
    let reduced = super::look::get().reduced_motion;
    for p in particles(ledger, now, reduced) {
        let at = layout.to_screen(p.pos);
        draw_circle(at.x, at.y, (p.size * layout.scale).max(1.0), p.color);
    }
    for p in popups(ledger, now, reduced) {
        let at = layout.to_screen(p.pos);
        let color = Color::new(1.0, 0.95, 0.6, p.alpha);
        font.draw_shadowed(&p.text, at.x, at.y, 2.0, color, Align::Center);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::FrameReport;
    use crate::sim::Fx;

    fn at(x: i32, y: i32) -> SimVec2 {
        SimVec2 {
            x: Fx::from_num(x),
            y: Fx::from_num(y),
        }
    }

    fn kill() -> Event {
        Event::EnemyKilled {
            id: 7,
            kind: EnemyKind::Shooter as u8,
            player: 0,
            pos: at(100, 100),
            points: 300,
        }
    }

    /// What simulating `frame` alone reported: `events`.
    fn report(frame: u32, events: Vec<Event>) -> FrameReport {
        FrameReport {
            simulated: Some((frame, frame)),
            events: events.into_iter().map(|e| (frame, e)).collect(),
            ..FrameReport::default()
        }
    }

    /// A ledger that saw `events` simulated at `frame`.
    fn ledger_with(frame: u32, events: Vec<Event>) -> EventLedger {
        let mut ledger = EventLedger::new();
        ledger.apply(&report(frame, events));
        ledger
    }

    #[test]
    fn a_kill_bursts_and_pops_up_its_points_then_both_fade_away() {
        let ledger = ledger_with(10, vec![kill()]);
        let now = particles(&ledger, 12, false);
        assert_eq!(now.len(), 12);
        assert!(
            now.iter()
                .all(|p| p.pos.distance(vec2(100.0, 100.0)) < 40.0)
        );
        let pops = popups(&ledger, 12, false);
        assert_eq!(pops.len(), 1);
        assert_eq!(pops[0].text, "+300");
        assert!(particles(&ledger, 10 + PARTICLE_TICKS, false).is_empty());
        assert!(popups(&ledger, 10 + POPUP_TICKS, false).is_empty());
        // The same frame drawn twice gives the same particles.
        assert_eq!(particles(&ledger, 12, false), now);
    }

    #[test]
    fn a_rollback_that_erases_the_kill_erases_its_particles() {
        let mut ledger = ledger_with(10, vec![kill()]);
        assert!(!particles(&ledger, 11, false).is_empty());
        // Frame 10 re-simulated without the kill.
        ledger.apply(&report(10, vec![]));
        assert!(particles(&ledger, 11, false).is_empty());
        assert!(popups(&ledger, 11, false).is_empty());
    }

    #[test]
    fn reduced_motion_draws_fewer_particles_and_still_pop_ups() {
        let ledger = ledger_with(10, vec![kill()]);
        assert_eq!(particles(&ledger, 11, true).len(), 3);
        let still = popups(&ledger, 30, true);
        assert_eq!(still[0].pos, vec2(100.0, 90.0), "no rise");
    }
}
