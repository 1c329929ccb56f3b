//! The browser's side of a server: the page's own WebSocket (matchbox's
//! default signaller, which hides a refused upgrade's status and the
//! server's close reason), and a room's requests as the page's `fetch`.
//! The same crate-internal items as `native_client.rs`, chosen once in
//! `signaling/mod.rs`.

use matchbox_socket::WebRtcSocketBuilder;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::{JoinError, RoomCode};

/// `builder` as it is: matchbox's own signaller is the page's WebSocket.
pub(crate) fn with_signaller(builder: WebRtcSocketBuilder) -> WebRtcSocketBuilder {
    builder
}

/// Nothing more than the error's text says: a browser's WebSocket reports
/// only that it failed, never the status, body or close reason.
pub(crate) fn refusal(
    _error: &matchbox_socket::Error,
    _room: Option<&RoomCode>,
) -> Option<JoinError> {
    None
}

/// What is done with a request's outcome.
type Then = Box<dyn FnOnce(Result<(), String>) + Send>;

/// Posts a room member's requests as `fetch`es on the page's event loop.
pub(crate) struct Poster {
    server: String,
}

impl Poster {
    pub(crate) fn new(server: &str) -> Poster {
        Poster {
            server: server.to_owned(),
        }
    }

    /// `POST`s `body` to `path`, then hands `then` the outcome (nothing
    /// for a server that is not a `ws://` or `wss://` URL).
    pub(crate) fn post(&self, path: String, body: Vec<u8>, then: Then) {
        let Some(url) = http_url(&self.server, &path) else {
            return;
        };
        wasm_bindgen_futures::spawn_local(async move {
            then(post(&url, &body).await);
        });
    }
}

/// `ws://host` -> `http://host` (`wss` -> `https`).
fn http_url(server: &str, path: &str) -> Option<String> {
    let server = server.trim().trim_end_matches('/');
    let rest = (server
        .strip_prefix("wss://")
        .map(|h| format!("https://{h}")))
    .or_else(|| server.strip_prefix("ws://").map(|h| format!("http://{h}")))?;
    Some(format!("{rest}{path}"))
}

async fn post(url: &str, body: &[u8]) -> Result<(), String> {
    let (status, text) = fetch_post(url, "application/json", body).await?;
    super::client::accepted_or_text(status, text)
}

/// A `fetch` `POST` of `body` (of `content_type`, sent as bytes) to `url`:
/// the answer's status and text, whatever the status; `Err` when no answer
/// came.
async fn fetch_post(url: &str, content_type: &str, body: &[u8]) -> Result<(u16, String), String> {
    let window = web_sys::window().ok_or("no window")?;
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_body(&js_sys::Uint8Array::from(body).into());
    let headers = web_sys::Headers::new().map_err(|_| "no headers")?;
    let _ = headers.set("content-type", content_type);
    init.set_headers(&headers);
    let response = JsFuture::from(window.fetch_with_str_and_init(url, &init))
        .await
        .map_err(|_| "the server did not answer".to_owned())?;
    let response: web_sys::Response = response.dyn_into().map_err(|_| "no response")?;
    let text = match response.text() {
        Ok(promise) => JsFuture::from(promise)
            .await
            .ok()
            .and_then(|t| t.as_string())
            .unwrap_or_default(),
        Err(_) => String::new(),
    };
    Ok((response.status(), text))
}

/// Runs a `POST` as a task on the page's event loop and hands `then` the
/// outcome (see [`fetch_post`]).
pub(crate) fn post_in_background(
    server: &str,
    path: String,
    content_type: &'static str,
    body: Vec<u8>,
    then: impl FnOnce(Result<(u16, String), String>) + 'static,
) {
    let Some(url) = http_url(server, &path) else {
        then(Err(format!("not a server URL: {server}")));
        return;
    };
    wasm_bindgen_futures::spawn_local(async move {
        then(fetch_post(&url, content_type, &body).await);
    });
}
