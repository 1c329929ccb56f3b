//! The signaling server: our own axum routes around the [`Registry`]
//! (rooms of two, quick match, spectators, refusals before the upgrade),
//! served over plain TCP or TLS, with the operator's endpoints beside them:
//!
//! - `GET /` and the page's files: the web client ([`web`]);
//! - a websocket upgrade on `/CODE`, `/watch-CODE`, `/quick`: a client
//!   ([`connection`]), with small buffers and a liveness check;
//! - `GET /ice`: the STUN/TURN servers to use, TURN credentials minted per
//!   client ([`IcePolicy`]);
//! - `GET /livez` (200 while the process serves, draining included),
//!   `GET /readyz` (503 while draining) and `/healthz`, its deprecated
//!   alias ([`probes`]);
//! - `GET /metrics`: Prometheus' text format ([`Metrics`]), on a listener
//!   of its own and, with a bearer token, on the public port
//!   ([`metrics_access`]); a 404 on the public port otherwise.
//!
//! matchbox_signaling's own server builder is not used: it cannot set the
//! websocket's buffer sizes (tungstenite's 128 KiB read buffer per idle
//! client), answer anything but the upgrade, or serve TLS. Its protocol
//! (`IdAssigned`, `NewPeer`, `Signal`, `PeerLeft`) is kept to the letter,
//! so stock matchbox clients and the browser's are served as before.
//!
//! [`Registry`]: crate::rooms::registry::Registry

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use web_time::{Duration, Instant};

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::extract::ws::{WebSocketUpgrade, rejection::WebSocketUpgradeRejection};
use axum::extract::{ConnectInfo, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum_server::Handle;
use axum_server::tls_rustls::RustlsAcceptor;
use hyper_util::rt::TokioTimer;
use matchbox_protocol::PeerId;
use matchbox_signaling::common_logic::try_send;
use tokio::sync::watch;
use tracing::{info, warn};

use crate::http::reply::{plain, refusal_status};
pub use crate::http::shared::RoomState;
use crate::http::shared::Shared;
use crate::http::tls::{self, Reloader, TlsError, TlsFiles};
use crate::http::turn::IcePolicy;
use crate::http::web::{self, WebClient};
use crate::ops::metrics::{Metrics, RefusalReason};
use crate::ops::metrics_access::{self, Listener, MetricsAccess};
use crate::ops::probes;
use crate::ops::reports::ReportsFile;
use crate::ranking::redis_boards::RedisBoards;
use crate::ranking::replay_routes;
use crate::ranking::replay_state::Replays;
use crate::ranking::replay_store::{self, Store};
use crate::ranking::replays::VerifierPool;
use crate::rooms::close::CLOSE_RESTARTING;
use crate::rooms::connection::{self, DEFAULT_IDLE_TIMEOUT};
use crate::rooms::directory::{Directory, DirectoryError, merge};
use crate::rooms::limits::{AddressGuard, AddressLimits, DEFAULT_MAX_PER_ADDRESS, client_ip};
use crate::rooms::room_requests;
use twinstar_signaling_protocol::ICE_PATH;
use twinstar_signaling_protocol::{
    ClientQuery, MAX_ROOM_REQUEST_BYTES, MAX_SIGNAL_BYTES, QueryError, ROOMS_PATH, Refusal,
    RoomRequest, RoomsPage, RoomsQuery,
};

/// Default `--handshake-timeout`: the TLS handshake, and the HTTP request
/// with its headers, must arrive within it.
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Default `--drain-timeout`: a match (60 s by default) and its end.
pub const DEFAULT_DRAIN_TIMEOUT: Duration = Duration::from_secs(120);
/// A websocket's read buffer. tungstenite allocates it eagerly (128 KiB by
/// default): signaling messages are a few hundred bytes to a few KiB.
const READ_BUFFER_BYTES: usize = 4 * 1024;
/// The largest message a client may send: a signal and its envelope.
const MAX_MESSAGE_BYTES: usize = 2 * MAX_SIGNAL_BYTES;

/// How `twinstar serve` runs; [`ServeOptions::new`] has the defaults.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    pub web: Option<WebClient>,
    pub tls: Option<TlsFiles>,
    pub ice: IcePolicy,
    /// A client that sends nothing for this long loses its seat.
    pub idle_timeout: Duration,
    pub handshake_timeout: Duration,
    pub max_per_address: usize,
    /// After SIGTERM: exit once the rooms are empty, or after this.
    pub drain_timeout: Duration,
    /// Count clients by `X-Forwarded-For` (behind our own reverse proxy).
    pub trust_forwarded: bool,
    /// The public room list shared with other nodes (`redis://HOST:PORT`);
    /// `None`: this node's rooms only.
    pub directory: Option<String>,
    /// The reports file (`--reports`), opened; `None` takes no reports.
    pub reports: Option<ReportsFile>,
    /// Where `/metrics` is served; by default nowhere.
    pub metrics: MetricsAccess,
    /// The verifiers that rank uploaded replays (`replays`); `None`:
    /// `POST /replays` answers 503.
    pub replays: Option<VerifierPool>,
    /// Where ranked replays are kept (`--data DIR`: SQLite in DIR);
    /// `None`: in memory, until the server stops.
    pub data: Option<std::path::PathBuf>,
    /// How much longer than its room was open a replay may last before it
    /// is refused. Benchmarks only (examples/upload_load.rs uploads
    /// ten-minute replays of rooms paired a moment before): no flag,
    /// variable or config key sets it, so the shipped server always keeps
    /// the default (5 s).
    pub replay_lifetime_slack: Duration,
}

impl ServeOptions {
    pub fn new(web: Option<WebClient>) -> ServeOptions {
        ServeOptions {
            web,
            tls: None,
            ice: IcePolicy::default(),
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            handshake_timeout: DEFAULT_HANDSHAKE_TIMEOUT,
            max_per_address: DEFAULT_MAX_PER_ADDRESS,
            drain_timeout: DEFAULT_DRAIN_TIMEOUT,
            trust_forwarded: false,
            directory: None,
            reports: None,
            metrics: MetricsAccess::default(),
            replays: None,
            data: None,
            replay_lifetime_slack: crate::ranking::replay_state::LIFETIME_SLACK,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("could not bind the signaling server: {0}")]
    Bind(std::io::Error),
    #[error("could not bind the metrics listener {addr}: {error}")]
    MetricsBind {
        addr: SocketAddr,
        error: std::io::Error,
    },
    #[error(transparent)]
    Tls(#[from] TlsError),
    #[error(transparent)]
    Directory(#[from] DirectoryError),
    /// `--data DIR` cannot hold the replay store.
    #[error("{0}")]
    Data(String),
    #[error("signaling server failed: {0}")]
    Serve(std::io::Error),
}

/// A signaling server bound to its port, not serving yet. Binding first lets
/// callers (tests, `twinstar host`) learn the port before anyone connects.
pub struct BoundServer {
    listener: std::net::TcpListener,
    addr: SocketAddr,
    /// The metrics listener, if any, and its address.
    metrics_listener: Option<(std::net::TcpListener, SocketAddr)>,
    metrics_access: Arc<MetricsAccess>,
    shared: Shared,
    closing: watch::Sender<bool>,
    tls: Option<(axum_server::tls_rustls::RustlsConfig, Reloader)>,
    handshake_timeout: Duration,
    drain_timeout: Duration,
}

/// Binds with the default options and `web` (see [`bind_with`]).
pub fn bind(addr: SocketAddr, web: Option<WebClient>) -> Result<BoundServer, ServerError> {
    bind_with(addr, ServeOptions::new(web))
}

/// Binds the signaling server (`port` 0 picks a free one) and loads the
/// TLS pair, if any: a bad certificate is an error now, not at the first
/// client.
pub fn bind_with(addr: SocketAddr, options: ServeOptions) -> Result<BoundServer, ServerError> {
    if let Some(web) = &options.web {
        info!(
            "web client from {}: {}",
            web.dir().display(),
            web.describe()
        );
    }
    let tls = options.tls.as_ref().map(tls::start).transpose()?;
    let directory = options
        .directory
        .as_deref()
        .map(Directory::new)
        .transpose()?
        .map(Arc::new);
    // The metrics listener first: its port is the one most likely taken
    // (a second server on the machine with the default), and nothing else
    // is bound yet when it is.
    let metrics_listener = options.metrics.bind.map(listen_metrics).transpose()?;
    let listener = listen(addr).map_err(ServerError::Bind)?;
    let addr = listener.local_addr().map_err(ServerError::Bind)?;
    let (closing, closing_rx) = watch::channel(false);
    let replays = ranked_replays(
        options.replays,
        directory.as_ref(),
        options.data.as_deref(),
        options.replay_lifetime_slack,
    )?;
    let shared = Shared {
        rooms: RoomState::default(),
        metrics: Metrics::default(),
        ice: Arc::new(options.ice),
        limits: AddressLimits::new(options.max_per_address),
        draining: Arc::default(),
        closing: closing_rx,
        idle_timeout: options.idle_timeout,
        web: options.web,
        trust_forwarded: options.trust_forwarded,
        directory,
        reports: options.reports,
        replays,
    };
    Ok(BoundServer {
        listener,
        addr,
        metrics_listener,
        metrics_access: Arc::new(options.metrics),
        shared,
        closing,
        tls,
        handshake_timeout: options.handshake_timeout,
        drain_timeout: options.drain_timeout,
    })
}

/// The metrics listener (`--metrics-bind`) and the address it got.
fn listen_metrics(at: SocketAddr) -> Result<(std::net::TcpListener, SocketAddr), ServerError> {
    let bound = listen(at).and_then(|l| Ok((l.local_addr()?, l)));
    let (local, l) = bound.map_err(|error| ServerError::MetricsBind { addr: at, error })?;
    Ok((l, local))
}

/// Where ranked replays are kept when the server ranks them (`pool`): in
/// the shared Redis with `--directory`, else in `--data`'s SQLite or in
/// memory. Both `--data` and `--directory` is an error: two homes for one
/// board.
fn ranked_replays(
    pool: Option<VerifierPool>,
    directory: Option<&Arc<Directory>>,
    data: Option<&std::path::Path>,
    slack: Duration,
) -> Result<Option<Replays>, ServerError> {
    Ok(match (pool, directory) {
        // Several nodes: the boards and bytes in their shared Redis.
        (Some(pool), Some(redis)) => {
            if let Some(dir) = data {
                return Err(ServerError::Data(format!(
                    "--data {} and --directory both keep ranked replays: with --directory \
                     they are in Redis, so leave --data out",
                    dir.display()
                )));
            }
            info!("ranked replays kept in the shared Redis (--directory)");
            Some(Replays::shared(pool, RedisBoards::new(redis.clone())).with_lifetime_slack(slack))
        }
        (Some(pool), None) => {
            let store = match data {
                Some(dir) => {
                    let store = Store::open(dir).map_err(ServerError::Data)?;
                    info!(
                        "ranked replays kept in {} ({} so far)",
                        dir.join(replay_store::DATA_FILE).display(),
                        store.len()
                    );
                    store
                }
                None => Store::memory(),
            };
            Some(Replays::new(pool, store).with_lifetime_slack(slack))
        }
        (None, _) => None,
    })
}

/// Connections the kernel queues before they are accepted. std listens
/// with 128: a burst of players arriving at once (a tournament start, a
/// node taking over another's rooms) overflows that, and a dropped SYN
/// costs its client a 1 s retry.
const LISTEN_BACKLOG: i32 = 4096;

fn listen(addr: SocketAddr) -> std::io::Result<std::net::TcpListener> {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
    // A restarted server binds again at once, past its old connections'
    // TIME_WAIT.
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(LISTEN_BACKLOG)?;
    socket.set_nonblocking(true)?;
    Ok(socket.into())
}

impl BoundServer {
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The metrics listener's address (`--metrics-bind`), if it has one.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics_listener.as_ref().map(|(_, a)| *a)
    }

    /// `wss` with TLS, else `ws`.
    pub fn scheme(&self) -> &'static str {
        if self.tls.is_some() { "wss" } else { "ws" }
    }

    /// The room bookkeeping (for status displays and tests).
    pub fn state(&self) -> RoomState {
        self.shared.rooms.clone()
    }

    /// Serves until `shutdown` resolves, then drains (stops admitting,
    /// tells the players still waiting for a partner to come back later, and
    /// waits until no client is seated or [`ServeOptions::drain_timeout`]
    /// has passed), closes every client's websocket and returns.
    pub async fn serve(self, shutdown: impl Future<Output = ()>) -> Result<(), ServerError> {
        let BoundServer {
            listener,
            addr,
            metrics_listener,
            metrics_access,
            shared,
            closing,
            tls,
            handshake_timeout,
            drain_timeout,
        } = self;
        let router = routes(&shared, &metrics_access);
        let make = router.into_make_service_with_connect_info::<SocketAddr>();
        let handle: Handle<SocketAddr> = Handle::new();
        let mut server = axum_server::from_tcp(listener)
            .map_err(ServerError::Bind)?
            .handle(handle.clone());
        server
            .http_builder()
            .http1()
            .timer(TokioTimer::new())
            .header_read_timeout(Some(handshake_timeout));
        let serving: std::pin::Pin<Box<dyn Future<Output = std::io::Result<()>> + Send>> = match tls
        {
            Some((config, reloader)) => {
                info!("signaling server listening on wss://{addr} (and https for the page)");
                let reload = tokio::spawn(reloader.watch());
                let acceptor = RustlsAcceptor::new(config).handshake_timeout(handshake_timeout);
                let server = server.acceptor(acceptor);
                Box::pin(async move {
                    let result = server.serve(make).await;
                    reload.abort();
                    result
                })
            }
            None => {
                info!("signaling server listening on ws://{addr}");
                Box::pin(server.serve(make))
            }
        };
        // Quick-match tickets that could not pair on arrival may pair as
        // their waits widen the level gap they accept.
        let _matcher = AbortOnDrop(tokio::spawn(match_quick(shared.clone())));
        let _metrics = match metrics_listener {
            Some((l, at)) => {
                info!("metrics on http://{at}/metrics");
                let state = (shared.clone(), metrics_access, Listener::Metrics);
                let serving = serve_metrics(l, state, handshake_timeout);
                Some(AbortOnDrop(tokio::spawn(serving)))
            }
            None => None,
        };
        let _publisher = shared
            .directory
            .clone()
            .map(|d| AbortOnDrop(tokio::spawn(publish_rooms(shared.rooms.clone(), d))));
        tokio::pin!(serving);
        tokio::select! {
            result = &mut serving => return result.map_err(ServerError::Serve),
            () = shutdown => {}
        }
        // The server keeps answering while it drains (/readyz says 503,
        // /livez 200).
        tokio::select! {
            result = &mut serving => return result.map_err(ServerError::Serve),
            () = drain(&shared, drain_timeout) => {}
        }
        let _ = closing.send(true);
        // Give the connections a moment to send their close frames.
        let deadline = Instant::now() + Duration::from_secs(2);
        while !shared.rooms.lock().is_empty() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        handle.graceful_shutdown(Some(Duration::from_secs(1)));
        serving.await.map_err(ServerError::Serve)
    }
}

/// The public listener's routes: probes, metrics (behind their access
/// rule), ICE, replays and boards, rooms and their requests, and the
/// websocket or the page for anything else.
fn routes(shared: &Shared, metrics_access: &Arc<MetricsAccess>) -> Router {
    Router::new()
        .route("/livez", get(probes::livez))
        .route("/readyz", get(probes::readyz))
        // Deprecated: /readyz under its old name, for one release.
        .route("/healthz", get(probes::readyz))
        .route(
            "/metrics",
            get(metrics).with_state((shared.clone(), metrics_access.clone(), Listener::Public)),
        )
        .route(ICE_PATH, get(ice))
        .route(
            "/replays",
            post(replay_routes::upload)
                .layer(DefaultBodyLimit::max(replay_routes::MAX_UPLOAD_BYTES)),
        )
        .route("/replays/{id}", get(replay_routes::download))
        .route("/leaderboard", get(replay_routes::leaderboard))
        .route(ROOMS_PATH, get(rooms))
        .route(
            "/rooms/{code}/{action}",
            post(room_requests::room_request).layer(DefaultBodyLimit::max(MAX_ROOM_REQUEST_BYTES)),
        )
        .fallback(client)
        .with_state(shared.clone())
}

/// A background task that ends with the scope holding it.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Writes this node's public rooms to the shared directory every
/// [`directory::REFRESH`](crate::rooms::directory::REFRESH).
async fn publish_rooms(rooms: RoomState, directory: Arc<Directory>) {
    let mut tick = tokio::time::interval(crate::rooms::directory::REFRESH);
    loop {
        tick.tick().await;
        let listed = rooms.lock().listings();
        directory.publish(&listed).await;
    }
}

/// Pairs waiting quick-match clients every quarter second.
async fn match_quick(shared: Shared) {
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    loop {
        tick.tick().await;
        let made = {
            let mut rooms = shared.rooms.lock();
            let made = rooms.match_quick(Instant::now());
            shared.metrics.observed_all(rooms.take_observed());
            made
        };
        if made > 0 {
            info!("quick match: paired {made} waiting pair(s)");
        }
    }
}

/// Stops admitting, tells the players still waiting for a partner (close
/// code 1012, "come back in a moment"), and waits until no client is seated
/// or `timeout` has passed. Matches already playing go on peer to peer.
async fn drain(shared: &Shared, timeout: Duration) {
    shared.draining.store(true, Ordering::SeqCst);
    shared.metrics.set_draining(true);
    let waiting = shared.rooms.lock().waiting_alone();
    info!(
        "draining: no new clients; told {} waiting player(s); exiting when the rooms are empty or in {} s",
        waiting.len(),
        timeout.as_secs()
    );
    for channel in waiting {
        let _ = try_send(
            &channel,
            crate::rooms::close::close(
                CLOSE_RESTARTING,
                "the server is restarting; connect again in a moment",
            ),
        );
    }
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if shared.rooms.lock().is_empty() {
            info!("drained: no client left");
            return;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    warn!("drain timeout: closing the remaining clients");
}

/// The metrics listener: `/metrics`, 404 for anything else, with the
/// public port's header timeout (a scraper that never finishes its
/// request holds nothing for long). Ends (with a line in the log) only if
/// it cannot accept at all; its task is aborted with the server.
async fn serve_metrics(
    listener: std::net::TcpListener,
    state: MetricsState,
    handshake_timeout: Duration,
) {
    let router = Router::new()
        .route("/metrics", get(metrics))
        .fallback(|| async { plain(StatusCode::NOT_FOUND, "only /metrics here\n") })
        .with_state(state);
    let served = match axum_server::from_tcp(listener) {
        Ok(mut server) => {
            server
                .http_builder()
                .http1()
                .timer(TokioTimer::new())
                .header_read_timeout(Some(handshake_timeout));
            server.serve(router.into_make_service()).await
        }
        Err(e) => Err(e),
    };
    if let Err(e) = served {
        warn!("the metrics listener stopped: {e}");
    }
}

/// What a `/metrics` handler needs: the figures, who may read them, and
/// which listener asked.
type MetricsState = (Shared, Arc<MetricsAccess>, Listener);

async fn metrics(
    State((shared, access, listener)): State<MetricsState>,
    headers: HeaderMap,
) -> Response {
    if let Some(refused) = metrics_access::refusal(&access, listener, &headers) {
        return refused;
    }
    let counts = shared.rooms.counts();
    shared
        .metrics
        .set_directory_up(shared.directory.as_ref().is_none_or(|d| d.is_up()));
    let mut r = plain(StatusCode::OK, shared.metrics.render(counts));
    r.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("application/openmetrics-text; version=1.0.0; charset=utf-8"),
    );
    r
}

/// The public rooms, newest first, a page at a time (`?version=`,
/// `?cursor=`); never a private room.
async fn rooms(State(shared): State<Shared>, uri: Uri) -> Response {
    let query = match RoomsQuery::parse(uri.query()) {
        Ok(query) => query,
        Err(e) => return plain(StatusCode::BAD_REQUEST, format!("{e}\n")),
    };
    let own = shared.rooms.lock().listings();
    let listed = match &shared.directory {
        Some(directory) => match directory.read().await {
            Ok(everyone) => merge(own, everyone),
            // Said once in the log (directory.rs); this node's rooms meanwhile.
            Err(_) => own,
        },
        None => own,
    };
    let page = RoomsPage::of(listed, &query);
    let body = serde_json::to_string(&page).unwrap_or_else(|_| "{\"rooms\":[]}".into());
    let mut response = (StatusCode::OK, body).into_response();
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

async fn ice(State(shared): State<Shared>) -> Response {
    if shared.ice.is_empty() {
        return plain(StatusCode::NOT_FOUND, "this server offers no ICE servers\n");
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let name = format!("{:08x}", rand::random::<u32>());
    let offer = shared.ice.offer(now, &name);
    if offer.credential.is_some() {
        shared.metrics.turn_credential_issued();
    }
    let mut r = plain(
        StatusCode::OK,
        serde_json::to_string(&offer).unwrap_or_default(),
    );
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

/// Everything else: a client's websocket upgrade, or a plain request for
/// the page.
async fn client(
    State(shared): State<Shared>,
    ConnectInfo(peer_addr): ConnectInfo<SocketAddr>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let Ok(upgrade) = upgrade else {
        return web::respond(shared.web.as_ref(), &method, uri.path(), &headers)
            .unwrap_or_else(|| plain(StatusCode::METHOD_NOT_ALLOWED, "GET only\n"));
    };
    let (request, query, guard) = match admit(&shared, peer_addr, &uri, &headers) {
        Ok(admitted) => admitted,
        Err(refused) => {
            shared.metrics.refused(refused.reason);
            info!(origin = %peer_addr, path = %uri.path(), "refused: {}", refused.why);
            return plain(refused.status, refused.why);
        }
    };
    let peer = PeerId(uuid::Uuid::new_v4());
    info!(origin = %peer_addr, peer = %peer, path = %uri.path(), "connected");
    upgrade
        .read_buffer_size(READ_BUFFER_BYTES)
        .write_buffer_size(0)
        .max_message_size(MAX_MESSAGE_BYTES)
        .max_frame_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |socket| connection::run(socket, (request, query), peer, shared, guard))
}

/// Why a client is turned away before its upgrade: the reason `/metrics`
/// counts, the status and the one line of text it gets.
struct Refused {
    reason: RefusalReason,
    status: StatusCode,
    why: String,
}

impl From<Refusal> for Refused {
    fn from(refusal: Refusal) -> Self {
        Refused {
            reason: refusal_reason(&refusal),
            status: refusal_status(&refusal),
            why: refusal.to_string(),
        }
    }
}

/// The reason `/metrics` counts a protocol refusal under.
fn refusal_reason(refusal: &Refusal) -> RefusalReason {
    match refusal {
        Refusal::RoomFull(_) => RefusalReason::RoomFull,
        Refusal::TooManySpectators(_) => RefusalReason::TooManySpectators,
        Refusal::BadRoom(_) => RefusalReason::BadRoom,
        Refusal::BadSeat(_) => RefusalReason::BadSeat,
        Refusal::BadQuery(_) | Refusal::PublicNeedsName => RefusalReason::BadQuery,
        Refusal::Kicked { .. } => RefusalReason::Kicked,
    }
}

/// Every check a websocket client passes before its upgrade, in the order
/// that decides which refusal it hears first: its path, the server
/// draining, its query, its address' limit, then a seat (reserved here, under
/// the registry's lock, so two clients cannot both take the last one).
fn admit(
    shared: &Shared,
    peer_addr: SocketAddr,
    uri: &Uri,
    headers: &HeaderMap,
) -> Result<(RoomRequest, ClientQuery, AddressGuard), Refused> {
    let path = uri.path().trim_start_matches('/');
    let request =
        RoomRequest::from_path((!path.is_empty()).then_some(path)).map_err(Refusal::BadRoom)?;
    // Draining: no new room, but a live room's own (a player rejoining its
    // match after a crash, a spectator) still gets in, or the match it
    // belongs to would end with this node. The proxy keeps routing them
    // here (deploy/haproxy.cfg: the node is NOLB, its rooms stuck to it).
    if shared.draining.load(Ordering::SeqCst) && !shared.rooms.lock().is_live(&request) {
        return Err(Refused {
            reason: RefusalReason::Draining,
            status: StatusCode::SERVICE_UNAVAILABLE,
            why: "the server is restarting; connect again in a moment".into(),
        });
    }
    let query = client_query(uri.query())?;
    let ip = client_ip(peer_addr.ip(), headers, shared.trust_forwarded);
    let Some(guard) = shared.limits.acquire(ip) else {
        return Err(Refused {
            reason: RefusalReason::TooManyFromAddress,
            status: StatusCode::TOO_MANY_REQUESTS,
            why: format!(
                "too many connections from {ip} (at most {} at once)",
                shared.limits.max()
            ),
        });
    };
    let token = query.seat;
    let admitted = {
        let mut rooms = shared.rooms.lock();
        let now = Instant::now();
        match (rooms.kicked(&request, ip, token, now), &request) {
            (Some(left), RoomRequest::Watch(code)) => Err(Refusal::Kicked {
                code: code.clone(),
                secs: left.as_secs().max(1),
            }),
            _ => rooms.admit_with(&request, token, now),
        }
    };
    admitted?;
    Ok((request, query, guard))
}

/// A client's query (`?seat=`, `?public&name=&version=`), or why it is
/// refused: a public room must say whose it is and which version.
fn client_query(query: Option<&str>) -> Result<ClientQuery, Refusal> {
    match ClientQuery::parse(query) {
        Ok(query) if query.public && (query.name.is_none() || query.version.is_none()) => {
            Err(Refusal::PublicNeedsName)
        }
        Ok(query) => Ok(query),
        Err(QueryError::Seat(e)) => Err(Refusal::BadSeat(e)),
        Err(e) => Err(Refusal::BadQuery(e)),
    }
}

/// Binds and serves until `shutdown` resolves.
pub async fn serve(
    bind_addr: SocketAddr,
    web: Option<WebClient>,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServerError> {
    bind(bind_addr, web)?.serve(shutdown).await
}
