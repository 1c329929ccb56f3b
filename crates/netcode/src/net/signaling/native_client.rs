//! The native client's side of a server on the internet: which TLS roots a
//! `wss://` server is checked against, the websocket itself (our own
//! matchbox signaller, so that it uses those roots and reports why the
//! server closed, read back by `refusal`), `GET /ice` before a
//! connection, and a room's requests posted from a thread (`Poster`).
//! The browser's side is `browser_client.rs`: the same crate-internal items,
//! chosen once in `signaling/mod.rs`.
//!
//! Roots: the public set matchbox's own client trusts (Mozilla's, built in)
//! plus the operating system's, read by `rustls-native-certs`, which
//! follows the usual convention: `SSL_CERT_FILE` / `SSL_CERT_DIR`, when
//! set, name the file or folder of PEM roots instead of the system's (how
//! the tests trust their private CA).

use std::sync::{Arc, OnceLock};

use async_trait::async_trait;
use async_tungstenite::WebSocketStream;
use async_tungstenite::smol::{ConnectStream, connect_async_with_tls_connector};
use async_tungstenite::tungstenite::Message;
use futures::StreamExt;
use futures_rustls::TlsConnector;
use matchbox_socket::{
    PeerEvent, PeerRequest, SignalingError, Signaller, SignallerBuilder, WebRtcSocketBuilder,
};
use rustls::RootCertStore;
use rustls::pki_types::CertificateDer;
use tracing::{debug, warn};
use web_time::Duration;

use super::{JoinError, ROOMS_PATH, RoomCode, RoomsPage, VersionTag};
use crate::net::ice::IceOffer;
use twinstar_signaling_protocol::{ICE_PATH, MAX_ICE_OFFER_BYTES};

/// How long `GET /ice` may take before the client goes on without it.
const ICE_FETCH_TIMEOUT: Duration = Duration::from_secs(4);

/// The roots a server's certificate is checked against (computed once):
/// the public set, then the system's or `SSL_CERT_FILE`'s.
fn roots() -> &'static [CertificateDer<'static>] {
    static ROOTS: OnceLock<Vec<CertificateDer<'static>>> = OnceLock::new();
    ROOTS.get_or_init(|| {
        let native = rustls_native_certs::load_native_certs();
        for e in &native.errors {
            warn!("reading the system's TLS roots: {e}");
        }
        debug!(
            "{} TLS roots from the system or SSL_CERT_FILE",
            native.certs.len()
        );
        let mut all = webpki_root_certs::TLS_SERVER_ROOT_CERTS.to_vec();
        all.extend(native.certs);
        all
    })
}

/// rustls' client configuration with [`roots`].
pub(crate) fn client_tls_config() -> Arc<rustls::ClientConfig> {
    static CONFIG: OnceLock<Arc<rustls::ClientConfig>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let mut store = RootCertStore::empty();
            let (_, ignored) = store.add_parsable_certificates(roots().iter().cloned());
            if ignored > 0 {
                warn!("ignored {ignored} unreadable TLS root certificate(s)");
            }
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map(|b| b.with_root_certificates(store).with_no_client_auth())
                // ring supports the safe defaults; this cannot fail.
                .unwrap_or_else(|e| unreachable!("rustls defaults: {e}"));
            Arc::new(config)
        })
        .clone()
}

/// Our matchbox signaller builder: one connection attempt (our refusals
/// are final), TLS with [`client_tls_config`].
#[derive(Debug, Default)]
pub(crate) struct WsSignallerBuilder;

struct WsSignaller {
    stream: WebSocketStream<ConnectStream>,
}

#[async_trait]
impl SignallerBuilder for WsSignallerBuilder {
    async fn new_signaller(
        &self,
        _attempts: Option<u16>,
        room_url: String,
    ) -> Result<Box<dyn Signaller>, SignalingError> {
        let connector = TlsConnector::from(client_tls_config());
        match connect_async_with_tls_connector(room_url, Some(connector)).await {
            Ok((stream, _)) => Ok(Box::new(WsSignaller { stream })),
            // What matchbox's own builder returns: classify_socket_error
            // reads the refused upgrade's status and body from it.
            Err(e) => Err(SignalingError::NegotiationFailed(Box::new(
                SignalingError::WebSocket(e),
            ))),
        }
    }
}

#[async_trait]
impl Signaller for WsSignaller {
    async fn send(&mut self, request: PeerRequest) -> Result<(), SignalingError> {
        let text = serde_json::to_string(&request)
            .map_err(|e| SignalingError::UserImplementationError(e.to_string()))?;
        self.stream
            .send(Message::Text(text.into()))
            .await
            .map_err(SignalingError::from)
    }

    async fn next_message(&mut self) -> Result<PeerEvent, SignalingError> {
        loop {
            match self.stream.next().await {
                Some(Ok(Message::Text(text))) => {
                    return serde_json::from_str(&text).map_err(|_| SignalingError::UnknownFormat);
                }
                // Pongs go out from within next(); nothing else to do.
                Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => {}
                Some(Ok(Message::Binary(_))) => return Err(SignalingError::UnknownFormat),
                // The server said why (draining, silent): keep its words.
                Some(Ok(Message::Close(Some(frame)))) if !frame.reason.is_empty() => {
                    return Err(SignalingError::UserImplementationError(format!(
                        "{}{CLOSED_MARK}",
                        frame.reason
                    )));
                }
                Some(Ok(Message::Close(_))) | None => return Err(SignalingError::StreamExhausted),
                Some(Err(e)) => return Err(SignalingError::from(e)),
            }
        }
    }
}

/// Marks a close reason in a `UserImplementationError` (see
/// [`server_close_reason`]).
const CLOSED_MARK: &str = " (closed by the server)";

/// The server's own reason, when it closed the signaling connection.
pub(crate) fn server_close_reason(e: &SignalingError) -> Option<&str> {
    match e {
        SignalingError::UserImplementationError(text) => text.strip_suffix(CLOSED_MARK),
        _ => None,
    }
}

/// `ws://host:port` -> `http://host:port{path}` (`wss` -> `https`).
pub(super) fn http_url(server: &str, path: &str) -> Option<String> {
    let server = server.trim().trim_end_matches('/');
    let (scheme, host) = match server.split_once("://")? {
        ("ws", host) => ("http", host),
        ("wss", host) => ("https", host),
        _ => return None,
    };
    Some(format!("{scheme}://{host}{path}"))
}

/// A plain `GET` of `path` on the signaling server (TLS checked against
/// the same roots as its websocket), at most `limit` bytes of text;
/// `Ok(None)` for a 404.
pub(super) fn get_text(server: &str, path: &str, limit: u64) -> Result<Option<String>, String> {
    let url = http_url(server, path).ok_or_else(|| format!("not a server URL: {server}"))?;
    let mut response = agent_with_timeout(ICE_FETCH_TIMEOUT)
        .get(&url)
        .call()
        .map_err(|e| format!("{url}: {e}"))?;
    match response.status().as_u16() {
        200 => {}
        404 => return Ok(None),
        status => return Err(format!("{url}: HTTP {status}")),
    }
    response
        .body_mut()
        .with_config()
        .limit(limit)
        .read_to_string()
        .map(Some)
        .map_err(|e| format!("{url}: {e}"))
}

/// A `POST` of JSON `body` to `path` on the signaling server: `Ok` for a
/// 2xx answer, else what the server said (the caller quotes it on one
/// line: `client::quote_server_text`) or what went wrong.
pub(crate) fn post_json(server: &str, path: &str, body: &[u8]) -> Result<(), String> {
    let (status, text) = post(server, path, "application/json", body)?;
    super::client::accepted_or_text(status, text)
}

/// The most of an answer's body a `POST` reads: answers are one JSON line.
const MAX_ANSWER_BYTES: u64 = 64 * 1024;

/// A `POST` of `body` (of `content_type`) to `path` on the signaling
/// server: the answer's status and text, whatever the status; `Err` when
/// no answer came.
pub(crate) fn post(
    server: &str,
    path: &str,
    content_type: &str,
    body: &[u8],
) -> Result<(u16, String), String> {
    let url = http_url(server, path).ok_or_else(|| format!("not a server URL: {server}"))?;
    let mut response = agent()
        .post(&url)
        .header("content-type", content_type)
        .send(body)
        .map_err(|e| format!("the server did not answer ({e})"))?;
    let status = response.status().as_u16();
    let text = (response.body_mut().with_config().limit(MAX_ANSWER_BYTES))
        .read_to_string()
        .unwrap_or_default();
    Ok((status, text))
}

/// Runs `post` on a thread of its own and hands `then` the outcome there.
pub(crate) fn post_in_background(
    server: &str,
    path: String,
    content_type: &'static str,
    body: Vec<u8>,
    then: impl FnOnce(Result<(u16, String), String>) + Send + 'static,
) {
    let server = server.to_owned();
    let spawned = std::thread::Builder::new()
        .name("post".into())
        .spawn(move || then(post(&server, &path, content_type, &body)));
    if let Err(e) = spawned {
        warn!("no thread for a request to the server: {e}");
    }
}

/// The round trip to the signaling server, in whole ms (at least 1): the
/// fastest of three `GET /healthz` after a first one opened the connection
/// (each then costs one round trip). `None` when it does not answer.
pub fn round_trip_ms(server: &str) -> Option<u32> {
    let url = http_url(server, "/healthz")?;
    let agent = agent();
    agent.get(&url).call().ok()?;
    let fastest = (0..3)
        .filter_map(|_| {
            let started = web_time::Instant::now();
            agent.get(&url).call().ok()?;
            Some(started.elapsed())
        })
        .min()?;
    Some(
        u32::try_from(fastest.as_millis())
            .unwrap_or(u32::MAX)
            .max(1),
    )
}

/// An HTTP client for the signaling server: TLS checked against the same
/// roots as its websocket, a short overall timeout, statuses as answers.
fn agent() -> ureq::Agent {
    agent_with_timeout(ICE_FETCH_TIMEOUT)
}

/// [`agent`] with another overall timeout (a replay's download may take
/// longer than an ICE offer's).
pub(super) fn agent_with_timeout(timeout: Duration) -> ureq::Agent {
    let certs: Vec<ureq::tls::Certificate<'static>> = roots()
        .iter()
        .map(|der| ureq::tls::Certificate::from_der(der.as_ref()).to_owned())
        .collect();
    let tls = ureq::tls::TlsConfig::builder()
        .root_certs(ureq::tls::RootCerts::new_with_certs(&certs))
        .build();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .tls_config(tls)
        .build()
        .into();
    agent
}

/// Asks the signaling server which ICE servers to use. `Ok(None)` when it
/// offers none (an older server, a LAN server, or a stock matchbox one).
pub fn fetch_ice_offer(server: &str) -> Result<Option<IceOffer>, String> {
    let Some(body) = get_text(server, ICE_PATH, MAX_ICE_OFFER_BYTES)? else {
        return Ok(None);
    };
    IceOffer::parse(&body)
        .map(Some)
        .map_err(|e| format!("{server}{ICE_PATH}: {e}"))
}

/// The largest `GET /rooms` answer read: a page of 100 rooms is ~20 KB.
const MAX_ROOMS_BYTES: u64 = 256 * 1024;

/// The server's public rooms of `version` (first page, newest first).
pub fn fetch_rooms(server: &str, version: &VersionTag) -> Result<RoomsPage, String> {
    let path = format!("{ROOMS_PATH}?version={version}");
    match get_text(server, &path, MAX_ROOMS_BYTES)? {
        Some(body) => serde_json::from_str(&body)
            .map_err(|e| format!("the server's room list does not read: {e}")),
        None => Err("this server keeps no room list (an older server?)".into()),
    }
}

/// Sets up `builder` with our own websocket ([`WsSignallerBuilder`]):
/// `wss://` checked against [`roots`], and the server's reason kept when
/// it closes.
pub(crate) fn with_signaller(builder: WebRtcSocketBuilder) -> WebRtcSocketBuilder {
    builder.signaller_builder(Arc::new(WsSignallerBuilder))
}

/// What a refused or closed signaling connection means, when our
/// websocket could read it: the refused upgrade's HTTP status and body, or
/// the reason the server gave for closing. `None` for anything else (the
/// caller words it from the error's text).
pub(crate) fn refusal(
    error: &matchbox_socket::Error,
    room: Option<&RoomCode>,
) -> Option<JoinError> {
    use matchbox_socket::Error;
    match error {
        Error::ConnectionFailed(SignalingError::WebSocket(tungstenite::Error::Http(response))) => {
            let status = response.status().as_u16();
            let reason = response
                .body()
                .as_deref()
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .unwrap_or_default();
            Some(refused_upgrade(status, reason, room))
        }
        Error::ConnectionFailed(e) | Error::Disconnected(e) => {
            server_close_reason(e).map(|reason| JoinError::Closed(reason.to_owned()))
        }
    }
}

/// A refused upgrade by its status and body.
fn refused_upgrade(status: u16, reason: String, room: Option<&RoomCode>) -> JoinError {
    // 409 Conflict: our server's "room is full", or its "room CODE
    // already has 8 spectators".
    if status == 409 && reason.contains("spectators") {
        let name = room.map_or_else(
            || {
                reason
                    .strip_prefix("room ")
                    .and_then(|r| r.split_once(' '))
                    .map_or(reason.clone(), |(name, _)| name.to_owned())
            },
            |r| r.to_string(),
        );
        JoinError::TooManySpectators(name)
    } else if status == 409 {
        // Our server's body is "room CODE is full"; another server's
        // may be anything, so fall back to the whole body.
        let name = room.map_or_else(
            || {
                reason
                    .strip_prefix("room ")
                    .and_then(|r| r.strip_suffix(" is full"))
                    .unwrap_or(&reason)
                    .to_owned()
            },
            |r| r.to_string(),
        );
        JoinError::RoomFull(name)
    } else {
        JoinError::Refused { status, reason }
    }
}

/// What is done with a request's outcome, on the request thread.
type Then = Box<dyn FnOnce(Result<(), String>) + Send>;

/// Posts a room member's requests ([`post_json`]) one by one on a thread
/// of its own, off the game's loop; the thread ends with the poster.
pub(crate) struct Poster {
    jobs: std::sync::mpsc::Sender<(String, Vec<u8>, Then)>,
}

impl Poster {
    pub(crate) fn new(server: &str) -> Poster {
        let (jobs, queue) = std::sync::mpsc::channel::<(String, Vec<u8>, Then)>();
        let server = server.to_owned();
        let spawned = std::thread::Builder::new()
            .name("room-requests".into())
            .spawn(move || {
                for (path, body, then) in queue {
                    then(post_json(&server, &path, &body));
                }
            });
        if let Err(e) = spawned {
            warn!("no thread for the server's room requests: {e}");
        }
        Poster { jobs }
    }

    /// `POST`s `body` to `path`, then hands `then` the outcome.
    pub(crate) fn post(&self, path: String, body: Vec<u8>, then: Then) {
        if let Err(e) = self.jobs.send((path, body, then)) {
            let (_, _, then) = e.0;
            then(Err("the request worker stopped".to_owned()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ice_urls_follow_the_server_scheme() {
        assert_eq!(
            http_url("ws://10.0.0.2:3536/", ICE_PATH).as_deref(),
            Some("http://10.0.0.2:3536/ice")
        );
        assert_eq!(
            http_url("wss://play.example.org", ICE_PATH).as_deref(),
            Some("https://play.example.org/ice")
        );
        assert_eq!(http_url("http://x", ICE_PATH), None);
    }

    #[test]
    fn a_server_close_reason_is_recognised() {
        let e = SignalingError::UserImplementationError(format!("draining{CLOSED_MARK}"));
        assert_eq!(server_close_reason(&e), Some("draining"));
        assert_eq!(server_close_reason(&SignalingError::StreamExhausted), None);
    }
}

// The client against a live signaling server, so natively only: it is
// this side of the seam.
#[cfg(test)]
#[path = "live_tests.rs"]
mod live_tests;
