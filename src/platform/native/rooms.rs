//! The public rooms' list natively: a thread asks `GET /rooms` every
//! [`REFRESH`] until the feed is dropped.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, channel};

use twinstar_netcode::signaling::{RoomsPage, VersionTag, fetch_rooms};

/// How often the list is asked for again (the page's script uses the
/// same 2 s).
const REFRESH: web_time::Duration = web_time::Duration::from_secs(2);

/// The rooms of one version on one server, newest answer first.
pub struct RoomsFeed {
    answers: Receiver<Result<RoomsPage, String>>,
    stop: Arc<AtomicBool>,
}

impl RoomsFeed {
    /// Starts asking `server` for the rooms of `version`.
    pub fn start(server: &str, version: VersionTag) -> RoomsFeed {
        let (tx, answers) = channel();
        let stop = Arc::new(AtomicBool::new(false));
        let (server, stopped) = (server.to_owned(), stop.clone());
        std::thread::spawn(move || {
            while !stopped.load(Ordering::Relaxed) {
                let answer = fetch_rooms(&server, &version);
                if tx.send(answer).is_err() {
                    return;
                }
                std::thread::sleep(REFRESH);
            }
        });
        RoomsFeed { answers, stop }
    }

    /// The newest answer since the last poll, if any (an error is the
    /// reason the list could not be had).
    pub fn poll(&mut self) -> Option<Result<RoomsPage, String>> {
        self.answers.try_iter().last()
    }
}

impl Drop for RoomsFeed {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}
