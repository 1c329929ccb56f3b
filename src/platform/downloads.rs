//! A file the player asked for by name (`--record NAME`): natively it is
//! already where they said; in the browser files live only in the page's
//! memory, so it goes to the browser's downloads too.

use std::path::Path;

/// Hands the file at `path` to the player: nothing natively; in the
/// browser a download of its bytes (a failure is logged, not fatal: the
/// match it came from is over either way).
pub fn hand_over(path: &Path) {
    #[cfg(target_arch = "wasm32")]
    {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let bytes = super::files::memory::read(path).unwrap_or_default();
        if let Err(e) = super::browser::download(&name, &bytes) {
            tracing::warn!("{e}");
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = path;
}
