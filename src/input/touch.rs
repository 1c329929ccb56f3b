//! Touch controls as one more source of the same `Input`: a virtual stick
//! where the left thumb lands, a second (aim) stick where the right thumb
//! lands off the buttons (it fires while pushed), fire, focus and bomb
//! buttons on the right, start when the game needs it. Pure: touches in, bits out. Everything here is in
//! logical pixels (CSS pixels in the browser: a thumb covers about as many
//! of them on a 1x as on a 3x screen); the frontend converts macroquad's
//! touches, which come in framebuffer pixels, once before they reach
//! `TouchPad` (`frontend::touch_controls`), and draws what `TouchPad` says.

use super::Input;
use super::pad::{aim_direction, stick_direction};

/// A touch as the window reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Touch {
    pub id: u64,
    pub phase: TouchPhase,
    pub x: f32,
    pub y: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TouchPhase {
    Started,
    Moved,
    Stationary,
    Ended,
    Cancelled,
}

/// A round button on screen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Button {
    pub x: f32,
    pub y: f32,
    pub r: f32,
}

impl Button {
    fn contains(&self, x: f32, y: f32) -> bool {
        let (dx, dy) = (x - self.x, y - self.y);
        // Forgiving: a thumb covers more than the drawn circle.
        dx * dx + dy * dy <= (self.r * 1.3) * (self.r * 1.3)
    }
}

/// The edges of a screen the controls keep clear of, in logical pixels:
/// a phone's notch, rounded corners and home indicator (the page's
/// `env(safe-area-inset-*)`); zero on a desktop.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Insets {
    pub top: f32,
    pub right: f32,
    pub bottom: f32,
    pub left: f32,
}

impl Insets {
    pub const NONE: Insets = Insets {
        top: 0.0,
        right: 0.0,
        bottom: 0.0,
        left: 0.0,
    };

    /// Insets a page reported, each finite and at most a third of its
    /// side (anything else is a bad reading, taken as no inset).
    pub fn checked(self, w: f32, h: f32) -> Insets {
        let ok = |v: f32, side: f32| {
            if v.is_finite() && v >= 0.0 && v <= side / 3.0 {
                v
            } else {
                0.0
            }
        };
        Insets {
            top: ok(self.top, h),
            right: ok(self.right, w),
            bottom: ok(self.bottom, h),
            left: ok(self.left, w),
        }
    }
}

/// A button's radius in logical pixels: 9 % of the screen's shorter side,
/// kept between a thumb's width (a phone held either way: 390 px wide
/// gives 35) and what a tablet or a desktop touch screen needs (no bigger
/// than a large thumb, however big the screen).
const BUTTON_RADIUS: (f32, f32) = (30.0, 48.0);

/// Where the controls sit on a screen of a given size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TouchLayout {
    pub fire: Button,
    pub focus: Button,
    pub bomb: Button,
    pub start: Button,
    /// Stick travel in logical pixels that is full deflection.
    pub stick_radius: f32,
    /// A touch left of this x is a stick touch.
    pub stick_zone: f32,
    /// Held sideways, the width kept free for the controls on each side of
    /// the arena (the stick's thumb on the left, the buttons' column on the
    /// right); 0 upright, where they go below it.
    pub side: f32,
}

impl TouchLayout {
    /// The layout for a screen of `w` x `h` logical pixels whose edges
    /// `safe` must stay clear: buttons of a thumb's size, kept in the
    /// bottom corners of the safe area.
    pub fn for_screen(w: f32, h: f32, safe: Insets) -> TouchLayout {
        TouchLayout::for_screen_scaled(w, h, safe, 1.0)
    }

    /// [`TouchLayout::for_screen`] with the buttons `scale` times their
    /// size (the interface scale: 1 to 2), as far as the screen allows: a
    /// button's radius stays within 16 % of the shorter side, so the
    /// column of two still fits beside the arena or below it.
    pub fn for_screen_scaled(w: f32, h: f32, safe: Insets, scale: f32) -> TouchLayout {
        let safe = safe.checked(w, h);
        let unit = w.min(h).max(1.0);
        let base = (unit * 0.09).clamp(BUTTON_RADIUS.0, BUTTON_RADIUS.1);
        let r = (base * scale.clamp(1.0, 2.0)).min((unit * 0.16).max(base));
        let margin = (unit * 0.06).min(r);
        let fire_r = r * 1.2;
        let (right, bottom) = (w - safe.right, h - safe.bottom);
        let (fire, focus, bomb, side) = if w > h * 1.2 {
            // Held sideways: fire above focus in a column at the right
            // edge, as wide as the stick's space at the left, both beside
            // the arena.
            let side = 2.0 * (margin + fire_r) + safe.left.max(safe.right);
            let focus = Button {
                x: right - margin - fire_r,
                y: bottom - margin - r,
                r,
            };
            let fire = Button {
                x: focus.x,
                y: focus.y - r - margin - fire_r,
                r: fire_r,
            };
            let bomb = Button {
                x: focus.x,
                y: fire.y - fire_r - margin - r,
                r,
            };
            (fire, focus, bomb, side)
        } else {
            let fire = Button {
                x: right - margin - fire_r,
                y: bottom - margin - r * 2.6,
                r: fire_r,
            };
            let focus = Button {
                x: fire.x - r * 2.6,
                y: bottom - margin - r,
                r,
            };
            let bomb = Button {
                x: focus.x,
                y: focus.y - r * 2.4,
                r,
            };
            (fire, focus, bomb, 0.0)
        };
        TouchLayout {
            fire,
            focus,
            bomb,
            start: Button {
                x: (safe.left + right) / 2.0,
                y: bottom - margin - r * 0.8,
                r: r * 0.8,
            },
            stick_radius: r * 1.33,
            stick_zone: w * 0.45,
            side,
        }
    }
}

/// What a touch does, decided where it landed and kept until it lifts.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    Stick {
        origin: (f32, f32),
        now: (f32, f32),
    },
    /// The right thumb off the buttons: aims where it is pushed, and fires.
    Aim {
        origin: (f32, f32),
        now: (f32, f32),
    },
    Fire,
    Bomb,
    Focus,
    Start,
}

/// The live touch controls: which finger does what.
#[derive(Clone, Debug, Default)]
pub struct TouchPad {
    fingers: Vec<(u64, Role)>,
    /// Set by the first touch: only then are the controls drawn.
    pub seen: bool,
}

/// Fingers tracked at once; more are ignored (a palm on the glass).
const MAX_FINGERS: usize = 10;
/// The stick's own dead zone: a thumb resting where it landed is still.
const STICK_DEAD_ZONE: f32 = 0.25;

impl TouchPad {
    /// Takes this frame's touches. `start_shown`: the start button is on
    /// screen (the game waits for it), so a touch there presses it.
    pub fn update(&mut self, touches: &[Touch], layout: &TouchLayout, start_shown: bool) {
        for t in touches {
            if !(t.x.is_finite() && t.y.is_finite()) {
                continue;
            }
            let known = self.fingers.iter().position(|(id, _)| *id == t.id);
            match (t.phase, known) {
                (TouchPhase::Ended | TouchPhase::Cancelled, Some(i)) => {
                    self.fingers.swap_remove(i);
                }
                (TouchPhase::Ended | TouchPhase::Cancelled, None) => {}
                (_, Some(i)) => {
                    if let Role::Stick { now, .. } | Role::Aim { now, .. } = &mut self.fingers[i].1
                    {
                        *now = (t.x, t.y);
                    }
                }
                (_, None) if self.fingers.len() < MAX_FINGERS => {
                    self.seen = true;
                    let role = role_at(layout, t.x, t.y, start_shown);
                    self.fingers.push((t.id, role));
                }
                (_, None) => {}
            }
        }
    }

    /// The sim's bits for the fingers down now.
    pub fn input(&self, layout: &TouchLayout) -> Input {
        let mut input = Input(0);
        for (_, role) in &self.fingers {
            input = match *role {
                Role::Stick { origin, now } => {
                    let r = layout.stick_radius.max(1.0);
                    let deflection = ((now.0 - origin.0) / r, (now.1 - origin.1) / r);
                    Input(input.0 | stick_direction(deflection, STICK_DEAD_ZONE))
                }
                Role::Aim { origin, now } => {
                    let r = layout.stick_radius.max(1.0);
                    let deflection = ((now.0 - origin.0) / r, (now.1 - origin.1) / r);
                    match aim_direction(deflection, STICK_DEAD_ZONE) {
                        Some(aim) => input.with_aim(Some(aim)).with(Input::FIRE, true),
                        None => input,
                    }
                }
                Role::Fire => input.with(Input::FIRE, true),
                Role::Bomb => input.with(Input::BOMB, true),
                Role::Focus => input.with(Input::FOCUS, true),
                Role::Start => input.with(Input::START, true),
            };
        }
        input
    }

    /// Where the stick is drawn: its origin and the thumb, when one is down.
    pub fn stick(&self) -> Option<((f32, f32), (f32, f32))> {
        self.fingers.iter().find_map(|(_, role)| match *role {
            Role::Stick { origin, now } => Some((origin, now)),
            _ => None,
        })
    }

    pub fn holding_fire(&self) -> bool {
        self.fingers.iter().any(|(_, r)| *r == Role::Fire)
    }

    pub fn holding_focus(&self) -> bool {
        self.fingers.iter().any(|(_, r)| *r == Role::Focus)
    }

    pub fn holding_bomb(&self) -> bool {
        self.fingers.iter().any(|(_, r)| *r == Role::Bomb)
    }

    /// Where the aim stick is drawn: its origin and the thumb.
    pub fn aim_stick(&self) -> Option<((f32, f32), (f32, f32))> {
        self.fingers.iter().find_map(|(_, role)| match *role {
            Role::Aim { origin, now } => Some((origin, now)),
            _ => None,
        })
    }
}

fn role_at(layout: &TouchLayout, x: f32, y: f32, start_shown: bool) -> Role {
    if start_shown && layout.start.contains(x, y) {
        Role::Start
    } else if layout.fire.contains(x, y) {
        Role::Fire
    } else if layout.focus.contains(x, y) {
        Role::Focus
    } else if layout.bomb.contains(x, y) {
        Role::Bomb
    } else if x < layout.stick_zone {
        Role::Stick {
            origin: (x, y),
            now: (x, y),
        }
    } else {
        Role::Aim {
            origin: (x, y),
            now: (x, y),
        }
    }
}

#[cfg(test)]
#[path = "touch_tests.rs"]
mod tests;
