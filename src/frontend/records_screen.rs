//! The Records screen: this device's personal bests (per way of playing
//! and preset) and its last runs (`crate::records`). Laid out by a pure
//! function, [`texts`], which `ui_layout`'s tests check at every scale on
//! every screen; drawing is a loop over its lines.

use macroquad::prelude::*;

use super::assets::Align;
use super::keys::{clicked, end_frame, enter_screen, pressed};
use super::music::Track;
use super::ui::{Screenshot, Ui, backdrop, save_screenshot};
use super::ui_layout::{Text, chars_in, line_height};
use crate::records::Line;

const TITLE: &str = "RECORDS";
const HINT: &str = "Enter, Esc or a click: back";
const HEADING: Color = Color::new(1.0, 0.9, 0.4, 1.0);
const ENTRY: Color = Color::new(0.85, 0.88, 1.0, 1.0);
const GRAY: Color = Color::new(0.55, 0.6, 0.75, 1.0);

/// Text scales before shrinking: the title, a heading, an entry.
const SCALES: (f32, f32, f32) = (6.0, 3.0, 2.0);

/// The screen's texts on a `w`×`h` screen at interface scale `ui`: the
/// title, `lines` under it and the hint at the bottom, all at the largest
/// size at which every line fits the screen's height and the widest its
/// width (else the largest that fits the height, long lines cut with an
/// ellipsis). If even the smallest is too tall, the last lines (the
/// oldest runs) are left out.
pub fn texts(lines: &[Line], w: f32, h: f32, ui: f32) -> Vec<Text> {
    let step = |scale: f32| line_height(scale, ui) * 1.3;
    let scaled = |scale: f32, k: f32| (scale * k).max(0.5);
    let (title, heading, entry) = SCALES;
    let line_scale = |line: &Line, k: f32| match line {
        Line::Heading(_) => scaled(heading, k),
        Line::Entry(_) | Line::Note(_) => scaled(entry, k),
    };
    let top = 8.0;
    let bottom = h - 8.0;
    let height = |lines: &[Line], k: f32| {
        step(scaled(title, k))
            + lines.iter().map(|l| step(line_scale(l, k))).sum::<f32>()
            + step(scaled(entry, k))
    };
    let widest = |lines: &[Line], k: f32| {
        lines
            .iter()
            .map(|l| {
                l.text().chars().count() as f32 * super::ui_layout::char_width(line_scale(l, k), ui)
            })
            .fold(0.0, f32::max)
    };
    // The smallest sizes bring the title and headings down to the
    // entries' (a phone held sideways at 200 %).
    let shrinks = [1.0, 0.75, 0.5, 0.34, 0.25, 0.17, 0.09];
    let mut kept = lines.len();
    let k = loop {
        let shown = &lines[..kept];
        let tall_ok = |k: f32| top + height(shown, k) <= bottom;
        let wide_ok = |k: f32| widest(shown, k) <= w - 16.0;
        if let Some(k) = (shrinks.into_iter().find(|&k| tall_ok(k) && wide_ok(k)))
            .or_else(|| shrinks.into_iter().find(|&k| tall_ok(k)))
        {
            break k;
        }
        if kept == 0 {
            break 0.09;
        }
        kept -= 1;
    };
    let cx = w / 2.0;
    let text = |s: &str, y: f32, scale: f32, color: Color| {
        Text::new(
            super::text::fit(s, chars_in(w - 16.0, scale, ui).max(4)),
            cx,
            y,
            scale,
            Align::Center,
            color,
        )
    };
    // The title shrinks further on its own if the screen is narrow.
    let title_scale = [scaled(title, k), 4.0, 3.0, 2.0, 1.0]
        .into_iter()
        .find(|&s| TITLE.len() as f32 * super::ui_layout::char_width(s, ui) <= w - 16.0)
        .unwrap_or(1.0)
        .min(scaled(title, k));
    let mut out = vec![text(TITLE, top, title_scale, WHITE)];
    let mut y = top + step(scaled(title, k));
    for line in &lines[..kept] {
        let scale = line_scale(line, k);
        let color = match line {
            Line::Heading(_) => HEADING,
            Line::Entry(_) => ENTRY,
            Line::Note(_) => GRAY,
        };
        out.push(text(line.text(), y, scale, color));
        y += step(scale);
    }
    let hint_scale = scaled(entry, k);
    out.push(text(
        HINT,
        bottom - line_height(hint_scale, ui),
        hint_scale,
        GRAY,
    ));
    out
}

/// The Records screen until Enter, Esc or a click (a pad's A or B come as
/// those keys). With `capture`, saves it as a PNG and returns.
pub async fn show(
    ui: &mut Ui,
    records: &crate::records::Records,
    capture: Option<&Screenshot>,
) -> Option<Result<(), String>> {
    enter_screen();
    ui.audio.play_music(Track::Menu);
    let lines = records.lines(crate::records::now_unix());
    let mut drawn = 0u32;
    loop {
        ui.audio.update();
        if pressed(KeyCode::Escape) || pressed(KeyCode::Enter) || clicked(MouseButton::Left) {
            return None;
        }
        backdrop(ui);
        let scale = super::look::get().ui_scale;
        for t in texts(&lines, screen_width(), screen_height(), scale) {
            t.draw(&ui.sprites.font);
        }
        drawn += 1;
        if let Some(shot) = capture
            && drawn >= shot.after_frames
        {
            return Some(save_screenshot(&shot.path));
        }
        end_frame().await;
    }
}
