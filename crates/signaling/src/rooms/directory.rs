//! The public room list across several nodes (`--directory redis://...`).
//! Rooms shard by code across nodes behind a proxy, so no node knows every
//! public room; each node writes its own list to Redis, under a key of its
//! own that expires ([`EXPIRY`]) unless refreshed ([`REFRESH`]), and
//! `GET /rooms` on any node reads every node's list. A node that dies
//! drops out within the expiry. A Redis that goes away leaves each node
//! listing its own rooms (from memory, as without a directory) and saying
//! so once in its log and in `/metrics`; nothing else depends on it.
//!
//! What a node reads from Redis is another node's words: each list is
//! bounded in size and parsed as room listings (names and versions checked
//! as everywhere); a list that does not parse is skipped.

use std::time::Duration;

use redis::AsyncCommands;
use redis::aio::ConnectionManager;
use tracing::{info, warn};

use twinstar_signaling_protocol::RoomListing;

/// How often a node writes its list.
pub const REFRESH: Duration = Duration::from_secs(1);
/// How long a node's list outlives its last write.
pub const EXPIRY: Duration = Duration::from_secs(5);
/// Every Redis call gives up after this: a slow Redis must not slow the
/// room list (which then falls back to this node's rooms).
const CALL_TIMEOUT: Duration = Duration::from_millis(500);
/// The prefix of every node's key.
const PREFIX: &str = "twinstar:rooms:";
/// The largest node list read (1,000 rooms are ~150 KB).
const MAX_LIST_BYTES: usize = 4 * 1024 * 1024;
/// The most node lists read for one answer.
const MAX_NODES: usize = 256;

/// Why `--directory` was refused.
#[derive(Debug, thiserror::Error)]
#[error("invalid --directory '{url}': {why} (expected redis://HOST:PORT)")]
pub struct DirectoryError {
    url: String,
    why: String,
}

/// This node's view of the shared directory.
pub struct Directory {
    client: redis::Client,
    /// Connected on first use and re-established by the manager.
    connection: tokio::sync::Mutex<Option<ConnectionManager>>,
    /// This node's key.
    key: String,
    /// Whether the last call worked (for the log's transitions and
    /// `/metrics`).
    up: std::sync::atomic::AtomicBool,
}

impl Directory {
    /// Checks the URL; connects later, in the background.
    pub fn new(url: &str) -> Result<Directory, DirectoryError> {
        let bad = |why: &str| DirectoryError {
            url: url.to_owned(),
            why: why.to_owned(),
        };
        if !url.starts_with("redis://") {
            return Err(bad("only redis:// is supported"));
        }
        let client = redis::Client::open(url).map_err(|e| bad(&e.to_string()))?;
        Ok(Directory {
            client,
            connection: tokio::sync::Mutex::new(None),
            key: format!("{PREFIX}{:016x}", rand::random::<u64>()),
            up: std::sync::atomic::AtomicBool::new(true),
        })
    }

    /// Whether the last exchange with Redis worked.
    pub fn is_up(&self) -> bool {
        self.up.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Writes this node's rooms (replacing its last list; expires unless
    /// written again within [`EXPIRY`]).
    pub async fn publish(&self, rooms: &[RoomListing]) {
        let text = serde_json::to_string(rooms).unwrap_or_else(|_| "[]".into());
        let key = self.key.clone();
        let result = self
            .call(|mut c| async move { c.set_ex::<_, _, ()>(&key, text, EXPIRY.as_secs()).await })
            .await;
        self.note(result.map(|_| ()), "write this node's rooms to");
    }

    /// Every node's rooms, or why not.
    pub async fn read(&self) -> Result<Vec<RoomListing>, String> {
        let result = self
            .call(|mut c| async move {
                let mut keys: Vec<String> = Vec::new();
                {
                    let mut iter = c.scan_match::<_, String>(format!("{PREFIX}*")).await?;
                    while let Some(key) = iter.next_item().await {
                        keys.push(key?);
                        if keys.len() >= MAX_NODES {
                            break;
                        }
                    }
                }
                if keys.is_empty() {
                    return Ok(Vec::new());
                }
                let lists: Vec<Option<Vec<u8>>> = c.mget(&keys).await?;
                Ok(lists)
            })
            .await;
        let lists = match result {
            Ok(lists) => lists,
            Err(e) => {
                self.note(Err(e.clone()), "read the room list from");
                return Err(e);
            }
        };
        self.note(Ok(()), "read the room list from");
        let mut rooms = Vec::new();
        for list in lists.into_iter().flatten() {
            if list.len() > MAX_LIST_BYTES {
                continue;
            }
            // Another node's words: a list that does not parse is skipped.
            if let Ok(listed) = serde_json::from_slice::<Vec<RoomListing>>(&list) {
                rooms.extend(listed);
            }
        }
        Ok(rooms)
    }

    /// Runs `call` on the shared connection, connecting first if need be,
    /// within [`CALL_TIMEOUT`] (also the ranked replays' calls:
    /// `redis_boards`).
    pub(crate) async fn call<T, F, Fut>(&self, call: F) -> Result<T, String>
    where
        F: FnOnce(ConnectionManager) -> Fut,
        Fut: std::future::Future<Output = redis::RedisResult<T>>,
    {
        let attempt = async {
            let connection = {
                let mut slot = self.connection.lock().await;
                match slot.as_ref() {
                    Some(c) => c.clone(),
                    None => {
                        let c = ConnectionManager::new(self.client.clone())
                            .await
                            .map_err(|e| e.to_string())?;
                        *slot = Some(c.clone());
                        c
                    }
                }
            };
            call(connection).await.map_err(|e| e.to_string())
        };
        match tokio::time::timeout(CALL_TIMEOUT, attempt).await {
            Ok(result) => result,
            Err(_) => Err(format!("no answer within {} ms", CALL_TIMEOUT.as_millis())),
        }
    }

    /// Logs a change between working and not, once each way.
    fn note(&self, result: Result<(), String>, what: &str) {
        use std::sync::atomic::Ordering;
        match result {
            Ok(()) => {
                if !self.up.swap(true, Ordering::Relaxed) {
                    info!("the room directory answers again; listing every node's rooms");
                }
            }
            Err(e) => {
                if self.up.swap(false, Ordering::Relaxed) {
                    warn!(
                        "could not {what} the room directory ({e}); listing this node's rooms only until it answers"
                    );
                }
            }
        }
    }
}

/// The rooms `GET /rooms` shows: the directory's, with this node's own
/// (fresher) taking the place of their entries there; each code once.
pub fn merge(own: Vec<RoomListing>, shared: Vec<RoomListing>) -> Vec<RoomListing> {
    let mut seen: std::collections::HashSet<String> = own.iter().map(|r| r.code.clone()).collect();
    let mut rooms = own;
    for room in shared {
        if seen.insert(room.code.clone()) {
            rooms.push(room);
        }
    }
    rooms
}

#[cfg(test)]
mod tests {
    use super::*;
    use twinstar_signaling_protocol::{PlayerName, RoomStatus, VersionTag};

    fn room(code: &str, host: &str, state: RoomStatus) -> RoomListing {
        RoomListing {
            code: code.into(),
            host: PlayerName::parse(host).unwrap(),
            state,
            version: VersionTag::parse("6.3").unwrap(),
            created_s: 1,
            wave: None,
            score: None,
            elapsed_s: None,
            spectators: None,
        }
    }

    #[test]
    fn this_nodes_rooms_win_over_their_copies_in_the_directory() {
        let own = vec![room("AAA-222", "Ana", RoomStatus::Playing)];
        let shared = vec![
            room("AAA-222", "Ana", RoomStatus::Waiting),
            room("BBB-333", "Bo", RoomStatus::Waiting),
        ];
        let merged = merge(own, shared);
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[0].state, RoomStatus::Playing);
        assert_eq!(merged[1].code, "BBB-333");
    }

    #[test]
    fn only_redis_urls_are_taken() {
        assert!(Directory::new("redis://127.0.0.1:6379").is_ok());
        for bad in ["http://x", "rediss://x:1", "redis", ""] {
            let e = Directory::new(bad).err().unwrap().to_string();
            assert!(e.contains("--directory") && !e.contains('\n'), "{bad}: {e}");
        }
    }
}
