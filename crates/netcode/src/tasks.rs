//! Where the WebRTC message loop and the connection's polling run: natively
//! on a tokio runtime with two worker threads and on a thread of its own;
//! in the browser, which has neither, as tasks on the page's event loop.
//! Everything above this module is the same code on both.

use web_time::Duration;

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

/// Runs the connection's background work; a connection keeps it alive.
pub struct NetRuntime {
    #[cfg(not(target_arch = "wasm32"))]
    tokio: tokio::runtime::Runtime,
}

impl NetRuntime {
    /// A runtime for the connection's background work (threads natively; the page's event loop in the browser).
    pub fn new() -> std::io::Result<NetRuntime> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            quiet_matchbox_panics();
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
    /// runs on it too). With `internals` only: no tokio type in the API.
    #[cfg(all(not(target_arch = "wasm32"), feature = "internals"))]
    pub fn tokio(&self) -> &tokio::runtime::Runtime {
        &self.tokio
    }

    /// Starts matchbox's message loop.
    pub(crate) fn spawn_message_loop(
        &self,
        message_loop: matchbox_socket::MessageLoopFuture,
    ) -> LoopHandle {
        #[cfg(not(target_arch = "wasm32"))]
        {
            LoopHandle {
                handle: Some(self.tokio.spawn(message_loop)),
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
    /// `None` once its end was taken (a finished handle polled again
    /// panics).
    #[cfg(not(target_arch = "wasm32"))]
    handle: Option<tokio::task::JoinHandle<LoopResult>>,
    #[cfg(target_arch = "wasm32")]
    slot: std::rc::Rc<std::cell::RefCell<Option<LoopResult>>>,
}

impl LoopHandle {
    pub fn is_finished(&self) -> bool {
        #[cfg(not(target_arch = "wasm32"))]
        return self.handle.as_ref().is_none_or(|h| h.is_finished());
        #[cfg(target_arch = "wasm32")]
        return self.slot.borrow().is_some();
    }

    /// How the loop ended, once it has (`None` while it runs, and after
    /// the end was taken once). A loop that is ending (its socket already
    /// closed, as when a panic unwinds through it) is waited for up to
    /// `grace` natively: the socket reports the close before the task
    /// counts as finished, and without the wait its panic's reason was
    /// lost about one time in three (seen under Wine).
    pub(crate) fn take_end(&mut self, grace: Duration) -> Option<LoopEnd> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            use futures::FutureExt;
            let deadline = web_time::Instant::now() + grace;
            while !self.handle.as_ref()?.is_finished() {
                if web_time::Instant::now() >= deadline {
                    return None;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            match self.handle.take()?.now_or_never()? {
                Ok(result) => Some(LoopEnd::Returned(result)),
                Err(e) => Some(LoopEnd::Panicked(match e.try_into_panic() {
                    Ok(payload) => panic_message(payload.as_ref()),
                    Err(e) => e.to_string(),
                })),
            }
        }
        #[cfg(target_arch = "wasm32")]
        {
            // The page cannot block; its loop cannot panic either (a
            // panic aborts the module), so there is no reason to lose.
            let _ = grace;
            self.slot.borrow_mut().take().map(LoopEnd::Returned)
        }
    }
}

/// A panic's message, without the `unwrap` boilerplate around the error.
#[cfg(not(target_arch = "wasm32"))]
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into());
    text.trim_start_matches("called `Result::unwrap()` on an `Err` value: ")
        .to_owned()
}

/// A panic inside matchbox's sources ends its message loop, which the
/// connector reports in one line (`LoopEnd::Panicked`); the default report
/// (thread name, location, backtrace hint) would add a screenful of noise
/// to it, so it goes to the debug log instead. Other panics keep it.
#[cfg(not(target_arch = "wasm32"))]
fn quiet_matchbox_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // The path of its sources: crates/matchbox-socket/ here, the
        // package twinstar-matchbox-socket-VERSION/ for a dependent (the
        // library's name, matchbox_socket, is in neither).
        super::panics::route_panics_from("matchbox-socket", |info| {
            tracing::debug!("matchbox's message loop panicked: {info}")
        })
    });
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
pub(crate) fn poll_in_background<F>(period: Duration, mut step: F)
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

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    /// A socket option the OS does not support, as matchbox meets it.
    fn refuse() -> std::io::Result<()> {
        Err(std::io::Error::other("operation not supported"))
    }

    #[test]
    fn a_loop_that_panics_ends_with_its_message() {
        let runtime = NetRuntime::new().unwrap();
        let mut handle = LoopHandle {
            handle: Some(runtime.tokio.spawn(async {
                refuse().unwrap();
                Ok(())
            })),
        };
        let deadline = web_time::Instant::now() + Duration::from_secs(10);
        while !handle.is_finished() {
            assert!(web_time::Instant::now() < deadline, "the task never ended");
            std::thread::sleep(Duration::from_millis(1));
        }
        match handle.take_end(Duration::ZERO) {
            Some(LoopEnd::Panicked(why)) => assert_eq!(
                why,
                r#"Custom { kind: Other, error: "operation not supported" }"#
            ),
            other => panic!("{other:?}"),
        }
        assert!(
            handle.take_end(Duration::ZERO).is_none(),
            "the end is taken once"
        );
    }

    /// The socket sees its channel close before the task that closed it
    /// has finished unwinding: asked at that moment, the loop's end is
    /// waited for instead of reported as unknown.
    #[test]
    fn a_loop_seen_closing_is_waited_for() {
        let runtime = NetRuntime::new().unwrap();
        let (closed_tx, closed_rx) = std::sync::mpsc::channel::<()>();
        let mut handle = LoopHandle {
            handle: Some(runtime.tokio.spawn(async move {
                drop(closed_tx);
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                refuse().unwrap();
                Ok(())
            })),
        };
        assert!(closed_rx.recv().is_err(), "the channel closes first");
        assert!(!handle.is_finished(), "the loop is still ending");
        match handle.take_end(Duration::from_secs(5)) {
            Some(LoopEnd::Panicked(why)) => assert!(why.contains("not supported"), "{why}"),
            other => panic!("{other:?}"),
        }
    }
}
