//! Several `twinstar serve` nodes behind HAProxy with the shipped
//! deploy/haproxy.cfg: rooms shard by code, so every member of a room (its
//! two players and its spectators) lands on one node, and a node stopped
//! mid-match costs the matches playing there nothing (they are peer to
//! peer), and a node that drains keeps its live rooms: a player whose game
//! crashed rejoins its match there, while new rooms go to the other nodes.
//! Needs `haproxy` (scripts/test.sh installs Debian's).

use crate::common;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::ws::{connect, introductions};
use common::{LIMIT, Server, Twinstar, peer_args, scratch};
use twinstar_netcode::RoomCode;
use twinstar_signaling_protocol::{RoomAction, SeatToken};

/// A node as docs/deploy.md runs it behind the proxy; every test client
/// comes from 127.0.0.1, so the per-address cap is lifted.
pub(crate) const NODE_ARGS: [&str; 3] = ["--trust-forwarded", "--max-per-address", "1000"];

/// A node's arguments when the nodes share the Redis at `url` (`--directory`).
pub(crate) fn directory_node_args(url: &str) -> Vec<&str> {
    NODE_ARGS
        .iter()
        .copied()
        .chain(["--directory", url])
        .collect()
}

/// HAProxy with deploy/haproxy.cfg in front of two or three nodes; killed
/// when dropped.
pub(crate) struct Proxy {
    _process: common::Reaped,
    pub(crate) addr: SocketAddr,
}

impl Proxy {
    pub(crate) fn start(nodes: &[&Server]) -> Proxy {
        assert!(
            (2..=3).contains(&nodes.len()),
            "deploy/haproxy.cfg names 2 or 3 nodes"
        );
        let haproxy = which("haproxy")
            .expect("haproxy is not installed: apt-get install haproxy (scripts/test.sh does)");
        // A free port: bound and released (HAProxy binds it a moment later).
        let addr = SocketAddr::from(([127, 0, 0, 1], common::free_loopback_port()));
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
        let proxy = Proxy {
            _process: common::Reaped(child),
            addr,
        };
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

    pub(crate) fn url(&self) -> String {
        format!("ws://{}", self.addr)
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

/// `n` distinct room codes: 7 symbols of the room alphabet, spread over
/// it (the digits of distinct numbers in base 31).
pub(crate) fn codes(n: usize) -> Vec<String> {
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

/// The node holding the one match (a room with its two players), if one does.
fn holder(nodes: &[&Server]) -> Option<usize> {
    (0..nodes.len()).find(|i| nodes[*i].metric(r#"twinstar_rooms{state="full"}"#) == Some(1.0))
}

#[test]
fn a_draining_nodes_match_takes_its_crashed_player_back_and_new_rooms_go_elsewhere() {
    let dir = scratch("cluster-drain");
    let args: Vec<&str> = NODE_ARGS
        .iter()
        .copied()
        .chain(["--drain-timeout", "120"])
        .collect();
    let mut nodes = [
        Server::start_with(&args, &[]),
        Server::start_with(&args, &[]),
    ];
    let proxy = Proxy::start(&[&nodes[0], &nodes[1]]);
    let base = proxy.url();
    // A match of 40 s through the proxy, on whichever node its code hashes to.
    let code = "K7Q2XM";
    let (mut host, mut join) = common::started_match(
        &dir,
        &base,
        (code, code),
        "2400",
        &["--no-record"],
        &["--no-record"],
    );
    let a = holder(&[&nodes[0], &nodes[1]]).expect("the match is on one node");
    let b = 1 - a;
    eprintln!("the match is on node {a}; it drains");
    let term = Command::new("kill")
        .args(["-TERM", &nodes[a].pid().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    assert!(
        nodes[a].wait_for("draining", Duration::from_secs(5)),
        "{}",
        nodes[a].stderr()
    );
    // HAProxy's next checks (every 2 s) see /readyz's 503 "draining".
    std::thread::sleep(Duration::from_secs(5));

    // New rooms: all on the other node (a draining node refuses them, so
    // any that reached it would fail to connect).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let fresh = codes(12);
    let open = runtime.block_on(async {
        let mut open = Vec::new();
        for room in &fresh {
            let url = format!("{base}/{room}");
            match tokio_tungstenite::connect_async(&url).await {
                Ok((ws, _)) => open.push(ws),
                Err(e) => panic!("new room {room} during the drain: {e}"),
            }
        }
        open
    });
    let asked = Instant::now();
    while nodes[b].metric(r#"twinstar_rooms{state="waiting"}"#) != Some(12.0) {
        assert!(
            asked.elapsed() < Duration::from_secs(5),
            "the new rooms are not all on node {b}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(open);

    // The joiner's game dies; it comes back with the room code, through
    // the proxy, and must reach the draining node that holds the match.
    join.kill();
    assert!(
        host.wait_for("waiting up to", Duration::from_secs(10)),
        "the host did not notice\n{}",
        host.stderr()
    );
    let rejoin = Twinstar::spawn(
        &dir,
        &peer_args("join", Some("K7Q-2XM"), &base, "2400", &["--no-record"]),
    );
    let (host, rejoin) = (host.finish(LIMIT), rejoin.finish(LIMIT));
    let both = host.report("host", 30) + &rejoin.report("rejoin", 30);
    assert_eq!((host.code(), rejoin.code()), (Some(0), Some(0)), "{both}");
    let (h, r) = (host.summary(), rejoin.summary());
    // Had the rejoin gone to node b, it would have waited there alone and
    // the host would have given up after its reconnect window (exit 1).
    assert_eq!(h["rejoins"], 1, "{both}");
    assert_eq!(
        (h["frames"].clone(), r["frames"].clone()),
        (2400.into(), 2400.into())
    );
    assert_eq!(h["checksum"], r["checksum"], "{both}");
    assert_eq!(h["desyncs"], 0, "{both}");
    assert!(rejoin.stderr.contains("rejoined the match"), "{both}");
    // The match over, the draining node exits on its own.
    let ended = Instant::now();
    while nodes[a].is_alive() {
        assert!(
            ended.elapsed() < Duration::from_secs(15),
            "node {a} still runs after its last match\n{}",
            nodes[a].stderr()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(
        nodes[a].stderr().contains("drained: no client left"),
        "{}",
        nodes[a].stderr()
    );
}

/// `redis-server` on a free port, without persistence; killed when dropped.
pub(crate) struct Redis {
    _process: common::Reaped,
    port: u16,
}

impl Redis {
    pub(crate) fn start() -> Redis {
        let redis = which("redis-server").expect(
            "redis-server is not installed: apt-get install redis-server (scripts/test.sh does)",
        );
        let port = common::free_loopback_port();
        let child = Command::new(redis)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        let redis = Redis {
            _process: common::Reaped(child),
            port,
        };
        let started = Instant::now();
        while !redis.pong() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "redis did not answer"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        redis
    }

    fn pong(&self) -> bool {
        use std::io::{Read, Write};
        let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = s.set_read_timeout(Some(Duration::from_secs(1)));
        let mut answer = [0u8; 7];
        s.write_all(b"PING\r\n").is_ok()
            && s.read_exact(&mut answer).is_ok()
            && &answer == b"+PONG\r\n"
    }

    pub(crate) fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }
}

/// The codes a node lists at `GET /rooms` (all pages).
fn listed(node: &Server) -> Vec<String> {
    let mut codes = Vec::new();
    let mut path = "/rooms".to_string();
    loop {
        let Some((200, body)) = common::http_get(node.addr, &path) else {
            return codes;
        };
        let page: twinstar_netcode::signaling::RoomsPage =
            serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
        codes.extend(page.rooms.into_iter().map(|r| r.code.replace('-', "")));
        match page.next {
            Some(next) => path = format!("/rooms?cursor={next}"),
            None => return codes,
        }
    }
}

/// Polls every node's list until `done` holds for all (or `within` passes);
/// how long it took.
fn lists_until(nodes: &[&Server], within: Duration, done: impl Fn(&[String]) -> bool) -> Duration {
    let started = Instant::now();
    loop {
        let lists: Vec<Vec<String>> = nodes.iter().map(|n| listed(n)).collect();
        if lists.iter().all(|l| done(l)) {
            return started.elapsed();
        }
        assert!(
            started.elapsed() < within,
            "after {within:?}: {:?}",
            lists.iter().map(|l| l.len()).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn thirty_public_rooms_are_listed_by_every_node_through_the_shared_directory() {
    let redis = Redis::start();
    let url = redis.url();
    let args = directory_node_args(&url);
    let mut nodes = vec![
        Server::start_with(&args, &[]),
        Server::start_with(&args, &[]),
        Server::start_with(&args, &[]),
    ];
    let proxy = Proxy::start(&[&nodes[0], &nodes[1], &nodes[2]]);
    let base = proxy.url();
    let rooms = codes(30);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // One host in each room, public, through the proxy, with its seat.
    let seats: Vec<SeatToken> = rooms.iter().map(|_| SeatToken::random()).collect();
    let hosts = runtime.block_on(async {
        let mut hosts = Vec::new();
        for (i, code) in rooms.iter().enumerate() {
            let seat = seats[i];
            let url = format!("{base}/{code}?public=1&name=Host%20{i}&version=6.3&seat={seat}");
            hosts.push(connect(&url).await);
        }
        hosts
    });
    // A room's own requests reach the node that holds it through the
    // proxy: each host's figures are taken (204), a stranger's refused
    // there (403, not the 404 of a node without the room).
    for (code, seat) in rooms.iter().zip(&seats) {
        let path = RoomAction::Stats.path(&RoomCode::parse(code).unwrap());
        let body =
            |seat: SeatToken| format!(r#"{{"seat":"{seat}","wave":1,"score":10,"elapsed_s":3}}"#);
        let host = common::http_request(proxy.addr, "POST", &path, &body(*seat));
        assert_eq!(host.as_ref().map(|r| r.0), Some(204), "{code}: {host:?}");
        let stranger = common::http_request(proxy.addr, "POST", &path, &body(SeatToken::random()));
        assert_eq!(
            stranger.as_ref().map(|r| r.0),
            Some(403),
            "{code}: {stranger:?}"
        );
    }
    let all: Vec<&Server> = nodes.iter().collect();
    let took = lists_until(&all, Duration::from_secs(3), |l| l.len() == 30);
    eprintln!("30 public rooms listed by all three nodes {took:?} after the last host arrived");
    for node in &nodes {
        let mut codes = listed(node);
        codes.sort();
        let mut want = rooms.clone();
        want.sort();
        assert_eq!(codes, want, "each room once, on every node");
    }
    // Which rooms does node 0 hold? Stop it: they leave the list within
    // the directory's expiry (5 s), the others stay.
    let own: f64 = nodes[0].metric(r#"twinstar_public_rooms"#).unwrap_or(0.0);
    let stopped = nodes.remove(0);
    drop(stopped);
    let rest: Vec<&Server> = nodes.iter().collect();
    let remaining = 30 - own as usize;
    let took = lists_until(&rest, Duration::from_secs(8), |l| l.len() == remaining);
    eprintln!("a stopped node's {own} rooms left the others' lists in {took:?}");
    // Redis stops: each node lists its own rooms and says so in /metrics;
    // the hosts' connections stay.
    drop(redis);
    let took = lists_until(&rest, Duration::from_secs(5), |l| l.len() < remaining);
    let per_node: Vec<usize> = rest.iter().map(|n| listed(n).len()).collect();
    eprintln!("without Redis after {took:?}, each node lists its own: {per_node:?}");
    assert_eq!(per_node.iter().sum::<usize>(), remaining, "{per_node:?}");
    for node in &rest {
        assert_eq!(node.metric("twinstar_directory_up"), Some(0.0));
        assert_eq!(
            node.metric("twinstar_public_rooms"),
            Some(listed(node).len() as f64)
        );
    }
    drop(hosts);
    drop(runtime);
}
