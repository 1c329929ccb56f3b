//! The signaling server's services in the browser: the page's script has
//! asked its own server when it loaded, and another server is not the
//! page's to ask.

use twinstar_netcode::connect::NetRuntime;
use twinstar_netcode::signaling::IceOffer;

use super::{page_ice_text, page_server};
use crate::platform::NoLocalServer;

/// None: the page has its own origin (see [`default_server`]).
pub fn built_in_server() -> Option<&'static str> {
    None
}

/// The server that served the page (`None` for a page that does not say).
pub fn default_server() -> Option<String> {
    page_server()
}

/// What `server` offers at `GET /ice`: the page fetched its own server's
/// offer when it loaded (web/index.html); another server's is `None`.
pub fn ice_offer(server: &str) -> Result<Option<IceOffer>, String> {
    if page_server().as_deref() != Some(server.trim_end_matches('/')) {
        return Ok(None);
    }
    let Some(text) = page_ice_text() else {
        return Ok(None);
    };
    match IceOffer::parse(&text) {
        Ok(offer) => Ok(Some(offer)),
        Err(e) => {
            tracing::warn!("unreadable ICE offer from the page: {e}");
            Ok(None)
        }
    }
}

/// `None`: the page sends no probes (its fetches are timed by the
/// browser's own queues).
pub fn round_trip_ms(_server: &str) -> Option<u32> {
    None
}

/// `server` as it is: the page cannot know this machine's LAN address.
pub fn shared_url(server: &str) -> String {
    server.to_owned()
}

/// The page's own server, where browsers can always play.
pub fn local_server(_host: bool, _runtime: &NetRuntime) -> Result<(String, bool), NoLocalServer> {
    default_server()
        .map(|url| (url, true))
        .ok_or(NoLocalServer::Unnamed)
}

/// Whether the device says it has no network (`navigator.onLine` false):
/// the page itself may still open, from its service worker's copy, but
/// online play cannot start.
pub fn offline() -> bool {
    let Some(window) = super::window() else {
        return false;
    };
    js_sys::Reflect::get(&window, &"navigator".into())
        .and_then(|navigator| js_sys::Reflect::get(&navigator, &"onLine".into()))
        .is_ok_and(|online| online.as_bool() == Some(false))
}
