//! Ranked replays end to end: two headless bot matches through one
//! `twinstar serve` (the game's server, with twinstar's verifier), each
//! host's replay uploaded with its summary's score as the claim, both
//! ranked, the board in score order and the downloads the same bytes. The
//! refusals one by one are crates/server/tests/replays.rs and
//! crates/verify/tests/forgeries.rs.

use crate::common;

use std::net::SocketAddr;
use std::time::Duration;

use common::Server;
use common::{host_then_join, scratch};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(60);

/// A raw HTTP request with a binary body: status and body bytes.
pub(crate) fn request(addr: SocketAddr, method: &str, path: &str, body: &[u8]) -> (u16, Vec<u8>) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
         Content-Type: application/octet-stream\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .unwrap();
    s.write_all(body).unwrap();
    let mut all = Vec::new();
    s.read_to_end(&mut all).unwrap();
    let split = all
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response");
    let head = String::from_utf8_lossy(&all[..split]).into_owned();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, all[split + 4..].to_vec())
}

pub(crate) fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(bytes)))
}

#[test]
fn two_bot_matches_are_ranked_in_score_order() {
    let server = Server::start();
    let dir = scratch("leaderboard");
    // Two matches at once in two rooms, different seeds: different play.
    let frames = "900";
    let record = ["--record", "host.tsr"];
    let (a_dir, b_dir) = (dir.join("a"), dir.join("b"));
    std::fs::create_dir_all(&a_dir).unwrap();
    std::fs::create_dir_all(&b_dir).unwrap();
    let a = host_then_join(
        &a_dir,
        &server.url,
        ("AAA-AAA", "AAA-AAA"),
        frames,
        &[&record[..], &["--seed", "5"]].concat(),
        &[],
    );
    let b = host_then_join(
        &b_dir,
        &server.url,
        ("BBB-BBB", "BBB-BBB"),
        frames,
        &[&record[..], &["--seed", "6"]].concat(),
        &[],
    );
    let mut uploaded = Vec::new();
    for ((host, join), dir) in [(a, &a_dir), (b, &b_dir)] {
        let (host, join) = (host.finish(LIMIT), join.finish(LIMIT));
        assert_eq!(host.code(), Some(0), "host failed:\n{}", host.stderr);
        assert_eq!(join.code(), Some(0), "join failed:\n{}", join.stderr);
        let summary = host.summary();
        let claim = summary["shared_score"].as_u64().unwrap();
        let wave = summary["wave"].as_u64().unwrap();
        let bytes = std::fs::read(dir.join("host.tsr")).unwrap();
        let (status, body) = request(
            server.addr,
            "POST",
            &format!("/replays?score={claim}&wave={wave}"),
            &bytes,
        );
        let answer = json(&body);
        assert_eq!(status, 201, "{answer}");
        assert_eq!(
            answer["score"].as_u64(),
            Some(claim),
            "the host's claim is the server's re-simulation"
        );
        assert_eq!(
            answer["ranks"]["daily"],
            Value::Null,
            "a seed of our own is no daily challenge"
        );
        uploaded.push((answer["id"].as_str().unwrap().to_owned(), claim, bytes));
    }
    // Both on the board, higher score first (by upload order on a tie).
    let (status, body) = request(server.addr, "GET", "/leaderboard?board=all", b"");
    assert_eq!(status, 200);
    let board = json(&body);
    let entries = board["entries"].as_array().unwrap();
    let listed: Vec<(String, u64)> = entries
        .iter()
        .map(|e| {
            (
                e["id"].as_str().unwrap().to_owned(),
                e["score"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut expected: Vec<(String, u64)> =
        uploaded.iter().map(|(id, s, _)| (id.clone(), *s)).collect();
    expected.sort_by_key(|(_, score)| std::cmp::Reverse(*score));
    assert_eq!(listed, expected, "{board}");
    assert_eq!(entries[0]["frames"], 900);
    assert_eq!(entries[0]["seconds"], 15.0);
    // The week's board has them too; a link gives the uploaded bytes back.
    let (_, body) = request(server.addr, "GET", "/leaderboard?board=week", b"");
    assert_eq!(json(&body)["entries"].as_array().unwrap().len(), 2);
    let (id, _, bytes) = &uploaded[0];
    assert_eq!(
        request(server.addr, "GET", &format!("/replays/{id}"), b""),
        (200, bytes.clone())
    );
    // The same match again: refused.
    let (status, body) = request(server.addr, "POST", "/replays", bytes);
    assert_eq!(status, 409, "{}", json(&body));
}
