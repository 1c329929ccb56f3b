//! Where the texts of the HUD go, as plain data: each line with its
//! place, scale and alignment, and the rectangle it will cover once the
//! font draws it at an interface scale. Drawing is a loop over the lines;
//! the tests lay every screen out at every interface scale and check
//! that no two texts overlap and none leaves the screen.

use macroquad::prelude::*;

use super::assets::{Align, BitmapFont, GLYPH_H, GLYPH_W};
use super::layout::Layout;

/// The font's pixel scale for text scale `scale` at interface scale `ui`:
/// whole pixels, at least one, as [`BitmapFont::draw`] rounds it.
pub fn drawn(scale: f32, ui: f32) -> f32 {
    (scale * ui).round().max(1.0)
}

/// A line's drawn height (a glyph and the pixel under it).
pub fn line_height(scale: f32, ui: f32) -> f32 {
    drawn(scale, ui) * (GLYPH_H + 1.0)
}

/// One character's drawn width.
pub fn char_width(scale: f32, ui: f32) -> f32 {
    drawn(scale, ui) * GLYPH_W
}

/// Characters of scale `scale` that fit `width` pixels at `ui`.
pub fn chars_in(width: f32, scale: f32, ui: f32) -> usize {
    (width / char_width(scale, ui)) as usize
}

/// One line of text as the font will draw it.
#[derive(Clone, Debug, PartialEq)]
pub struct Text {
    pub text: String,
    pub x: f32,
    /// The top edge.
    pub y: f32,
    /// Before the interface scale.
    pub scale: f32,
    pub align: Align,
    pub color: Color,
}

impl Text {
    pub fn new(text: String, x: f32, y: f32, scale: f32, align: Align, color: Color) -> Text {
        Text {
            text,
            x,
            y,
            scale,
            align,
            color,
        }
    }

    /// The rectangle the font covers at interface scale `ui` (its scale
    /// rounded to whole pixels, as [`BitmapFont::draw`] does, shadow
    /// included).
    pub fn rect(&self, ui: f32) -> Rect {
        let s = drawn(self.scale, ui);
        let w = self.text.chars().count() as f32 * GLYPH_W * s;
        let x = match self.align {
            Align::Left => self.x,
            Align::Center => self.x - w / 2.0,
            Align::Right => self.x - w,
        };
        Rect::new(x, self.y, w + s, GLYPH_H * s + s)
    }

    pub fn draw(&self, font: &BitmapFont) {
        font.draw_shadowed(
            &self.text, self.x, self.y, self.scale, self.color, self.align,
        );
    }
}

/// What the HUD shows, read from the world (and the names).
#[derive(Clone, Debug, Default)]
pub struct HudFigures {
    pub names: [String; 2],
    pub scores: [u32; 2],
    /// Each player's bombs, weapon and shield line.
    pub kit: [String; 2],
    /// The same in a few letters, for a narrow arena ("B3 SPR 12s SH").
    pub kit_short: [String; 2],
    pub wave: u32,
    pub team: u32,
    pub combo: Option<String>,
}

/// Characters of a name the HUD shows; longer ones end in "...".
const HUD_NAME_CHARS: usize = 10;

/// Height of the lives row (ship icons, drawn by the HUD itself).
pub const LIVES_ROW: f32 = 14.0;

/// The HUD's lines over `arena` at interface scale `ui`; and where each
/// player's lives row goes (its top left, or top right for player 2).
pub fn hud(f: &HudFigures, arena: &Layout, ui: f32) -> (Vec<Text>, [Vec2; 2]) {
    // The HUD scales with the arena, so a small (phone) arena keeps its
    // text in proportion; a 1280x720 window or larger draws it as designed.
    let k = (arena.scale / 2.0).clamp(0.34, 1.0);
    let size = arena.size();
    let top = arena.origin.y + 10.0 * k;
    let left = arena.origin.x + 14.0 * k;
    let right = arena.origin.x + size.x - 14.0 * k;
    let center = arena.origin.x + size.x / 2.0;
    // Lines stack by their drawn height (the interface scale included), so
    // they never run into each other at 150 % or 200 %.
    let line = |scale: f32| line_height(scale, ui) + 1.0;
    let (big, small) = (line(3.0 * k), line(2.0 * k));
    let side_w = side_width(f, size.x, k, ui);
    let ([name_1, name_2], [kit_1, kit_2]) = fitted_sides(f, side_w, k, ui);
    let colour = super::look::player_color;
    let text = Text::new;
    let lives_y = top + big;
    let kit_y = lives_y + LIVES_ROW + 3.0;
    let mut out = vec![
        text(
            format!("{name_1} {}", f.scores[0]),
            left,
            top,
            3.0 * k,
            Align::Left,
            colour(0),
        ),
        text(
            format!("{} {name_2}", f.scores[1]),
            right,
            top,
            3.0 * k,
            Align::Right,
            colour(1),
        ),
        text(
            format!("WAVE {}", f.wave),
            center,
            top,
            3.0 * k,
            Align::Center,
            WHITE,
        ),
        text(
            format!("TEAM {}", f.team),
            center,
            top + big,
            2.0 * k,
            Align::Center,
            Color::new(0.8, 0.85, 1.0, 0.9),
        ),
        text(kit_1, left, kit_y, 2.0 * k, Align::Left, colour(0)),
        text(kit_2, right, kit_y, 2.0 * k, Align::Right, colour(1)),
    ];
    if let Some(combo) = &f.combo {
        out.push(text(
            combo.clone(),
            center,
            top + big + small,
            2.0 * k,
            Align::Center,
            Color::new(1.0, 0.85, 0.3, 1.0),
        ));
    }
    (out, [vec2(left, lives_y), vec2(right, lives_y)])
}

/// Each player's name (with room left for the score) and kit line, fitted
/// to a side's width `side_w` at arena scale `k` and interface scale `ui`:
/// the kit's short form when the long one does not fit.
fn fitted_sides(f: &HudFigures, side_w: f32, k: f32, ui: f32) -> ([String; 2], [String; 2]) {
    let char_w = |scale: f32| char_width(scale, ui);
    let fits = |text: &str, scale: f32| text.len() as f32 * char_w(scale) <= side_w;
    let name = |i: usize| {
        let room = (side_w / char_w(3.0 * k)) as usize;
        let digits = f.scores[i].to_string().len() + 1;
        super::text::fit(
            &f.names[i],
            room.saturating_sub(digits).clamp(3, HUD_NAME_CHARS),
        )
    };
    let kit = |i: usize| {
        let chars = (side_w / char_w(2.0 * k)) as usize;
        let text = if fits(&f.kit[i], 2.0 * k) {
            &f.kit[i]
        } else {
            &f.kit_short[i]
        };
        super::text::fit(text, chars.max(4))
    };
    ([name(0), name(1)], [kit(0), kit(1)])
}

/// The touch screen's MENU (LEAVE at game over) button: in the free
/// space beside the arena when held sideways (`side` > 0), above it when
/// upright and there is room, else the top right corner.
pub fn menu_button(w: f32, h: f32, side: f32, arena: &Layout) -> Rect {
    let unit = w.min(h);
    let (bw, bh) = (unit * 0.22, unit * 0.085);
    if side > bw * 0.8 {
        let bw = (side - 16.0).min(bw);
        Rect::new(w - side + (side - bw) / 2.0, 8.0, bw, bh)
    } else if arena.origin.y >= bh + 12.0 {
        Rect::new(w - bw - 8.0, (arena.origin.y - bh) / 2.0, bw, bh)
    } else {
        Rect::new(w - bw - 8.0, 8.0, bw, bh)
    }
}

/// The width each side column of the HUD may take: half the arena, less
/// half the centre column (wave, team, combo), which is as wide as its
/// widest line, and a margin.
fn side_width(f: &HudFigures, arena_w: f32, k: f32, ui: f32) -> f32 {
    let width = |text: &str, scale: f32| text.len() as f32 * char_width(scale, ui);
    let centre = [
        width(&format!("WAVE {}", f.wave), 3.0 * k),
        width(&format!("TEAM {}", f.team), 2.0 * k),
        width(f.combo.as_deref().unwrap_or_default(), 2.0 * k),
    ]
    .into_iter()
    .fold(0.0, f32::max);
    arena_w / 2.0 - centre / 2.0 - 14.0 * k - 8.0
}

/// Whether two rectangles share any area (touching edges do not).
pub fn overlap(a: &Rect, b: &Rect) -> bool {
    a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h
}

#[cfg(test)]
#[path = "ui_layout_tests.rs"]
mod tests;
