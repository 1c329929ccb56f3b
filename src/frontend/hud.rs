//! Score, lives and wave for both players, the wave banner, and the result
//! panel shown at game over (with how to play again).

use macroquad::prelude::*;

use super::assets::{Align, BitmapFont, Sprites};
use super::effects::EventLedger;
use super::scene::Layout;
use super::ui_layout::{self, HudFigures, Text};
use crate::session::UploadReport;
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
    /// Where the match's replay stands on the server's boards.
    pub board: Board,
    /// The match is over and left (the panel shown while its replay is
    /// ranked): no rematch to offer.
    pub left: bool,
}

/// The server's boards, as far as the result panel knows (an online
/// match's replay is sent to be ranked once the match is left).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Board {
    /// Not sent (a local match, uploads off, not this side's to send).
    #[default]
    NotSent,
    /// Sent; the server is playing it again before it ranks it.
    Sending,
    /// The server's answer: ranked (where, and its link), or why not.
    Answered(UploadReport),
}

/// The result panel's lines about the boards: where the match ranked
/// ("board: #3 in today's challenge, #12 this week, #41 all time") and the link that
/// plays it, that it is on its way, or why it was not ranked ("today's
/// challenge" only when the match was the daily challenge).
pub fn board_lines(board: &Board) -> Vec<String> {
    match board {
        Board::NotSent => Vec::new(),
        Board::Sending => vec!["board: sending the replay to be ranked...".into()],
        Board::Answered(UploadReport::Refused(why)) => vec![format!("board: not ranked: {why}")],
        Board::Answered(UploadReport::Ranked { ranked, link }) => {
            let r = &ranked.ranks;
            let mut places: Vec<String> = r
                .daily
                .map(|n| format!("#{n} in today's challenge"))
                .into_iter()
                .collect();
            places.push(format!("#{} this week", r.week));
            places.push(format!("#{} all time", r.all));
            let mut out = vec![format!("board: {}", places.join(", "))];
            out.extend(link.as_ref().map(|l| format!("watch it: {l}")));
            out
        }
    }
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
    let k = (layout.scale / 2.0).clamp(0.34, 1.0);
    let center = layout.origin.x + layout.size().x / 2.0;
    // (long, short): "BOMBS 2 SPREAD 9s SHIELD" and "B2 SPR 9s SH".
    let kit = |p: &crate::sim::Player| {
        let (weapon, short) = match p.weapon() {
            crate::sim::Weapon::Basic => (String::new(), String::new()),
            w => {
                let name = w.name().to_uppercase();
                let secs = p.weapon_timer.div_ceil(60);
                let abbrev: String = name.chars().take(3).collect();
                (format!(" {name} {secs}s"), format!(" {abbrev} {secs}s"))
            }
        };
        let shield = p.shield == 1;
        (
            format!(
                "BOMBS {}{weapon}{}",
                p.bombs,
                if shield { " SHIELD" } else { "" }
            ),
            format!("B{}{short}{}", p.bombs, if shield { " SH" } else { "" }),
        )
    };
    let [p1, p2] = &world.players;
    let figures = HudFigures {
        names: names.clone(),
        scores: [p1.score, p2.score],
        kit: [kit(p1).0, kit(p2).0],
        kit_short: [kit(p1).1, kit(p2).1],
        wave: world.spawner.wave,
        team: world.shared_score(),
        combo: combo_text(world),
    };
    let (texts, lives) = ui_layout::hud(&figures, layout, super::look::get().ui_scale);
    for text in &texts {
        text.draw(font);
    }
    lives_row(sprites, 0, p1.lives, lives[0].x, lives[0].y, false);
    lives_row(sprites, 1, p2.lives, lives[1].x, lives[1].y, true);
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
    // A match left before its game over (an online one sent to be ranked).
    let title = if world.is_game_over() {
        "GAME OVER"
    } else {
        "MATCH OVER"
    };
    let mut out: Vec<PanelLine> = vec![
        (title.into(), 6.0, Color::new(1.0, 0.4, 0.4, 1.0)),
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
    let board = Color::new(0.55, 0.95, 1.0, 1.0);
    out.extend(
        board_lines(&info.board)
            .into_iter()
            .map(|l| (l, 2.0, board)),
    );
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
    if info.left {
        out.push((format!("Enter or Esc: {}", info.escape_does), 2.0, gray));
    } else {
        rematch_lines(info, &mut out);
        out.push((format!("Esc: {}", info.escape_does), 2.0, gray));
    }
    let replay = info.replay.as_deref().map_or_else(
        || "replay: not recorded".to_string(),
        |r| format!("replay: {r}"),
    );
    out.push((replay, 2.0, Color::new(0.7, 0.75, 0.9, 1.0)));
    let chat = &chat[chat.len().saturating_sub(3)..];
    out.extend(
        chat.iter()
            .map(|line| (line.clone(), 2.0, Color::new(0.85, 0.88, 1.0, 1.0))),
    );
    out
}

/// The rematch's lines: how, and who holds start.
fn rematch_lines(info: &MatchInfo, out: &mut Vec<PanelLine>) {
    let gold = Color::new(1.0, 0.95, 0.6, 1.0);
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
}

/// The result panel on a `w`×`h` screen at interface scale `ui`: its
/// rectangle, and its lines placed (cut with an ellipsis to the panel's
/// width). Scales shrink on a narrow screen; nothing leaves the panel.
pub fn result_texts(lines: &[PanelLine], w: f32, h: f32, ui: f32) -> (Rect, Vec<Text>) {
    let panel_w = (w - 16.0).min(760.0 * ui.min(1.5));
    let step = |scale: f32| ui_layout::line_height(scale, ui) * 1.3;
    let height = |lines: &[PanelLine], shrink: f32| -> f32 {
        lines
            .iter()
            .map(|(_, s, _)| step((s * shrink).max(0.5)))
            .sum::<f32>()
            + 26.0
    };
    // The largest scale at which the lines fit (a phone's panel is
    // smaller); if even the smallest does not, the last lines (chat, the
    // replay's path) are left out rather than drawn off the screen.
    let shrinks = [1.0, 0.75, 0.5, 0.34, 0.25];
    let mut kept = lines.len();
    let shrink = loop {
        let fits = |k: f32| height(&lines[..kept], k) <= h - 8.0;
        if let Some(k) = shrinks
            .into_iter()
            .find(|&k| fits(k) && (panel_w >= 600.0 || k <= 0.5))
        {
            break k;
        }
        if kept <= 1 {
            break 0.25;
        }
        kept -= 1;
    };
    let mut texts = Vec::new();
    let mut y = 16.0;
    for (text, scale, color) in &lines[..kept] {
        let scale = (scale * shrink).max(0.5);
        let chars = ui_layout::chars_in(panel_w - 24.0, scale, ui).max(4);
        texts.push(Text {
            text: super::text::fit(text, chars),
            x: w / 2.0,
            y,
            scale,
            align: Align::Center,
            color: *color,
        });
        y += step(scale);
    }
    let panel_h = y + 10.0;
    let x = (w - panel_w) / 2.0;
    let top = ((h - panel_h) / 2.0).max(0.0);
    for t in &mut texts {
        t.y += top;
    }
    (Rect::new(x, top, panel_w, panel_h), texts)
}

/// A result panel's lines with the widest figures, for the layout tests.
#[cfg(test)]
pub fn sample_result_lines(replay: &str) -> Vec<PanelLine> {
    let mut world = crate::sim::World::new(1, crate::sim::SimConfig::DEFAULT);
    world.team.score = 99_999_999;
    world.team.max_combo = 999;
    for p in &mut world.players {
        p.kills = 99_999;
        p.revives = 999;
        p.hits = 999;
    }
    let info = MatchInfo {
        replay: Some(replay.into()),
        names: ["Sixteen_chars_ab".into(), "another-long-one".into()],
        escape_does: "back to the menu",
        best: Some((99_999_999, 99)),
        new_best: crate::records::NewBest {
            score: true,
            wave: true,
        },
        start_keys: [Some("1".into()), Some("2".into())],
        board: Board::Answered(sample_ranked(Some(9_999))),
        ..MatchInfo::default()
    };
    let chat = vec!["P2: a chat line as long as the prompt lets anyone type in".to_string(); 3];
    result_lines(&world, &info, &chat)
}

/// An answer that ranked the match, with the widest figures.
#[cfg(test)]
pub fn sample_ranked(daily: Option<usize>) -> UploadReport {
    use twinstar_netcode::signaling::{Ranked, Ranks};
    UploadReport::Ranked {
        ranked: Ranked {
            id: "0123456789abcdef0123456789abcdef".into(),
            board: "default".into(),
            ranks: Ranks {
                daily,
                week: 99_999,
                all: 999_999,
            },
            score: 99_999_999,
            wave: 99,
        },
        link: Some("https://twinstar.example.org/#replay=0123456789abcdef0123456789abcdef".into()),
    }
}

/// The game-over panel (see [`result_lines`]).
pub fn draw_result(font: &BitmapFont, world: &World, info: &MatchInfo, chat: &[String]) {
    let lines = result_lines(world, info, chat);
    let ui = super::look::get().ui_scale;
    let (rect, texts) = result_texts(&lines, screen_width(), screen_height(), ui);
    panel(rect.x, rect.y, rect.w, rect.h);
    for text in &texts {
        text.draw(font);
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
    fn the_panel_says_where_the_match_ranked_once_the_answer_arrives() {
        let world = World::new(1, crate::sim::SimConfig::DEFAULT);
        let texts = |board: Board, left: bool| -> Vec<String> {
            let info = MatchInfo {
                board,
                left,
                escape_does: "back to the menu",
                ..MatchInfo::default()
            };
            result_lines(&world, &info, &[])
                .into_iter()
                .map(|l| l.0)
                .collect()
        };
        // A local match: no board, a rematch offered.
        let local = texts(Board::NotSent, false);
        assert!(!local.iter().any(|l| l.starts_with("board")), "{local:?}");
        assert!(local.iter().any(|l| l.starts_with("rematch")), "{local:?}");
        // On its way, then ranked: today's place first, and the link.
        let sending = texts(Board::Sending, true);
        assert!(sending.contains(&"board: sending the replay to be ranked...".into()));
        assert!(
            !sending.iter().any(|l| l.starts_with("rematch")),
            "{sending:?}"
        );
        assert!(sending.contains(&"Enter or Esc: back to the menu".into()));
        let mut report = sample_ranked(Some(3));
        if let UploadReport::Ranked { ranked, .. } = &mut report {
            ranked.ranks.week = 12;
            ranked.ranks.all = 41;
        }
        let ranked = texts(Board::Answered(report), true);
        let at = ranked
            .iter()
            .position(|l| l == "board: #3 in today's challenge, #12 this week, #41 all time")
            .unwrap_or_else(|| panic!("{ranked:?}"));
        assert!(
            ranked[at + 1].starts_with("watch it: https://"),
            "{ranked:?}"
        );
        // Not the daily challenge: the week's and all time's only.
        let lines = board_lines(&Board::Answered(sample_ranked(None)));
        assert_eq!(lines[0], "board: #99999 this week, #999999 all time");
        // Refused: why, in its words.
        let refused = Board::Answered(UploadReport::Refused("ranked already".into()));
        assert_eq!(board_lines(&refused), ["board: not ranked: ranked already"]);
    }

    #[test]
    fn rematch_status_names_the_key_and_who_is_ready() {
        assert_eq!(rematch_status(0, Some("1"), true), "P1 holds 1: READY");
        assert_eq!(rematch_status(1, None, false), "P2 holds START: waiting");
    }
}
