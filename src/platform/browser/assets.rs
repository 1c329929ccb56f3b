//! The game's larger assets (its sounds, the starfield behind every
//! screen), fetched from the page's server after the first frame instead
//! of built into the wasm: they are a quarter of its download and nothing
//! needs them to draw the menu (issue 60). `scripts/build-web.sh` copies
//! `assets/KIND/NAME` into the web client as `KIND-NAME` (one flat folder:
//! the release archive and the `.deb` copy it as it is), `twinstar serve`
//! serves it and the service worker keeps it for offline play.
//! Natively they are built in (`platform/native/assets.rs`).

use std::borrow::Cow;

/// One file under `assets/`, named by its path there.
#[derive(Clone, Copy)]
pub struct Asset {
    path: &'static str,
}

/// The asset at `assets/PATH` (a literal), fetched when loaded.
macro_rules! asset {
    ($path:literal) => {
        $crate::platform::assets::Asset::fetched($path)
    };
}
pub(crate) use asset;

impl Asset {
    /// Use [`asset!`].
    pub const fn fetched(path: &'static str) -> Asset {
        Asset { path }
    }

    /// Its path under `assets/`, e.g. `sounds/bomb.wav`.
    pub fn path(&self) -> &'static str {
        self.path
    }

    /// Its bytes now, if the build holds them (never, in the page).
    pub fn at_hand(&self) -> Option<&'static [u8]> {
        None
    }

    /// Its bytes, fetched relative to the page (`KIND-NAME`).
    pub async fn load(&self) -> Result<Cow<'static, [u8]>, String> {
        let url = self.path.replace('/', "-");
        macroquad::file::load_file(&url)
            .await
            .map(Cow::Owned)
            .map_err(|e| format!("{url}: {e}"))
    }
}
