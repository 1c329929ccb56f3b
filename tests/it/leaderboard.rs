//! Ranked replays end to end: two headless bot matches through one
//! `twinstar serve` (the game's server, with twinstar's verifier), each
//! host sending its replay by itself as the match ends (its summary's
//! score as the claim), both ranked, the board in score order and the
//! downloads the same bytes; today's daily challenge as a quick match; and
//! `--no-upload`. The refusals one by one are crates/server/tests/replays.rs
//! and crates/verify/tests/forgeries.rs.

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
        let ranked = &summary["upload"]["ranked"];
        assert!(ranked.is_object(), "the host sends its replay: {summary}");
        assert_eq!(
            ranked["score"].as_u64(),
            Some(claim),
            "the host's claim is the server's re-simulation"
        );
        assert_eq!(
            ranked["ranks"]["daily"],
            Value::Null,
            "a seed of our own is no daily challenge"
        );
        let id = ranked["id"].as_str().unwrap().to_owned();
        let link = summary["upload"]["ranked"]["link"].as_str().unwrap();
        assert!(link.ends_with(&format!("/#replay={id}")), "{link}");
        assert!(
            host.stderr.contains("twinstar: ranked #"),
            "{}",
            host.stderr
        );
        assert!(
            join.summary().get("upload").is_none(),
            "only the host sends: {}",
            join.summary()
        );
        // Both seats are named, so the server checked both sat in it.
        let replay = twinstar::replay::read(&dir.join("host.tsr")).unwrap();
        assert_eq!(replay.header.peers.len(), 2, "{:?}", replay.header.peers);
        let bytes = std::fs::read(dir.join("host.tsr")).unwrap();
        uploaded.push((id, claim, bytes));
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

/// Today's daily challenge as a quick match: both players ask for it, the
/// server pairs them (and not the plain quick match waiting beside them),
/// they play the day's seed, and the first seat's upload ranks first on
/// the daily board. A match played with `--no-upload` sends nothing.
#[test]
fn a_daily_quick_match_ranks_on_the_daily_board_and_no_upload_sends_nothing() {
    let server = Server::start();
    let dir = scratch("leaderboard-daily");
    let quick = |record: &str, extra: &[&str]| {
        let mut args = vec!["--record", record];
        args.extend_from_slice(extra);
        common::Twinstar::spawn(
            &dir,
            &common::peer_args("join", None, &server.url, "600", &args),
        )
    };
    // A plain quick match waits first: a daily ticket must not take it.
    let mut plain = quick("plain.tsr", &["--no-upload", "--timeout", "30"]);
    std::thread::sleep(Duration::from_millis(300));
    let daily = [quick("a.tsr", &["--daily"]), quick("b.tsr", &["--daily"])];
    let [a, b] = daily.map(|p| p.finish(LIMIT));
    for p in [&a, &b] {
        assert_eq!(p.code(), Some(0), "daily player failed:\n{}", p.stderr);
        assert!(p.stderr.contains("today's daily challenge"), "{}", p.stderr);
    }
    assert_eq!(a.summary()["seed"], b.summary()["seed"]);
    let sent: Vec<Value> = [&a, &b]
        .iter()
        .filter_map(|p| p.summary().get("upload").cloned())
        .collect();
    assert_eq!(sent.len(), 1, "one side of a quick match sends: {sent:?}");
    assert_eq!(sent[0]["ranked"]["ranks"]["daily"], 1, "{}", sent[0]);
    let (status, body) = request(server.addr, "GET", "/leaderboard?board=daily", b"");
    assert_eq!(status, 200);
    let board = json(&body);
    assert_eq!(board["entries"].as_array().unwrap().len(), 1, "{board}");
    assert!(
        plain.is_running(),
        "the plain quick match was paired with a daily one"
    );
    // Its partner arrives; neither sends (--no-upload on both).
    let other = quick("other.tsr", &["--no-upload"]);
    let (plain, other) = (plain.finish(LIMIT), other.finish(LIMIT));
    for p in [&plain, &other] {
        assert_eq!(p.code(), Some(0), "plain quick failed:\n{}", p.stderr);
        assert!(p.summary().get("upload").is_none(), "{}", p.summary());
    }
    let (_, body) = request(server.addr, "GET", "/leaderboard?board=all", b"");
    assert_eq!(json(&body)["entries"].as_array().unwrap().len(), 1);
}
