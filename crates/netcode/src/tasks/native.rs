//! Background work natively: matchbox's message loop on a tokio runtime
//! with two worker threads, the connection's polling on a thread of its
//! own.

use web_time::Duration;

use super::{LoopEnd, LoopResult};

/// Runs the connection's background work; a connection keeps it alive.
pub struct NetRuntime {
    tokio: tokio::runtime::Runtime,
}

impl NetRuntime {
    /// A runtime for the connection's background work (threads natively; the page's event loop in the browser).
    pub fn new() -> std::io::Result<NetRuntime> {
        quiet_matchbox_panics();
        let tokio = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        Ok(NetRuntime { tokio })
    }

    /// The tokio runtime beneath (natively): a game may run services of
    /// its own beside the connection's, as twinstar runs its LAN host's
    /// signaling server. The one tokio type in the API, on purpose.
    pub fn tokio(&self) -> &tokio::runtime::Runtime {
        &self.tokio
    }

    /// Starts matchbox's message loop.
    pub(crate) fn spawn_message_loop(
        &self,
        message_loop: matchbox_socket::MessageLoopFuture,
    ) -> LoopHandle {
        LoopHandle {
            handle: Some(self.tokio.spawn(message_loop)),
        }
    }
}

/// A running message loop.
pub struct LoopHandle {
    /// `None` once its end was taken (a finished handle polled again
    /// panics).
    handle: Option<tokio::task::JoinHandle<LoopResult>>,
}

impl LoopHandle {
    pub fn is_finished(&self) -> bool {
        self.handle.as_ref().is_none_or(|h| h.is_finished())
    }

    /// How the loop ended, once it has (`None` while it runs, and after
    /// the end was taken once). A loop that is ending (its socket already
    /// closed, as when a panic unwinds through it) is waited for up to
    /// `grace`: the socket reports the close before the task counts as
    /// finished, and without the wait its panic's reason was lost about
    /// one time in three (seen under Wine).
    pub(crate) fn take_end(&mut self, grace: Duration) -> Option<LoopEnd> {
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
}

/// A panic's message, without the `unwrap` boilerplate around the error.
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
fn quiet_matchbox_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // The path of its sources: crates/matchbox-socket/ here, the
        // package twinstar-matchbox-socket-VERSION/ for a dependent (the
        // library's name, matchbox_socket, is in neither).
        crate::panics::route_panics_from("matchbox-socket", |info| {
            tracing::debug!("matchbox's message loop panicked: {info}")
        })
    });
}

/// `Send` natively, where background work runs on threads (anything in
/// the browser, where it runs on the page's one thread).
pub trait MaybeSend: Send {}
impl<T: Send> MaybeSend for T {}

/// Runs `step` every `period` in the background until it returns true, on
/// a thread of its own: for work that must be polled more often than a
/// window draws (the latency probe).
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

#[cfg(test)]
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
