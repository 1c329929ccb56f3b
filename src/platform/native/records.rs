//! Small records the game keeps for itself between runs (rejoin
//! tickets), natively as a file `<key>.json` in `$TWINSTAR_DATA_DIR`
//! (tests give each run its own) or the platform's local data directory.
//! A record is at most 4 KiB when read back.

use std::path::PathBuf;

/// The longest record read back.
const MAX_BYTES: u64 = 4096;

fn dir() -> Option<PathBuf> {
    match std::env::var_os("TWINSTAR_DATA_DIR") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => dirs::data_local_dir().map(|d| d.join("twinstar")),
    }
}

fn path(key: &str) -> Option<PathBuf> {
    dir().map(|d| d.join(format!("{key}.json")))
}

/// These records as the netcode's store of rejoin tickets.
pub struct Store;

impl twinstar_netcode::tickets::Records for Store {
    fn write(&self, key: &str, text: &str) -> Result<(), String> {
        let path = path(key).ok_or("no data directory")?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    }

    fn read(&self, key: &str) -> Option<String> {
        let bytes = crate::platform::files::read_limited(&path(key)?, MAX_BYTES).ok()?;
        String::from_utf8(bytes).ok()
    }

    fn remove(&self, key: &str) {
        if let Some(path) = path(key) {
            let _ = std::fs::remove_file(path);
        }
    }
}
