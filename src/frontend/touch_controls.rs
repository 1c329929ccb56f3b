//! The touch controls in a match: macroquad's touches fed to
//! `input::touch::TouchPad`, and what it holds drawn over the arena. Drawn
//! only once the screen has been touched, so a desktop never shows them.
//!
//! Coordinates: macroquad draws, lays out (`screen_width`) and reports the
//! mouse (`mouse_position`) in logical pixels (CSS pixels in the page), but
//! reports touches (`touches()`) in framebuffer pixels: the canvas's device
//! pixels in the browser (CSS pixels times `devicePixelRatio`, since the
//! window asks for high DPI), the window's physical pixels natively. This
//! is the one place they are converted, so everything past it is logical.

use macroquad::prelude::*;

use crate::input::Input;
use crate::input::touch::{self, Insets, TouchLayout, TouchPad, TouchPhase};

pub struct TouchControls {
    pad: TouchPad,
    /// The layout of the last update: the screen's size and safe area.
    layout: TouchLayout,
}

impl Default for TouchControls {
    fn default() -> Self {
        TouchControls {
            pad: TouchPad::default(),
            layout: TouchLayout::for_screen(1.0, 1.0, Insets::NONE),
        }
    }
}

impl TouchControls {
    /// Reads this frame's touches. `start_shown`: the game waits for start
    /// (game over), so the start button is on screen and live.
    pub fn update(&mut self, start_shown: bool) {
        let layout = layout();
        if layout != self.layout {
            crate::platform::screen::publish_touch_layout(&layout_json(&layout));
            self.layout = layout;
        }
        let scale = screen_dpi_scale().max(f32::MIN_POSITIVE);
        let now: Vec<touch::Touch> = touches()
            .into_iter()
            .map(|t| touch::Touch {
                id: t.id,
                phase: match t.phase {
                    macroquad::input::TouchPhase::Started => TouchPhase::Started,
                    macroquad::input::TouchPhase::Moved => TouchPhase::Moved,
                    macroquad::input::TouchPhase::Stationary => TouchPhase::Stationary,
                    macroquad::input::TouchPhase::Ended => TouchPhase::Ended,
                    macroquad::input::TouchPhase::Cancelled => TouchPhase::Cancelled,
                },
                x: t.position.x / scale,
                y: t.position.y / scale,
            })
            .collect();
        self.pad.update(&now, &layout, start_shown);
    }

    /// What the fingers hold now (nothing before the first touch).
    pub fn input(&self) -> Input {
        self.pad.input(&self.layout)
    }

    /// Whether this screen has been touched: then the touch controls play,
    /// and the mouse (which browsers move with the finger) does not aim.
    pub fn seen(&self) -> bool {
        self.pad.seen
    }

    /// Width the arena leaves free on each side for the controls (once
    /// they are shown, held sideways).
    pub fn side(&self) -> f32 {
        if self.seen() { self.layout.side } else { 0.0 }
    }

    /// The stick under the thumb, the buttons; start when it is live.
    pub fn draw(&self, start_shown: bool) {
        if !self.pad.seen {
            return;
        }
        let l = self.layout;
        let ring = Color::new(1.0, 1.0, 1.0, 0.35);
        let fill = Color::new(1.0, 1.0, 1.0, 0.18);
        for (origin, thumb) in [self.pad.stick(), self.pad.aim_stick()]
            .into_iter()
            .flatten()
        {
            draw_circle_lines(origin.0, origin.1, l.stick_radius, 3.0, ring);
            let d = vec2(thumb.0 - origin.0, thumb.1 - origin.1).clamp_length_max(l.stick_radius);
            draw_circle(origin.0 + d.x, origin.1 + d.y, l.stick_radius * 0.45, fill);
        }
        let button = |b: touch::Button, held: bool, label: &str, color: Color| {
            let alpha = if held { 0.55 } else { 0.25 };
            draw_circle(b.x, b.y, b.r, Color { a: alpha, ..color });
            draw_circle_lines(b.x, b.y, b.r, 3.0, Color { a: 0.7, ..color });
            let size = (b.r * 0.5).max(10.0);
            let dims = measure_text(label, None, size as u16, 1.0);
            draw_text(
                label,
                b.x - dims.width / 2.0,
                b.y + dims.height / 2.0,
                size,
                WHITE,
            );
        };
        button(
            l.fire,
            self.pad.holding_fire(),
            "FIRE",
            Color::new(1.0, 0.4, 0.3, 1.0),
        );
        button(
            l.focus,
            self.pad.holding_focus(),
            "FOCUS",
            Color::new(0.4, 0.7, 1.0, 1.0),
        );
        button(
            l.bomb,
            self.pad.holding_bomb(),
            "BOMB",
            Color::new(1.0, 0.3, 0.6, 1.0),
        );
        if start_shown {
            let held = self.input().has(Input::START);
            button(l.start, held, "START", Color::new(0.5, 1.0, 0.5, 1.0));
        }
    }
}

fn layout() -> TouchLayout {
    let [top, right, bottom, left] = crate::platform::screen::safe_area();
    let safe = Insets {
        top,
        right,
        bottom,
        left,
    };
    // The player's interface scale grows the buttons too.
    TouchLayout::for_screen_scaled(
        screen_width(),
        screen_height(),
        safe,
        super::look::get().ui_scale,
    )
}

/// The layout as the page publishes it for tools that touch its buttons
/// (tests/web/drive.mjs): logical pixels, as the page's CSS pixels.
fn layout_json(l: &TouchLayout) -> String {
    let b = |b: touch::Button| serde_json::json!({ "x": b.x, "y": b.y, "r": b.r });
    // The MENU button (LEAVE at game over), where the window draws it
    // once the screen was touched.
    let (w, h) = (screen_width(), screen_height());
    let arena = super::layout::Layout::fit_in(w, h, l.side);
    let m = super::ui_layout::menu_button(w, h, l.side, &arena);
    let menu = serde_json::json!({ "x": m.x + m.w / 2.0, "y": m.y + m.h / 2.0, "r": m.h / 2.0 });
    serde_json::json!({
        "menu": menu,
        "fire": b(l.fire),
        "focus": b(l.focus),
        "bomb": b(l.bomb),
        "start": b(l.start),
        "stick_zone": l.stick_zone,
        "stick_radius": l.stick_radius,
    })
    .to_string()
}
