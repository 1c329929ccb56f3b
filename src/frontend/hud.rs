//! Score, lives and wave for both players, the wave banner, and the result
//! panel shown at game over (with how to play again).

use macroquad::prelude::*;

use super::assets::{Align, BitmapFont, Sprites};
use super::effects::EventLedger;
use super::scene::Layout;
use crate::sim::FPS;
use crate::sim::{Event, World};

pub use super::look::player_color;

const BANNER_TICKS: u32 = 120;

/// What the result panel needs besides the world.
#[derive(Clone, Debug, Default)]
pub struct MatchInfo {
    /// Frame the current match (after the last restart) began.
    pub started_frame: u32,
    /// Frame of the game over, while it is shown.
    pub ended_frame: Option<u32>,
    pub replay: Option<String>,
    /// Names of the start keys, per player ("1", "2"); None for a player on
    /// the other machine or a bot.
    pub start_keys: [Option<String>; 2],
    /// Who holds start in the newest frame (for the rematch line).
    pub holding_start: [bool; 2],
    /// What Esc does here ("back to the menu" or "quit").
    pub escape_does: &'static str,
    /// The players' names, player 1's first (`P1`, `P2` offline).
    pub names: [String; 2],
    /// The personal best before this game (score, wave), when records
    /// are kept for this way of playing and it was played before.
    pub best: Option<(u32, u32)>,
    /// What the last game over beat.
    pub new_best: crate::records::NewBest,
}

impl MatchInfo {
    /// Follows restarts and game overs from fired events.
    pub fn note(&mut self, frame: u32, event: &Event) {
        match event {
            Event::Restarted => {
                self.started_frame = frame;
                self.ended_frame = None;
            }
            Event::GameOver => self.ended_frame = Some(frame),
            _ => {}
        }
    }
}

fn lives_row(sprites: &Sprites, player: usize, lives: u16, x: f32, y: f32, right_to_left: bool) {
    let size = 14.0;
    for i in 0..lives.min(8) {
        let dx = i as f32 * (size + 3.0);
        let at = if right_to_left { x - size - dx } else { x + dx };
        draw_texture_ex(
            &sprites.ships[player],
            at,
            y,
            WHITE,
            DrawTextureParams {
                dest_size: Some(vec2(size, size)),
                ..Default::default()
            },
        );
    }
}

pub fn draw_hud(
    sprites: &Sprites,
    world: &World,
    layout: &Layout,
    ledger: &EventLedger,
    names: &[String; 2],
) {
    let font = &sprites.font;
    // The HUD scales with the arena, so a small (phone) arena keeps its
    // text in proportion; a 1280x720 window or larger draws it as designed.
    let k = (layout.scale / 2.0).clamp(0.34, 1.0);
    let top = layout.origin.y + 10.0 * k;
    let left = layout.origin.x + 14.0 * k;
    let right = layout.origin.x + layout.size().x - 14.0 * k;
    let center = layout.origin.x + layout.size().x / 2.0;
    let [p1, p2] = &world.players;
    // Lines stack by their drawn height (the interface scale included), so
    // they never run into each other at 150 % or 200 %.
    let big = BitmapFont::line_height(3.0 * k);
    let small = BitmapFont::line_height(2.0 * k);
    let lives_y = top + big;
    font.draw_shadowed(
        &format!("{} {}", names[0], p1.score),
        left,
        top,
        3.0 * k,
        player_color(0),
        Align::Left,
    );
    lives_row(sprites, 0, p1.lives, left, lives_y, false);
    font.draw_shadowed(
        &format!("{} {}", p2.score, names[1]),
        right,
        top,
        3.0 * k,
        player_color(1),
        Align::Right,
    );
    lives_row(sprites, 1, p2.lives, right, lives_y, true);
    font.draw_shadowed(
        &format!("WAVE {}", world.spawner.wave),
        center,
        top,
        3.0 * k,
        WHITE,
        Align::Center,
    );
    font.draw_shadowed(
        &format!("TEAM {}", world.shared_score()),
        center,
        top + big,
        2.0 * k,
        Color::new(0.8, 0.85, 1.0, 0.9),
        Align::Center,
    );
    if let Some(combo) = combo_text(world) {
        font.draw_shadowed(
            &combo,
            center,
            top + big + small,
            2.0 * k,
            Color::new(1.0, 0.85, 0.3, 1.0),
            Align::Center,
        );
    }
    for (i, p) in world.players.iter().enumerate() {
        let (x, align) = if i == 0 {
            (left, Align::Left)
        } else {
            (right, Align::Right)
        };
        let weapon = match p.weapon() {
            crate::sim::Weapon::Basic => String::new(),
            w => format!(
                " {} {}s",
                w.name().to_uppercase(),
                p.weapon_timer.div_ceil(60)
            ),
        };
        let shield = if p.shield == 1 { " SHIELD" } else { "" };
        font.draw_shadowed(
            &format!("BOMBS {}{weapon}{shield}", p.bombs),
            x,
            lives_y + 17.0,
            2.0 * k,
            player_color(i),
            align,
        );
    }
    let banner = ledger
        .recent(world.frame, BANNER_TICKS)
        .find_map(|(age, e)| match e {
            Event::WaveStarted { wave } => Some((age, *wave)),
            _ => None,
        });
    if let Some((age, wave)) = banner {
        let fade = 1.0 - age as f32 / BANNER_TICKS as f32;
        let y = layout.origin.y + layout.size().y * 0.35;
        font.draw_shadowed(
            &format!("WAVE {wave}"),
            center,
            y,
            8.0 * k,
            Color::new(1.0, 0.95, 0.6, fade),
            Align::Center,
        );
    }
}

fn panel(x: f32, y: f32, w: f32, h: f32) {
    draw_rectangle(x, y, w, h, Color::new(0.02, 0.03, 0.1, 0.88));
    draw_rectangle_lines(x, y, w, h, 2.0, Color::new(0.4, 0.5, 0.9, 1.0));
}

fn duration_text(frames: u32) -> String {
    let secs = frames / FPS;
    format!("{}:{:02}", secs / 60, secs % 60)
}

/// One player's part of the rematch line: which key, and whether it is
/// held in the newest frame (for the other machine's player, as far as its
/// inputs have arrived).
fn rematch_status(player: usize, key: Option<&str>, holding: bool) -> String {
    let key = key.unwrap_or("START");
    let state = if holding { "READY" } else { "waiting" };
    format!("P{} holds {key}: {state}", player + 1)
}

/// One line of the result panel: its text, font scale and colour.
pub type PanelLine = (String, f32, Color);

/// The result panel's lines, top to bottom: the team's figures, each
/// player's, the personal best, the replay, what next, the last chat lines
/// (`chat`, oldest first; at most 3).
pub fn result_lines(world: &World, info: &MatchInfo, chat: &[String]) -> Vec<PanelLine> {
    let gray = Color::new(0.8, 0.8, 0.85, 1.0);
    let gold = Color::new(1.0, 0.95, 0.6, 1.0);
    let team = &world.team;
    let ended = info.ended_frame.unwrap_or(world.frame);
    let mut out: Vec<PanelLine> = vec![
        ("GAME OVER".into(), 6.0, Color::new(1.0, 0.4, 0.4, 1.0)),
        (format!("TEAM SCORE {}", world.shared_score()), 3.0, WHITE),
    ];
    if info.new_best.score || info.new_best.wave {
        out.push(("NEW BEST!".into(), 3.0, gold));
    }
    if let Some((score, wave)) = info.best {
        out.push((
            format!("personal best {score} points, wave {wave}"),
            2.0,
            gray,
        ));
    }
    out.push((
        format!(
            "wave {}  bosses {}  max combo {}  {}",
            team.best_wave.max(world.spawner.wave),
            team.bosses_defeated,
            team.max_combo,
            duration_text(ended.saturating_sub(info.started_frame))
        ),
        2.0,
        WHITE,
    ));
    for (i, p) in world.players.iter().enumerate() {
        let line = format!(
            "{}: {} kills, {} revives, {} hits taken",
            info.names[i], p.kills, p.revives, p.hits
        );
        out.push((line, 2.0, player_color(i)));
    }
    let replay = info.replay.as_deref().map_or_else(
        || "replay: not recorded".to_string(),
        |r| format!("replay: {r}"),
    );
    out.push((replay, 2.0, Color::new(0.7, 0.75, 0.9, 1.0)));
    out.push((
        "rematch: both players hold start together".into(),
        2.0,
        gold,
    ));
    for player in 0..2 {
        let holding = info.holding_start[player];
        let color = if holding {
            Color::new(0.45, 1.0, 0.5, 1.0)
        } else {
            Color::new(0.7, 0.7, 0.75, 1.0)
        };
        let status = rematch_status(player, info.start_keys[player].as_deref(), holding);
        out.push((status, 2.0, color));
    }
    out.push((format!("Esc: {}", info.escape_does), 2.0, gray));
    let chat = &chat[chat.len().saturating_sub(3)..];
    out.extend(
        chat.iter()
            .map(|line| (line.clone(), 2.0, Color::new(0.85, 0.88, 1.0, 1.0))),
    );
    out
}

/// The result panel on a `w`×`h` screen: its rectangle, and each line's
/// text (cut with an ellipsis to the panel's width), scale, colour and
/// top. Scales shrink on a narrow screen; nothing leaves the panel.
pub fn result_layout(
    font: &BitmapFont,
    lines: &[PanelLine],
    w: f32,
    h: f32,
) -> (Rect, Vec<(String, f32, Color, f32)>) {
    let panel_w = (w - 16.0).min(760.0);
    // A phone's width: every line one step smaller.
    let shrink = if panel_w < 600.0 { 0.5 } else { 1.0 };
    let mut placed = Vec::new();
    let mut y = 18.0;
    for (text, scale, color) in lines {
        let scale = (scale * shrink).max(1.0);
        let chars = ((panel_w - 24.0) / font.width("m", scale)).max(4.0) as usize;
        placed.push((super::text::fit(text, chars), scale, *color, y));
        y += BitmapFont::line_height(scale) * if scale >= 5.0 { 1.6 } else { 1.5 };
    }
    let panel_h = y + 8.0;
    let x = (w - panel_w) / 2.0;
    let top = ((h - panel_h) / 2.0).max(0.0);
    let placed = placed
        .into_iter()
        .map(|(t, s, c, dy)| (t, s, c, top + dy))
        .collect();
    (Rect::new(x, top, panel_w, panel_h), placed)
}

/// The game-over panel (see [`result_lines`]).
pub fn draw_result(font: &BitmapFont, world: &World, info: &MatchInfo, chat: &[String]) {
    let lines = result_lines(world, info, chat);
    let (rect, placed) = result_layout(font, &lines, screen_width(), screen_height());
    panel(rect.x, rect.y, rect.w, rect.h);
    let cx = rect.x + rect.w / 2.0;
    for (text, scale, color, y) in placed {
        font.draw_shadowed(&text, cx, y, scale, color, Align::Center);
    }
}

/// The combo line under the team score: "x3 COMBO 17", when there is one.
pub fn combo_text(world: &World) -> Option<String> {
    let team = &world.team;
    (team.combo > 1).then(|| {
        let m = team.multiplier();
        let top = if m == crate::sim::MAX_MULTIPLIER {
            " MAX"
        } else {
            ""
        };
        format!("x{m}{top}  COMBO {}", team.combo)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rematch_status_names_the_key_and_who_is_ready() {
        assert_eq!(rematch_status(0, Some("1"), true), "P1 holds 1: READY");
        assert_eq!(rematch_status(1, None, false), "P2 holds START: waiting");
    }
}
