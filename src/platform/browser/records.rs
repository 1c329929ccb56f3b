//! Small records the game keeps for itself between runs (rejoin
//! tickets), in the browser as an entry `twinstar.<key>` in the page's
//! local storage. A record is at most 4 KiB when read back.
//!
//! And the player's settings (`crate::settings` checks them), kept under
//! `twinstar.settings`.

use super::{log, store, stored, unstore};

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

/// The local-storage key of the settings.
const SETTINGS_KEY: &str = "twinstar.settings";

/// Where the settings are kept, in words for the settings screen.
pub fn settings_place() -> String {
    "this browser's local storage".into()
}

/// The kept settings' bytes, at most `limit` of them; `Ok(None)` when none
/// are kept.
pub fn read_settings(limit: u64) -> Result<Option<Vec<u8>>, String> {
    match stored(SETTINGS_KEY) {
        None => Ok(None),
        Some(text) if text.len() as u64 > limit => Err(format!("longer than {limit} bytes")),
        Some(text) => Ok(Some(text.into_bytes())),
    }
}

/// Keeps the settings' text, replacing what was kept.
pub fn keep_settings(text: &str) -> Result<(), String> {
    store(SETTINGS_KEY, text)
        .then_some(())
        .ok_or_else(|| "this browser refused to keep them (private window, or storage full)".into())
}

/// Tells the player that kept settings were not used (on the console).
pub fn warn(line: &str) {
    log(&format!("twinstar: {line}"));
}
