//! The page going to the background. A browser stops a hidden tab's
//! animation frames, and with them the match loop, so what must happen the
//! moment a page is hidden cannot wait for the loop: it runs in the page's
//! `visibilitychange` handler. The session arms one action (telling the
//! partner, over the data channel, that this game stops running) while a
//! match may pause; the handler runs it once and notes when, for the loop
//! to read when it runs again.
//!
//! A native window has nothing to do here: macroquad keeps calling a
//! minimised or covered window's frames (the match goes on, unseen), and a
//! stopped process is noticed as a stall by the match itself.

// Chosen here, once: the page's handler, or nothing natively.
#[cfg(not(target_arch = "wasm32"))]
mod native;
#[cfg(not(target_arch = "wasm32"))]
use native as imp;
#[cfg(target_arch = "wasm32")]
mod page;
#[cfg(target_arch = "wasm32")]
use page as imp;

pub(crate) use imp::{take_hidden_since, when_hidden};
