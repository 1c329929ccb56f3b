//! Where the WebRTC message loop and the connection's polling run: natively
//! on a tokio runtime with two worker threads and on a thread of its own
//! (`native.rs`); in the browser, which has neither, as tasks on the page's
//! event loop (`wasm.rs`). Chosen here, once: both files offer the same
//! items, and everything above this module is the same code on both.
//!
//! - `NetRuntime`: runs the connection's background work; a connection
//!   keeps it alive. `new`, and `spawn_message_loop` for matchbox's loop.
//! - `LoopHandle`: a running message loop; `is_finished`, `take_end`.
//! - `poll_in_background(period, step)`: `step` every `period` until it
//!   returns true, finer than a window draws (the latency probe).
//! - `MaybeSend`: `Send` natively, where that work runs on threads;
//!   anything in the browser, where it runs on the page's one thread.

#[cfg(not(target_arch = "wasm32"))]
mod native;
#[cfg(not(target_arch = "wasm32"))]
use native as imp;
#[cfg(target_arch = "wasm32")]
mod wasm;
#[cfg(target_arch = "wasm32")]
use wasm as imp;

pub(crate) use imp::poll_in_background;
pub use imp::{LoopHandle, MaybeSend, NetRuntime};

/// What matchbox's message loop returns when it ends.
pub(crate) type LoopResult = Result<(), matchbox_socket::Error>;

/// How a message loop ended.
#[derive(Debug)]
pub(crate) enum LoopEnd {
    Returned(LoopResult),
    /// It panicked, with this message: matchbox 0.15 `unwrap`s errors of
    /// the WebRTC stack inside its loop (a peer leaving mid-handshake; a
    /// socket option the OS refuses while a peer connection is made, as
    /// under Wine). Natively only: in the browser a panic aborts the page's
    /// whole module, so no loop ends this way.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    Panicked(String),
}
