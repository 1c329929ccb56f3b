//! Several `twinstar serve` nodes behind HAProxy with the shipped
//! deploy/haproxy.cfg: rooms shard by code, so every member of a room (its
//! two players and its spectators) lands on one node, and a node stopped
//! mid-match costs the matches playing there nothing (they are peer to
//! peer). Needs `haproxy` (scripts/test.sh installs Debian's).

use crate::common;

use std::collections::HashMap;
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures::StreamExt;
use matchbox_protocol::{JsonPeerEvent, PeerId};
use tokio::time::timeout;
use tokio_tungstenite::tungstenite::Message;

use common::{LIMIT, Server, Twinstar, scratch};

/// A node as docs/deploy.md runs it behind the proxy; every test client
/// comes from 127.0.0.1, so the per-address cap is lifted.
const NODE_ARGS: [&str; 3] = ["--trust-forwarded", "--max-per-address", "1000"];

/// HAProxy with deploy/haproxy.cfg in front of three nodes; killed when dropped.
struct Proxy {
    child: Child,
    addr: SocketAddr,
}

impl Proxy {
    fn start(nodes: &[&Server; 3]) -> Proxy {
        let haproxy = which("haproxy")
            .expect("haproxy is not installed: apt-get install haproxy (scripts/test.sh does)");
        // A free port: bound and released (HAProxy binds it a moment later).
        let addr = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/haproxy.cfg");
        let mut command = Command::new(haproxy);
        command
            .arg("-db")
            .arg("-f")
            .arg(&config)
            .env("TWINSTAR_BIND", addr.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for (i, node) in nodes.iter().enumerate() {
            command.env(format!("TWINSTAR_NODE{}", i + 1), node.addr.to_string());
        }
        let child = command.spawn().expect("haproxy starts");
        let proxy = Proxy { child, addr };
        // Up once every node passed its health check through it.
        let started = Instant::now();
        while !(0..6).all(|_| http_status(addr, "/healthz") == Some(200)) {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "haproxy did not come up on {addr}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        proxy
    }

    fn url(&self) -> String {
        format!("ws://{}", self.addr)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn which(name: &str) -> Option<String> {
    [
        "/usr/sbin/",
        "/usr/bin/",
        "/usr/local/sbin/",
        "/usr/local/bin/",
    ]
    .iter()
    .map(|dir| format!("{dir}{name}"))
    .find(|p| Path::new(p).is_file())
}

/// A plain GET's status through a raw TCP exchange.
fn http_status(addr: SocketAddr, path: &str) -> Option<u16> {
    common::http_get(addr, path).map(|(status, _)| status)
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Connects and reads the id the server assigns.
async fn connect(url: &str) -> (Ws, PeerId) {
    let (mut ws, _) = tokio_tungstenite::connect_async(url)
        .await
        .unwrap_or_else(|e| panic!("connect to {url}: {e}"));
    match next_event(&mut ws, Duration::from_secs(10)).await {
        Some(JsonPeerEvent::IdAssigned(id)) => (ws, id),
        other => panic!("{url}: expected an id, got {other:?}"),
    }
}

async fn next_event(ws: &mut Ws, limit: Duration) -> Option<JsonPeerEvent> {
    loop {
        match timeout(limit, ws.next()).await {
            Ok(Some(Ok(Message::Text(text)))) => return text.as_str().parse().ok(),
            Ok(Some(Ok(_))) => continue,
            _ => return None,
        }
    }
}

/// Every `NewPeer` a client is told within `limit`.
async fn introductions(ws: &mut Ws, limit: Duration) -> Vec<PeerId> {
    let mut seen = Vec::new();
    let until = tokio::time::Instant::now() + limit;
    while let Ok(Some(event)) = timeout(
        until.saturating_duration_since(tokio::time::Instant::now()),
        next_event(ws, limit),
    )
    .await
    {
        if let JsonPeerEvent::NewPeer(peer) = event {
            seen.push(peer);
        }
    }
    seen
}

/// `n` distinct room codes: 7 symbols of the room alphabet, spread over
/// it (the digits of distinct numbers in base 31).
fn codes(n: usize) -> Vec<String> {
    const ALPHABET: &[u8] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";
    (0..n)
        .map(|i| {
            let mut x = 1_000_003 + i * 7_919_081;
            (0..7)
                .map(|_| {
                    let c = ALPHABET[x % ALPHABET.len()] as char;
                    x /= ALPHABET.len();
                    c
                })
                .collect()
        })
        .collect()
}

#[test]
fn thirty_rooms_with_a_spectator_each_shard_by_code_across_three_nodes() {
    let nodes = [
        Server::start_with(&NODE_ARGS, &[]),
        Server::start_with(&NODE_ARGS, &[]),
        Server::start_with(&NODE_ARGS, &[]),
    ];
    let proxy = Proxy::start(&[&nodes[0], &nodes[1], &nodes[2]]);
    let base = proxy.url();
    let rooms = codes(30);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (crossed, kept) = runtime.block_on(async {
        let mut kept = Vec::new();
        let mut crossed = Vec::new();
        for (i, code) in rooms.iter().enumerate() {
            // Spelled three ways, as players type it.
            let dashed = format!("{}-{}", &code[..3], &code[3..]).to_lowercase();
            let (mut first, _) = connect(&format!("{base}/{code}")).await;
            let (second, second_id) = connect(&format!("{base}/{dashed}")).await;
            let (watcher, watcher_id) = connect(&format!("{base}/watch-{code}")).await;
            let mut told = introductions(&mut first, Duration::from_millis(300)).await;
            told.sort();
            let mut want = vec![second_id, watcher_id];
            want.sort();
            if told != want {
                crossed.push(format!("room {i} {code}: told {told:?}, want {want:?}"));
            }
            kept.push((first, second, watcher));
        }
        (crossed, kept)
    });
    assert!(crossed.is_empty(), "{crossed:#?}");

    // Every room whole on one node: a room split across nodes would count
    // as waiting (one player) there, with its spectator in a room of its own.
    let per_node: Vec<(f64, f64, f64, f64)> = nodes
        .iter()
        .map(|n| {
            (
                n.metric(r#"twinstar_rooms{state="full"}"#).unwrap_or(0.0),
                n.metric(r#"twinstar_rooms{state="waiting"}"#)
                    .unwrap_or(0.0),
                n.metric("twinstar_spectators").unwrap_or(0.0),
                n.metric("twinstar_clients").unwrap_or(0.0),
            )
        })
        .collect();
    eprintln!("(full rooms, waiting rooms, spectators, clients) per node: {per_node:?}");
    let full: f64 = per_node.iter().map(|n| n.0).sum();
    assert_eq!(full, 30.0, "{per_node:?}");
    for (i, (full, waiting, spectators, clients)) in per_node.iter().enumerate() {
        assert_eq!(*waiting, 0.0, "node {i}: {per_node:?}");
        assert_eq!(spectators, full, "node {i}: one spectator per room");
        assert_eq!(*clients, 3.0 * full, "node {i}");
    }
    assert!(
        per_node.iter().filter(|n| n.0 > 0.0).count() >= 2,
        "consistent hashing put every room on one node: {per_node:?}"
    );
    drop(kept);
    drop(runtime);
}

#[test]
fn a_node_stopped_mid_match_leaves_its_matches_to_finish_in_sync() {
    let dir = scratch("cluster-stop");
    let mut nodes = [
        Server::start_with(&NODE_ARGS, &[]),
        Server::start_with(&NODE_ARGS, &[]),
        Server::start_with(&NODE_ARGS, &[]),
    ];
    let proxy = Proxy::start(&[&nodes[0], &nodes[1], &nodes[2]]);
    let base = proxy.url();
    // Six matches of 15 s: at 3 nodes, some land on every node.
    let rooms = codes(6);
    let mut pairs: Vec<(Twinstar, Twinstar)> = rooms
        .iter()
        .map(|code| {
            common::started_match(
                &dir,
                &base,
                (code, code),
                "900",
                &["--no-record"],
                &["--no-record"],
            )
        })
        .collect();
    // The node with the most matches on it goes down, without a goodbye.
    let full: Vec<f64> = nodes
        .iter()
        .map(|n| n.metric(r#"twinstar_rooms{state="full"}"#).unwrap_or(0.0))
        .collect();
    assert_eq!(full.iter().sum::<f64>(), 6.0, "{full:?}");
    let victim = (0..3).max_by(|a, b| full[*a].total_cmp(&full[*b])).unwrap();
    eprintln!("matches per node {full:?}; stopping node {victim}");
    nodes[victim].kill();
    let mut by_room = HashMap::new();
    for (code, (host, join)) in rooms.iter().zip(pairs.drain(..)) {
        let (h, j) = (host.finish(LIMIT), join.finish(LIMIT));
        assert_eq!(h.code(), Some(0), "{code}: {}", h.report("host", 30));
        assert_eq!(j.code(), Some(0), "{code}: {}", j.report("join", 30));
        let (hs, js) = (h.summary(), j.summary());
        assert_eq!(hs["frames"], 900, "{code}");
        assert_eq!(hs["checksum"], js["checksum"], "{code}");
        assert_eq!(hs["desyncs"], 0, "{code}");
        by_room.insert(code.clone(), hs["checksum"].clone());
    }
    assert_eq!(by_room.len(), 6);
    // The cluster still pairs new rooms (HAProxy took the node out).
    let started = Instant::now();
    while http_status(proxy.addr, "/healthz") != Some(200)
        || started.elapsed() < Duration::from_secs(5)
    {
        assert!(started.elapsed() < Duration::from_secs(20));
        std::thread::sleep(Duration::from_millis(250));
    }
    let (host, join) = common::host_then_join(
        &dir,
        &base,
        ("ZZZ-2222", "ZZZ2222"),
        "60",
        &["--no-record"],
        &["--no-record"],
    );
    let (h, j) = (host.finish(LIMIT), join.finish(LIMIT));
    assert_eq!(h.code(), Some(0), "{}", h.report("host", 30));
    assert_eq!(j.code(), Some(0), "{}", j.report("join", 30));
}
