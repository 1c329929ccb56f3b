//! The ranked replays and their boards, in memory (a server without
//! `--data` forgets them when it stops). Pure bookkeeping: the caller
//! passes today's date; every rule of a board is here and unit-tested.
//!
//! Boards: `daily` (today's daily challenge: the default preset, the seed
//! of the UTC day the match started, that day being today), `week` (matches
//! that started in this ISO week) and `all`, each per preset. Order: score
//! first (higher), then fewer frames (faster), then the older upload.

use std::collections::{HashMap, HashSet};

use time::{Date, OffsetDateTime};
pub use twinstar_signaling_protocol::{
    BOARD_PAGE, Board, BoardLine as Line, BoardPage as Page, Ranks,
};

/// One ranked replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The replay's id (`/replays/ID`).
    pub id: String,
    /// Upload order (ties after score and frames).
    pub seq: u64,
    pub names: [String; 2],
    pub score: u64,
    pub wave: u32,
    pub frames: u32,
    pub fps: u32,
    pub preset: String,
    /// The UTC day the match started (by this server's clock: its pairing).
    pub date: Date,
    /// Whether it was that day's daily challenge.
    pub daily: bool,
}

/// The board name of `preset` under rules `version`: `preset@vN`, or the
/// preset alone for version 0 (a game with one version, and every entry
/// ranked before versions were kept).
pub fn versioned(preset: &str, version: u32) -> String {
    match version {
        0 => preset.to_owned(),
        v => format!("{preset}@v{v}"),
    }
}

/// Which list of entries `board` of `preset` shows on `day`: `daily` the
/// day's daily challenges (any preset asked: there is one), `week` the
/// preset's ISO week, `all` the preset's. An entry is on a board exactly
/// when one of its [`buckets`] is the board's bucket: the rule both the
/// memory boards and the Redis ones (`redis_boards`, one sorted set per
/// bucket) follow.
pub fn bucket(board: Board, preset: &str, day: Date) -> String {
    match board {
        // The daily challenge is one list whatever the preset asked, but
        // one per rules version.
        Board::Daily => match preset.split_once('@') {
            Some((_, version)) => format!("daily@{version}:{}", date_text(day)),
            None => format!("daily:{}", date_text(day)),
        },
        Board::Week => {
            let (year, week, _) = day.to_iso_week_date();
            format!("week:{preset}:{year}-W{week:02}")
        }
        Board::All => format!("all:{preset}"),
    }
}

/// The buckets `entry` is in: its day's daily (if it was the daily
/// challenge), its week's and its preset's.
pub fn buckets(entry: &Entry) -> Vec<(Board, String)> {
    let boards: &[Board] = if entry.daily {
        &[Board::Daily, Board::Week, Board::All]
    } else {
        &[Board::Week, Board::All]
    };
    (boards.iter())
        .map(|b| (*b, bucket(*b, &entry.preset, entry.date)))
        .collect()
}

/// Whether `entry` is on `board` of `preset`, on `today`.
pub fn holds(board: Board, entry: &Entry, preset: &str, today: Date) -> bool {
    let wanted = bucket(board, preset, today);
    buckets(entry).iter().any(|(_, b)| *b == wanted)
}

/// The UTC date of a Unix time in ms.
pub fn utc_date(unix_ms: u64) -> Date {
    let secs = i64::try_from(unix_ms / 1000).unwrap_or(i64::MAX);
    OffsetDateTime::from_unix_timestamp(secs)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH)
        .date()
}

/// `YYYY-MM-DD`.
pub fn date_text(date: Date) -> String {
    format!(
        "{:04}-{:02}-{:02}",
        date.year(),
        u8::from(date.month()),
        date.day()
    )
}

/// Why an entry was not added.
#[derive(Debug, PartialEq, Eq)]
pub struct AlreadyRanked;

/// Where an entry sorts, and what a page's cursor names: score down,
/// frames up, upload order up.
pub type Cursor = (std::cmp::Reverse<u64>, u32, u64);

/// The sort key (a [`Cursor`]).
pub fn key(e: &Entry) -> Cursor {
    (std::cmp::Reverse(e.score), e.frames, e.seq)
}

/// A cursor: the key of the last entry of a page, `SCORE.FRAMES.SEQ`.
pub fn cursor(e: &Entry) -> String {
    cursor_text(key(e))
}

/// A [`Cursor`] as text (`SCORE.FRAMES.SEQ`), what [`parse_cursor`] reads.
pub fn cursor_text((std::cmp::Reverse(score), frames, seq): Cursor) -> String {
    format!("{score}.{frames}.{seq}")
}

/// A [`Cursor`] as a fixed-width string whose byte order is the board's
/// order (what the Redis boards sort their members by).
pub fn sort_text((std::cmp::Reverse(score), frames, seq): Cursor) -> String {
    format!("{:020}{frames:010}{seq:020}", u64::MAX - score)
}

/// The inverse of [`cursor`].
pub fn parse_cursor(text: &str) -> Option<Cursor> {
    let mut parts = text.split('.');
    let score = parts.next()?.parse().ok()?;
    let frames = parts.next()?.parse().ok()?;
    let seq = parts.next()?.parse().ok()?;
    parts
        .next()
        .is_none()
        .then_some((std::cmp::Reverse(score), frames, seq))
}

/// `entry` as a board's line at `rank`.
pub fn line(rank: usize, e: &Entry) -> Line {
    Line {
        rank,
        id: e.id.clone(),
        names: e.names.clone(),
        score: e.score,
        wave: e.wave,
        frames: e.frames,
        seconds: f64::from(e.frames) / f64::from(e.fps.max(1)),
        date: date_text(e.date),
    }
}

/// Every ranked replay: entries, their bytes, the matches already ranked.
#[derive(Debug, Default)]
pub struct Boards {
    entries: Vec<Entry>,
    bytes: HashMap<String, Vec<u8>>,
    matches: HashSet<String>,
    made: u64,
}

impl Boards {
    /// Entries ranked.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The next upload's sequence number.
    pub fn next_seq(&self) -> u64 {
        self.made + 1
    }

    /// Whether the match with this key was ranked already.
    pub fn has_match(&self, match_key: &str) -> bool {
        self.matches.contains(match_key)
    }

    /// Ranks `entry` (of the match `match_key`, one upload each) and keeps
    /// its bytes; where it ranked on `today`.
    pub fn add(
        &mut self,
        match_key: &str,
        entry: Entry,
        bytes: Vec<u8>,
        today: Date,
    ) -> Result<Ranks, AlreadyRanked> {
        if !self.matches.insert(match_key.to_owned()) {
            return Err(AlreadyRanked);
        }
        self.made = self.made.max(entry.seq);
        self.bytes.insert(entry.id.clone(), bytes);
        self.entries.push(entry.clone());
        let rank = |board: Board| self.rank_of(&entry, board, today);
        Ok(Ranks {
            daily: rank(Board::Daily),
            week: rank(Board::Week).unwrap_or(0),
            all: rank(Board::All).unwrap_or(0),
        })
    }

    fn rank_of(&self, entry: &Entry, board: Board, today: Date) -> Option<usize> {
        if !holds(board, entry, &entry.preset, today) {
            return None;
        }
        let ahead = (self.entries.iter())
            .filter(|e| holds(board, e, &entry.preset, today) && key(e) < key(entry))
            .count();
        Some(ahead + 1)
    }

    /// The stored bytes of replay `id`.
    pub fn bytes(&self, id: &str) -> Option<&[u8]> {
        self.bytes.get(id).map(Vec::as_slice)
    }

    /// A page of `board` for `preset` on `today`, after `after` (a cursor).
    pub fn page(&self, board: Board, preset: &str, today: Date, after: Option<Cursor>) -> Page {
        let mut on: Vec<&Entry> = (self.entries.iter())
            .filter(|e| holds(board, e, preset, today))
            .collect();
        on.sort_by_key(|e| key(e));
        let skip = after.map_or(0, |after| on.partition_point(|e| key(e) <= after));
        let entries: Vec<Line> = (on.iter().enumerate().skip(skip))
            .take(BOARD_PAGE)
            .map(|(i, e)| line(i + 1, e))
            .collect();
        let next = (skip + entries.len() < on.len())
            .then(|| on.get(skip + entries.len() - 1).map(|e| cursor(e)))
            .flatten();
        Page {
            board,
            entries,
            next,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use time::Month;

    pub(crate) fn day(d: u8) -> Date {
        Date::from_calendar_date(2026, Month::November, d).unwrap()
    }

    /// An entry of the default preset by its order-deciding fields.
    pub(crate) fn entry(seq: u64, score: u64, frames: u32, date: Date, daily: bool) -> Entry {
        Entry {
            id: format!("r{seq}"),
            seq,
            names: ["A".into(), "B".into()],
            score,
            wave: 1,
            frames,
            fps: 60,
            preset: "default".into(),
            date,
            daily,
        }
    }

    /// An entry ranked under other rules is on none of today's boards.
    #[test]
    fn each_rules_version_has_boards_of_its_own() {
        let today = day(28);
        let old = entry(1, 900, 60, today, true);
        let new = Entry {
            preset: versioned("default", 2),
            ..entry(2, 100, 60, today, true)
        };
        assert_eq!(new.preset, "default@v2");
        assert_eq!(versioned("default", 0), "default");
        for board in [Board::Daily, Board::Week, Board::All] {
            assert!(holds(board, &new, "default@v2", today), "{board:?}");
            assert!(!holds(board, &old, "default@v2", today), "{board:?}");
            assert!(!holds(board, &new, "default", today), "{board:?}");
        }
    }

    #[test]
    fn boards_rank_by_score_then_frames_and_refuse_a_second_upload() {
        let mut boards = Boards::default();
        let today = day(28); // a Saturday
        let r = boards.add("m1", entry(1, 500, 600, today, true), vec![1], today);
        assert_eq!(
            r,
            Ok(Ranks {
                daily: Some(1),
                week: 1,
                all: 1
            })
        );
        let r = boards.add("m2", entry(2, 900, 600, today, false), vec![2], today);
        assert_eq!(
            r,
            Ok(Ranks {
                daily: None,
                week: 1,
                all: 1
            })
        );
        // Same score, fewer frames: ahead of the slower one.
        let r = boards.add("m3", entry(3, 500, 300, day(23), true), vec![3], today);
        assert_eq!(r.unwrap().all, 2, "ahead of r1 on frames");
        assert_eq!(
            boards.add("m1", entry(4, 1, 1, today, false), vec![], today),
            Err(AlreadyRanked)
        );
        let all = boards.page(Board::All, "default", today, None);
        let ids: Vec<&str> = all.entries.iter().map(|l| l.id.as_str()).collect();
        assert_eq!(ids, ["r2", "r3", "r1"]);
        assert_eq!(all.entries[2].date, "2026-11-28");
        assert_eq!(all.entries[2].seconds, 10.0);
        // The 23rd is a Monday of the same ISO week; the 22nd would not be.
        assert_eq!(
            boards
                .page(Board::Week, "default", today, None)
                .entries
                .len(),
            3
        );
        assert_eq!(
            boards
                .page(Board::Week, "default", day(30), None)
                .entries
                .len(),
            0
        );
        // Only today's daily challenges are on the daily board.
        let daily = boards.page(Board::Daily, "default", today, None);
        assert_eq!(
            daily.entries.iter().map(|l| &l.id).collect::<Vec<_>>(),
            ["r1"]
        );
        assert!(
            boards
                .page(Board::All, "stress", today, None)
                .entries
                .is_empty()
        );
        assert_eq!(boards.bytes("r3"), Some(&[3u8][..]));
    }

    #[test]
    fn pages_follow_their_cursor_to_the_end() {
        let mut boards = Boards::default();
        let today = day(28);
        for seq in 1..=45u64 {
            let e = entry(seq, seq % 7 * 100, 600, today, false);
            boards.add(&format!("m{seq}"), e, vec![], today).unwrap();
        }
        let mut seen = Vec::new();
        let mut after = None;
        loop {
            let page = boards.page(Board::All, "default", today, after);
            assert!(page.entries.len() <= BOARD_PAGE);
            seen.extend(page.entries.iter().map(|l| (l.rank, l.score)));
            match page.next {
                Some(next) => after = Some(parse_cursor(&next).unwrap()),
                None => break,
            }
        }
        assert_eq!(seen.len(), 45);
        assert!(
            seen.windows(2)
                .all(|w| w[0].1 >= w[1].1 && w[1].0 == w[0].0 + 1)
        );
        assert_eq!(parse_cursor("1.2"), None);
        // The sortable text orders as the key does, and a cursor's text
        // reads back.
        let keys = [
            (std::cmp::Reverse(u64::MAX), 0, 1),
            (std::cmp::Reverse(900), 5, 2),
            (std::cmp::Reverse(900), 40, 1),
            (std::cmp::Reverse(900), 40, 12),
            (std::cmp::Reverse(0), u32::MAX, u64::MAX),
        ];
        for pair in keys.windows(2) {
            assert!(pair[0] < pair[1]);
            assert!(sort_text(pair[0]) < sort_text(pair[1]), "{pair:?}");
        }
        assert_eq!(parse_cursor(&cursor_text(keys[3])), Some(keys[3]));
        assert_eq!(parse_cursor("1.2.3.4"), None);
        assert_eq!(
            utc_date(0),
            Date::from_calendar_date(1970, Month::January, 1).unwrap()
        );
    }
}
