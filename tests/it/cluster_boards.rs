//! Ranked replays across two nodes behind HAProxy (deploy/haproxy.cfg)
//! sharing one Redis (`--directory`): a bot match on each node, each host
//! sending its replay through the proxy as its match ends (`POST
//! /replays?...&room=CODE`), which routes it to the node that paired the
//! room, and a quick match's first seat (no room) to the quick node; all
//! ranked; the same uploads again refused as ranked already by the node
//! that hosted each; then each node by itself (not through the proxy)
//! lists all three in board order and serves every replay's bytes. With
//! the old proxy config (uploads to any node, round robin) one upload of
//! the A, B, B, A sequence below reaches a node that never saw its match;
//! with boards in each node's memory, neither node lists both.

use crate::cluster::{Proxy, Redis, codes, directory_node_args};
use crate::common;
use crate::leaderboard::{json, request};

use std::time::{Duration, Instant};

use common::ws::connect;
use common::{Server, scratch};

const LIMIT: Duration = Duration::from_secs(60);

/// Which node a room lands on through the proxy: a websocket opened in it
/// and closed again (its code stays stuck to that node, as for the match).
fn node_of(nodes: &[&Server], base: &str, code: &str, runtime: &tokio::runtime::Runtime) -> usize {
    let ws = runtime.block_on(connect(&format!("{base}/{code}")));
    let waiting = |n: &Server| {
        n.metric(r#"twinstar_rooms{state="waiting"}"#)
            .unwrap_or(0.0)
    };
    let started = Instant::now();
    let node = loop {
        if let Some(i) = (0..nodes.len()).find(|i| waiting(nodes[*i]) == 1.0) {
            break i;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{code} landed nowhere"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    drop(ws);
    while nodes.iter().any(|n| waiting(n) > 0.0) {
        assert!(started.elapsed() < Duration::from_secs(10), "{code} stayed");
        std::thread::sleep(Duration::from_millis(50));
    }
    node
}

#[test]
fn replays_of_matches_on_two_nodes_are_ranked_through_the_proxy_and_listed_by_both() {
    let redis = Redis::start();
    let url = redis.url();
    let args = directory_node_args(&url);
    let nodes = [
        Server::start_with(&args, &[]),
        Server::start_with(&args, &[]),
    ];
    let all: Vec<&Server> = nodes.iter().collect();
    let proxy = Proxy::start(&all);
    let base = proxy.url();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // One room on each node.
    let mut rooms: [Option<String>; 2] = [None, None];
    for code in codes(20) {
        let i = node_of(&all, &base, &code, &runtime);
        rooms[i].get_or_insert(code);
        if rooms.iter().all(Option::is_some) {
            break;
        }
    }
    let rooms: Vec<String> = rooms
        .into_iter()
        .map(|r| r.expect("20 rooms all hashed to one node"))
        .collect();
    let dir = scratch("cluster-boards");
    let matches: Vec<_> = (rooms.iter().enumerate())
        .map(|(i, code)| {
            let dir = dir.join(code);
            std::fs::create_dir_all(&dir).unwrap();
            let seed = (5 + i).to_string();
            let host = ["--record", "host.tsr", "--seed", &seed];
            let pair = common::started_match(&dir, &base, (code, code), "900", &host, &[]);
            (dir, pair)
        })
        .collect();
    // Each match is playing on its own node.
    for node in &nodes {
        assert_eq!(node.metric(r#"twinstar_rooms{state="full"}"#), Some(1.0));
    }
    // And a quick match (no code: the proxy's quick node, node 1).
    let quick_dir = dir.join("quick");
    let quick: Vec<_> = (0..2)
        .map(|i| {
            let dir = quick_dir.join(i.to_string());
            std::fs::create_dir_all(&dir).unwrap();
            let record = ["--record", "mine.tsr"];
            let peer = common::peer_args("join", None, &base, "300", &record);
            (dir.clone(), common::Twinstar::spawn(&dir, &peer))
        })
        .collect();
    // Each player that sends: ranked by the node behind the proxy.
    let mut uploads = Vec::new();
    let mut ids = Vec::new();
    let mut sent = |summary: &common::Summary, path: String, frames: u32, bytes: Vec<u8>| {
        let ranked = &summary["upload"]["ranked"];
        let claim = summary["shared_score"].as_u64().unwrap();
        assert_eq!(
            ranked["score"].as_u64(),
            Some(claim),
            "not ranked: {summary}"
        );
        ids.push((
            ranked["id"].as_str().unwrap().to_owned(),
            claim,
            uploads.len(),
        ));
        uploads.push((path, claim, frames, bytes));
    };
    for ((dir, (host, join)), code) in matches.into_iter().zip(&rooms) {
        let (host, join) = (host.finish(LIMIT), join.finish(LIMIT));
        assert_eq!(host.code(), Some(0), "{}", host.report("host", 30));
        assert_eq!(join.code(), Some(0), "{}", join.report("join", 30));
        let summary = host.summary();
        let (claim, wave) = (&summary["shared_score"], &summary["wave"]);
        let path = format!("/replays?score={claim}&wave={wave}&room={code}");
        let bytes = std::fs::read(dir.join("host.tsr")).unwrap();
        sent(&summary, path, 900, bytes);
    }
    for (dir, peer) in quick {
        let peer = peer.finish(LIMIT);
        assert_eq!(peer.code(), Some(0), "{}", peer.report("quick", 30));
        let summary = peer.summary();
        assert_eq!(summary["mode"], "quick");
        // The first seat sends, as the host of a room does.
        if summary["player"] == 1 {
            let bytes = std::fs::read(dir.join("mine.tsr")).unwrap();
            sent(&summary, "/replays".into(), 300, bytes);
        } else {
            assert!(summary.get("upload").is_none(), "{summary}");
        }
    }
    assert_eq!(uploads.len(), 3, "one quick player was player 1");
    // Through the proxy again: A, B, B, A, refused as ranked already by
    // the node that hosted each (routed like its room).
    for i in [0, 1, 1, 0] {
        let (path, _, _, bytes) = &uploads[i];
        let (status, body) = request(proxy.addr, "POST", path, bytes);
        assert_eq!(status, 409, "upload {i} again ({path}): {}", json(&body));
    }
    // The board's order: score, then fewer frames, then the earlier upload.
    ids.sort_by_key(|(_, score, i)| (std::cmp::Reverse(*score), uploads[*i].2, *i));
    // Each node by itself lists both, in score order, and serves both.
    for (n, node) in nodes.iter().enumerate() {
        let (status, body) = request(node.addr, "GET", "/leaderboard?board=all", b"");
        let board = json(&body);
        assert_eq!(status, 200, "node {n}: {board}");
        let listed: Vec<(&str, u64)> = (board["entries"].as_array().unwrap().iter())
            .map(|e| (e["id"].as_str().unwrap(), e["score"].as_u64().unwrap()))
            .collect();
        let want: Vec<(&str, u64)> = ids.iter().map(|(id, s, _)| (id.as_str(), *s)).collect();
        assert_eq!(listed, want, "node {n}: {board}");
        for (id, _, i) in &ids {
            let (status, bytes) = request(node.addr, "GET", &format!("/replays/{id}"), b"");
            assert_eq!(status, 200, "node {n}, replay {id}");
            assert!(bytes == uploads[*i].3, "node {n}, replay {id}: other bytes");
        }
    }
    drop(proxy);
    drop(nodes);
    drop(redis);
}
