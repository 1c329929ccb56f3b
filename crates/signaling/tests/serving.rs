//! The server in process on loopback, asked over HTTP as an orchestrator
//! and a Prometheus would: the probes' answers while serving and while
//! draining, and where `/metrics` is (and is not) served.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;
use twinstar_signaling::{
    BoundServer, MetricsAccess, MetricsToken, ServeOptions, ServerError, bind_with,
};

/// A server serving on a task until `stop` is sent, then draining.
struct Serving {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Result<(), ServerError>>,
}

fn start(server: BoundServer) -> Serving {
    let addr = server.local_addr();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(server.serve(async {
        let _ = stopped.await;
    }));
    Serving {
        addr,
        stop: Some(stop),
        task,
    }
}

/// `GET path` with `headers` (status, body), off the runtime's threads.
async fn get(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let url = format!("http://{addr}{path}");
    let headers: Vec<(String, String)> = headers
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    tokio::task::spawn_blocking(move || {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(5)))
            .build()
            .into();
        let mut request = agent.get(&url);
        for (k, v) in &headers {
            request = request.header(k, v);
        }
        let mut r = request.call().unwrap_or_else(|e| panic!("GET {url}: {e}"));
        (r.status().as_u16(), r.body_mut().read_to_string().unwrap())
    })
    .await
    .unwrap()
}

/// A websocket client seated in room `code`: the upgrade by hand (this
/// crate has no client), then the socket kept open and never read, a
/// player in a match as far as the server can tell.
fn player(addr: SocketAddr, code: &str) -> TcpStream {
    let (stream, head) = upgrade(addr, code);
    assert_eq!(head, "HTTP/1.1 101");
    stream
}

/// Asks for a websocket in room `code`: the stream and the status line's
/// start (`HTTP/1.1 101` when let in).
fn upgrade(addr: SocketAddr, code: &str) -> (TcpStream, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    write!(
        stream,
        "GET /{code} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    .unwrap();
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).unwrap();
    (stream, String::from_utf8_lossy(&head).into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn livez_stays_200_while_draining_and_readyz_turns_503_and_only_live_rooms_admit() {
    let mut options = ServeOptions::new(None);
    options.drain_timeout = Duration::from_secs(30);
    let server = bind_with(SocketAddr::from(([127, 0, 0, 1], 0)), options).unwrap();
    let state = server.state();
    let mut serving = start(server);
    let addr = serving.addr;
    for path in ["/livez", "/readyz", "/healthz"] {
        assert_eq!(get(addr, path, &[]).await, (200, "ok\n".into()), "{path}");
    }
    // A match in progress keeps the drain going.
    let pair = [player(addr, "K7Q2XM"), player(addr, "K7Q2XM")];
    let code = twinstar_signaling::RoomCode::parse("K7Q2XM").unwrap();
    let seated = Instant::now();
    while state.members_of(&code) < 2 {
        assert!(seated.elapsed() < Duration::from_secs(5), "never seated");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let _ = serving.stop.take().unwrap().send(());
    let asked = Instant::now();
    while get(addr, "/readyz", &[]).await.0 != 503 {
        assert!(asked.elapsed() < Duration::from_secs(5), "never draining");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(get(addr, "/readyz", &[]).await, (503, "draining\n".into()));
    assert_eq!(get(addr, "/healthz", &[]).await.0, 503, "the alias");
    assert_eq!(get(addr, "/livez", &[]).await, (200, "ok\n".into()));
    assert!(!serving.task.is_finished(), "a match is still in its room");
    // No new room while draining...
    assert_eq!(upgrade(addr, "ABC2345").1, "HTTP/1.1 503");
    // ...but a player whose game died comes back into its live room (the
    // keeper stayed in it), or the match would end with the node.
    let [keeper, crashed] = pair;
    drop(crashed);
    while state.members_of(&code) != 1 {
        assert!(seated.elapsed() < Duration::from_secs(10), "never left");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let back = player(addr, "K7Q-2XM");
    let pair = [keeper, back];
    // The match ends: the drain ends with it.
    drop(pair);
    tokio::time::timeout(Duration::from_secs(10), serving.task)
        .await
        .expect("the server exits once its rooms are empty")
        .unwrap()
        .unwrap();
}

/// A server with `metrics` access, serving until the test ends.
fn serve_with(metrics: MetricsAccess) -> (Serving, Option<SocketAddr>) {
    let mut options = ServeOptions::new(None);
    options.metrics = metrics;
    let server = bind_with(SocketAddr::from(([127, 0, 0, 1], 0)), options).unwrap();
    let metrics_addr = server.metrics_addr();
    (start(server), metrics_addr)
}

const LOOPBACK_ANY: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 0);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_are_served_on_their_own_listener_and_not_on_the_public_port() {
    let (serving, at) = serve_with(MetricsAccess {
        bind: Some(LOOPBACK_ANY),
        token: None,
    });
    let at = at.expect("a metrics listener");
    assert_ne!(at, serving.addr);
    let (status, body) = get(serving.addr, "/metrics", &[]).await;
    assert_eq!(status, 404, "{body}");
    assert!(!body.contains("twinstar_"), "{body}");
    let (status, text) = get(at, "/metrics", &[]).await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(
        twinstar_signaling::sample(&text, "twinstar_clients"),
        Some(0.0),
        "{text}"
    );
    // Only /metrics there: not the page, not the probes, not a room.
    for path in ["/", "/livez", "/ice", "/K7Q2XM"] {
        assert_eq!(get(at, path, &[]).await.0, 404, "{path}");
    }
    // A pair meets: the match is counted and its wait timed.
    let _pair = [
        player(serving.addr, "K7Q2XM"),
        player(serving.addr, "K7Q2XM"),
    ];
    let asked = Instant::now();
    loop {
        let text = get(at, "/metrics", &[]).await.1;
        let sample = |name| twinstar_signaling::sample(&text, name);
        if sample("twinstar_time_to_pair_seconds_count") == Some(1.0) {
            assert_eq!(
                sample("twinstar_matches_started_total"),
                Some(1.0),
                "{text}"
            );
            break;
        }
        assert!(asked.elapsed() < Duration::from_secs(5), "{text}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bearer_token_opens_the_public_port_and_guards_both() {
    let token = "tok-0123456789abcdef";
    let (serving, at) = serve_with(MetricsAccess {
        bind: Some(LOOPBACK_ANY),
        token: Some(MetricsToken::new(token).unwrap()),
    });
    let bearer = format!("Bearer {token}");
    for addr in [serving.addr, at.unwrap()] {
        let (status, text) = get(addr, "/metrics", &[("Authorization", &bearer)]).await;
        assert_eq!(status, 200, "{text}");
        assert!(text.contains("# TYPE twinstar_clients gauge"), "{text}");
        assert_eq!(get(addr, "/metrics", &[]).await.0, 401);
        let wrong = get(
            addr,
            "/metrics",
            &[("Authorization", "Bearer tok-0123456789abcdeX")],
        )
        .await;
        assert_eq!(wrong.0, 401);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn by_default_the_library_serves_metrics_nowhere() {
    let (serving, at) = serve_with(MetricsAccess::default());
    assert_eq!(at, None);
    assert_eq!(get(serving.addr, "/metrics", &[]).await.0, 404);
}
