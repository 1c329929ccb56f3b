//! Background work in the browser, which has no threads: matchbox's loop
//! and the connection's polling are tasks on the page's event loop.

use std::cell::RefCell;
use std::rc::Rc;

use web_time::Duration;

use super::{LoopEnd, LoopResult};

/// Runs the connection's background work; a connection keeps it alive.
/// In the page there is nothing to hold: its event loop runs the tasks.
pub struct NetRuntime {}

impl NetRuntime {
    /// A runtime for the connection's background work (threads natively; the page's event loop in the browser).
    pub fn new() -> std::io::Result<NetRuntime> {
        Ok(NetRuntime {})
    }

    /// Starts matchbox's message loop as a task of the page.
    pub(crate) fn spawn_message_loop(
        &self,
        message_loop: matchbox_socket::MessageLoopFuture,
    ) -> LoopHandle {
        let slot = Rc::new(RefCell::new(None));
        let out = slot.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let result = message_loop.await;
            *out.borrow_mut() = Some(result);
        });
        LoopHandle { slot }
    }
}

/// A running message loop: its result lands in the slot when it ends.
pub struct LoopHandle {
    slot: Rc<RefCell<Option<LoopResult>>>,
}

impl LoopHandle {
    pub fn is_finished(&self) -> bool {
        self.slot.borrow().is_some()
    }

    /// How the loop ended, once it has (`None` while it runs, and after
    /// the end was taken once). The page cannot block, so no `grace`; its
    /// loop cannot panic either (a panic aborts the module), so there is
    /// no reason to lose.
    pub(crate) fn take_end(&mut self, grace: Duration) -> Option<LoopEnd> {
        let _ = grace;
        self.slot.borrow_mut().take().map(LoopEnd::Returned)
    }
}

/// Anything, in the browser: background work runs on the page's one
/// thread (`Send` natively, where it runs on threads).
pub trait MaybeSend {}
impl<T> MaybeSend for T {}

/// Runs `step` every `period` in the background until it returns true, as
/// a timer-driven task on the page's event loop (browsers clamp short
/// timers to a few milliseconds; still far finer than a drawn frame).
pub(crate) fn poll_in_background<F>(period: Duration, mut step: F)
where
    F: FnMut() -> bool + 'static,
{
    wasm_bindgen_futures::spawn_local(async move {
        while !step() {
            gloo_timers::future::sleep(period).await;
        }
    });
}
