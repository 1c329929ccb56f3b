//! The player's own files natively: on disk where the player can see
//! them, so there is nothing to offer or pick.

use std::path::Path;

/// Whether the game's files live only in the page (no: they are on disk).
pub const IN_PAGE: bool = false;

/// Nothing: the file at `path` is already where the player can find it.
pub fn download(_path: &Path) -> Result<(), String> {
    Ok(())
}

/// Nothing: the player puts files in `dir` themselves.
pub fn pick_file(_dir: &Path, _accept: &str) {}
