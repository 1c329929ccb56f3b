//! How this player wants things drawn (the Settings screen): colours and
//! shapes a colour-blind player tells apart, an interface scale, reduced
//! motion. A setting of the window, not of a match: set when the settings
//! are read or saved, read by every screen as it draws.
//!
//! The colour-blind palette is Okabe and Ito's (2008), chosen to stay
//! apart under the common colour-vision deficiencies; and every pair a
//! player must tell apart also differs in shape, so hue is never alone:
//! player 1's ship carries a ring, player 2's a square, enemy bullets a
//! dark rim and a ring around them, the player's bullets none.

use std::cell::Cell;

use macroquad::color::Color;

use crate::settings::Settings;

/// How things are drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Look {
    /// Okabe-Ito colours and shape markers.
    pub colour_blind: bool,
    /// Text, the HUD and the touch buttons at this many times their size
    /// (1.0..=2.0).
    pub ui_scale: f32,
    /// No screen shake; hit flashes and blinking become a steady change.
    pub reduced_motion: bool,
}

impl Default for Look {
    fn default() -> Self {
        Look {
            colour_blind: false,
            ui_scale: 1.0,
            reduced_motion: false,
        }
    }
}

impl From<&Settings> for Look {
    fn from(s: &Settings) -> Look {
        Look {
            colour_blind: s.colour_blind,
            ui_scale: f32::from(s.ui_scale.clamp(100, 200)) / 100.0,
            reduced_motion: s.reduced_motion,
        }
    }
}

thread_local! {
    // The window's one thread draws; the page has one thread.
    static LOOK: Cell<Look> = Cell::new(Look::default());
}

/// From now on, draws this way.
pub fn set(look: Look) {
    LOOK.with(|l| l.set(look));
}

/// How to draw now.
pub fn get() -> Look {
    LOOK.with(Cell::get)
}

/// The colour-blind palette (Okabe and Ito), as RGB bytes: what the
/// screenshot check simulates colour-vision deficiencies on.
const PLAYER_COLORS: [Color; 2] = [
    Color::new(0.35, 0.85, 1.0, 1.0),
    Color::new(1.0, 0.62, 0.2, 1.0),
];

/// Player `i`'s colour in the HUD and the chat: the colour-blind
/// palette's when the player asked for it (`look`).
pub fn player_color(i: usize) -> Color {
    if get().colour_blind {
        let [r, g, b] = [palette::PLAYER_ONE, palette::PLAYER_TWO][i.min(1)];
        Color::from_rgba(r, g, b, 255)
    } else {
        PLAYER_COLORS[i.min(1)]
    }
}
pub mod palette {
    /// Player 1: sky blue.
    pub const PLAYER_ONE: [u8; 3] = [0x56, 0xb4, 0xe9];
    /// Player 2: orange.
    pub const PLAYER_TWO: [u8; 3] = [0xe6, 0x9f, 0x00];
    /// Enemy bullets' ring: vermillion.
    pub const ENEMY_BULLET: [u8; 3] = [0xd5, 0x5e, 0x00];
    /// The player's bullets: bluish green (yellow came within ΔE 17 of
    /// player 2's orange under deuteranopia).
    pub const PLAYER_BULLET: [u8; 3] = [0x00, 0x9e, 0x73];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_settings_give_the_look_and_the_scale_stays_in_range() {
        let s = Settings {
            colour_blind: true,
            ui_scale: 150,
            reduced_motion: true,
            ..Settings::default()
        };
        let look = Look::from(&s);
        assert!(look.colour_blind && look.reduced_motion);
        assert_eq!(look.ui_scale, 1.5);
        assert_eq!(Look::from(&Settings::default()), Look::default());
        set(look);
        assert_eq!(get(), look);
        set(Look::default());
    }
}
