//! The mouse aims the first keyboard player's ship at the cursor, once the
//! cursor has moved over the window: a cursor left resting (a keyboard-only
//! player) stops aiming after a few seconds, and the ship fires along its
//! facing again. Only the aim direction (0..32) reaches the simulation.

use macroquad::prelude::*;
use web_time::{Duration, Instant};

use super::layout::Layout;
use crate::input::angle_to_aim;
use crate::sim::World;

/// How long a still cursor keeps aiming.
const REST: Duration = Duration::from_secs(3);

#[derive(Debug, Default)]
pub struct MouseAim {
    last: Option<(f32, f32)>,
    moved_at: Option<Instant>,
}

impl MouseAim {
    /// The aim of `player`'s ship at the cursor, if the mouse aims now.
    pub fn aim(&mut self, world: &World, player: usize, side: f32) -> Option<u32> {
        let now = Instant::now();
        let at = mouse_position();
        if self.last.is_some_and(|last| last != at) {
            self.moved_at = Some(now);
        }
        self.last = Some(at);
        let recent = self.moved_at.is_some_and(|t| now.duration_since(t) < REST);
        let inside = at.0 >= 0.0 && at.1 >= 0.0 && at.0 < screen_width() && at.1 < screen_height();
        let ship = world.players.get(player)?;
        if !(recent && inside) || ship.alive != 1 {
            return None;
        }
        let layout = Layout::fit(side);
        let from = layout.to_screen(vec2(ship.pos.x.to_num(), ship.pos.y.to_num()));
        let (dx, dy) = (at.0 - from.x, at.1 - from.y);
        (dx * dx + dy * dy > 16.0).then(|| angle_to_aim(dy.atan2(dx)))
    }
}
