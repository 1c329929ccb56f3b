//! The public rooms' list as it arrives (`GET /rooms`): natively a thread
//! asks every [`REFRESH`] until the feed is dropped; in the browser the
//! page's script polls while the feed says it is wanted (web/index.html),
//! since a page's thread cannot block on a request.

use twinstar_netcode::net::signaling::{RoomsPage, VersionTag};

/// How often the list is asked for again (the page's script uses the
/// same 2 s).
#[cfg(not(target_arch = "wasm32"))]
const REFRESH: web_time::Duration = web_time::Duration::from_secs(2);

/// The rooms of one version on one server, newest answer first.
pub struct RoomsFeed {
    #[cfg(not(target_arch = "wasm32"))]
    answers: std::sync::mpsc::Receiver<Result<RoomsPage, String>>,
    #[cfg(not(target_arch = "wasm32"))]
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    #[cfg(target_arch = "wasm32")]
    last: Option<String>,
}

impl RoomsFeed {
    /// Starts asking `server` for the rooms of `version`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn start(server: &str, version: VersionTag) -> RoomsFeed {
        use std::sync::atomic::{AtomicBool, Ordering};
        let (tx, answers) = std::sync::mpsc::channel();
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let (server, stopped) = (server.to_owned(), stop.clone());
        std::thread::spawn(move || {
            while !stopped.load(Ordering::Relaxed) {
                let answer =
                    twinstar_netcode::net::signaling::native_client::fetch_rooms(&server, &version);
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
    #[cfg(not(target_arch = "wasm32"))]
    pub fn poll(&mut self) -> Option<Result<RoomsPage, String>> {
        self.answers.try_iter().last()
    }

    /// The page polls `GET /rooms` while this says it is wanted (see
    /// web/index.html); another server's list is not the page's to ask.
    #[cfg(target_arch = "wasm32")]
    pub fn start(server: &str, version: VersionTag) -> RoomsFeed {
        use super::browser;
        let own = browser::page_server().as_deref() == Some(server.trim_end_matches('/'));
        if own {
            browser::publish("twinstarRoomsQuery", &format!("version={version}"));
        }
        RoomsFeed { last: None }
    }

    /// The page's newest list when it changed since the last poll (text
    /// that is not a list is the page's reason it has none).
    #[cfg(target_arch = "wasm32")]
    pub fn poll(&mut self) -> Option<Result<RoomsPage, String>> {
        use super::browser;
        browser::publish("twinstarRoomsWanted", &js_sys::Date::now().to_string());
        let text = browser::read_text("twinstarRooms")?;
        if self.last.as_deref() == Some(text.as_str()) {
            return None;
        }
        self.last = Some(text.clone());
        Some(serde_json::from_str(&text).map_err(|_| text))
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Drop for RoomsFeed {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}
