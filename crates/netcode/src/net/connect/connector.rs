//! [`Connector`]: the one way to run a connection attempt. It steps itself
//! every millisecond in the background (a thread natively, a timer task on
//! the page's event loop in the browser: `tasks::poll_in_background`),
//! whatever its owner does meanwhile: a window draws once a frame, and its
//! first frames can take long; a latency probe answered late would inflate
//! the measured latency, and so the input delay. Its owner asks for the
//! outcome ([`Connector::poll`]), the progress ([`Connector::status`]), or
//! waits ([`Connector::wait`], natively).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use web_time::Duration;

use super::attempt::Attempt;
use super::{ConnectError, PlayerSeat, Seat, Stage, StageLog, Status};
use crate::net::room_code::RoomCode;
use crate::tasks::{MaybeSend, NetRuntime, poll_in_background};

/// A player's connector.
pub type PlayerConnector<I, const N: usize> = Connector<PlayerSeat<I, N>>;

/// From a room code to a connection, for players and spectators alike:
/// what seat it asks for is `S` ([`PlayerSeat`], `SpectatorSeat`) and its
/// options. Runs on its own from [`Connector::start`]; dropping it cancels
/// the attempt.
pub struct Connector<S: Seat> {
    status: Arc<Mutex<Status>>,
    cancel: Arc<AtomicBool>,
    /// The outcome is in `result` (and not taken yet, or taken).
    ended: Arc<AtomicBool>,
    result: Receiver<Result<S::Connection, ConnectError>>,
    room: Option<RoomCode>,
    server: String,
}

impl<S> Connector<S>
where
    S: Seat + MaybeSend + 'static,
    S::Connection: MaybeSend + 'static,
{
    /// Opens the signaling connection on `runtime` (which the connection
    /// keeps) and runs the attempt in the background. Does not block.
    pub fn start(runtime: NetRuntime, options: S::Options) -> Self {
        let mut attempt = Attempt::<S>::start(runtime, options);
        let status = Arc::new(Mutex::new(attempt.status()));
        let cancel = Arc::new(AtomicBool::new(false));
        let ended = Arc::new(AtomicBool::new(false));
        let (tx, result) = std::sync::mpsc::channel();
        let room = attempt.seat().room().cloned();
        let server = attempt.seat().server().to_string();
        let (shared, stop, done) = (status.clone(), Arc::clone(&cancel), ended.clone());
        let mut stages = StageLog::default();
        poll_in_background(Duration::from_millis(1), move || {
            if stop.load(Ordering::Relaxed) {
                return true;
            }
            let polled = attempt.poll();
            let now = attempt.status();
            stages.note(now.stage);
            if let Ok(mut s) = shared.lock() {
                *s = now;
            }
            match polled {
                Poll::Ready(result) => {
                    let _ = tx.send(result);
                    done.store(true, Ordering::Relaxed);
                    true
                }
                Poll::Pending => false,
            }
        });
        Connector {
            status,
            cancel,
            ended,
            result,
            room,
            server,
        }
    }
}

impl<S: Seat> Connector<S> {
    /// The outcome, once there is one (`Ready` once: the connection, or
    /// why there is none).
    pub fn poll(&self) -> Poll<Result<S::Connection, ConnectError>> {
        match self.result.try_recv() {
            Ok(result) => Poll::Ready(result),
            Err(TryRecvError::Empty) => Poll::Pending,
            Err(TryRecvError::Disconnected) => Poll::Ready(Err(ConnectError::LoopGone)),
        }
    }

    /// Blocks until the outcome: a headless program's way to connect (the
    /// attempt runs in the background meanwhile, as always). Natively only:
    /// the page's one thread must not block.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn wait(self) -> Result<S::Connection, ConnectError> {
        self.result.recv().unwrap_or(Err(ConnectError::LoopGone))
    }

    /// Whether the outcome is there (for [`Connector::poll`]).
    pub fn ended(&self) -> bool {
        self.ended.load(Ordering::Relaxed)
    }

    /// The stage, the latency probes done so far, and the last player who
    /// reached the room without a connection opening (the connector is
    /// still waiting for another; see [`super::FailedAttempt`]).
    pub fn status(&self) -> Status {
        self.status.lock().map(|s| s.clone()).unwrap_or(Status {
            stage: Stage::Signaling,
            probes: 0,
            probes_wanted: 0,
            failed_attempt: None,
        })
    }

    /// The signaling server's URL.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The room, once known.
    pub fn room(&self) -> Option<&RoomCode> {
        self.room.as_ref()
    }
}

impl<S: Seat> Drop for Connector<S> {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}
