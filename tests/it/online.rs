//! Online play between two real `twinstar` processes on loopback, paired by
//! a signaling server running in this test process. Every wait is bounded.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{Finished, Twinstar, host_then_join, peer_args, scratch, verify_replay};

/// A signaling server in this process, serving until dropped.
fn server() -> common::InProcessServer {
    common::InProcessServer::start()
}

const LIMIT: Duration = Duration::from_secs(60);

/// Host and join a match; returns both results.
fn play(
    name: &str,
    frames: u32,
    host_extra: &[&str],
    join_extra: &[&str],
) -> (Finished, Finished, PathBuf) {
    let server = server();
    let dir = scratch(name);
    let frames = frames.to_string();
    let mut host_extra = host_extra.to_vec();
    host_extra.extend(["--record", "host.tsr"]);
    let mut join_extra = join_extra.to_vec();
    join_extra.extend(["--record", "join.tsr"]);
    let (host, join) = host_then_join(
        &dir,
        &server.url,
        ("K7Q-2XM", "k7q 2xm"),
        &frames,
        &host_extra,
        &join_extra,
    );
    let joined = join.finish(LIMIT);
    let hosted = host.finish(LIMIT);
    (hosted, joined, dir)
}

fn assert_equal_end(host: &Finished, join: &Finished, frames: u32) {
    assert_eq!(host.code(), Some(0), "host failed:\n{}", host.stderr);
    assert_eq!(join.code(), Some(0), "join failed:\n{}", join.stderr);
    let (h, j) = (host.summary(), join.summary());
    assert_eq!(h["checksum_frame"], frames, "{h}");
    assert_eq!(j["checksum_frame"], frames, "{j}");
    assert_eq!(h["checksum"], j["checksum"], "host {h}\njoin {j}");
    assert_eq!(
        (h["desyncs"].as_u64(), j["desyncs"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!((&h["mode"], &j["mode"]), (&"host".into(), &"join".into()));
    assert_eq!((&h["player"], &j["player"]), (&1.into(), &2.into()));
    assert_eq!(h["seed"], j["seed"]);
    assert_eq!(h["connection"], "host", "loopback is a host/host pair: {h}");
}

/// The summary's world (wave, scores, restarts) is its replay's, which
/// holds the confirmed frames only: the world at the match's last
/// confirmed frame, not a predicted one past it (a host claims this score
/// when it uploads the replay, and the server re-simulates the replay).
fn assert_world_is_the_replays(peer: &Finished, replay: &Path) {
    let summary = peer.summary();
    let frames = summary["frames"].as_u64().map(|f| f as u32);
    let verified = verify_replay(replay, frames);
    for field in ["wave", "score", "shared_score", "restarts"] {
        assert_eq!(
            summary[field], verified[field],
            "{field}: the match said {summary}\nits replay {verified}"
        );
    }
}

#[test]
fn two_peers_play_to_the_same_checksum_and_replays_verify() {
    let (host, join, dir) = play("basic", 600, &["--seed", "5"], &["--seed", "999"]);
    assert_equal_end(&host, &join, 600);
    let (h, j) = (host.summary(), join.summary());
    // The host's seed wins.
    assert_eq!(h["seed"], 5);
    assert!(h["connect_ms"].as_u64().unwrap() < 5000, "{h}");
    // The breakdown's steps add up to connect_ms, and each was seen.
    for s in [&h, &j] {
        let steps = &s["connect_breakdown_ms"];
        let total: u64 = ["signaling", "peer", "handshake", "sync", "first_frame"]
            .iter()
            .map(|step| steps[step].as_u64().unwrap())
            .sum();
        assert_eq!(Some(total), s["connect_ms"].as_u64(), "{s}");
        assert!(steps["peer"].as_u64().unwrap() > 0, "{s}");
        assert!(steps["handshake"].as_u64().unwrap() > 0, "{s}");
    }
    assert!(h["bytes_sent"].as_u64().unwrap() > 0 && j["bytes_received"].as_u64().unwrap() > 0);
    assert_eq!(h["input_delay"], 0, "loopback needs no delay: {h}");
    assert_world_is_the_replays(&host, &dir.join("host.tsr"));
    assert_world_is_the_replays(&join, &dir.join("join.tsr"));
    // Both logs hold the same confirmed inputs and checksums (their event
    // records may differ: an interruption is seen by one side or both).
    let diff = common::run(&dir, &["replay-diff", "host.tsr", "join.tsr"], LIMIT);
    assert_eq!(diff.code(), Some(0), "{}\n{}", diff.stdout, diff.stderr);
}

#[test]
fn garbage_on_the_ggrs_channel_is_dropped_counted_and_harmless() {
    let (host, join, _) = play("garbage", 600, &["--debug-garbage", "120"], &[]);
    assert_equal_end(&host, &join, 600);
    let dropped = join.summary()["packets_malformed"].as_u64().unwrap();
    // 120 a second for 10 s, minus the few that happen to decode.
    assert!(dropped > 500, "only {dropped} malformed packets counted");
    assert_eq!(host.summary()["packets_malformed"], 0);
}

#[test]
fn a_bad_simulated_link_still_ends_in_sync() {
    // 40 ms each way = 80 ms RTT, 10 ms jitter, 5 % loss, both directions.
    let link = [
        "--sim-latency",
        "40",
        "--sim-jitter",
        "10",
        "--sim-loss",
        "5",
    ];
    let (host, join, dir) = play("badlink", 600, &link, &link);
    assert_equal_end(&host, &join, 600);
    // Prediction runs the newest world ahead of confirmation here: what
    // the summary reports must be the confirmed end all the same.
    assert_world_is_the_replays(&host, &dir.join("host.tsr"));
    assert_world_is_the_replays(&join, &dir.join("join.tsr"));
    let h = host.summary();
    let rtt = h["handshake_rtt_ms"].as_f64().unwrap();
    assert!((75.0..130.0).contains(&rtt), "probe saw {rtt} ms: {h}");
    assert!(h["rollback_frames"].as_u64().unwrap() > 0, "{h}");
    // What the player felt: the delay in frames and ms, the rest of the
    // one-way trip hidden by rollback, and the rollbacks it took.
    let felt = &h["felt_latency"];
    let delay = felt["input_delay_frames"].as_f64().unwrap();
    assert!(
        (felt["input_delay_ms"].as_f64().unwrap() - delay * 1000.0 / 60.0).abs() < 0.1,
        "{felt}"
    );
    // Rollback hides what the delay does not cover: nothing when the tuner
    // picked a delay of the whole one-way trip (3 frames, 50 ms, against
    // 40 ms and jitter: a CI run saw 0.0 of 49.25 ms), the rest otherwise.
    let one_way = h["rtt_ms"].as_f64().unwrap() / 2.0;
    let hidden = felt["hidden_by_rollback_ms"].as_f64().unwrap();
    let delay_ms = felt["input_delay_ms"].as_f64().unwrap();
    assert!(
        (hidden - (one_way - delay_ms).max(0.0)).abs() <= 0.15 && hidden <= one_way,
        "{felt} of {one_way} ms one way"
    );
    let per_s = felt["rollback_frames_per_s"].as_f64().unwrap();
    assert!(per_s > 0.0, "{felt}");
}

#[test]
fn a_third_peer_is_refused_and_versions_must_match() {
    let server = server();
    let dir = scratch("refusals");
    // A host and a joiner whose protocol is "newer": both refuse, exit 2.
    let (host, newer) = host_then_join(
        &dir,
        &server.url,
        ("ABC-DEF", "abcdef"),
        "600",
        &[],
        &["--debug-protocol-skew", "1"],
    );
    // While both sit in the room, a third is turned away.
    std::thread::sleep(Duration::from_millis(100));
    let third = Twinstar::spawn(
        &dir,
        &peer_args("join", Some("ABCDEF"), &server.url, "600", &[]),
    )
    .finish(LIMIT);
    let (newer, host) = (newer.finish(LIMIT), host.finish(LIMIT));
    assert_eq!(newer.code(), Some(2), "{}", newer.stderr);
    assert_eq!(host.code(), Some(2), "{}", host.stderr);
    for side in [&newer, &host] {
        assert!(side.stderr.contains("version mismatch"), "{}", side.stderr);
    }
    assert_eq!(third.code(), Some(2), "{}", third.stderr);
    assert!(
        third.stderr.contains("room ABC-DEF is full"),
        "{}",
        third.stderr
    );
}

#[test]
fn a_vanished_peer_is_reported_within_three_seconds() {
    let server = server();
    let dir = scratch("vanish");
    let (host, mut join) = host_then_join(
        &dir,
        &server.url,
        ("VAN-XSH", "vanxsh"),
        "3600",
        // No reconnect window: a vanished peer ends the match at once
        // (with one, the host waits for a rejoin: tests/it/rejoin.rs).
        &["--record", "host.tsr", "--reconnect-window", "0"],
        &["--no-record"],
    );
    // Let the match run a few seconds, then kill the joiner outright.
    std::thread::sleep(Duration::from_secs(5));
    join.kill();
    let killed = Instant::now();
    let host = host.finish(Duration::from_secs(10));
    assert_eq!(host.code(), Some(1), "{}", host.stderr);
    assert!(
        killed.elapsed() < Duration::from_secs(4),
        "took {:?} to notice",
        killed.elapsed()
    );
    assert!(host.stderr.contains("the other player"), "{}", host.stderr);
    let s = host.summary();
    let frames = s["frames"].as_u64().unwrap() as u32;
    assert!(frames > 60, "{s}");
    verify_replay(&dir.join("host.tsr"), Some(frames));
}

#[test]
fn connection_failures_are_clear_and_bounded() {
    let dir = scratch("failures");
    // Nothing listens on port 1.
    let out = Twinstar::spawn(
        &dir,
        &peer_args("join", Some("ABCDEF"), "ws://127.0.0.1:1", "60", &[]),
    )
    .finish(Duration::from_secs(15));
    assert_eq!(out.code(), Some(1), "{}", out.stderr);
    assert!(out.took < Duration::from_secs(10));
    assert!(out.stderr.contains("signaling server"), "{}", out.stderr);

    // A room nobody hosts: a timeout, with words.
    let server = server();
    let out = Twinstar::spawn(
        &dir,
        &peer_args(
            "join",
            Some("NXB-XDY"),
            &server.url,
            "60",
            &["--timeout", "2"],
        ),
    )
    .finish(Duration::from_secs(15));
    assert_eq!(out.code(), Some(1), "{}", out.stderr);
    assert!(out.stderr.contains("nobody joined"), "{}", out.stderr);

    // Bad input never reaches the network: exit 2, one line.
    for (args, needle) in [
        (vec!["join", "O0I1L", "--headless"], "invalid room code"),
        (
            vec!["join", "ABCDEF", "--server", "http://x", "--headless"],
            "ws://",
        ),
        (
            vec!["join", "ABCDEF", "--stun", "stun:", "--headless"],
            "invalid ICE",
        ),
        (
            vec!["join", "ABCDEF", "--sim-loss", "150", "--headless"],
            "at most 100",
        ),
        (
            vec!["join", "ABCDEF", "--input-delay", "fast", "--headless"],
            "auto",
        ),
    ] {
        let out = common::run(&dir, &args, Duration::from_secs(10));
        assert_eq!(out.code(), Some(2), "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains(needle), "{args:?}: {}", out.stderr);
        assert_eq!(
            out.stderr.trim().lines().count(),
            1,
            "{args:?}: {}",
            out.stderr
        );
    }
}

/// A desync caused on purpose (the host's player 1 score changes from
/// frame 120 on): both sides end with exit 1 at the same frame, and each
/// writes a report, from both sides' worlds exchanged at that frame, that
/// names the changed field and says the inputs agree.
#[test]
fn a_desync_ends_both_sides_and_each_report_names_the_changed_field() {
    let (host, join, dir) = play("desync", 600, &["--inject-desync", "120"], &[]);
    let mut frames = Vec::new();
    for (side, n) in [(&host, 1), (&join, 2)] {
        assert_eq!(side.code(), Some(1), "{}", side.stderr);
        assert!(side.stderr.contains("desync at frame"), "{}", side.stderr);
        assert!(side.took < Duration::from_secs(15));
        let summary = side.summary();
        assert_eq!(summary["desyncs"], 1);
        let path = summary["desync_report"]
            .as_str()
            .unwrap_or_else(|| panic!("no desync_report: {}", side.stdout));
        assert!(
            side.stderr.contains(&format!("desync report: {path}")),
            "{}",
            side.stderr
        );
        assert!(path.ends_with(&format!("-p{n}.json")), "{path}");
        // Beside the replay (`--record host.tsr`, relative to the run's folder).
        assert_eq!(Path::new(path).parent(), Some(Path::new("")), "{path}");
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(path)).unwrap()).unwrap();
        let fields = report["differing_fields"].as_array().unwrap_or_else(|| {
            panic!(
                "the other side's world did not come: {report}\n{}",
                side.stderr
            );
        });
        assert!(
            fields.iter().any(|f| f["field"] == "players[0].score"),
            "{report}"
        );
        assert_eq!(
            summary["desync_fields"][0], "players[0].score",
            "{}",
            side.stdout
        );
        assert_eq!(report["inputs"]["agree"], true, "{report}");
        assert_eq!(report["player"], n);
        assert_ne!(report["checksums"]["ours"], report["checksums"]["theirs"]);
        frames.push(report["frame"].as_u64().unwrap());
    }
    assert_eq!(frames[0], frames[1], "both reports are of one frame");
    // Detection runs every 10 frames on confirmed frames.
    assert!((120..200).contains(&frames[0]), "desync at {}", frames[0]);
}

#[test]
fn quick_match_pairs_two_codeless_joiners_with_default_stun() {
    let server = server();
    let dir = scratch("quick");
    // Default ICE servers (public STUN, unreachable here): must not slow
    // down a loopback connection.
    let args = [
        "join",
        "--server",
        &server.url,
        "--headless",
        "--bot",
        "--frames",
        "180",
        "--json",
        "--no-record",
    ];
    let a = Twinstar::spawn(&dir, &args);
    let b = Twinstar::spawn(&dir, &args);
    let (a, b) = (a.finish(LIMIT), b.finish(LIMIT));
    assert_eq!(
        (a.code(), b.code()),
        (Some(0), Some(0)),
        "{}\n{}",
        a.stderr,
        b.stderr
    );
    let (sa, sb) = (a.summary(), b.summary());
    assert_eq!(sa["checksum"], sb["checksum"]);
    assert_eq!(sa["mode"], "quick");
    let mut players = [sa["player"].as_u64(), sb["player"].as_u64()];
    players.sort();
    assert_eq!(players, [Some(1), Some(2)]);
    for s in [&sa, &sb] {
        assert!(s["connect_ms"].as_u64().unwrap() < 5000, "{s}");
    }
}
