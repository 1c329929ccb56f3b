//! Small records the game keeps for itself between runs (rejoin
//! tickets), natively as a file `<key>.json` in `$TWINSTAR_DATA_DIR`
//! (tests give each run its own) or the platform's local data directory.
//! A record is at most 4 KiB when read back.
//!
//! And the player's settings (`crate::settings` checks them): natively
//! the file `$TWINSTAR_CONFIG`, else `twinstar/settings.toml` in the
//! platform's config directory.

use std::path::{Path, PathBuf};

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

/// The settings file: `$TWINSTAR_CONFIG`, else `twinstar/settings.toml` in
/// the platform's config directory (none on a system without one).
fn settings_path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("TWINSTAR_CONFIG") {
        return Some(PathBuf::from(path));
    }
    dirs::config_dir().map(|d| d.join("twinstar").join("settings.toml"))
}

/// Where the settings are kept, in words for the settings screen and for
/// reports: the file's path.
pub fn settings_place() -> String {
    settings_path().map_or_else(
        || "(no config directory)".into(),
        |p| p.display().to_string(),
    )
}

/// The kept settings' bytes, at most `limit` of them; `Ok(None)` when none
/// are kept. Only a regular file is read: a FIFO or a device there must
/// not hang the game or fill its memory.
pub fn read_settings(limit: u64) -> Result<Option<Vec<u8>>, String> {
    settings_path().map_or(Ok(None), |path| read_settings_at(&path, limit))
}

/// Keeps the settings' text, replacing what was kept.
pub fn keep_settings(text: &str) -> Result<(), String> {
    let path = settings_path()
        .ok_or("this system has no config directory; the settings last until you quit")?;
    keep_settings_at(&path, text)
}

/// Tells the player that kept settings were not used (natively on
/// stderr, where the command's other lines go).
pub fn warn(line: &str) {
    eprintln!("twinstar: {line}");
}

fn read_settings_at(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, String> {
    match crate::platform::files::read_limited(path, limit) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

/// Writes atomically (a temporary file renamed over the old one), so a
/// crash never leaves half a settings file.
fn keep_settings_at(path: &Path, text: &str) -> Result<(), String> {
    let write = |e: std::io::Error| format!("cannot save settings to {}: {e}", path.display());
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(write)?;
    }
    let tmp = path.with_extension("toml.tmp");
    std::fs::write(&tmp, text).map_err(write)?;
    std::fs::rename(&tmp, path).map_err(write)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_kept_whole_and_a_missing_file_is_none() {
        let dir = std::env::temp_dir().join(format!("twinstar-records-{}", std::process::id()));
        let path = dir.join("deeper").join("settings.toml");
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(read_settings_at(&path, 64).unwrap(), None);
        keep_settings_at(&path, "volume = 25\n").unwrap();
        keep_settings_at(&path, "volume = 30\n").unwrap();
        assert_eq!(
            read_settings_at(&path, 64).unwrap().unwrap(),
            b"volume = 30\n"
        );
        assert!(
            !path.with_extension("toml.tmp").exists(),
            "the temporary file is renamed"
        );
        let too_long = read_settings_at(&path, 4).unwrap_err();
        assert!(too_long.contains("larger than"), "{too_long}");
        // A directory (or a FIFO, tests/it/files.rs) is refused at once.
        let not_a_file = read_settings_at(&dir, 64).unwrap_err();
        assert!(not_a_file.contains("not a regular file"), "{not_a_file}");
        assert!(!not_a_file.contains('\n'), "{not_a_file}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
