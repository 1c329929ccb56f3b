//! The menu a match opens over itself: **pause** where nobody else plays
//! (solo, local: the clock stops, `Match::pause`), and **"leave the
//! match?"** online, where the other player's game runs on behind it. Esc,
//! a pad's B/Back or Start, or the touch screen's menu button open it; a
//! pad's B alone never ends a match. The choice logic is plain data
//! ([`MatchMenu::step`]); drawing and reading the devices come after it.

use macroquad::prelude::*;

use super::assets::{Align, BitmapFont};
use super::keys::{clicked, pad_pressed, pressed};

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
        let rows = rows(menu, screen_width(), screen_height());
        if let Some(i) = rows.iter().position(|r| r.contains(at)) {
            out.push(Move::Row(i));
        }
    }
    out
}

/// Row height, in font scale units, and the panel's widest size.
const ROW_SCALE: f32 = 3.0;
const PANEL_MAX_W: f32 = 560.0;

/// The panel's rectangle on a `w`×`h` screen.
pub fn panel(menu: &MatchMenu, w: f32, h: f32) -> Rect {
    let row = BitmapFont::line_height(ROW_SCALE) * 1.8;
    let height = BitmapFont::line_height(5.0) * 2.5 + row * (menu.items().len() as f32 + 0.4);
    let width = PANEL_MAX_W.min(w * 0.92);
    Rect::new(
        (w - width) / 2.0,
        ((h - height) / 2.0).max(0.0),
        width,
        height,
    )
}

/// Each row's rectangle (what a tap hits).
pub fn rows(menu: &MatchMenu, w: f32, h: f32) -> Vec<Rect> {
    let p = panel(menu, w, h);
    let row = BitmapFont::line_height(ROW_SCALE) * 1.8;
    let top = p.y + BitmapFont::line_height(5.0) * 2.5;
    (0..menu.items().len())
        .map(|i| Rect::new(p.x + 12.0, top + i as f32 * row, p.w - 24.0, row))
        .collect()
}

/// Draws the menu over the match (dimmed behind it).
pub fn draw(font: &BitmapFont, menu: &MatchMenu) {
    let (w, h) = (screen_width(), screen_height());
    draw_rectangle(0.0, 0.0, w, h, Color::new(0.0, 0.0, 0.0, 0.45));
    let p = panel(menu, w, h);
    draw_rectangle(p.x, p.y, p.w, p.h, Color::new(0.02, 0.03, 0.1, 0.92));
    draw_rectangle_lines(p.x, p.y, p.w, p.h, 2.0, Color::new(0.4, 0.5, 0.9, 1.0));
    let cx = p.x + p.w / 2.0;
    let title_scale = if font.width(menu.title(), 5.0) > p.w - 24.0 {
        3.0
    } else {
        5.0
    };
    font.draw_shadowed(
        menu.title(),
        cx,
        p.y + 14.0,
        title_scale,
        WHITE,
        Align::Center,
    );
    let detail = super::text::fit(menu.detail(), (p.w / font.width("m", 2.0)) as usize);
    let detail_y = p.y + 14.0 + BitmapFont::line_height(title_scale) + 6.0;
    font.draw(&detail, cx, detail_y, 2.0, LIGHTGRAY, Align::Center);
    for (i, (r, (label, _))) in rows(menu, w, h).iter().zip(menu.items()).enumerate() {
        let chosen = i == menu.selected();
        if chosen {
            draw_rectangle(r.x, r.y, r.w, r.h, Color::new(0.2, 0.3, 0.7, 0.6));
        }
        let color = if chosen { YELLOW } else { WHITE };
        let y = r.y + (r.h - BitmapFont::line_height(ROW_SCALE)) / 2.0;
        font.draw(label, cx, y, ROW_SCALE, color, Align::Center);
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
