//! The player's own files where the game's files live only in the page
//! (the browser): a file comes in through the page's file picker and goes
//! out as a download. Natively files are on disk where the player can see
//! them, so there is nothing to do.

use std::path::Path;

/// Whether the game's files live only in the page, so the player needs
/// [`pick_file`] and [`download`] to reach them (the browser).
pub const IN_PAGE: bool = cfg!(target_arch = "wasm32");

/// Offers the file at `path` as a download in the browser; natively it is
/// already where the player can find it, so nothing happens.
pub fn download(path: &Path) -> Result<(), String> {
    #[cfg(target_arch = "wasm32")]
    {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let bytes = super::files::memory::read(path).unwrap_or_default();
        super::browser::download(&name, &bytes)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = path;
        Ok(())
    }
}

/// Asks the player for a file with the page's file picker (filtered by
/// `accept`, e.g. ".tsr") and keeps it under `dir` in the page's store;
/// nothing natively, where the player puts files in `dir` themselves.
pub fn pick_file(dir: &Path, accept: &str) {
    #[cfg(target_arch = "wasm32")]
    super::browser::pick_file(dir, accept);
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (dir, accept);
}
