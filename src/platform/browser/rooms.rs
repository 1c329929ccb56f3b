//! The public rooms' list in the page: the page's script polls
//! `GET /rooms` while the feed says it is wanted (web/index.html), since a
//! page's thread cannot block on a request.

use twinstar_netcode::signaling::{RoomsPage, VersionTag};

use super::{publish, read_text};

/// The rooms of one version on one server, newest answer first.
pub struct RoomsFeed {
    last: Option<String>,
}

impl RoomsFeed {
    /// The page polls `GET /rooms` while this says it is wanted (see
    /// web/index.html); another server's list is not the page's to ask.
    pub fn start(server: &str, version: VersionTag) -> RoomsFeed {
        let own = super::page_server().as_deref() == Some(server.trim_end_matches('/'));
        if own {
            publish("twinstarRoomsQuery", &format!("version={version}"));
        }
        RoomsFeed { last: None }
    }

    /// The page's newest list when it changed since the last poll (text
    /// that is not a list is the page's reason it has none).
    pub fn poll(&mut self) -> Option<Result<RoomsPage, String>> {
        publish("twinstarRoomsWanted", &js_sys::Date::now().to_string());
        let text = read_text("twinstarRooms")?;
        if self.last.as_deref() == Some(text.as_str()) {
            return None;
        }
        self.last = Some(text.clone());
        Some(serde_json::from_str(&text).map_err(|_| text))
    }
}
