//! A game's records as files in a directory (Pong's data folder).

use super::Records;

/// Records as files `<key>.json` in a directory, at most 4 KiB read back.
pub struct DirRecords(pub std::path::PathBuf);

impl DirRecords {
    fn path(&self, key: &str) -> std::path::PathBuf {
        self.0.join(format!("{key}.json"))
    }
}

impl Records for DirRecords {
    fn write(&self, key: &str, text: &str) -> Result<(), String> {
        std::fs::create_dir_all(&self.0).map_err(|e| format!("{}: {e}", self.0.display()))?;
        let path = self.path(key);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    }

    fn read(&self, key: &str) -> Option<String> {
        let bytes = twinstar_files::read_limited(&self.path(key), 4096).ok()?;
        String::from_utf8(bytes).ok()
    }

    fn remove(&self, key: &str) {
        let _ = std::fs::remove_file(self.path(key));
    }
}
