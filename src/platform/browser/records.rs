//! Small records the game keeps for itself between runs (rejoin
//! tickets), in the browser as an entry `twinstar.<key>` in the page's
//! local storage. A record is at most 4 KiB when read back.

use super::{store, stored, unstore};

/// The longest record read back.
const MAX_BYTES: u64 = 4096;

fn key(key: &str) -> String {
    format!("twinstar.{key}")
}

/// These records as the netcode's store of rejoin tickets.
pub struct Store;

impl twinstar_netcode::tickets::Records for Store {
    fn write(&self, name: &str, text: &str) -> Result<(), String> {
        store(&key(name), text)
            .then_some(())
            .ok_or_else(|| "the browser refused local storage".to_string())
    }

    fn read(&self, name: &str) -> Option<String> {
        stored(&key(name)).filter(|t| t.len() as u64 <= MAX_BYTES)
    }

    fn remove(&self, name: &str) {
        unstore(&key(name));
    }
}
