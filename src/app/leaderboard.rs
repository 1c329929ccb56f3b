//! The Leaderboard screen: the player's server's boards (`GET
//! /leaderboard`), today's daily challenge first, then this week and all
//! time (Left/Right, or Enter on the first row, switches); each line a
//! ranked match, and picking it plays that replay, downloaded by its link
//! (`GET /replays/ID`) and verified before the viewer opens. The boards
//! arrive through [`BoardsFeed`] and the replay through [`ReplayDownload`]
//! (threads natively, the page's script and event loop in the browser).

use crate::frontend::menu::{Picked, choose_live, message, message_while};
use crate::frontend::replay_view;
use crate::frontend::window::Ui;
use crate::platform::boards::{BoardsFeed, ReplayDownload};
use twinstar_netcode::signaling::{Board, BoardLine, BoardPage, REPLAYS_PATH};

/// What a row of the screen does when picked.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Row {
    /// The board's name: the next board.
    Switch,
    /// A ranked match: its replay's id.
    Play(String),
    Back,
}

/// The board's title on its row.
fn title(board: Board) -> &'static str {
    match board {
        Board::Daily => "Today's daily challenge",
        Board::Week => "This week",
        Board::All => "All time",
    }
}

/// The board after (`step` 1) or before (-1) `board`, round the three.
fn step(board: Board, step: i32) -> Board {
    let i = Board::ALL.iter().position(|b| *b == board).unwrap_or(0) as i32;
    Board::ALL[(i + step).rem_euclid(Board::ALL.len() as i32) as usize]
}

/// `m:ss` of a match's length.
fn duration(seconds: f64) -> String {
    let whole = seconds.max(0.0).round() as u64;
    format!("{}:{:02}", whole / 60, whole % 60)
}

/// One ranked match on one line: rank, both names, score, wave, length,
/// date.
fn line(entry: &BoardLine) -> String {
    format!(
        "{:>2}. {} & {}  {}  wave {}  {}  {}",
        entry.rank,
        entry.names[0],
        entry.names[1],
        entry.score,
        entry.wave,
        duration(entry.seconds),
        entry.date
    )
}

/// The screen's rows (each with what picking it does) and the lines above
/// them, for `board` and the latest answer about it.
fn rows(
    server: &str,
    board: Board,
    latest: Option<&Result<BoardPage, String>>,
) -> (Vec<String>, Vec<(String, Row)>) {
    let mut details = vec![
        format!("ranked matches on {server}, every one re-simulated by the server"),
        "Left/Right: today, this week, all time; Enter plays a match".to_string(),
    ];
    let mut rows = vec![(format!("< {} >", title(board)), Row::Switch)];
    match latest {
        None => details.push("asking the server...".into()),
        Some(Err(e)) => details.push(format!("no board: {e}")),
        Some(Ok(page)) if page.entries.is_empty() => {
            details.push("no ranked matches on this board yet".into())
        }
        Some(Ok(page)) => rows
            .extend((page.entries.iter()).map(|entry| (line(entry), Row::Play(entry.id.clone())))),
    }
    rows.push(("Back".into(), Row::Back));
    (details, rows)
}

/// Where the replay `id` downloads from on `server` (`ws://` or `wss://`,
/// as the settings name it).
fn replay_url(server: &str, id: &str) -> Option<String> {
    let server = server.trim().trim_end_matches('/');
    let host = (server
        .strip_prefix("wss://")
        .map(|h| format!("https://{h}")))
    .or_else(|| server.strip_prefix("ws://").map(|h| format!("http://{h}")))?;
    Some(format!("{host}{REPLAYS_PATH}/{id}"))
}

/// Shows the Leaderboard screen of `server` until the player goes back;
/// a picked match plays in the viewer, then the screen comes back.
pub(super) async fn leaderboard_screen(ui: &mut Ui, server: &str) {
    let mut feed = BoardsFeed::start(server);
    let mut board = Board::Daily;
    feed.ask(board);
    loop {
        let mut latest: Option<Result<BoardPage, String>> = None;
        let mut shown = Vec::new();
        let mut listed = None;
        let picked = choose_live(
            ui,
            "LEADERBOARD",
            || {
                while let Some((of, answer)) = feed.poll() {
                    if of != board {
                        continue;
                    }
                    // Each new count once in the log (a test waits for it).
                    if let Ok(page) = &answer
                        && listed != Some(page.entries.len())
                    {
                        listed = Some(page.entries.len());
                        tracing::info!(
                            "leaderboard: {} listed on {}",
                            page.entries.len(),
                            board.word()
                        );
                    }
                    latest = Some(answer);
                }
                let (details, rows) = rows(server, board, latest.as_ref());
                let labels = rows.iter().map(|(label, _)| label.clone()).collect();
                shown = rows;
                (details, labels)
            },
            None,
        )
        .await;
        let row = match picked {
            Picked::Adjust(_, by) => {
                board = step(board, by);
                feed.ask(board);
                continue;
            }
            Picked::Item(i) => shown.get(i).map_or(Row::Back, |(_, row)| row.clone()),
            Picked::Back | Picked::Captured(_) => Row::Back,
        };
        match row {
            Row::Switch => {
                board = step(board, 1);
                feed.ask(board);
            }
            Row::Play(id) => play(ui, server, &id).await,
            Row::Back => return,
        }
    }
}

/// Downloads the replay `id`, verifies it and plays it in the viewer; a
/// failure is shown in words, with the way back.
async fn play(ui: &mut Ui, server: &str, id: &str) {
    let Some(url) = replay_url(server, id) else {
        let why = format!("{server} is no ws:// or wss:// server");
        return cannot_play(ui, why).await;
    };
    let mut download = ReplayDownload::start(&url);
    let Some(fetched) = message_while(ui, "DOWNLOADING", std::slice::from_ref(&url), || {
        download.poll()
    })
    .await
    else {
        return;
    };
    let replay = fetched
        .map_err(|e| e.why)
        .and_then(|bytes| crate::replay::read_bytes(&bytes).map_err(|e| format!("{url}: {e}")));
    let replay = match replay {
        Ok(replay) => replay,
        Err(why) => return cannot_play(ui, why).await,
    };
    match crate::replay::verify(&replay) {
        Some(v) if v.first_mismatch.is_none() => tracing::info!(
            "leaderboard: playing {id}: verified {} frames, {} checksums match, final {}",
            v.frames,
            v.checked,
            crate::sim::hex_checksum(v.state.checksum())
        ),
        _ => {
            let why = format!("{url} does not re-simulate to its recorded checksums");
            return cannot_play(ui, why).await;
        }
    }
    replay_view::view(ui, replay, id, None).await;
}

async fn cannot_play(ui: &mut Ui, why: String) {
    tracing::warn!("leaderboard: cannot play: {why}");
    message(ui, "CANNOT PLAY THIS MATCH", &[why], None).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(rank: usize, id: &str, score: u64) -> BoardLine {
        BoardLine {
            rank,
            id: id.into(),
            names: ["Ana".into(), "Bo".into()],
            score,
            wave: 3,
            frames: 3930,
            seconds: 65.5,
            date: "2026-11-28".into(),
        }
    }

    #[test]
    fn a_board_lists_its_matches_between_its_name_and_back() {
        let page = BoardPage {
            board: Board::Week,
            entries: vec![entry(1, "abc", 900), entry(2, "def", 400)],
            next: None,
        };
        let (_, rows) = rows("ws://h:1", Board::Week, Some(&Ok(page)));
        let picks: Vec<Row> = rows.iter().map(|(_, r)| r.clone()).collect();
        assert_eq!(
            picks,
            [
                Row::Switch,
                Row::Play("abc".into()),
                Row::Play("def".into()),
                Row::Back
            ]
        );
        assert_eq!(rows[0].0, "< This week >");
        assert_eq!(rows[1].0, " 1. Ana & Bo  900  wave 3  1:06  2026-11-28");
    }

    #[test]
    fn an_empty_failed_or_awaited_board_says_so_and_still_switches_and_goes_back() {
        let empty = BoardPage {
            board: Board::Daily,
            entries: vec![],
            next: None,
        };
        for (latest, says) in [
            (Some(Ok(empty)), "no ranked matches"),
            (Some(Err("HTTP 404".to_string())), "no board: HTTP 404"),
            (None, "asking"),
        ] {
            let (details, rows) = rows("ws://h:1", Board::Daily, latest.as_ref());
            assert!(details.iter().any(|l| l.contains(says)), "{details:?}");
            let picks: Vec<Row> = rows.iter().map(|(_, r)| r.clone()).collect();
            assert_eq!(picks, [Row::Switch, Row::Back]);
            assert_eq!(rows[0].0, "< Today's daily challenge >");
        }
    }

    #[test]
    fn boards_step_round_today_week_all() {
        assert_eq!(step(Board::Daily, 1), Board::Week);
        assert_eq!(step(Board::All, 1), Board::Daily);
        assert_eq!(step(Board::Daily, -1), Board::All);
        assert_eq!(step(Board::Week, -1), Board::Daily);
    }

    #[test]
    fn a_match_downloads_from_its_servers_replays() {
        assert_eq!(
            replay_url("wss://play.example.org/", "abc").as_deref(),
            Some("https://play.example.org/replays/abc")
        );
        assert_eq!(
            replay_url("ws://127.0.0.1:3536", "abc").as_deref(),
            Some("http://127.0.0.1:3536/replays/abc")
        );
        assert_eq!(replay_url("http://x", "abc"), None);
        assert_eq!(duration(0.4), "0:00");
        assert_eq!(duration(600.0), "10:00");
    }
}
