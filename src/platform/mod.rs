//! The platform seam, at the bottom of the module graph: what differs
//! between a native build and the browser, behind one module, so the game
//! above it names `wasm32` in few places and `app`, `settings` and `web`
//! need not call each other.
//!
//! - [`console`]: where a command's words go when `twinstar.exe` was
//!   double-clicked (a message box) or started from a terminal (attached
//!   to it); nothing to do elsewhere.
//! - [`downloads`]: the player's own files in and out of the page (file
//!   picker, downloads); nothing to do natively, where files are on disk.
//! - [`files`]: files the user names (replays, settings), read with
//!   bounds; in the browser an in-memory store for the page's lifetime.
//! - [`records`]: small records the game keeps between runs (rejoin
//!   tickets), as files or in the page's local storage.
//! - [`browser`] (wasm only): the page's own storage and services — local
//!   storage (settings, rejoin tickets), downloads, the file picker, the
//!   server that served the page and the ICE offer it fetched.
//!
//! - [`net`]: what a client asks its signaling server outside a match
//!   (ICE offer, round trip) and which server it falls back on; natively
//!   asked here (and a host's LAN server started in-process), in the
//!   browser the page's answers.
//! - [`rooms`]: the public rooms' list, from a thread natively and from
//!   the page's script in the browser.
//! - [`screen`]: the screen's safe area (a phone's notch) and the touch
//!   layout published for test tools; nothing natively.
//! - [`panics`]: a dependency's panics on its own threads (matchbox's
//!   message loop, the audio thread) routed to one line of ours.
//! - [`visibility`]: the page going to the background (a handler that
//!   cannot wait for the next frame); nothing natively.
//! - [`tasks`]: where background work runs — matchbox's message loop and
//!   the connector's polling — natively on tokio and threads, in the
//!   browser as tasks on the page's event loop.
//!
//! Nothing here depends on the game's other modules; clocks are
//! `web_time` everywhere.

#[cfg(target_arch = "wasm32")]
pub mod browser;
#[cfg(not(target_arch = "wasm32"))]
pub mod console;
pub mod downloads;
// Its own crate: the signaling server reads the web client through it too.
pub use twinstar_files as files;
// The netcode's: it routes matchbox's panics; the audio thread's go the same way.
pub use twinstar_netcode::panics;
pub mod net;
pub mod records;
pub mod rooms;
pub mod screen;
// The netcode's: matchbox's loop and the connector run there.
pub use twinstar_netcode::tasks;
// The netcode's: the session arms what runs when the page is hidden.
pub use twinstar_netcode::visibility;
