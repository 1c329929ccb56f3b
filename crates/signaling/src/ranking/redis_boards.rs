//! Ranked replays in Redis, for several nodes behind a proxy
//! (`--directory redis://...` on a server that ranks): every node lists
//! every node's entries and serves every replay's bytes, so a replay's
//! link (`/replays/ID`) and `/leaderboard` may reach any node. The bytes
//! are kept in Redis rather than routed back to the node that ranked them:
//! a link then carries nothing but the id, and outlives that node.
//!
//! Layout (all under [`PREFIX`]):
//! - `seq`: the upload counter (ties after score and frames, across nodes);
//! - `match:KEY`: the id ranked for a match, set once (`SET NX`): one
//!   ranked upload per match whichever node it reaches; it expires after
//!   [`MATCH_KEY_LIFETIME`], long after the server stops remembering the
//!   match (`registry::hosted`), when an upload of it is refused anyway;
//! - `entry:ID`: the entry (JSON), `bytes:ID`: the replay (kept: the
//!   all-time board links every one of them);
//! - `board:BUCKET`: a sorted set per bucket of `boards::bucket` (the board
//!   rules stay in `boards`), every member at score 0, named
//!   `boards::sort_text(key):ID` so that lexicographic order is the board's
//!   order and a page is a `ZRANGEBYLEX` after its cursor. A day's and a
//!   week's buckets expire a day after their last day
//!   ([`bucket_lifetime`]): no board reads them after that; the all-time
//!   ones stay.
//!
//! A Redis that fails answers with an error (the routes say 503), never a
//! panic; what is read back from Redis is checked like any input.

use std::sync::Arc;

use redis::AsyncCommands;
use serde::{Deserialize, Serialize};
use time::Date;

use crate::ranking::boards::{
    AlreadyRanked, BOARD_PAGE, Board, Cursor, Entry, Page, Ranks, bucket, buckets, cursor, holds,
    key, line, sort_text,
};
use crate::rooms::directory::Directory;

/// The prefix of every key.
pub const PREFIX: &str = "twinstar:boards:";

/// How long a match's "ranked already" key lives: a week, against the
/// hosted-match ledger's 6 hours.
pub const MATCH_KEY_LIFETIME: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);

/// How long after `today` began (UTC) the bucket of `board` that holds
/// `day` may go, in seconds: until a day after its last day ends, so that
/// a node whose clock is a little behind still finds it; zero or less
/// once that is past, `None` for the all-time board. Counted from
/// `today`, not the clock, so that it follows the day the caller ranks on.
pub fn bucket_lifetime(board: Board, day: Date, today: Date) -> Option<i64> {
    let last_day = match board {
        Board::Daily => day,
        Board::Week => {
            let (year, week, _) = day.to_iso_week_date();
            Date::from_iso_week_date(year, week, time::Weekday::Sunday).ok()?
        }
        Board::All => return None,
    };
    let gone = last_day.next_day()?.next_day()?;
    Some((gone - today).whole_seconds())
}

/// An entry as stored (the date as a Julian day).
#[derive(Serialize, Deserialize)]
struct Record {
    id: String,
    seq: u64,
    names: [String; 2],
    score: u64,
    wave: u32,
    frames: u32,
    fps: u32,
    preset: String,
    julian_day: i32,
    daily: bool,
}

impl Record {
    fn of(e: &Entry) -> Record {
        Record {
            id: e.id.clone(),
            seq: e.seq,
            names: e.names.clone(),
            score: e.score,
            wave: e.wave,
            frames: e.frames,
            fps: e.fps,
            preset: e.preset.clone(),
            julian_day: e.date.to_julian_day(),
            daily: e.daily,
        }
    }

    fn entry(self) -> Option<Entry> {
        Some(Entry {
            id: self.id,
            seq: self.seq,
            names: self.names,
            score: self.score,
            wave: self.wave,
            frames: self.frames,
            fps: self.fps,
            preset: self.preset,
            date: Date::from_julian_day(self.julian_day).ok()?,
            daily: self.daily,
        })
    }
}

fn board_key(bucket: &str) -> String {
    format!("{PREFIX}board:{bucket}")
}

/// A board's member for `entry`.
fn member(entry: &Entry) -> String {
    format!("{}:{}", sort_text(key(entry)), entry.id)
}

/// The id in a member (after the fixed-width sort text and its colon).
fn member_id(member: &str) -> Option<&str> {
    member.split_once(':').map(|(_, id)| id)
}

/// The boards in Redis, through the directory's connection.
pub struct RedisBoards {
    redis: Arc<Directory>,
}

impl RedisBoards {
    pub fn new(redis: Arc<Directory>) -> RedisBoards {
        RedisBoards { redis }
    }

    /// Ranks `entry` (its `seq` is given here, from the shared counter)
    /// with its bytes, once per `match_key`: where it ranked on `today`,
    /// `AlreadyRanked`, or why Redis did not answer.
    pub async fn add(
        &self,
        match_key: &str,
        entry: Entry,
        bytes: Vec<u8>,
        today: Date,
    ) -> Result<Result<Ranks, AlreadyRanked>, String> {
        let match_slot = format!("{PREFIX}match:{match_key}");
        let (slot, id) = (match_slot.clone(), entry.id.clone());
        let claimed: Option<String> = self
            .redis
            .call(|mut c| async move {
                let once = redis::SetOptions::default()
                    .conditional_set(redis::ExistenceCheck::NX)
                    .with_expiration(redis::SetExpiry::EX(MATCH_KEY_LIFETIME.as_secs()));
                c.set_options(&slot, &id, once).await
            })
            .await?;
        if claimed.is_none() {
            return Ok(Err(AlreadyRanked));
        }
        let stored = self.store(entry, bytes, today).await;
        if stored.is_err() {
            // Nothing was ranked: the match may be uploaded again once
            // Redis answers.
            let _ = (self.redis)
                .call(|mut c| async move { c.del::<_, ()>(&match_slot).await })
                .await;
        }
        stored.map(Ok)
    }

    /// Numbers `entry` and, in one transaction, writes it, its bytes and
    /// its board members and reads where it ranks on `today`.
    async fn store(&self, mut entry: Entry, bytes: Vec<u8>, today: Date) -> Result<Ranks, String> {
        let seq: u64 = self
            .redis
            .call(|mut c| async move { c.incr(format!("{PREFIX}seq"), 1u64).await })
            .await?;
        entry.seq = seq;
        let record = serde_json::to_string(&Record::of(&entry)).map_err(|e| e.to_string())?;
        let m = member(&entry);
        let boards: Vec<(String, Option<i64>)> = (buckets(&entry).iter())
            .map(|(board, b)| (board_key(b), bucket_lifetime(*board, entry.date, today)))
            .collect();
        // The boards it is on today (`boards` decides), to rank it on.
        let on: Vec<Board> = (Board::ALL.into_iter())
            .filter(|b| holds(*b, &entry, &entry.preset, today))
            .collect();
        let rank_keys: Vec<String> = (on.iter())
            .map(|b| board_key(&bucket(*b, &entry.preset, today)))
            .collect();
        let id = entry.id.clone();
        let ranks: Vec<Option<usize>> = self
            .redis
            .call(|mut c| async move {
                let mut pipe = redis::pipe();
                pipe.atomic()
                    .set(format!("{PREFIX}entry:{id}"), record)
                    .ignore()
                    .set(format!("{PREFIX}bytes:{id}"), bytes)
                    .ignore();
                for (board, _) in &boards {
                    pipe.zadd(board, &m, 0).ignore();
                }
                for key in &rank_keys {
                    pipe.zrank(key, &m);
                }
                // After the ranks: a bucket already past its end (a late
                // upload) goes at once, and is on no board of today's.
                for (board, lifetime) in &boards {
                    if let Some(seconds) = lifetime {
                        pipe.expire(board, *seconds).ignore();
                    }
                }
                pipe.query_async(&mut c).await
            })
            .await?;
        let rank_on = |board: Board| {
            (on.iter().zip(&ranks))
                .find(|(b, _)| **b == board)
                .and_then(|(_, r)| r.map(|r| r + 1))
        };
        Ok(Ranks {
            daily: rank_on(Board::Daily),
            week: rank_on(Board::Week).unwrap_or(0),
            all: rank_on(Board::All).unwrap_or(0),
        })
    }

    /// The bytes of replay `id`, `None` if unknown.
    pub async fn bytes(&self, id: &str) -> Result<Option<Vec<u8>>, String> {
        let key = format!("{PREFIX}bytes:{id}");
        self.redis
            .call(|mut c| async move { c.get(&key).await })
            .await
    }

    /// A page of `board` for `preset` on `today`, after `after`.
    pub async fn page(
        &self,
        board: Board,
        preset: &str,
        today: Date,
        after: Option<Cursor>,
    ) -> Result<Page, String> {
        let set = board_key(&bucket(board, preset, today));
        // Every member of an entry at or before the cursor sorts below
        // "SORTTEXT;" (';' follows ':').
        let start = after.map_or_else(|| "-".to_owned(), |c| format!("({};", sort_text(c)));
        let (skip, members): (usize, Vec<String>) = self
            .redis
            .call(|mut c| async move {
                let skip: usize = if start == "-" {
                    0
                } else {
                    c.zlexcount(&set, "-", &start).await?
                };
                let members = c
                    .zrangebylex_limit(&set, &start, "+", 0, BOARD_PAGE as isize + 1)
                    .await?;
                Ok((skip, members))
            })
            .await?;
        let more = members.len() > BOARD_PAGE;
        let ids: Vec<String> = (members.iter().take(BOARD_PAGE))
            .filter_map(|m| member_id(m))
            .map(|id| format!("{PREFIX}entry:{id}"))
            .collect();
        let records: Vec<Option<String>> = if ids.is_empty() {
            Vec::new()
        } else {
            self.redis
                .call(|mut c| async move { c.mget(&ids).await })
                .await?
        };
        // Another node's words: a record that does not parse is left out.
        let shown: Vec<Entry> = (records.into_iter().flatten())
            .filter_map(|r| serde_json::from_str::<Record>(&r).ok()?.entry())
            .collect();
        let entries = (shown.iter().enumerate())
            .map(|(i, e)| line(skip + i + 1, e))
            .collect();
        Ok(Page {
            board,
            entries,
            next: more.then(|| shown.last().map(cursor)).flatten(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranking::boards::tests::day;

    #[test]
    fn day_and_week_buckets_live_until_a_day_after_their_last_day() {
        let date = |m, d| Date::from_calendar_date(2026, m, d).unwrap();
        let nov = |d| date(time::Month::November, d);
        const DAY: i64 = 24 * 3600;
        // Saturday the 28th: its day ends at midnight, plus a day.
        assert_eq!(
            bucket_lifetime(Board::Daily, nov(28), nov(28)),
            Some(2 * DAY)
        );
        // Its ISO week ends on Sunday the 29th: gone on December 1st.
        assert_eq!(
            bucket_lifetime(Board::Week, nov(28), nov(28)),
            Some(3 * DAY)
        );
        assert_eq!(
            bucket_lifetime(Board::Week, nov(23), nov(28)),
            Some(3 * DAY)
        );
        // A year's last ISO week that ends in the next year.
        let dec31 = date(time::Month::December, 31);
        assert_eq!(bucket_lifetime(Board::Week, dec31, dec31), Some(5 * DAY));
        // Past: zero or less, which Redis takes as "delete now".
        assert_eq!(
            bucket_lifetime(Board::Daily, nov(20), nov(28)),
            Some(-6 * DAY)
        );
        assert_eq!(bucket_lifetime(Board::All, nov(20), nov(28)), None);
    }

    #[test]
    fn members_sort_in_board_order_and_name_their_entry() {
        let entry = |seq, score, frames| {
            crate::ranking::boards::tests::entry(seq, score, frames, day(28), false)
        };
        let (a, b, c) = (entry(3, 900, 600), entry(1, 500, 300), entry(2, 500, 600));
        let mut members = [member(&c), member(&b), member(&a)];
        members.sort();
        let ids: Vec<&str> = members.iter().filter_map(|m| member_id(m)).collect();
        assert_eq!(ids, ["r3", "r1", "r2"]);
        // A page after b starts at c: b's member is below the bound.
        let bound = format!("{};", sort_text(key(&b)));
        assert!(member(&b) < bound && bound < member(&c));
        let back = Record::of(&a).entry().unwrap();
        assert_eq!(back, a);
    }
}
