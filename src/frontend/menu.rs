//! Menu screens: a list to pick from (keyboard and mouse), a text prompt,
//! a message box and the settings editor. Each returns what the player
//! chose; `app::menu` decides where that leads.

use macroquad::prelude::*;

use super::assets::{Align, BitmapFont};
use super::audio::Cue;
use super::window::{Screenshot, Ui, clicked, end_frame, enter_screen, pressed, save_screenshot};
use crate::input::KeyMap;
use crate::settings::{BINDABLE_KEYS, Settings};

const BACKGROUND: Color = Color::new(0.024, 0.03, 0.086, 1.0);
const ITEM: Color = Color::new(0.75, 0.8, 0.95, 1.0);
const SELECTED: Color = Color::new(1.0, 0.9, 0.4, 1.0);
const HINT: Color = Color::new(0.55, 0.6, 0.75, 1.0);

/// What a list screen ended with.
#[derive(Debug, PartialEq, Eq)]
pub enum Picked {
    Item(usize),
    /// Left (-1) or Right (+1) on this row: lists of values step through them.
    Adjust(usize, i32),
    Back,
    /// The `--screenshot` was taken (or failed to save).
    Captured(Result<(), String>),
}

/// The dimmed starfield behind every menu screen.
pub fn backdrop(ui: &Ui) {
    clear_background(BACKGROUND);
    draw_texture_ex(
        &ui.sprites.background,
        0.0,
        0.0,
        Color::new(1.0, 1.0, 1.0, 0.55),
        DrawTextureParams {
            dest_size: Some(vec2(screen_width(), screen_height())),
            ..Default::default()
        },
    );
}

fn nav_up() -> bool {
    pressed(KeyCode::Up) || pressed(KeyCode::W)
}

fn nav_down() -> bool {
    pressed(KeyCode::Down) || pressed(KeyCode::S)
}

fn confirm() -> bool {
    pressed(KeyCode::Enter) || pressed(KeyCode::KpEnter) || pressed(KeyCode::Space)
}

/// Row rectangles of a list starting at `top`.
fn row_rect(i: usize, top: f32, height: f32, width: f32) -> Rect {
    Rect::new(
        (screen_width() - width) / 2.0,
        top + i as f32 * height,
        width,
        height,
    )
}

/// A vertical list; Up/Down or the mouse move, Enter/Space or a click pick,
/// Esc goes back. `details` are drawn small under the title.
pub async fn choose(
    ui: &mut Ui,
    title: &str,
    details: &[String],
    items: &[String],
    mut selected: usize,
    capture: Option<&Screenshot>,
) -> Picked {
    enter_screen();
    let mut drawn = 0u32;
    let scale = if items.len() > 9 { 2.0 } else { 3.0 };
    let row_h = BitmapFont::line_height(scale) + 12.0;
    // Long lists scroll to keep the selection visible.
    let visible = (((screen_height() - 300.0) / row_h) as usize).max(3);
    loop {
        ui.audio.update().await;
        if items.is_empty() {
            if pressed(KeyCode::Escape) || confirm() || clicked(MouseButton::Left) {
                return Picked::Back;
            }
        } else {
            let before = selected;
            if nav_up() {
                selected = (selected + items.len() - 1) % items.len();
            }
            if nav_down() {
                selected = (selected + 1) % items.len();
            }
            if pressed(KeyCode::Escape) {
                return Picked::Back;
            }
            if confirm() {
                ui.audio.play(Cue::MenuSelect);
                return Picked::Item(selected);
            }
            for (keys, step) in [
                ([KeyCode::Left, KeyCode::A], -1),
                ([KeyCode::Right, KeyCode::D], 1),
            ] {
                if keys.into_iter().any(pressed) {
                    ui.audio.play(Cue::MenuMove);
                    return Picked::Adjust(selected, step);
                }
            }
            let first = selected.saturating_sub(visible - 1);
            let (mx, my) = mouse_position();
            let top = 180.0 + details.len() as f32 * 28.0;
            for (row, i) in (first..items.len().min(first + visible)).enumerate() {
                if row_rect(row, top, row_h, 900.0).contains(vec2(mx, my)) {
                    if mouse_delta_position() != Vec2::ZERO {
                        selected = i;
                    }
                    if clicked(MouseButton::Left) {
                        ui.audio.play(Cue::MenuSelect);
                        return Picked::Item(i);
                    }
                }
            }
            if selected != before {
                ui.audio.play(Cue::MenuMove);
            }
        }
        backdrop(ui);
        let font = &ui.sprites.font;
        let cx = screen_width() / 2.0;
        font.draw_shadowed(title, cx, 50.0, 8.0, WHITE, Align::Center);
        for (i, line) in details.iter().enumerate() {
            font.draw(line, cx, 150.0 + i as f32 * 28.0, 2.0, HINT, Align::Center);
        }
        let top = 180.0 + details.len() as f32 * 28.0;
        if items.is_empty() {
            font.draw(
                "(nothing here yet)",
                cx,
                top + 20.0,
                3.0,
                ITEM,
                Align::Center,
            );
        }
        let first = selected.saturating_sub(visible - 1);
        for (row, i) in (first..items.len().min(first + visible)).enumerate() {
            let r = row_rect(row, top, row_h, 900.0);
            if i == selected {
                draw_rectangle(r.x, r.y, r.w, r.h - 4.0, Color::new(0.2, 0.25, 0.5, 0.6));
            }
            let color = if i == selected { SELECTED } else { ITEM };
            font.draw(&items[i], cx, r.y + 6.0, scale, color, Align::Center);
        }
        font.draw(
            "Up/Down or mouse: choose   Enter or click: pick   Esc: back",
            cx,
            screen_height() - 40.0,
            2.0,
            HINT,
            Align::Center,
        );
        drawn += 1;
        if let Some(shot) = capture
            && drawn >= shot.after_frames
        {
            return Picked::Captured(save_screenshot(&shot.path));
        }
        end_frame().await;
    }
}

/// A one-line text field (typing, Backspace, Ctrl+V pastes). `check`
/// explains what is wrong with the text, shown under the field; Enter
/// submits only valid text. `None` when the player pressed Esc.
pub async fn text_prompt(
    ui: &mut Ui,
    title: &str,
    hint: &str,
    initial: &str,
    check: impl Fn(&str) -> Result<(), String>,
) -> Option<String> {
    let mut text = initial.to_string();
    let mut error: Option<String> = None;
    enter_screen();
    // Drop characters typed before this screen (the Enter that opened it).
    while get_char_pressed().is_some() {}
    loop {
        ui.audio.update().await;
        if pressed(KeyCode::Escape) {
            return None;
        }
        let ctrl = is_key_down(KeyCode::LeftControl) || is_key_down(KeyCode::RightControl);
        if ctrl && pressed(KeyCode::V) {
            if let Some(pasted) = macroquad::miniquad::window::clipboard_get() {
                text.extend(pasted.chars().filter(|c| !c.is_control()).take(200));
            }
        }
        while let Some(c) = get_char_pressed() {
            if !c.is_control() && !ctrl && text.chars().count() < 200 {
                text.push(c);
                error = None;
            }
        }
        if pressed(KeyCode::Backspace) {
            text.pop();
            error = None;
        }
        if pressed(KeyCode::Enter) || pressed(KeyCode::KpEnter) {
            match check(&text) {
                Ok(()) => {
                    ui.audio.play(Cue::MenuSelect);
                    return Some(text);
                }
                Err(e) => error = Some(e),
            }
        }
        backdrop(ui);
        let font = &ui.sprites.font;
        let cx = screen_width() / 2.0;
        font.draw_shadowed(title, cx, 80.0, 6.0, WHITE, Align::Center);
        font.draw(hint, cx, 200.0, 2.0, HINT, Align::Center);
        let field = Rect::new(cx - 450.0, 260.0, 900.0, 80.0);
        draw_rectangle(
            field.x,
            field.y,
            field.w,
            field.h,
            Color::new(0.0, 0.0, 0.0, 0.6),
        );
        draw_rectangle_lines(field.x, field.y, field.w, field.h, 2.0, SELECTED);
        let cursor = if (get_time() * 2.0) as i64 % 2 == 0 {
            "_"
        } else {
            " "
        };
        let shown: String = text
            .chars()
            .rev()
            .take(70)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let scale = if shown.chars().count() > 22 { 2.0 } else { 6.0 };
        font.draw(
            &format!("{shown}{cursor}"),
            cx,
            field.y + 10.0,
            scale,
            WHITE,
            Align::Center,
        );
        if let Some(e) = &error {
            font.draw(
                e,
                cx,
                370.0,
                2.0,
                Color::new(1.0, 0.45, 0.45, 1.0),
                Align::Center,
            );
        }
        font.draw(
            "Enter: go   Ctrl+V: paste   Esc: back",
            cx,
            screen_height() - 40.0,
            2.0,
            HINT,
            Align::Center,
        );
        end_frame().await;
    }
}

/// A message with a title (an error, a result) until Enter, Esc or a click.
pub async fn message(
    ui: &mut Ui,
    title: &str,
    lines: &[String],
    capture: Option<&Screenshot>,
) -> Option<Result<(), String>> {
    enter_screen();
    let mut drawn = 0u32;
    loop {
        ui.audio.update().await;
        if pressed(KeyCode::Escape) || pressed(KeyCode::Enter) || clicked(MouseButton::Left) {
            return None;
        }
        backdrop(ui);
        let font = &ui.sprites.font;
        let cx = screen_width() / 2.0;
        font.draw_shadowed(
            title,
            cx,
            120.0,
            5.0,
            Color::new(1.0, 0.5, 0.45, 1.0),
            Align::Center,
        );
        let mut y = 240.0;
        for line in lines {
            for part in wrap(line, 70) {
                font.draw(&part, cx, y, 2.0, WHITE, Align::Center);
                y += 30.0;
            }
            y += 10.0;
        }
        font.draw(
            "Enter or Esc: back to the menu",
            cx,
            screen_height() - 40.0,
            2.0,
            HINT,
            Align::Center,
        );
        drawn += 1;
        if let Some(shot) = capture
            && drawn >= shot.after_frames
        {
            return Some(save_screenshot(&shot.path));
        }
        end_frame().await;
    }
}

/// Greedy word wrap at `width` characters.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let line = lines.last_mut().expect("never empty");
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

/// The settings editor. Returns the edited settings when the player chose
/// "Save", `None` for "Back without saving" or Esc.
pub async fn settings_screen(ui: &mut Ui, settings: &Settings) -> Option<Settings> {
    let mut s = settings.clone();
    let mut selected = 0usize;
    loop {
        // Rows: server, delay, volume, overlay, 7 keys x 2 players, save, cancel.
        let mut rows = vec![
            format!(
                "server: {}",
                s.server().unwrap_or("this machine (host starts one)")
            ),
            format!("input delay: {}", s.input_delay),
            format!("volume: {}%", s.volume),
            format!(
                "network overlay: {}",
                if s.net_overlay { "on" } else { "off" }
            ),
        ];
        for (p, keys) in [&s.player_one, &s.player_two].into_iter().enumerate() {
            for (action, name) in KeyMap::ACTIONS.iter().zip(keys.names()) {
                rows.push(format!("P{} {action}: {name}", p + 1));
            }
        }
        rows.push("Save".into());
        rows.push("Back without saving".into());
        let save_row = rows.len() - 2;
        let details = vec![
            "Enter or Left/Right change the selected row (a key row waits for the new key)"
                .to_string(),
            format!(
                "file: {}",
                crate::settings::settings_path().map_or_else(
                    || "(no config directory)".into(),
                    |p| p.display().to_string()
                )
            ),
        ];
        match choose(ui, "SETTINGS", &details, &rows, selected, None).await {
            Picked::Back | Picked::Captured(_) => return None,
            Picked::Adjust(i, step) => {
                selected = i;
                step_value_row(&mut s, i, step, false);
            }
            Picked::Item(i) if i == save_row => return Some(s),
            Picked::Item(i) if i == save_row + 1 => return None,
            Picked::Item(i) => {
                selected = i;
                match i {
                    ROW_SERVER => {
                        let check = |t: &str| {
                            let t = t.trim();
                            if t.is_empty() || t.starts_with("ws://") || t.starts_with("wss://") {
                                Ok(())
                            } else {
                                Err(
                                    "the server starts with ws:// or wss:// (empty: this machine)"
                                        .to_string(),
                                )
                            }
                        };
                        if let Some(text) = text_prompt(
                            ui,
                            "SERVER",
                            "signaling server, e.g. ws://192.168.1.20:3536 (empty: this machine)",
                            &s.server,
                            check,
                        )
                        .await
                        {
                            s.server = text.trim().to_string();
                        }
                    }
                    ROW_DELAY..=ROW_OVERLAY => step_value_row(&mut s, i, 1, true),
                    _ => {
                        let k = i - FIRST_KEY_ROW;
                        let (player, action) = (k / 7, k % 7);
                        if let Some(key) =
                            press_a_key(ui, &format!("P{} {}", player + 1, KeyMap::ACTIONS[action]))
                                .await
                        {
                            let keys = if player == 0 {
                                &mut s.player_one
                            } else {
                                &mut s.player_two
                            };
                            keys.set(action, key);
                        }
                    }
                }
            }
        }
    }
}

// Rows of the settings screen before the key bindings.
const ROW_SERVER: usize = 0;
const ROW_DELAY: usize = 1;
const ROW_VOLUME: usize = 2;
const ROW_OVERLAY: usize = 3;
const FIRST_KEY_ROW: usize = 4;

/// Changes a row that holds a value: Enter (`wrap`) goes round, Left/Right
/// stop at the ends (the overlay: Left off, Right on).
fn step_value_row(s: &mut Settings, row: usize, step: i32, wrap: bool) {
    match row {
        ROW_DELAY => s.step_delay(step, wrap),
        ROW_VOLUME => s.step_volume(step, wrap),
        ROW_OVERLAY => s.net_overlay = if wrap { !s.net_overlay } else { step > 0 },
        _ => {}
    }
}

async fn press_a_key(ui: &mut Ui, what: &str) -> Option<KeyCode> {
    // Ignore the Enter that opened this.
    end_frame().await;
    loop {
        if pressed(KeyCode::Escape) {
            return None;
        }
        if let Some(key) = get_last_key_pressed()
            && BINDABLE_KEYS.contains(&key)
        {
            return Some(key);
        }
        backdrop(ui);
        let font = &ui.sprites.font;
        let cx = screen_width() / 2.0;
        font.draw_shadowed(
            &format!("press a key for {what}"),
            cx,
            300.0,
            4.0,
            WHITE,
            Align::Center,
        );
        font.draw(
            "Esc: keep the old key",
            cx,
            screen_height() - 40.0,
            2.0,
            HINT,
            Align::Center,
        );
        end_frame().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_keeps_words_and_width() {
        let lines = wrap("the other player runs a different version of twinstar", 20);
        assert!(lines.iter().all(|l| l.len() <= 20), "{lines:?}");
        assert_eq!(
            lines.join(" "),
            "the other player runs a different version of twinstar"
        );
    }
}
