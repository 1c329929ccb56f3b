//! Room chat in the window: the lines under the HUD, fading after a few
//! seconds, and the one-line prompt that Enter opens in an online match.
//! The same lines, read from a replay's `chat` events, are shown by the
//! replay viewer at their frames.
//!
//! Lines are aged in simulation frames, like effects: in a replay they
//! appear and fade at the same moments as in the match, seeking included.

use std::collections::VecDeque;

use macroquad::prelude::*;

use super::assets::{Align, BitmapFont};
use super::hud::player_color;
use super::keys::{pad_button, pad_pressed, pressed};
use super::scene::Layout;
use super::text::{edit_text, pick_chars, take_chars_after_enter};
use crate::input::PadButton;
use crate::session::Match;
use crate::sim::{FPS, Frame};
use twinstar_netcode::replay::{EventKind, ReplayEvent};
use twinstar_netcode::session::ChatLine;

/// How long a line stays under the HUD, its last second fading.
pub const SHOWN_FRAMES: u32 = 6 * FPS;
const FADE_FRAMES: u32 = FPS;
/// At most this many lines under the HUD at once (the newest).
const MAX_SHOWN: usize = 4;
const SCALE: f32 = 2.0;
/// Pixels between the HUD's top and the first chat line: below the score,
/// lives and team rows.
const BELOW_HUD: f32 = 66.0;
const GLYPH_W: f32 = 6.0;
const PROMPT_COLOR: Color = Color::new(1.0, 1.0, 1.0, 1.0);
const HINT_COLOR: Color = Color::new(0.6, 0.65, 0.8, 1.0);
const REFUSED_COLOR: Color = Color::new(1.0, 0.45, 0.4, 1.0);

/// What the match window keeps of the chat.
pub struct ChatBox {
    /// The settings' `chat`: off, nothing is shown and Enter does nothing.
    shown: bool,
    /// The line being typed, while the prompt is open.
    typing: Option<String>,
    /// Why the last line was refused (too fast, not printable, ...).
    refused: Option<String>,
    /// The newest lines, oldest first.
    lines: VecDeque<ChatLine>,
}

impl ChatBox {
    pub fn new(shown: bool) -> Self {
        ChatBox {
            shown,
            typing: None,
            refused: None,
            lines: VecDeque::new(),
        }
    }

    /// Whether the prompt is open: the local player's game input is then
    /// neutral, so typing does not steer the ship.
    pub fn is_typing(&self) -> bool {
        self.typing.is_some()
    }

    /// This frame's chat keys: Enter opens the prompt (online, chat on),
    /// sends the line, or closes an empty prompt; Esc closes it. Returns
    /// true when Esc was used here, so it must not also leave the match.
    pub fn handle_keys(&mut self, game: &mut Match) -> bool {
        let enter = pressed(KeyCode::Enter) || pressed(KeyCode::KpEnter);
        let Some(text) = &mut self.typing else {
            // A pad opens it with Y (A fires in a match).
            let open = enter || pad_button(PadButton::Y);
            if open && self.shown && game.can_chat() {
                self.typing = Some(take_chars_after_enter(ChatLine::MAX_CHARS));
                self.refused = None;
            }
            return false;
        };
        if pressed(KeyCode::Escape) {
            self.typing = None;
            return true;
        }
        if edit_text(text, ChatLine::MAX_CHARS) || pick_chars(text, ChatLine::MAX_CHARS) {
            self.refused = None;
        }
        // While typing, A sends (the pad plays no part in the match then).
        if enter || pad_pressed(KeyCode::Enter) {
            if text.trim().is_empty() {
                self.typing = None;
            } else {
                match game.say(text) {
                    Ok(()) => self.typing = None,
                    Err(e) => self.refused = Some(e.to_string()),
                }
            }
        }
        false
    }

    /// Takes the match's new lines (sent and received).
    pub fn collect(&mut self, game: &mut Match) {
        let new = game.take_chat();
        if self.shown {
            self.add(new);
        }
    }

    fn add(&mut self, lines: impl IntoIterator<Item = ChatLine>) {
        for line in lines {
            if self.lines.len() == ChatLine::HISTORY {
                self.lines.pop_front();
            }
            self.lines.push_back(line);
        }
    }

    /// The last `n` lines, oldest first, for the result panel.
    pub fn last(&self, n: usize) -> impl Iterator<Item = &ChatLine> {
        self.lines.iter().skip(self.lines.len().saturating_sub(n))
    }

    /// The lines of fewer than [`SHOWN_FRAMES`] frames at `frame`, and the
    /// prompt when it is open, under the HUD.
    /// The players' lines are in their colours (`names`, player 1's first).
    pub fn draw(&self, font: &BitmapFont, layout: &Layout, frame: Frame, names: &[String; 2]) {
        let x = layout.origin.x + 14.0;
        let mut y = layout.origin.y + 10.0 + BELOW_HUD;
        let width = chars_across(layout.size().x - 28.0);
        let step = BitmapFont::line_height(SCALE) + 2.0;
        for (line, alpha) in visible(self.lines.iter(), frame) {
            let player = names.iter().position(|n| *n == line.from);
            let color = player.map_or(WHITE, player_color);
            let color = Color { a: alpha, ..color };
            for row in wrap(&line.to_string(), width) {
                font.draw_shadowed(&row, x, y, SCALE, color, Align::Left);
                y += step;
            }
        }
        if let Some(text) = &self.typing {
            self.draw_prompt(font, text, x, y, width);
        }
    }

    fn draw_prompt(&self, font: &BitmapFont, text: &str, x: f32, y: f32, width: usize) {
        let cursor = if ((get_time() * 2.0) as u64).is_multiple_of(2) {
            "_"
        } else {
            " "
        };
        let rows = wrap(&format!("say: {text}{cursor}"), width);
        let step = BitmapFont::line_height(SCALE) + 2.0;
        let pixels = width as f32 * GLYPH_W * SCALE;
        let height = (rows.len() + 1) as f32 * step + 8.0;
        draw_rectangle(
            x - 6.0,
            y - 4.0,
            pixels + 12.0,
            height,
            Color::new(0.0, 0.0, 0.05, 0.75),
        );
        let mut y = y;
        for row in rows {
            font.draw(&row, x, y, SCALE, PROMPT_COLOR, Align::Left);
            y += step;
        }
        let (hint, color) = match &self.refused {
            Some(why) => (why.clone(), REFUSED_COLOR),
            None => (
                format!(
                    "Enter send  Esc cancel  {}/{}",
                    text.chars().count(),
                    ChatLine::MAX_CHARS
                ),
                HINT_COLOR,
            ),
        };
        font.draw(&hint, x, y, SCALE, color, Align::Left);
    }
}

/// The replay's chat lines, in the order they were recorded.
pub fn replay_lines(events: &[ReplayEvent]) -> ChatBox {
    let mut chat = ChatBox::new(true);
    chat.lines = events
        .iter()
        .filter(|e| e.kind == EventKind::Chat)
        .filter_map(|e| ChatLine::from_event(e.frame, &e.detail))
        .collect();
    chat
}

/// Lines to show at `frame` with their opacity: recorded at or before it,
/// fewer than [`SHOWN_FRAMES`] ago, the newest [`MAX_SHOWN`], oldest first.
fn visible<'a>(
    lines: impl DoubleEndedIterator<Item = &'a ChatLine>,
    frame: Frame,
) -> Vec<(&'a ChatLine, f32)> {
    let mut shown: Vec<_> = lines
        .rev()
        .filter(|line| line.frame <= frame)
        .map_while(|line| opacity(frame - line.frame).map(|a| (line, a)))
        .take(MAX_SHOWN)
        .collect();
    shown.reverse();
    shown
}

/// A line's opacity `age` frames after it came: whole, then fading over
/// the last second; `None` once gone.
fn opacity(age: Frame) -> Option<f32> {
    if age >= SHOWN_FRAMES {
        None
    } else if age + FADE_FRAMES <= SHOWN_FRAMES {
        Some(1.0)
    } else {
        Some((SHOWN_FRAMES - age) as f32 / FADE_FRAMES as f32)
    }
}

/// Characters of the chat's font that fit in `pixels`.
fn chars_across(pixels: f32) -> usize {
    ((pixels / (GLYPH_W * SCALE)).floor() as usize).max(8)
}

/// Word wrap at `width` characters; a word longer than a row is cut.
fn wrap(text: &str, width: usize) -> Vec<String> {
    super::text::wrap(text, width)
        .into_iter()
        .flat_map(|row| {
            let chars: Vec<char> = row.chars().collect();
            chars
                .chunks(width.max(1))
                .map(|c| c.iter().collect::<String>())
                .collect::<Vec<_>>()
        })
        .filter(|row| !row.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(frame: Frame, text: &str) -> ChatLine {
        ChatLine {
            frame,
            from: "P2".into(),
            text: text.into(),
        }
    }

    #[test]
    fn lines_show_for_six_seconds_and_fade_in_the_last() {
        assert_eq!(opacity(0), Some(1.0));
        assert_eq!(opacity(5 * FPS), Some(1.0));
        let half = opacity(5 * FPS + FPS / 2).unwrap();
        assert!((half - 0.5).abs() < 0.02, "{half}");
        assert_eq!(opacity(6 * FPS), None);
        assert_eq!(opacity(u32::MAX), None);
    }

    #[test]
    fn only_recent_lines_up_to_now_are_visible_newest_kept() {
        let lines: Vec<ChatLine> = (0..10).map(|i| line(i * 60, &format!("l{i}"))).collect();
        // At frame 400: lines 1..=6 are under 6 s old; the newest 4 show.
        let shown: Vec<&str> = visible(lines.iter(), 400)
            .iter()
            .map(|(l, _)| l.text.as_str())
            .collect();
        assert_eq!(shown, ["l3", "l4", "l5", "l6"]);
        // A replay seeked back to frame 0 shows only the line of frame 0.
        let start: Vec<&str> = visible(lines.iter(), 0)
            .iter()
            .map(|(l, _)| l.text.as_str())
            .collect();
        assert_eq!(start, ["l0"]);
        // Long after the last line: nothing.
        assert!(visible(lines.iter(), 10_000).is_empty());
    }

    #[test]
    fn long_lines_wrap_and_long_words_are_cut() {
        let rows = wrap("P1: hello there general", 10);
        assert!(rows.iter().all(|r| r.chars().count() <= 10), "{rows:?}");
        assert_eq!(rows.join(" "), "P1: hello there general");
        let word = "x".repeat(25);
        assert_eq!(wrap(&word, 10).len(), 3);
    }

    #[test]
    fn the_replay_viewer_reads_chat_events_only_and_skips_bad_ones() {
        let event = |frame, kind, detail: &str| ReplayEvent {
            frame,
            kind,
            detail: detail.into(),
        };
        let events = [
            event(5, EventKind::Chat, "P1: hello"),
            event(9, EventKind::PeerLeft, "P2: not chat"),
            event(12, EventKind::Chat, "P2: \u{7}bell"),
            event(30, EventKind::Chat, "P2: gg"),
        ];
        let chat = replay_lines(&events);
        let texts: Vec<String> = chat.last(10).map(ToString::to_string).collect();
        assert_eq!(texts, ["P1: hello", "P2: gg"]);
        assert_eq!(chat.last(1).next().map(|l| l.frame), Some(30));
    }
}
