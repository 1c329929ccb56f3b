//! Small records the game keeps for itself between runs (rejoin
//! tickets): natively a file `<key>.json` in `$TWINSTAR_DATA_DIR` (tests
//! give each run its own) or the platform's local data directory; in the
//! browser an entry `twinstar.<key>` in the page's local storage. A record
//! is at most 4 KiB when read back.

/// The longest record read back.
const MAX_BYTES: u64 = 4096;

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use std::path::PathBuf;

    fn dir() -> Option<PathBuf> {
        match std::env::var_os("TWINSTAR_DATA_DIR") {
            Some(dir) => Some(PathBuf::from(dir)),
            None => dirs::data_local_dir().map(|d| d.join("twinstar")),
        }
    }

    fn path(key: &str) -> Option<PathBuf> {
        dir().map(|d| d.join(format!("{key}.json")))
    }

    pub fn write(key: &str, text: &str) -> Result<(), String> {
        let path = path(key).ok_or("no data directory")?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn read(key: &str) -> Option<String> {
        let bytes = crate::platform::files::read_limited(&path(key)?, super::MAX_BYTES).ok()?;
        String::from_utf8(bytes).ok()
    }

    pub fn remove(key: &str) {
        if let Some(path) = path(key) {
            let _ = std::fs::remove_file(path);
        }
    }
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use crate::platform::browser;

    fn key(key: &str) -> String {
        format!("twinstar.{key}")
    }

    pub fn write(name: &str, text: &str) -> Result<(), String> {
        browser::store(&key(name), text)
            .then_some(())
            .ok_or_else(|| "the browser refused local storage".to_string())
    }

    pub fn read(name: &str) -> Option<String> {
        browser::stored(&key(name)).filter(|t| t.len() as u64 <= super::MAX_BYTES)
    }

    pub fn remove(name: &str) {
        browser::unstore(&key(name));
    }
}

/// Keeps `text` under `key`, replacing what was there.
pub fn write(key: &str, text: &str) -> Result<(), String> {
    imp::write(key, text)
}

/// The record under `key`, if there is a readable one.
pub fn read(key: &str) -> Option<String> {
    imp::read(key)
}

/// Forgets the record under `key` (nothing if there is none).
pub fn remove(key: &str) {
    imp::remove(key)
}

/// These records as the netcode's store of rejoin tickets.
pub struct Store;

impl twinstar_netcode::tickets::Records for Store {
    fn write(&self, key: &str, text: &str) -> Result<(), String> {
        write(key, text)
    }

    fn read(&self, key: &str) -> Option<String> {
        read(key)
    }

    fn remove(&self, key: &str) {
        remove(key)
    }
}
