//! Where the WebRTC message loop and the connection's polling run: natively
//! on a tokio runtime with two worker threads and on a thread of its own;
//! in the browser, which has neither, as tasks on the page's event loop.
//! Everything above this module is the same code on both.

use web_time::Duration;

/// What matchbox's message loop returns when it ends.
pub type LoopResult = Result<(), matchbox_socket::Error>;

/// How a message loop ended.
#[derive(Debug)]
pub enum LoopEnd {
    Returned(LoopResult),
    /// It panicked (matchbox 0.15 does when a peer leaves mid-handshake).
    Panicked,
}

/// Runs the connection's background work; a connection keeps it alive.
pub struct NetRuntime {
    #[cfg(not(target_arch = "wasm32"))]
    tokio: tokio::runtime::Runtime,
}

impl NetRuntime {
    pub fn new() -> std::io::Result<NetRuntime> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            let tokio = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()?;
            Ok(NetRuntime { tokio })
        }
        #[cfg(target_arch = "wasm32")]
        Ok(NetRuntime {})
    }

    /// The tokio runtime (native only: the in-process signaling server
    /// runs on it too).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn tokio(&self) -> &tokio::runtime::Runtime {
        &self.tokio
    }

    /// Starts matchbox's message loop.
    pub fn spawn_message_loop(
        &self,
        message_loop: matchbox_socket::MessageLoopFuture,
    ) -> LoopHandle {
        #[cfg(not(target_arch = "wasm32"))]
        {
            LoopHandle {
                handle: self.tokio.spawn(message_loop),
            }
        }
        #[cfg(target_arch = "wasm32")]
        {
            let slot = std::rc::Rc::new(std::cell::RefCell::new(None));
            let out = slot.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let result = message_loop.await;
                *out.borrow_mut() = Some(result);
            });
            LoopHandle { slot }
        }
    }
}

/// A running message loop.
pub struct LoopHandle {
    #[cfg(not(target_arch = "wasm32"))]
    handle: tokio::task::JoinHandle<LoopResult>,
    #[cfg(target_arch = "wasm32")]
    slot: std::rc::Rc<std::cell::RefCell<Option<LoopResult>>>,
}

impl LoopHandle {
    pub fn is_finished(&self) -> bool {
        #[cfg(not(target_arch = "wasm32"))]
        return self.handle.is_finished();
        #[cfg(target_arch = "wasm32")]
        return self.slot.borrow().is_some();
    }

    /// How the loop ended, once it has (`None` while it runs, and after
    /// the end was taken once).
    pub fn take_end(&mut self) -> Option<LoopEnd> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            use futures::FutureExt;
            if !self.handle.is_finished() {
                return None;
            }
            match (&mut self.handle).now_or_never()? {
                Ok(result) => Some(LoopEnd::Returned(result)),
                Err(_) => Some(LoopEnd::Panicked),
            }
        }
        #[cfg(target_arch = "wasm32")]
        self.slot.borrow_mut().take().map(LoopEnd::Returned)
    }
}

/// `Send` natively, where background work runs on threads; anything in the
/// browser, where it runs on the page's one thread.
#[cfg(not(target_arch = "wasm32"))]
pub trait MaybeSend: Send {}
#[cfg(not(target_arch = "wasm32"))]
impl<T: Send> MaybeSend for T {}
#[cfg(target_arch = "wasm32")]
pub trait MaybeSend {}
#[cfg(target_arch = "wasm32")]
impl<T> MaybeSend for T {}

/// Runs `step` every `period` in the background until it returns true, on
/// a thread of its own: for work that must be polled more often than a
/// window draws (the latency probe).
#[cfg(not(target_arch = "wasm32"))]
pub fn poll_in_background<F>(period: Duration, mut step: F)
where
    F: FnMut() -> bool + Send + 'static,
{
    std::thread::spawn(move || {
        while !step() {
            std::thread::sleep(period);
        }
    });
}

/// Runs `step` every `period` in the background until it returns true, as
/// a timer-driven task on the page's event loop (browsers clamp short
/// timers to a few milliseconds; still far finer than a drawn frame).
#[cfg(target_arch = "wasm32")]
pub fn poll_in_background<F>(period: Duration, mut step: F)
where
    F: FnMut() -> bool + 'static,
{
    wasm_bindgen_futures::spawn_local(async move {
        while !step() {
            gloo_timers::future::sleep(period).await;
        }
    });
}
