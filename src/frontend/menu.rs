//! Menu screens: a list to pick from (keyboard and mouse), a text prompt,
//! a message box and the settings editor. Each returns what the player
//! chose; `app::menu` decides where that leads.

use macroquad::prelude::*;

use super::assets::Align;
use super::audio::Cue;
use super::keys::{clicked, end_frame, enter_screen, pressed};
use super::music::Track;
use super::text::{edit_text, pick_chars, take_chars_after_enter, wrap};
use super::ui::{Screenshot, Ui, backdrop, save_screenshot};
use super::ui_layout::{Text, char_width, chars_in, line_height};
use crate::platform::text_field::TextField;
use crate::settings::{Action, BINDABLE_KEYS, PadAction, Settings, key_name};
use twinstar_netcode::signaling::{PlayerName, check_server_url};

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

fn nav_up() -> bool {
    pressed(KeyCode::Up) || pressed(KeyCode::W)
}

fn nav_down() -> bool {
    pressed(KeyCode::Down) || pressed(KeyCode::S)
}

fn confirm() -> bool {
    pressed(KeyCode::Enter) || pressed(KeyCode::KpEnter) || pressed(KeyCode::Space)
}

/// Where a list screen puts its title, details, rows and hints on a
/// `w`×`h` screen at interface scale `ui`: fixed for the screen's life,
/// except the scroll position, which follows the selection. Plain data
/// (tested at every scale on every screen in `ui_layout`'s tests).
#[derive(Clone, Debug)]
pub struct ListLayout {
    w: f32,
    ui: f32,
    title_scale: f32,
    /// Scale of the details and the hints (smaller on a short screen).
    small: f32,
    detail_y: f32,
    detail_step: f32,
    /// Details that fit above the rows (the first ones).
    details_shown: usize,
    scale: f32,
    row_h: f32,
    row_w: f32,
    /// Rows that fit; long lists scroll to keep the selection visible.
    visible: usize,
    /// Top of the first row (below the title and details).
    top: f32,
    /// The hint lines' tops, the keys' above the pads'.
    hint_y: [f32; 2],
}

const KEYS_HINT: &str = "Up/Down or mouse: choose   Enter or click: pick   Esc: back";

impl ListLayout {
    fn new(title: &str, details: usize, items: usize) -> ListLayout {
        let ui = super::look::get().ui_scale;
        ListLayout::for_screen(screen_width(), screen_height(), ui, details, items, title)
    }

    /// The layout of a list with `details` lines and `items` rows under
    /// `title`: the title as large as fits (up to 8), two hint lines at
    /// the bottom, and as many rows as fit between.
    pub fn for_screen(
        w: f32,
        h: f32,
        ui: f32,
        details: usize,
        items: usize,
        title: &str,
    ) -> ListLayout {
        let title_w = |s: f32| title.chars().count() as f32 * char_width(s, ui);
        let title_scale = [8.0, 6.0, 5.0, 4.0, 3.0]
            .into_iter()
            .find(|&s| title_w(s) <= w - 16.0 && line_height(s, ui) <= h * 0.16)
            .unwrap_or(2.0);
        let title_y = (h * 0.05).min(50.0);
        let small = if h < 500.0 { 1.0 } else { 2.0 };
        let detail_step = line_height(small, ui) * 1.25;
        let detail_y = title_y + line_height(title_scale, ui) + 12.0;
        let hint_step = line_height(small, ui) * 1.3;
        let hint_y = [h - 12.0 - hint_step, h - 12.0 - 2.0 * hint_step];
        // Room for three rows at the least: details beyond it are left out.
        let least_rows = 3.0 * (line_height(2.0, ui) + 12.0);
        let details_shown = (0..=details)
            .rev()
            .find(|&n| detail_y + n as f32 * detail_step + 12.0 + least_rows <= hint_y[1] - 8.0)
            .unwrap_or(0);
        let top = detail_y + details_shown as f32 * detail_step + 12.0;
        let room = hint_y[1] - 8.0 - top;
        // Smaller rows, then tighter ones, before scrolling.
        let first = if items > 9 { 2.0 } else { 3.0 };
        let row_h = |(scale, pad): (f32, f32)| line_height(scale, ui) + pad;
        let (scale, pad) = [
            (3.0, 12.0),
            (2.5, 12.0),
            (2.0, 12.0),
            (2.0, 6.0),
            (1.5, 4.0),
            (1.0, 4.0),
        ]
        .into_iter()
        .filter(|&(s, _)| s <= first)
        .find(|&size| room / row_h(size) >= items as f32)
        .unwrap_or((1.5, 4.0));
        ListLayout {
            w,
            ui,
            title_scale,
            small,
            detail_y,
            detail_step,
            details_shown,
            scale,
            row_h: row_h((scale, pad)),
            row_w: 900.0_f32.min(w - 16.0),
            visible: ((room / row_h((scale, pad))) as usize).max(1),
            top,
            hint_y,
        }
    }

    /// (item index, rectangle) of the items shown while `selected` is
    /// selected.
    fn rows(&self, selected: usize, items: usize) -> impl Iterator<Item = (usize, Rect)> + '_ {
        let first = selected.saturating_sub(self.visible - 1);
        (first..items.min(first + self.visible))
            .enumerate()
            .map(|(row, i)| {
                let y = self.top + row as f32 * self.row_h;
                (
                    i,
                    Rect::new((self.w - self.row_w) / 2.0, y, self.row_w, self.row_h),
                )
            })
    }

    /// The list's texts, placed: title, details, the rows shown, the
    /// hints (the pads' line when `pads` says which are connected).
    pub fn texts(
        &self,
        title: &str,
        details: &[String],
        items: &[String],
        selected: usize,
        pads: Option<&str>,
    ) -> Vec<Text> {
        let cx = self.w / 2.0;
        let text = |text: &str, y, scale: f32, color| Text {
            text: super::text::fit(text, chars_in(self.w - 16.0, scale, self.ui)),
            x: cx,
            y,
            scale,
            align: Align::Center,
            color,
        };
        let mut out = vec![text(
            title,
            (self.detail_y - 12.0 - line_height(self.title_scale, self.ui)).max(0.0),
            self.title_scale,
            WHITE,
        )];
        for (i, line) in details.iter().take(self.details_shown).enumerate() {
            let y = self.detail_y + i as f32 * self.detail_step;
            out.push(text(line, y, self.small, HINT));
        }
        if items.is_empty() {
            out.push(text("(nothing here yet)", self.top + 20.0, 3.0, ITEM));
        }
        for (i, r) in self.rows(selected, items.len()) {
            let color = if i == selected { SELECTED } else { ITEM };
            let y = r.y + (r.h - line_height(self.scale, self.ui)) / 2.0;
            let mut t = text(&items[i], y, self.scale, color);
            t.text = super::text::fit(&items[i], chars_in(self.row_w, self.scale, self.ui));
            out.push(t);
        }
        out.push(text(KEYS_HINT, self.hint_y[0], self.small, HINT));
        if let Some(pads) = pads {
            out.push(text(pads, self.hint_y[1], self.small, SELECTED));
        }
        out
    }
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
    // Every list is a menu screen: the menu's music (a match left its own
    // playing until the player is back here).
    ui.audio.play_music(Track::Menu);
    let mut drawn = 0u32;
    let layout = ListLayout::new(title, details.len(), items.len());
    loop {
        ui.audio.update();
        if let Some(picked) = list_input(ui, items.len(), &mut selected, &layout) {
            return picked;
        }
        draw_list(ui, title, details, items, selected, &layout);
        drawn += 1;
        if let Some(shot) = capture
            && drawn >= shot.after_frames
        {
            return Picked::Captured(save_screenshot(&shot.path));
        }
        end_frame().await;
    }
}

/// [`choose`] over a list that changes while it is shown (the server's
/// rooms): `read` gives this frame's details and items. The selection
/// stays on its row, within the list's length.
pub async fn choose_live(
    ui: &mut Ui,
    title: &str,
    mut read: impl FnMut() -> (Vec<String>, Vec<String>),
    capture: Option<&Screenshot>,
) -> Picked {
    enter_screen();
    ui.audio.play_music(Track::Menu);
    let mut drawn = 0u32;
    let mut selected = 0;
    loop {
        ui.audio.update();
        let (details, items) = read();
        selected = selected.min(items.len().saturating_sub(1));
        let layout = ListLayout::new(title, details.len(), items.len());
        if let Some(picked) = list_input(ui, items.len(), &mut selected, &layout) {
            return picked;
        }
        draw_list(ui, title, &details, &items, selected, &layout);
        drawn += 1;
        if let Some(shot) = capture
            && drawn >= shot.after_frames
        {
            return Picked::Captured(save_screenshot(&shot.path));
        }
        end_frame().await;
    }
}

/// This frame's keys and mouse on a list of `len` items: what was picked,
/// if anything; moves `selected`.
fn list_input(
    ui: &mut Ui,
    len: usize,
    selected: &mut usize,
    layout: &ListLayout,
) -> Option<Picked> {
    if len == 0 {
        let leave = pressed(KeyCode::Escape) || confirm() || clicked(MouseButton::Left);
        return leave.then_some(Picked::Back);
    }
    let before = *selected;
    if nav_up() {
        *selected = (*selected + len - 1) % len;
    }
    if nav_down() {
        *selected = (*selected + 1) % len;
    }
    if pressed(KeyCode::Escape) {
        return Some(Picked::Back);
    }
    if confirm() {
        ui.audio.play(Cue::MenuSelect);
        return Some(Picked::Item(*selected));
    }
    for (keys, step) in [
        ([KeyCode::Left, KeyCode::A], -1),
        ([KeyCode::Right, KeyCode::D], 1),
    ] {
        if keys.into_iter().any(pressed) {
            ui.audio.play(Cue::MenuMove);
            return Some(Picked::Adjust(*selected, step));
        }
    }
    let (mx, my) = mouse_position();
    for (i, rect) in layout.rows(*selected, len) {
        if rect.contains(vec2(mx, my)) {
            if mouse_delta_position() != Vec2::ZERO {
                *selected = i;
            }
            if clicked(MouseButton::Left) {
                ui.audio.play(Cue::MenuSelect);
                return Some(Picked::Item(i));
            }
        }
    }
    if *selected != before {
        ui.audio.play(Cue::MenuMove);
    }
    None
}

fn draw_list(
    ui: &Ui,
    title: &str,
    details: &[String],
    items: &[String],
    selected: usize,
    layout: &ListLayout,
) {
    backdrop(ui);
    if let Some((_, r)) = layout
        .rows(selected, items.len())
        .find(|(i, _)| *i == selected)
    {
        draw_rectangle(r.x, r.y, r.w, r.h - 4.0, Color::new(0.2, 0.25, 0.5, 0.6));
    }
    // Read live, so a pad plugged in while the menu is open shows at once.
    let pads = super::pads::connected();
    let pads = (!pads.is_empty()).then(|| {
        format!(
            "gamepad{}: {}  -  d-pad/stick choose, A pick, B back",
            if pads.len() > 1 { "s" } else { "" },
            pads.join(", ")
        )
    });
    for (i, text) in layout
        .texts(title, details, items, selected, pads.as_deref())
        .iter()
        .enumerate()
    {
        // The title is shadowed, the rest drawn plain.
        if i == 0 {
            text.draw(&ui.sprites.font);
        } else {
            ui.sprites.font.draw(
                &text.text, text.x, text.y, text.scale, text.color, text.align,
            );
        }
    }
}

/// Longest text a prompt takes.
const PROMPT_MAX_CHARS: usize = 200;

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
    // What was typed after the Enter that opened this screen is its text's.
    let room = PROMPT_MAX_CHARS.saturating_sub(text.chars().count());
    text.push_str(&take_chars_after_enter(room));
    // In the page, a real input element too: a phone types into it with
    // its own keyboard. Its value and the game's text are kept equal.
    // Natively there is none (`show` is `None`).
    let field = TextField::show(&text, title);
    loop {
        ui.audio.update();
        let mut field_key: Option<String> = None;
        if let Some(f) = &field {
            let typed: String = f.value().chars().take(PROMPT_MAX_CHARS).collect();
            if typed != text {
                text = typed;
                error = None;
            }
            field_key = f.take_key();
        }
        if pressed(KeyCode::Escape) || field_key.as_deref() == Some("Escape") {
            return None;
        }
        if edit_text(&mut text, PROMPT_MAX_CHARS) || pick_chars(&mut text, PROMPT_MAX_CHARS) {
            error = None;
        }
        if let Some(f) = &field {
            f.set_value(&text);
        }
        if pressed(KeyCode::Enter)
            || pressed(KeyCode::KpEnter)
            || field_key.as_deref() == Some("Enter")
        {
            match check(&text) {
                Ok(()) => {
                    ui.audio.play(Cue::MenuSelect);
                    return Some(text);
                }
                Err(e) => error = Some(e),
            }
        }
        draw_prompt(ui, title, hint, &text, error.as_deref());
        end_frame().await;
    }
}

fn draw_prompt(ui: &Ui, title: &str, hint: &str, text: &str, error: Option<&str>) {
    backdrop(ui);
    let font = &ui.sprites.font;
    let cx = screen_width() / 2.0;
    font.draw_shadowed(title, cx, 80.0, 6.0, WHITE, Align::Center);
    font.draw(hint, cx, 200.0, 2.0, HINT, Align::Center);
    if !super::pads::connected().is_empty() {
        let pad =
            "gamepad: up/down pick a character, right adds one, left deletes, A enters, B back";
        font.draw(pad, cx, 228.0, 2.0, HINT, Align::Center);
    }
    let field = Rect::new(cx - 450.0, 260.0, 900.0, 80.0);
    let shade = Color::new(0.0, 0.0, 0.0, 0.6);
    draw_rectangle(field.x, field.y, field.w, field.h, shade);
    draw_rectangle_lines(field.x, field.y, field.w, field.h, 2.0, SELECTED);
    let cursor = if (get_time() * 2.0) as i64 % 2 == 0 {
        "_"
    } else {
        " "
    };
    // The end of a long text, where the typing happens.
    let skip = text.chars().count().saturating_sub(70);
    let shown: String = text.chars().skip(skip).collect();
    let scale = if shown.chars().count() > 22 { 2.0 } else { 6.0 };
    let line = format!("{shown}{cursor}");
    font.draw(&line, cx, field.y + 10.0, scale, WHITE, Align::Center);
    if let Some(e) = error {
        let red = Color::new(1.0, 0.45, 0.45, 1.0);
        font.draw(e, cx, 370.0, 2.0, red, Align::Center);
    }
    font.draw(
        "Enter: go   Ctrl+V: paste   Esc: back",
        cx,
        screen_height() - 40.0,
        2.0,
        HINT,
        Align::Center,
    );
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
        ui.audio.update();
        if pressed(KeyCode::Escape) || pressed(KeyCode::Enter) || clicked(MouseButton::Left) {
            return None;
        }
        draw_message(ui, title, lines, "Enter or Esc: back to the menu");
        drawn += 1;
        if let Some(shot) = capture
            && drawn >= shot.after_frames
        {
            return Some(save_screenshot(&shot.path));
        }
        end_frame().await;
    }
}

/// A message shown while something happens elsewhere: until `poll` gives
/// its outcome (`Some`), or the player presses Esc (`None`).
pub async fn message_while<T>(
    ui: &mut Ui,
    title: &str,
    lines: &[String],
    mut poll: impl FnMut() -> Option<T>,
) -> Option<T> {
    enter_screen();
    loop {
        ui.audio.update();
        if let Some(outcome) = poll() {
            return Some(outcome);
        }
        if pressed(KeyCode::Escape) {
            return None;
        }
        draw_message(ui, title, lines, "Esc: skip");
        end_frame().await;
    }
}

/// One frame of a message screen: the title, the lines (wrapped), a hint.
fn draw_message(ui: &Ui, title: &str, lines: &[String], hint: &str) {
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
    font.draw(hint, cx, screen_height() - 40.0, 2.0, HINT, Align::Center);
}

/// One row of the settings screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Row {
    Server,
    Name,
    Delay,
    Reconnect,
    Volume,
    MusicVolume,
    Overlay,
    Chat,
    ColourBlind,
    UiScale,
    ReducedMotion,
    Upload,
    /// A binding of player 0 or 1.
    Key(usize, Action),
    DeadZone,
    Pad(PadAction),
    KeyboardFirst,
    Save,
    Cancel,
}

impl Row {
    fn all() -> Vec<Row> {
        let keys = (0..2).flat_map(|p| Action::ALL.map(|a| Row::Key(p, a)));
        [
            Row::Server,
            Row::Name,
            Row::Delay,
            Row::Reconnect,
            Row::Volume,
            Row::MusicVolume,
            Row::Overlay,
            Row::Chat,
            Row::ColourBlind,
            Row::UiScale,
            Row::ReducedMotion,
            Row::Upload,
        ]
        .into_iter()
        .chain(keys)
        .chain([Row::DeadZone])
        .chain(PadAction::ALL.map(Row::Pad))
        .chain([Row::KeyboardFirst, Row::Save, Row::Cancel])
        .collect()
    }

    fn label(self, s: &Settings) -> String {
        match self {
            Row::Server => format!(
                "server: {}",
                s.server().unwrap_or("this machine (host starts one)")
            ),
            Row::Name => format!(
                "name: {}",
                s.name().map_or("none yet".to_string(), |n| n.to_string())
            ),
            Row::Delay => format!("input delay: {}", s.input_delay),
            Row::Reconnect => match s.reconnect_window {
                0 => "wait for a lost player: no (2 s)".into(),
                secs => format!("wait for a lost player: {secs} s"),
            },
            Row::Volume => format!("volume: {}%", s.volume),
            Row::MusicVolume => format!("music volume: {}%", s.music_volume),
            Row::Overlay => on_off("network overlay", s.net_overlay),
            Row::Chat => on_off("chat (Enter in a match)", s.chat),
            Row::ColourBlind => on_off("colour-blind palette and shapes", s.colour_blind),
            Row::UiScale => format!("interface scale: {}%", s.ui_scale),
            Row::ReducedMotion => on_off("reduced motion (no shake or flashes)", s.reduced_motion),
            Row::Upload => on_off("rank my online matches (upload the replay)", s.upload),
            Row::Key(p, action) => {
                let keys = if p == 0 { &s.player_one } else { &s.player_two };
                // An older file has no bomb key: the player's default plays.
                let key = match action {
                    Action::Bomb => s.keymaps()[p].bomb,
                    action => keys.get(action),
                };
                format!("P{} {}: {}", p + 1, action.name(), key_name(key))
            }
            Row::DeadZone => format!("pad dead zone: {}%", s.pad.dead_zone),
            Row::Pad(action) => format!("pad {}: {}", action.name(), action.buttons(&s.pad)),
            Row::KeyboardFirst => format!(
                "local match: first pad plays {}",
                if s.pad.keyboard_is_player_one {
                    "P2 (keyboard is P1)"
                } else {
                    "P1"
                }
            ),
            Row::Save => "Save".into(),
            Row::Cancel => "Back without saving".into(),
        }
    }
}

/// The settings editor. Returns the edited settings when the player chose
/// "Save", `None` for "Back without saving" or Esc.
pub async fn settings_screen(ui: &mut Ui, settings: &Settings) -> Option<Settings> {
    let mut s = settings.clone();
    let rows = Row::all();
    let pads = super::pads::connected();
    let details = vec![
        "Enter or Left/Right change the selected row (a key row waits for the new key)".to_string(),
        if pads.is_empty() {
            "gamepads: none connected".to_string()
        } else {
            format!("gamepads: {}", pads.join(", "))
        },
        format!("kept in: {}", crate::platform::records::settings_place()),
    ];
    let mut selected = 0usize;
    loop {
        let labels: Vec<String> = rows.iter().map(|row| row.label(&s)).collect();
        match choose(ui, "SETTINGS", &details, &labels, selected, None).await {
            Picked::Back | Picked::Captured(_) => {
                super::look::set(settings.into());
                ui.audio.set_music_volume(settings.music_volume);
                return None;
            }
            Picked::Adjust(i, step) => {
                selected = i;
                step_value_row(&mut s, rows[i], step, false);
                // Seen at once: the scale and palette on this very screen;
                // heard at once: the music playing behind it.
                super::look::set((&s).into());
                ui.audio.set_music_volume(s.music_volume);
            }
            Picked::Item(i) => {
                selected = i;
                match rows[i] {
                    Row::Save => return Some(s),
                    Row::Cancel => {
                        super::look::set(settings.into());
                        ui.audio.set_music_volume(settings.music_volume);
                        return None;
                    }
                    Row::Server => {
                        if let Some(text) = server_prompt(ui, &s.server).await {
                            s.server = text;
                        }
                    }
                    Row::Name => {
                        if let Some(name) = name_prompt(ui, &s.name).await {
                            s.name = name.to_string();
                        }
                    }
                    Row::Key(p, action) => {
                        let what = format!("P{} {}", p + 1, action.name());
                        if let Some(key) = press_a_key(ui, &what).await {
                            s.keys_mut(p).set(action, key);
                        }
                    }
                    row => {
                        step_value_row(&mut s, row, 1, true);
                        super::look::set((&s).into());
                        ui.audio.set_music_volume(s.music_volume);
                    }
                }
            }
        }
    }
}

/// Asks for the signaling server; checked by the same rule as `--server`.
/// Returns it normalised (empty: this machine), `None` on Esc.
async fn server_prompt(ui: &mut Ui, now: &str) -> Option<String> {
    let check = |t: &str| match t.trim() {
        "" => Ok(()),
        url => check_server_url(url).map(|_| ()).map_err(|e| e.to_string()),
    };
    let hint = "signaling server, e.g. ws://192.168.1.20:3536 (empty: this machine)";
    let text = text_prompt(ui, "SERVER", hint, now, check).await?;
    Some(check_server_url(&text).unwrap_or_default())
}

/// Asks for the player's display name (1 to 16 letters, digits, spaces,
/// `_` and `-`), checked as the server checks it; `None` on Esc.
pub async fn name_prompt(ui: &mut Ui, now: &str) -> Option<PlayerName> {
    let check = |t: &str| PlayerName::parse(t).map(|_| ()).map_err(|e| e.to_string());
    let hint = "your name in public rooms: 1-16 letters, digits, spaces, _ and - (not an identity)";
    let text = text_prompt(ui, "NAME", hint, now, check).await?;
    PlayerName::parse(&text).ok()
}

/// A switch's row: `label: on` or `label: off`.
fn on_off(label: &str, on: bool) -> String {
    format!("{label}: {}", if on { "on" } else { "off" })
}

/// A switch stepped: Enter (`wrap`) flips it, Right turns it on, Left off.
fn toggle(on: &mut bool, step: i32, wrap: bool) {
    *on = if wrap { !*on } else { step > 0 };
}

/// Changes a row that holds a value: Enter (`wrap`) goes round, Left/Right
/// stop at the ends (the overlay and chat: Left off, Right on).
fn step_value_row(s: &mut Settings, row: Row, step: i32, wrap: bool) {
    match row {
        Row::Delay => s.step_delay(step, wrap),
        Row::Reconnect => s.step_reconnect_window(step, wrap),
        Row::Volume => s.step_volume(step, wrap),
        Row::MusicVolume => s.step_music_volume(step, wrap),
        Row::Overlay => toggle(&mut s.net_overlay, step, wrap),
        Row::Chat => toggle(&mut s.chat, step, wrap),
        Row::ColourBlind => toggle(&mut s.colour_blind, step, wrap),
        Row::UiScale => s.step_ui_scale(step, wrap),
        Row::ReducedMotion => toggle(&mut s.reduced_motion, step, wrap),
        Row::Upload => toggle(&mut s.upload, step, wrap),
        Row::DeadZone => s.pad.step_dead_zone(step, wrap),
        Row::Pad(action) => s.pad.step_button(action, step, wrap),
        Row::KeyboardFirst => toggle(&mut s.pad.keyboard_is_player_one, step, wrap),
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
    fn settings_rows_name_every_binding_once() {
        let rows = Row::all();
        // 12 values (server, name, delay, reconnect, volume, music volume,
        // overlay, chat, colour-blind palette, interface scale, reduced
        // motion, upload), the
        // keys, the dead zone, the pad buttons, who the first pad is,
        // save, back.
        assert_eq!(
            rows.len(),
            12 + 2 * Action::ALL.len() + 1 + PadAction::ALL.len() + 1 + 2
        );
        let s = Settings::default();
        let labels: Vec<String> = rows.iter().map(|r| r.label(&s)).collect();
        assert!(labels.contains(&"P1 fire: Space".to_string()), "{labels:?}");
        assert!(labels.contains(&"name: none yet".to_string()), "{labels:?}");
        assert!(labels.contains(&"P2 start: Key2".to_string()), "{labels:?}");
        assert!(
            labels.contains(&"P2 bomb: RightControl".to_string()),
            "{labels:?}"
        );
        assert!(
            labels.contains(&"interface scale: 100%".to_string()),
            "{labels:?}"
        );
        assert!(
            labels.contains(&"pad fire: a / rt".to_string()),
            "{labels:?}"
        );
        assert!(
            labels.contains(&"pad dead zone: 25%".to_string()),
            "{labels:?}"
        );
        assert!(
            labels.contains(&"chat (Enter in a match): on".to_string()),
            "{labels:?}"
        );
        assert_eq!(rows.last(), Some(&Row::Cancel));
    }

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
