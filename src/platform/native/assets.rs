//! The game's larger assets (its sounds, the starfield behind every
//! screen) built into the native binary, so that it runs from any
//! directory. The page fetches the same files after its first frame
//! (`platform/browser/assets.rs`).

use std::borrow::Cow;

/// One file under `assets/`, named by its path there.
#[derive(Clone, Copy)]
pub struct Asset {
    path: &'static str,
    bytes: &'static [u8],
}

/// The asset at `assets/PATH` (a literal): its bytes built in.
macro_rules! asset {
    ($path:literal) => {
        $crate::platform::assets::Asset::built_in(
            $path,
            include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/", $path)),
        )
    };
}
pub(crate) use asset;

impl Asset {
    /// Use [`asset!`].
    pub const fn built_in(path: &'static str, bytes: &'static [u8]) -> Asset {
        Asset { path, bytes }
    }

    /// Its path under `assets/`, e.g. `sounds/bomb.wav`.
    pub fn path(&self) -> &'static str {
        self.path
    }

    /// Its bytes now, if the build holds them (always, natively).
    pub fn at_hand(&self) -> Option<&'static [u8]> {
        Some(self.bytes)
    }

    /// Its bytes.
    pub async fn load(&self) -> Result<Cow<'static, [u8]>, String> {
        Ok(Cow::Borrowed(self.bytes))
    }
}
