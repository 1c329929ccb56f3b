//! What the replay routes (`replay_routes`) share through `shared`: the
//! verifiers, the boards, the upload windows and the wall clock of the
//! server's monotonic one. Below both, so neither reaches into the other.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use web_time::{Duration, Instant};

use time::Date;

use crate::ranking::boards::{AlreadyRanked, Board, Cursor, Entry, Page, Ranks};
use crate::ranking::redis_boards::RedisBoards;
use crate::ranking::replay_store::Store;
use crate::ranking::replays::VerifierPool;

/// Uploads one address may make a minute.
pub const UPLOADS_PER_ADDRESS: usize = 10;
/// Verified uploads one room may rank or try to, a minute.
pub const UPLOADS_PER_ROOM: usize = 3;
pub const RATE_WINDOW: Duration = Duration::from_secs(60);
/// How much longer than the room was open a replay may be: the host's
/// clock and the server's see the start and end a little apart.
pub const LIFETIME_SLACK: Duration = Duration::from_secs(5);

/// What the routes share: the verifiers, the boards, the upload limits and
/// the wall clock of the server's monotonic one.
#[derive(Clone)]
pub struct Replays {
    pub pool: VerifierPool,
    kept: Kept,
    /// [`LIFETIME_SLACK`], or a benchmark's (`ServeOptions`).
    pub lifetime_slack: Duration,
    pub(crate) rates: Arc<Mutex<Rates>>,
    /// An `Instant` and the Unix ms it was: turns the registry's
    /// `Instant`s into dates.
    origin: (Instant, u64),
}

/// Where the boards are: this node's store (memory or `--data`), or Redis
/// shared by every node (`--directory`).
#[derive(Clone)]
enum Kept {
    Here(Arc<Mutex<Store>>),
    Shared(Arc<RedisBoards>),
}

/// Why the boards could not be read or written.
#[derive(Debug, PartialEq, Eq)]
pub enum StoreError {
    /// This node's database refused (a 500).
    Refused(String),
    /// The shared Redis did not answer (a 503: try again later).
    Unavailable(String),
}

impl Replays {
    /// Ranking with `pool`, keeping replays in `store`.
    pub fn new(pool: VerifierPool, store: Store) -> Replays {
        Replays::keeping(pool, Kept::Here(Arc::new(Mutex::new(store))))
    }

    /// Ranking with `pool`, keeping replays in Redis with every node.
    pub fn shared(pool: VerifierPool, boards: RedisBoards) -> Replays {
        Replays::keeping(pool, Kept::Shared(Arc::new(boards)))
    }

    fn keeping(pool: VerifierPool, kept: Kept) -> Replays {
        Replays {
            pool,
            kept,
            lifetime_slack: LIFETIME_SLACK,
            rates: Arc::default(),
            origin: (Instant::now(), unix_ms_now()),
        }
    }

    /// The same, allowing replays `slack` longer than their room was open.
    pub fn with_lifetime_slack(mut self, slack: Duration) -> Replays {
        self.lifetime_slack = slack;
        self
    }

    fn store(store: &Mutex<Store>) -> MutexGuard<'_, Store> {
        store.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Ranks `entry` (numbered here, in upload order) once per
    /// `match_key`, keeping `bytes`.
    pub async fn add(
        &self,
        match_key: &str,
        mut entry: Entry,
        bytes: Vec<u8>,
        today: Date,
    ) -> Result<Result<Ranks, AlreadyRanked>, StoreError> {
        match &self.kept {
            Kept::Here(store) => {
                let mut store = Replays::store(store);
                entry.seq = store.next_seq();
                store
                    .add(match_key, entry, bytes, today)
                    .map_err(StoreError::Refused)
            }
            Kept::Shared(boards) => (boards.add(match_key, entry, bytes, today).await)
                .map_err(|e| StoreError::Unavailable(unavailable(&e))),
        }
    }

    /// The bytes of replay `id`, `None` if unknown.
    pub async fn bytes(&self, id: &str) -> Result<Option<Vec<u8>>, StoreError> {
        match &self.kept {
            Kept::Here(store) => Ok(Replays::store(store).bytes(id)),
            Kept::Shared(boards) => {
                (boards.bytes(id).await).map_err(|e| StoreError::Unavailable(unavailable(&e)))
            }
        }
    }

    /// A page of `board` for `preset` on `today`, after `after`.
    pub async fn page(
        &self,
        board: Board,
        preset: &str,
        today: Date,
        after: Option<Cursor>,
    ) -> Result<Page, StoreError> {
        match &self.kept {
            Kept::Here(store) => Ok(Replays::store(store).page(board, preset, today, after)),
            Kept::Shared(boards) => (boards.page(board, preset, today, after).await)
                .map_err(|e| StoreError::Unavailable(unavailable(&e))),
        }
    }

    pub fn unix_ms(&self, at: Instant) -> u64 {
        let (i0, u0) = self.origin;
        if at >= i0 {
            u0 + at.saturating_duration_since(i0).as_millis() as u64
        } else {
            u0.saturating_sub(i0.saturating_duration_since(at).as_millis() as u64)
        }
    }
}

/// A Redis failure as a client's one-line reason.
fn unavailable(why: &str) -> String {
    format!("the shared replay store (Redis) did not answer: {why}; try again in a moment")
        .replace('\n', " ")
}

pub fn unix_ms_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Sliding windows of recent uploads, per address and per room.
#[derive(Debug, Default)]
pub(crate) struct Rates {
    pub addresses: HashMap<IpAddr, VecDeque<Instant>>,
    pub rooms: HashMap<String, VecDeque<Instant>>,
}

/// Takes one upload from `key`'s window if it has room for it.
pub fn take<K: std::hash::Hash + Eq>(
    map: &mut HashMap<K, VecDeque<Instant>>,
    key: K,
    max: usize,
    now: Instant,
) -> bool {
    // Forget keys whose window emptied, so the maps stay bounded by the
    // uploads of the last minute.
    map.retain(|_, times| {
        times.retain(|t| now.saturating_duration_since(*t) < RATE_WINDOW);
        !times.is_empty()
    });
    let times = map.entry(key).or_default();
    if times.len() >= max {
        return false;
    }
    times.push_back(now);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_takes_its_maximum_a_minute() {
        let mut map = HashMap::new();
        let t = Instant::now();
        for _ in 0..3 {
            assert!(take(&mut map, "r", 3, t));
        }
        assert!(!take(&mut map, "r", 3, t + Duration::from_secs(59)));
        assert!(take(&mut map, "other", 3, t));
        assert!(take(&mut map, "r", 3, t + RATE_WINDOW));
    }
}
