//! The menu a match opens over itself: **pause** where nobody else plays
//! (solo, local: the clock stops, `Match::pause`), and **"leave the
//! match?"** online, where the other player's game runs on behind it. Esc,
//! a pad's B/Back or Start, or the touch screen's menu button open it; a
//! pad's B alone never ends a match. The choice logic is plain data
//! ([`MatchMenu::step`]); drawing and reading the devices come after it.

use macroquad::prelude::*;

use super::assets::{Align, BitmapFont};
use super::keys::{clicked, pad_pressed, pressed};
use super::ui_layout::{Text, char_width, chars_in, line_height};

/// Which menu: decided by whether the match can pause.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MenuKind {
    /// Solo and local: the simulation stops while it is open.
    Pause,
    /// Online (and watching): the match keeps running behind it.
    Leave,
}

/// What the player chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    Resume,
    Settings,
    Controls,
    Leave,
}

/// One move of the menu, from whichever device made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    Up,
    Down,
    Confirm,
    /// Esc or B: back to the match.
    Back,
    /// A tap or click on row `i`.
    Row(usize),
}

const PAUSE_ITEMS: [(&str, Choice); 4] = [
    ("RESUME", Choice::Resume),
    ("SETTINGS", Choice::Settings),
    ("CONTROLS", Choice::Controls),
    ("LEAVE THE MATCH", Choice::Leave),
];

const LEAVE_ITEMS: [(&str, Choice); 3] = [
    ("KEEP PLAYING", Choice::Resume),
    ("CONTROLS", Choice::Controls),
    ("LEAVE THE MATCH", Choice::Leave),
];

/// The open menu and its selected row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchMenu {
    pub kind: MenuKind,
    selected: usize,
}

impl MatchMenu {
    /// Opens on its first row (resume, keep playing): a second press of
    /// the key that opened it never leaves by accident.
    pub fn open(kind: MenuKind) -> MatchMenu {
        MatchMenu { kind, selected: 0 }
    }

    pub fn title(&self) -> &'static str {
        match self.kind {
            MenuKind::Pause => "PAUSED",
            MenuKind::Leave => "LEAVE THE MATCH?",
        }
    }

    /// A line under the title.
    pub fn detail(&self) -> &'static str {
        match self.kind {
            MenuKind::Pause => "the match waits for you",
            MenuKind::Leave => "the match keeps running while this is open",
        }
    }

    pub fn items(&self) -> &'static [(&'static str, Choice)] {
        match self.kind {
            MenuKind::Pause => &PAUSE_ITEMS,
            MenuKind::Leave => &LEAVE_ITEMS,
        }
    }

    pub fn selected(&self) -> usize {
        self.selected
    }

    /// Applies one move; a choice when the move made one.
    pub fn step(&mut self, m: Move) -> Option<Choice> {
        let n = self.items().len();
        match m {
            Move::Up => self.selected = (self.selected + n - 1) % n,
            Move::Down => self.selected = (self.selected + 1) % n,
            Move::Confirm => return Some(self.items()[self.selected].1),
            Move::Back => return Some(Choice::Resume),
            Move::Row(i) if i < n => {
                self.selected = i;
                return Some(self.items()[i].1);
            }
            Move::Row(_) => {}
        }
        None
    }
}

/// Whether the player asked for the match's menu this frame: Esc (a
/// pad's B or Back arrive as Esc), or a pad's Start while the game runs
/// (at game over Start is the rematch).
pub fn opened(game_over: bool) -> bool {
    pressed(KeyCode::Escape)
        || (!game_over && super::pads::just_pressed(crate::input::pad::PadButton::Start))
}

/// This frame's moves in an open menu: keys, pads, and taps on its rows.
pub fn moves(menu: &MatchMenu) -> Vec<Move> {
    let key = |k| pressed(k) || pad_pressed(k);
    let mut out = Vec::new();
    if key(KeyCode::Up) || pressed(KeyCode::W) {
        out.push(Move::Up);
    }
    if key(KeyCode::Down) || pressed(KeyCode::S) {
        out.push(Move::Down);
    }
    if key(KeyCode::Enter) || pressed(KeyCode::Space) || pressed(KeyCode::KpEnter) {
        out.push(Move::Confirm);
    }
    if key(KeyCode::Escape) {
        out.push(Move::Back);
    }
    if clicked(MouseButton::Left) {
        let at: Vec2 = mouse_position().into();
        let (panel, rows, _) = placed(
            menu,
            screen_width(),
            screen_height(),
            super::look::get().ui_scale,
        );
        if let Some(i) = rows.iter().position(|r| r.contains(at)) {
            out.push(Move::Row(i));
        } else if !panel.contains(at) {
            // A tap beside the menu closes it, as beside any dialog.
            out.push(Move::Back);
        }
    }
    out
}

/// Row text scale, and the panel's widest size.
const ROW_SCALE: f32 = 3.0;
const PANEL_MAX_W: f32 = 560.0;

/// The title's scale: smaller when it would not fit the panel.
fn title_scale(menu: &MatchMenu, panel_w: f32, ui: f32) -> f32 {
    let width = |scale: f32| menu.title().len() as f32 * char_width(scale, ui);
    [5.0, 4.0, 3.0, 2.0]
        .into_iter()
        .find(|&s| width(s) <= panel_w - 24.0)
        .unwrap_or(1.0)
}

/// The panel, its rows' rectangles (what a tap hits) and its texts on a
/// `w`×`h` screen at interface scale `ui`.
fn placed(menu: &MatchMenu, w: f32, h: f32, ui: f32) -> (Rect, Vec<Rect>, Vec<Text>) {
    let width = PANEL_MAX_W.min(w * 0.92).max(PANEL_MAX_W.min(w - 16.0));
    let chars = chars_in(width - 24.0, 2.0, ui);
    let n = menu.items().len() as f32 + 0.4;
    // The largest title and rows that fit the screen's height.
    let sizes = [
        (5.0, ROW_SCALE),
        (4.0, 2.0),
        (3.0, 1.5),
        (2.0, 1.0),
        (1.0, 1.0),
    ];
    let measure = |(title, row_scale): (f32, f32)| {
        let title = title.min(title_scale(menu, width, ui));
        let row = line_height(row_scale, ui) * 1.6;
        let head = 14.0 + line_height(title, ui) + 8.0 + line_height(2.0, ui) + 14.0;
        (title, row_scale, row, head, head + row * n)
    };
    let (title, row_scale, row, head, height) = sizes
        .into_iter()
        .map(measure)
        .find(|m| m.4 <= h - 8.0 && (w >= 600.0 || m.1 <= 2.0))
        .unwrap_or_else(|| measure((1.0, 1.0)));
    let panel = Rect::new(
        (w - width) / 2.0,
        ((h - height) / 2.0).max(0.0),
        width,
        height,
    );
    let cx = panel.x + width / 2.0;
    let text = |text: String, y, scale, color| Text {
        text,
        x: cx,
        y,
        scale,
        align: Align::Center,
        color,
    };
    let mut texts = vec![
        text(menu.title().into(), panel.y + 14.0, title, WHITE),
        text(
            super::text::fit(menu.detail(), chars),
            panel.y + 14.0 + line_height(title, ui) + 8.0,
            2.0,
            LIGHTGRAY,
        ),
    ];
    let mut rows = Vec::new();
    for (i, (label, _)) in menu.items().iter().enumerate() {
        let r = Rect::new(
            panel.x + 12.0,
            panel.y + head + i as f32 * row,
            width - 24.0,
            row,
        );
        let color = if i == menu.selected() { YELLOW } else { WHITE };
        let y = r.y + (r.h - line_height(row_scale, ui)) / 2.0;
        texts.push(text((*label).into(), y, row_scale, color));
        rows.push(r);
    }
    (panel, rows, texts)
}

/// The menu's texts, placed (for the layout tests).
pub fn texts(menu: &MatchMenu, w: f32, h: f32, ui: f32) -> Vec<Text> {
    placed(menu, w, h, ui).2
}

/// Draws the menu over the match (dimmed behind it).
pub fn draw(font: &BitmapFont, menu: &MatchMenu) {
    let (w, h) = (screen_width(), screen_height());
    draw_rectangle(0.0, 0.0, w, h, Color::new(0.0, 0.0, 0.0, 0.45));
    let (p, rows, texts) = placed(menu, w, h, super::look::get().ui_scale);
    draw_rectangle(p.x, p.y, p.w, p.h, Color::new(0.02, 0.03, 0.1, 0.92));
    draw_rectangle_lines(p.x, p.y, p.w, p.h, 2.0, Color::new(0.4, 0.5, 0.9, 1.0));
    if let Some(r) = rows.get(menu.selected()) {
        draw_rectangle(r.x, r.y, r.w, r.h, Color::new(0.2, 0.3, 0.7, 0.6));
    }
    for text in &texts {
        text.draw(font);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_opens_on_resume_and_back_resumes() {
        for kind in [MenuKind::Pause, MenuKind::Leave] {
            let mut menu = MatchMenu::open(kind);
            assert_eq!(menu.step(Move::Confirm), Some(Choice::Resume));
            assert_eq!(menu.step(Move::Back), Some(Choice::Resume));
        }
    }

    #[test]
    fn leaving_takes_a_move_to_the_last_row_then_a_confirm() {
        let mut menu = MatchMenu::open(MenuKind::Leave);
        assert_eq!(menu.step(Move::Up), None, "up wraps to the last row");
        assert_eq!(menu.step(Move::Confirm), Some(Choice::Leave));
        let mut menu = MatchMenu::open(MenuKind::Pause);
        for _ in 0..3 {
            assert_eq!(menu.step(Move::Down), None);
        }
        assert_eq!(menu.step(Move::Confirm), Some(Choice::Leave));
        assert_eq!(menu.step(Move::Down), None);
        assert_eq!(menu.selected(), 0, "down wraps to the first row");
    }

    #[test]
    fn a_tap_chooses_its_row_and_a_tap_outside_does_nothing() {
        let mut menu = MatchMenu::open(MenuKind::Pause);
        assert_eq!(menu.step(Move::Row(1)), Some(Choice::Settings));
        assert_eq!(menu.step(Move::Row(2)), Some(Choice::Controls));
        assert_eq!(menu.step(Move::Row(9)), None);
        // Only the pause menu has settings (online the match runs on).
        let leave = MatchMenu::open(MenuKind::Leave);
        assert!(leave.items().iter().all(|(_, c)| *c != Choice::Settings));
    }
}
