//! The player's own files in the page, where the game's files live only
//! in memory: a file comes in through the page's file picker and goes out
//! as a download.

use std::path::Path;

/// Whether the game's files live only in the page (yes), so the player
/// needs [`pick_file`] and [`download`] to reach them.
pub const IN_PAGE: bool = true;

/// Offers the file at `path` as a download.
pub fn download(path: &Path) -> Result<(), String> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let bytes = crate::platform::files::memory::read(path).unwrap_or_default();
    super::download(&name, &bytes)
}

/// Asks the player for a file with the page's file picker (filtered by
/// `accept`, e.g. ".tsr") and keeps it under `dir` in the page's store.
pub fn pick_file(dir: &Path, accept: &str) {
    super::pick_file(dir, accept);
}
