//! What the simulation announces, drawn from the world alone (DESIGN.md,
//! decision 4): spawn markers, wind-up lines, pickups on the floor, downed
//! ships with their revive progress, shields, bomb blasts and the boss's
//! health bar. Nothing here decides a rule; a rollback redraws it right.

use macroquad::prelude::*;

use super::assets::{Align, Sprites};
use super::effects::EventLedger;
use super::layout::Layout;
use crate::sim::{
    EnemyKind, Event, Fx, PICKUP_FRAMES, PickupKind, REVIVE_FRAMES, STATE_WINDUP, Vec2 as SimVec2,
    World,
};

fn f(v: Fx) -> f32 {
    v.to_num::<f32>()
}

fn v(p: SimVec2) -> Vec2 {
    vec2(f(p.x), f(p.y))
}

/// Frames a bomb's blast ring is drawn.
const BLAST_TICKS: u32 = 24;

/// A kind's colour for markers and wind-ups.
pub fn kind_colour(kind: EnemyKind) -> Color {
    match kind {
        EnemyKind::Wanderer => Color::new(0.6, 0.8, 1.0, 1.0),
        EnemyKind::Shooter => Color::new(1.0, 0.8, 0.3, 1.0),
        EnemyKind::Charger => Color::new(1.0, 0.35, 0.3, 1.0),
        EnemyKind::Sniper => Color::new(0.4, 0.9, 1.0, 1.0),
        EnemyKind::Splitter | EnemyKind::Splitling => Color::new(0.5, 1.0, 0.5, 1.0),
        EnemyKind::Spinner => Color::new(1.0, 0.6, 1.0, 1.0),
        EnemyKind::Warden | EnemyKind::Hydra => Color::new(1.0, 0.5, 0.2, 1.0),
    }
}

/// A pickup's colour and its one-letter label.
pub fn pickup_look(kind: PickupKind) -> (Color, &'static str) {
    match kind {
        PickupKind::Spread => (Color::new(1.0, 0.85, 0.2, 1.0), "S"),
        PickupKind::Rapid => (Color::new(1.0, 0.45, 0.2, 1.0), "R"),
        PickupKind::Pierce => (Color::new(0.5, 0.8, 1.0, 1.0), "P"),
        PickupKind::Shield => (Color::new(0.4, 1.0, 0.9, 1.0), "O"),
        PickupKind::Bomb => (Color::new(1.0, 0.3, 0.5, 1.0), "B"),
        PickupKind::Life => (Color::new(0.4, 1.0, 0.4, 1.0), "+"),
    }
}

/// Under the enemies: markers, wind-up lines, pickups.
pub fn draw_under(sprites: &Sprites, world: &World, layout: &Layout) {
    let s = layout.scale;
    for m in world.markers() {
        let at = layout.to_screen(v(m.pos));
        let left = f32::from(m.timer) / f32::from(crate::sim::MARKER_FRAMES);
        let mut c = kind_colour(m.kind());
        c.a = 0.4 + 0.6 * (1.0 - left);
        let r = (m.kind().radius().to_num::<f32>() + 14.0 * left) * s;
        draw_circle_lines(at.x, at.y, r, 2.0, c);
        draw_line(at.x - r, at.y, at.x + r, at.y, 1.0, c);
        draw_line(at.x, at.y - r, at.x, at.y + r, 1.0, c);
    }
    for e in world.enemies() {
        if e.state != STATE_WINDUP {
            continue;
        }
        let kind = e.kind();
        let (from, to) = (layout.to_screen(v(e.pos)), layout.to_screen(v(e.aim)));
        let mut c = kind_colour(kind);
        // Brighter as the strike nears (timers count down to it).
        c.a = (1.0 - f32::from(e.timer.min(60)) / 60.0).max(0.25);
        match kind {
            EnemyKind::Spinner => {
                let r = (12.0 + 3.0 * f32::from(e.timer)) * s;
                draw_circle_lines(from.x, from.y, r, 2.0, c);
            }
            _ => {
                let width = if kind == EnemyKind::Sniper { 1.5 } else { 3.0 };
                draw_line(from.x, from.y, to.x, to.y, width, c);
                draw_circle_lines(to.x, to.y, 8.0 * s, 1.5, c);
            }
        }
    }
    for p in world.pickups() {
        let (colour, label) = pickup_look(p.kind());
        // Blinks in its last two seconds.
        if p.ttl < PICKUP_FRAMES / 4 && (p.ttl / 8) % 2 == 0 {
            continue;
        }
        let at = layout.to_screen(v(p.pos));
        let r = 7.0 * s;
        draw_rectangle(
            at.x - r,
            at.y - r,
            2.0 * r,
            2.0 * r,
            Color { a: 0.35, ..colour },
        );
        draw_rectangle_lines(at.x - r, at.y - r, 2.0 * r, 2.0 * r, 2.0, colour);
        sprites.font.draw(
            label,
            at.x,
            at.y - 5.0 * s * 0.5,
            s * 0.5,
            WHITE,
            Align::Center,
        );
    }
}

/// Over the ships: shields, downed ships and their revive progress, bomb
/// blasts, the boss bar.
pub fn draw_over(sprites: &Sprites, world: &World, ledger: &EventLedger, layout: &Layout) {
    let s = layout.scale;
    for (i, p) in world.players.iter().enumerate() {
        let at = layout.to_screen(v(p.pos));
        if p.alive == 1 && p.shield == 1 {
            draw_circle_lines(at.x, at.y, 11.0 * s, 2.0, Color::new(0.4, 1.0, 0.9, 0.8));
        }
        if p.is_downed() {
            let c = super::look::player_color(i);
            draw_circle_lines(at.x, at.y, 18.0 * s, 1.5, Color { a: 0.5, ..c });
            let done = f32::from(p.revive_progress) / f32::from(REVIVE_FRAMES);
            draw_arc(at.x, at.y, 32, 18.0 * s, -90.0, 4.0, 360.0 * done, c);
            sprites
                .font
                .draw_shadowed("REVIVE", at.x, at.y + 22.0 * s, s * 0.6, c, Align::Center);
        }
    }
    for (age, event) in ledger.recent(world.frame, BLAST_TICKS) {
        if let Event::BombUsed { pos, .. } = event {
            let at = layout.to_screen(v(*pos));
            let t = age as f32 / BLAST_TICKS as f32;
            let r = f(crate::sim::BOMB_RADIUS) * s * (0.3 + 0.7 * t);
            draw_circle_lines(at.x, at.y, r, 4.0, Color::new(1.0, 0.9, 0.6, 1.0 - t));
        }
    }
    if let Some(boss) = world.boss() {
        let w = layout.size().x * 0.5;
        let x = layout.origin.x + (layout.size().x - w) / 2.0;
        let y = layout.origin.y + layout.size().y - 14.0 * s;
        let h = 4.0 * s;
        let share = f32::from(boss.hp) / f32::from(boss.max_hp.max(1));
        draw_rectangle(x, y, w, h, Color::new(0.2, 0.2, 0.2, 0.8));
        draw_rectangle(x, y, w * share, h, kind_colour(boss.kind()));
        for third in [1.0 / 3.0, 2.0 / 3.0] {
            draw_line(x + w * third, y, x + w * third, y + h, 2.0, BLACK);
        }
        let name = format!(
            "{} - PHASE {}",
            boss.kind().name().to_uppercase(),
            boss.phase + 1
        );
        sprites.font.draw_shadowed(
            &name,
            x + w / 2.0,
            y - 12.0 * s * 0.6,
            s * 0.6,
            WHITE,
            Align::Center,
        );
    }
}
