//! The platform seam, at the bottom of the module graph: what differs
//! between a native build and the browser, chosen once, here. `native/`
//! and `browser/` each offer the same modules with the same signatures,
//! and everything above names them as `platform::net`, `platform::rooms`,
//! ... without knowing which it got; so the game above names `wasm32` in
//! few places, and `app`, `settings` and `web` need not call each other.
//!
//! - [`assets`]: the game's larger assets (sounds, the starfield): built
//!   into the native binary, fetched by the page after its first frame.
//! - [`boards`]: ranked replays: one downloaded by its link (natively;
//!   the page fetches it before its command runs).
//! - [`downloads`]: the player's own files in and out of the page (file
//!   picker, downloads); nothing to do natively, where files are on disk.
//! - [`encoder`]: a replay's frames and sound to a video file: ffmpeg as
//!   a child process natively; in the page a refusal in words.
//! - [`lan`]: LAN games by multicast DNS: a host's announcement, a
//!   browse (natively; nothing in the page, which has no multicast).
//! - [`net`]: what a client asks its signaling server outside a match
//!   (ICE offer, round trip) and which server it falls back on; natively
//!   asked here (and a host's LAN server started in-process), in the
//!   browser the page's answers.
//! - [`records`]: small records the game keeps between runs (rejoin
//!   tickets, the player's settings), as files or in the page's local
//!   storage.
//! - [`rooms`]: the public rooms' list, from a thread natively and from
//!   the page's script in the browser.
//! - [`screen`]: whether a window can open, the screen wake lock of a
//!   match (the page's; nothing natively), the screen's safe area (a
//!   phone's notch) and the touch layout published for test tools.
//! - [`server`]: `twinstar serve`, the signaling server in this process;
//!   in the page a refusal in words.
//! - [`text_field`]: the page's `<input>` a phone types a prompt into; a
//!   type with no values natively.
//!
//! Only on one side: `native::console` (where a command's words go when
//! `twinstar.exe` was double-clicked or started from a terminal) and
//! `browser` itself (the page's storage and services: local storage,
//! downloads, the file picker, the server that served the page).
//!
//! The same on both, from crates below the game:
//! - [`files`]: files the user names (replays, settings), read with
//!   bounds; in the browser an in-memory store for the page's lifetime.
//!
//! From the netcode's API, not re-exported here: where its background work
//! runs (`twinstar_netcode::connect::NetRuntime`, `MaybeSend`) and how a
//! dependency's panics on its own threads are routed
//! (`twinstar_netcode::route_panics_from`, which the audio thread uses too).
//!
//! Nothing here depends on the game's other modules; clocks are
//! `web_time` everywhere.

#[cfg(not(target_arch = "wasm32"))]
pub mod native;
#[cfg(not(target_arch = "wasm32"))]
use native as imp;
#[cfg(target_arch = "wasm32")]
pub mod browser;
#[cfg(target_arch = "wasm32")]
use browser as imp;

pub use imp::{
    assets, boards, downloads, encoder, lan, net, records, rooms, screen, server, text_field,
};

// What a LAN browse finds: one type on both sides (`lan` re-exports it).
mod lan_service;
// What a video export asks of an encoder: one set of types for both sides.
mod video_export;

// Its own crate: the signaling server reads the web client through it too.
pub use twinstar_files as files;

/// Why [`net::local_server`] has none.
#[derive(Debug)]
pub enum NoLocalServer {
    /// The page says nothing of its server (browser): the player names one.
    Unnamed,
    /// Nothing answered on this machine and starting a server failed.
    StartFailed(String),
}

/// Why [`boards::download_replay`] has no replay.
#[derive(Debug)]
pub struct DownloadFailed {
    /// One line: the link and what went wrong.
    pub why: String,
    /// The server did not answer (rather than refusing or sending
    /// something that is no replay).
    pub unreachable: bool,
}
