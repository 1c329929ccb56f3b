//! Where the arena sits on the screen, for everything drawn over it.

use macroquad::prelude::*;

use crate::sim::{ARENA_HEIGHT, ARENA_WIDTH};

fn f(v: crate::sim::Fx) -> f32 {
    v.to_num::<f32>()
}

/// Where the arena is on screen.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub origin: Vec2,
    pub scale: f32,
}

impl Layout {
    /// The arena as large as fits, `side` pixels kept free on the left and
    /// the right (touch controls held sideways).
    pub fn fit(side: f32) -> Layout {
        Layout::fit_in(screen_width(), screen_height(), side)
    }

    /// [`Layout::fit`] on a `w`×`h` screen.
    pub fn fit_in(w: f32, h: f32, side: f32) -> Layout {
        let (aw, ah) = (f(ARENA_WIDTH), f(ARENA_HEIGHT));
        let scale = ((w - 2.0 * side).max(1.0) / aw).min(h / ah);
        let centred = (h - ah * scale) / 2.0;
        // Upright (a phone held in portrait), the arena goes near the top so
        // the touch controls get the space below it, under the thumbs.
        let top = if h > w * 1.2 {
            centred.min(h * 0.1)
        } else {
            centred
        };
        Layout {
            origin: vec2((w - aw * scale) / 2.0, top),
            scale,
        }
    }

    pub fn to_screen(&self, p: Vec2) -> Vec2 {
        self.origin + p * self.scale
    }

    pub fn size(&self) -> Vec2 {
        vec2(f(ARENA_WIDTH), f(ARENA_HEIGHT)) * self.scale
    }
}
