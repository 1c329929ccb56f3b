//! Ranked replays: what the server needs of a game to rank an uploaded
//! replay, behind one small trait, so this library stays game-agnostic
//! (it never depends on a game: `scripts/check-crate-boundaries.sh`). The
//! game's implementation (`twinstar-verify`) re-simulates the upload; the
//! `twinstar-server` binary and the game's `twinstar serve` plug it in.
//!
//! - `POST /replays` (body: the replay's bytes): verified in a bounded
//!   pool of worker threads ([`VerifierPool`]), checked against the matches
//!   this server hosted (`registry::hosted`), then ranked (`boards`);
//! - `GET /replays/ID`: the stored bytes;
//! - `GET /leaderboard?board=daily|week|all&preset=NAME&cursor=C`.
//!
//! What verification proves: the score and wave follow from the recorded
//! inputs under the rules of this build (every recorded checksum matches a
//! re-simulation), and the match was paired by this server. What it cannot
//! prove: that the inputs came from people rather than bots.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Semaphore;

/// What a verified replay shows: the facts the server ranks by, all
/// recomputed from the bytes (the score and wave by re-simulation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifiedReplay {
    /// The game version that recorded it (the verifier's own: it refuses
    /// any other).
    pub game_version: String,
    /// The rule preset it was played by (the verifier refuses rules that
    /// are not exactly one of its presets).
    pub preset: String,
    /// The match's seed.
    pub seed: u64,
    /// The room code it names, as recorded (`None` for a quick match).
    pub room: Option<String>,
    /// The peer ids it names (the other player's, as the netcode records).
    pub peers: Vec<String>,
    /// When the host says it started (its own clock), Unix ms.
    pub start_unix_ms: u64,
    /// Frames simulated.
    pub frames: u32,
    /// The game's frames per second (frames to seconds).
    pub fps: u32,
    /// The team score at its end: both players' scores added.
    pub score: u64,
    /// The wave reached.
    pub wave: u32,
    /// The players' names, player 1's first.
    pub names: [String; 2],
}

/// A game's side of ranking: re-simulate an upload, and say what the
/// daily challenge is. Implementations are called on worker threads.
pub trait ReplayVerifier: Send + Sync + 'static {
    /// The facts of `bytes`, or why they are not a replay this server can
    /// rank (one line: not a replay, truncated, another version, rules that
    /// are no preset, a checksum that does not re-simulate).
    fn verify(&self, bytes: &[u8]) -> Result<VerifiedReplay, String>;
    /// The preset of the daily challenge (and of boards by default).
    fn default_preset(&self) -> &str;
    /// The daily challenge's seed on the UTC date `year-month-day`.
    fn daily_seed(&self, year: i32, month: u8, day: u8) -> u64;
    /// The version of the rules this verifier re-simulates (a game's
    /// simulation version); 0, the default, for a game with one. Boards
    /// keep one list per version ([`crate::boards::versioned`]): entries
    /// ranked under other rules stay stored and their replays linkable,
    /// off today's boards, since their scores are not comparable.
    fn rules_version(&self) -> u32 {
        0
    }
}

/// The upload's claim (`POST /replays?score=N&wave=W`): the host's
/// summary's score and wave, each optional; when given, each must equal
/// the re-simulation's. `room=CODE` may ride along for a proxy that routes
/// the upload to the node that paired the room (the replay names its room
/// itself). One line saying what is wrong otherwise.
pub fn parse_claim(query: Option<&str>) -> Result<(Option<u64>, Option<u32>), String> {
    let (mut score, mut wave) = (None, None);
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let bad = || format!("the claim's {name} is not a number: '{value}'");
        match name {
            "score" => score = Some(value.parse().map_err(|_| bad())?),
            "wave" => wave = Some(value.parse().map_err(|_| bad())?),
            "room" => {}
            _ => {
                return Err(format!(
                    "unknown query parameter '{name}' (score, wave, room)"
                ));
            }
        }
    }
    Ok((score, wave))
}

/// Default `--verifiers`: re-simulations at once (a 10-minute match takes
/// milliseconds; the pool bounds the CPU uploads may take from pairing).
pub fn default_verifiers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().max(1))
}

/// Uploads waiting for a worker, per worker, before the next is refused
/// with 503.
pub const QUEUE_PER_VERIFIER: usize = 8;

/// The verifier behind a bounded pool: at most `workers` re-simulations run
/// at once (on tokio's blocking threads, off the async workers that serve
/// websockets), and at most `QUEUE_PER_VERIFIER` per worker wait.
#[derive(Clone)]
pub struct VerifierPool {
    verifier: Arc<dyn ReplayVerifier>,
    permits: Arc<Semaphore>,
    waiting: Arc<AtomicUsize>,
    max_waiting: usize,
}

impl std::fmt::Debug for VerifierPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VerifierPool")
            .field("max_waiting", &self.max_waiting)
            .finish()
    }
}

/// Why the pool gave no verdict.
#[derive(Debug, PartialEq, Eq)]
pub enum PoolError {
    /// Too many uploads wait already.
    Full,
    /// The replay was refused: why.
    Refused(String),
}

impl VerifierPool {
    /// `workers` re-simulations at once (at least one).
    pub fn new(verifier: Arc<dyn ReplayVerifier>, workers: usize) -> VerifierPool {
        let workers = workers.max(1);
        VerifierPool {
            verifier,
            permits: Arc::new(Semaphore::new(workers)),
            waiting: Arc::default(),
            max_waiting: workers * QUEUE_PER_VERIFIER,
        }
    }

    pub fn verifier(&self) -> &dyn ReplayVerifier {
        &*self.verifier
    }

    /// Verifies `bytes` on a worker, waiting for one if all are busy.
    pub async fn verify(&self, bytes: axum::body::Bytes) -> Result<VerifiedReplay, PoolError> {
        if self.waiting.fetch_add(1, Ordering::SeqCst) >= self.max_waiting {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return Err(PoolError::Full);
        }
        let permit = self.permits.clone().acquire_owned().await;
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        let Ok(permit) = permit else {
            return Err(PoolError::Full);
        };
        let verifier = self.verifier.clone();
        let verdict = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            verifier.verify(&bytes)
        })
        .await;
        match verdict {
            Ok(result) => result.map_err(PoolError::Refused),
            Err(_) => Err(PoolError::Refused(
                "the verifier failed on this replay".into(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::sync::mpsc::{self, Receiver, Sender};

    use super::*;

    /// A verifier whose every call says it started, on `said`, and
    /// blocks until `go` lets it finish: then it panics on "panic" and
    /// refuses anything else.
    struct Scripted {
        said: Mutex<Sender<()>>,
        go: Mutex<Receiver<()>>,
    }

    impl ReplayVerifier for Scripted {
        fn verify(&self, bytes: &[u8]) -> Result<VerifiedReplay, String> {
            let _ = self.said.lock().unwrap().send(());
            let _ = self.go.lock().unwrap().recv();
            match bytes {
                b"panic" => panic!("a verifier bug"),
                _ => Err("refused".into()),
            }
        }
        fn default_preset(&self) -> &str {
            "default"
        }
        fn daily_seed(&self, _: i32, _: u8, _: u8) -> u64 {
            0
        }
    }

    fn pool(workers: usize) -> (VerifierPool, Receiver<()>, Sender<()>) {
        let (said, started) = mpsc::channel();
        let (go, wait) = mpsc::channel();
        let verifier = Scripted {
            said: Mutex::new(said),
            go: Mutex::new(wait),
        };
        (VerifierPool::new(Arc::new(verifier), workers), started, go)
    }

    // Two threads: the test blocks one waiting for the verifier to start.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn uploads_past_the_queue_are_refused_and_a_panic_fails_one_upload() {
        let (pool, started, go) = pool(1);
        // One runs, QUEUE_PER_VERIFIER wait: the next is Full.
        let running = tokio::spawn({
            let pool = pool.clone();
            async move { pool.verify("panic".into()).await }
        });
        started.recv().unwrap();
        let queued: Vec<_> = (0..QUEUE_PER_VERIFIER)
            .map(|_| {
                let pool = pool.clone();
                tokio::spawn(async move { pool.verify("x".into()).await })
            })
            .collect();
        while pool.waiting.load(Ordering::SeqCst) < QUEUE_PER_VERIFIER {
            tokio::task::yield_now().await;
        }
        assert_eq!(pool.verify("x".into()).await, Err(PoolError::Full));
        for _ in 0..=QUEUE_PER_VERIFIER {
            go.send(()).unwrap();
        }
        assert_eq!(
            running.await.unwrap(),
            Err(PoolError::Refused(
                "the verifier failed on this replay".into()
            ))
        );
        for upload in queued {
            assert_eq!(
                upload.await.unwrap(),
                Err(PoolError::Refused("refused".into()))
            );
        }
    }
}
