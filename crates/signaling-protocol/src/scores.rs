//! Ranked replays and their boards, as client and server see them: the
//! paths, the upload's limit and claim, the answers' JSON (`POST /replays`,
//! `GET /leaderboard`). The server ranks a replay only after re-simulating
//! it (twinstar-signaling's `replays`); this is only the wire.

use serde::{Deserialize, Serialize};

/// `POST` a `.tsr` replay here to rank it; `GET REPLAYS_PATH/ID` reads one.
pub const REPLAYS_PATH: &str = "/replays";
/// `GET` a board here: `?board=daily|week|all&preset=NAME&cursor=C`.
pub const LEADERBOARD_PATH: &str = "/leaderboard";
/// The largest upload a server takes (413 past it); a ten-minute match's
/// replay is about 25 KB. A client refuses a download past it too.
pub const MAX_UPLOAD_BYTES: usize = 4 * 1024 * 1024;
/// Entries in one `GET /leaderboard` answer; `next` pages on.
pub const BOARD_PAGE: usize = 20;

/// The boards of one preset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Board {
    /// Today's daily challenge (UTC): the default preset, today's seed.
    Daily,
    /// Matches that started in this ISO week.
    Week,
    /// Every ranked match.
    All,
}

impl Board {
    /// All three, in the order a screen shows them.
    pub const ALL: [Board; 3] = [Board::Daily, Board::Week, Board::All];

    /// The query's word for it (`daily`, `week`, `all`).
    pub fn parse(word: &str) -> Option<Board> {
        Board::ALL.into_iter().find(|b| b.word() == word)
    }

    /// Its word in a query and in JSON.
    pub fn word(self) -> &'static str {
        match self {
            Board::Daily => "daily",
            Board::Week => "week",
            Board::All => "all",
        }
    }
}

/// What the host claims with its upload (`?score=N&wave=W`): its match
/// summary's team score and wave. The server re-simulates and refuses an
/// upload whose claim differs from what it computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoreClaim {
    /// The team score of the match summary.
    pub score: u64,
    /// The wave of the match summary.
    pub wave: u32,
}

impl ScoreClaim {
    /// The upload's path with this claim: `/replays?score=N&wave=W`, and
    /// `&room=CODE` (a proxy in front of several nodes routes the upload
    /// to the node that paired that room; the server ignores it).
    pub fn upload_path(&self, room: Option<&str>) -> String {
        let room = room.map(|r| format!("&room={r}")).unwrap_or_default();
        format!(
            "{REPLAYS_PATH}?score={}&wave={}{room}",
            self.score, self.wave
        )
    }
}

/// Where a new entry ranked: 1-based; `daily` only if it is on today's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ranks {
    /// On today's daily board, if it is on it.
    pub daily: Option<usize>,
    /// On this week's board.
    pub week: usize,
    /// On the all-time board.
    pub all: usize,
}

/// The answer to an upload that was ranked (201).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ranked {
    /// The replay's id: `GET /replays/ID`, and the page's `#replay=ID`.
    pub id: String,
    /// The preset whose boards it is on.
    pub board: String,
    /// Where it ranked on each board.
    pub ranks: Ranks,
    /// The team score the server's re-simulation reached.
    pub score: u64,
    /// The wave the server's re-simulation reached.
    pub wave: u32,
}

/// A refused upload or request's body (4xx, 503): one line saying why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refused {
    /// Why, in one line.
    pub reason: String,
}

/// One line of a board as `GET /leaderboard` shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoardLine {
    /// 1-based.
    pub rank: usize,
    /// The replay's id.
    pub id: String,
    /// Both players' names, host first.
    pub names: [String; 2],
    /// The match's team score.
    pub score: u64,
    /// The wave the match reached.
    pub wave: u32,
    /// The match's length in frames.
    pub frames: u32,
    /// The match's length in seconds (frames at its frame rate).
    pub seconds: f64,
    /// The UTC day the match started, `YYYY-MM-DD`.
    pub date: String,
}

/// A page of a board.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoardPage {
    /// Which of the preset's boards.
    pub board: Board,
    /// The page's lines, best first.
    pub entries: Vec<BoardLine>,
    /// The next page's `cursor`, none on the last.
    pub next: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_read_back_from_their_words_and_nothing_else_does() {
        for board in Board::ALL {
            assert_eq!(Board::parse(board.word()), Some(board));
            let json = serde_json::to_string(&board).unwrap();
            assert_eq!(json, format!("\"{}\"", board.word()));
        }
        assert_eq!(Board::parse("month"), None);
        assert_eq!(Board::parse("Daily"), None);
    }

    #[test]
    fn a_claim_is_the_upload_path_and_the_room_rides_along_for_a_proxy() {
        let claim = ScoreClaim {
            score: 1200,
            wave: 4,
        };
        assert_eq!(claim.upload_path(None), "/replays?score=1200&wave=4");
        assert_eq!(
            claim.upload_path(Some("K7Q2XM")),
            "/replays?score=1200&wave=4&room=K7Q2XM"
        );
    }

    #[test]
    fn a_page_reads_from_the_servers_json() {
        let text = r#"{"board":"daily","entries":[{"rank":1,"id":"abc","names":["Ana","Bo"],
            "score":900,"wave":3,"frames":3600,"seconds":60.0,"date":"2026-11-28"}],"next":null}"#;
        let page: BoardPage = serde_json::from_str(text).unwrap();
        assert_eq!(page.board, Board::Daily);
        assert_eq!(page.entries[0].names, ["Ana".to_string(), "Bo".to_string()]);
        assert_eq!(page.next, None);
    }
}
