//! Where ranked replays are kept: the boards (`boards`, in memory, always)
//! and, with `--data DIR`, a SQLite database in DIR (`replays.sqlite`)
//! that holds every ranked replay's entry and bytes, read back into the
//! boards at start-up. Without `--data` the bytes stay in memory and are
//! gone when the server stops.

use std::path::Path;

use rusqlite::{Connection, params};
use time::Date;

use crate::ranking::boards::{AlreadyRanked, Board, Boards, Entry, Page, Ranks};

/// The database's file in `--data DIR`.
pub const DATA_FILE: &str = "replays.sqlite";

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS replays (
    id TEXT PRIMARY KEY,
    match_key TEXT NOT NULL UNIQUE,
    seq INTEGER NOT NULL,
    name1 TEXT NOT NULL,
    name2 TEXT NOT NULL,
    score INTEGER NOT NULL,
    wave INTEGER NOT NULL,
    frames INTEGER NOT NULL,
    fps INTEGER NOT NULL,
    preset TEXT NOT NULL,
    julian_day INTEGER NOT NULL,
    daily INTEGER NOT NULL,
    bytes BLOB NOT NULL
)";

/// The boards, and the database behind them if any.
#[derive(Debug, Default)]
pub struct Store {
    boards: Boards,
    db: Option<Connection>,
}

impl Store {
    /// Replays in memory only.
    pub fn memory() -> Store {
        Store::default()
    }

    /// The store in `dir` (made if missing), its replays read back.
    pub fn open(dir: &Path) -> Result<Store, String> {
        let fail = |e: &dyn std::fmt::Display| format!("--data {}: {e}", dir.display());
        std::fs::create_dir_all(dir).map_err(|e| fail(&e))?;
        let db = Connection::open(dir.join(DATA_FILE)).map_err(|e| fail(&e))?;
        db.execute_batch(SCHEMA).map_err(|e| fail(&e))?;
        let mut boards = Boards::default();
        {
            let mut rows = db
                .prepare(
                    "SELECT id, match_key, seq, name1, name2, score, wave, frames, fps, preset, \
                     julian_day, daily FROM replays ORDER BY seq",
                )
                .map_err(|e| fail(&e))?;
            let entries = rows
                .query_map([], |r| {
                    let day: i32 = r.get(10)?;
                    Ok((
                        r.get::<_, String>(1)?,
                        Entry {
                            id: r.get(0)?,
                            seq: r.get::<_, i64>(2)? as u64,
                            names: [r.get(3)?, r.get(4)?],
                            score: r.get::<_, i64>(5)? as u64,
                            wave: r.get(6)?,
                            frames: r.get(7)?,
                            fps: r.get(8)?,
                            preset: r.get(9)?,
                            date: Date::from_julian_day(day).unwrap_or(Date::MIN),
                            daily: r.get(11)?,
                        },
                    ))
                })
                .map_err(|e| fail(&e))?;
            for row in entries {
                let (match_key, entry) = row.map_err(|e| fail(&e))?;
                let date = entry.date;
                // The bytes stay in the database (read on GET /replays/ID).
                let _ = boards.add(&match_key, entry, Vec::new(), date);
            }
        }
        Ok(Store {
            boards,
            db: Some(db),
        })
    }

    /// Replays ranked.
    /// How many replays are ranked.
    pub fn len(&self) -> usize {
        self.boards.len()
    }

    /// Whether no replay is ranked.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The upload order the next entry takes.
    pub fn next_seq(&self) -> u64 {
        self.boards.next_seq()
    }

    /// Ranks `entry` and keeps `bytes` (in the database, with `--data`):
    /// where it ranked, `AlreadyRanked`, or why the database refused.
    pub fn add(
        &mut self,
        match_key: &str,
        entry: Entry,
        bytes: Vec<u8>,
        today: Date,
    ) -> Result<Result<Ranks, AlreadyRanked>, String> {
        if self.boards.has_match(match_key) {
            return Ok(Err(AlreadyRanked));
        }
        let Some(db) = &self.db else {
            return Ok(self.boards.add(match_key, entry, bytes, today));
        };
        db.execute(
            "INSERT INTO replays (id, match_key, seq, name1, name2, score, wave, frames, fps, \
             preset, julian_day, daily, bytes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            params![
                entry.id,
                match_key,
                entry.seq as i64,
                entry.names[0],
                entry.names[1],
                entry.score as i64,
                entry.wave,
                entry.frames,
                entry.fps,
                entry.preset,
                entry.date.to_julian_day(),
                entry.daily,
                bytes,
            ],
        )
        .map_err(|e| format!("the replay store refused it: {e}"))?;
        Ok(self.boards.add(match_key, entry, Vec::new(), today))
    }

    /// The bytes of replay `id`.
    pub fn bytes(&self, id: &str) -> Option<Vec<u8>> {
        match &self.db {
            None => self.boards.bytes(id).map(<[u8]>::to_vec),
            Some(db) => db
                .query_row("SELECT bytes FROM replays WHERE id = ?1", [id], |r| {
                    r.get(0)
                })
                .ok(),
        }
    }

    pub fn page(
        &self,
        board: Board,
        preset: &str,
        today: Date,
        after: Option<crate::ranking::boards::Cursor>,
    ) -> Page {
        self.boards.page(board, preset, today, after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::Month;

    fn entry(seq: u64, score: u64) -> Entry {
        Entry {
            id: format!("r{seq}"),
            seq,
            names: ["Ann".into(), "Bo".into()],
            score,
            wave: 3,
            frames: 600,
            fps: 60,
            preset: "default".into(),
            date: Date::from_calendar_date(2026, Month::November, 28).unwrap(),
            daily: seq == 1,
        }
    }

    /// What a server ranked is there again after a restart: entries, order,
    /// bytes and the one-upload-per-match rule.
    #[test]
    fn a_data_dir_keeps_the_boards_across_restarts() {
        let dir = std::env::temp_dir().join(format!("twinstar-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let today = entry(1, 0).date;
        {
            let mut store = Store::open(&dir).unwrap();
            assert_eq!(store.len(), 0);
            store
                .add("m1", entry(1, 300), vec![1, 2], today)
                .unwrap()
                .unwrap();
            store
                .add("m2", entry(2, 900), vec![3], today)
                .unwrap()
                .unwrap();
        }
        let mut store = Store::open(&dir).unwrap();
        assert_eq!(store.len(), 2);
        assert_eq!(store.next_seq(), 3);
        let page = store.page(Board::All, "default", today, None);
        let ids: Vec<&str> = page.entries.iter().map(|l| l.id.as_str()).collect();
        assert_eq!(ids, ["r2", "r1"]);
        assert_eq!(page.entries[1].names, ["Ann", "Bo"]);
        assert_eq!(
            store
                .page(Board::Daily, "default", today, None)
                .entries
                .len(),
            1
        );
        assert_eq!(store.bytes("r1"), Some(vec![1, 2]));
        assert_eq!(store.bytes("nope"), None);
        assert_eq!(
            store.add("m1", entry(3, 1), vec![], today),
            Ok(Err(AlreadyRanked))
        );
        let _ = std::fs::remove_dir_all(&dir);
        // A --data path that cannot be a directory says so in one line.
        let file = std::env::temp_dir().join(format!("twinstar-store-file-{}", std::process::id()));
        std::fs::write(&file, b"x").unwrap();
        let error = Store::open(&file).unwrap_err();
        assert!(
            error.starts_with("--data ") && !error.contains('\n'),
            "{error}"
        );
        let _ = std::fs::remove_file(&file);
    }
}
