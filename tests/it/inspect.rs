//! Netcode telemetry beside an online match's replay, and `twinstar
//! inspect` reading one or two peers' recordings: the figures, the first
//! divergent frame and the fields that differ there.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::{Finished, Server, host_then_join, run, scratch};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(90);

/// A bot match of `frames` frames over a simulated 50 ms link with 2 %
/// loss, both peers recording (`host.tsr`, `join.tsr`).
pub(crate) fn play(dir: &Path, frames: u32, host_extra: &[&str]) -> (Finished, Finished) {
    let server = Server::start();
    let link = ["--sim-latency", "50", "--sim-loss", "2"];
    let mut host_args = vec!["--record", "host.tsr"];
    host_args.extend(link);
    host_args.extend(host_extra);
    let mut join_args = vec!["--record", "join.tsr"];
    join_args.extend(link);
    let (host, join) = host_then_join(
        dir,
        &server.url,
        ("K7Q-2XM", "K7Q-2XM"),
        &frames.to_string(),
        &host_args,
        &join_args,
    );
    let joined = join.finish(LIMIT);
    let hosted = host.finish(LIMIT);
    (hosted, joined)
}

/// `twinstar inspect ARGS --json` in `dir`: exit 0 and its JSON line.
fn inspect(dir: &Path, args: &[&str]) -> Value {
    let mut all = vec!["inspect"];
    all.extend(args);
    all.push("--json");
    let done = run(dir, &all, LIMIT);
    assert_eq!(done.code(), Some(0), "{}", done.stderr);
    let line = done.stdout.lines().last().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {}", done.stdout))
}

#[test]
fn an_injected_desync_is_found_in_both_recordings_with_their_telemetry() {
    let dir = scratch("desync");
    let (host, join) = play(&dir, 600, &["--inject-desync", "120"]);
    for (side, name) in [(&host, "host"), (&join, "join")] {
        assert_eq!(side.code(), Some(1), "{}", side.stderr);
        let summary = side.summary();
        let sidecar = format!("{name}.tsn");
        assert_eq!(summary["telemetry"], sidecar.as_str(), "{}", side.stdout);
        let bytes = std::fs::metadata(dir.join(&sidecar)).unwrap().len();
        assert_eq!(summary["telemetry_bytes"], bytes, "{}", side.stdout);
        assert!(dir.join(format!("{name}.tsr")).is_file());
    }
    let report = inspect(&dir, &["host.tsr", "join.tsr"]);
    let frame = report["first_divergent_frame"]
        .as_u64()
        .unwrap_or_else(|| panic!("no divergence: {report}"));
    // Injected from frame 120; the peers compare checksums every 10 frames.
    assert!((120..=180).contains(&frame), "{report}");
    let fields = report["fields"].as_array().unwrap();
    assert!(
        fields.iter().any(|f| f["path"] == "players[0].score"
            && f["a"].is_string()
            && f["b"].is_string()
            && f["a"] != f["b"]),
        "{report}"
    );
    // The host's own run did not follow its inputs; the joiner's did.
    assert_eq!(
        report["reproduces"],
        serde_json::json!([false, true]),
        "{report}"
    );
    for peer in report["peers"].as_array().unwrap() {
        assert!(peer["telemetry"]["bytes"].as_u64().unwrap() > 0, "{peer}");
        let rtt = peer["rtt_ms"]["median"].as_f64().unwrap_or(0.0);
        // 50 ms each way, simulated on each side's sends.
        assert!((50.0..1000.0).contains(&rtt), "{peer}");
        let rollback = &peer["rollback"];
        assert!(rollback["frames"].as_u64().unwrap() > 0, "{peer}");
        assert!(rollback["max"].as_u64().unwrap() <= 8, "{peer}");
        assert!(
            rollback["p99"].as_u64() <= rollback["max"].as_u64(),
            "{peer}"
        );
        assert!(
            peer["frames_ahead_mean"].as_f64().unwrap().abs() < 8.0,
            "{peer}"
        );
        assert!(peer["event_kinds"]["desync"].as_u64() >= Some(1), "{peer}");
    }
    // The HTML report: one file, an SVG timeline, nothing fetched.
    let done = run(
        &dir,
        &["inspect", "host.tsr", "join.tsr", "--html", "inspect.html"],
        LIMIT,
    );
    assert_eq!(done.code(), Some(0), "{}", done.stderr);
    let html = std::fs::read_to_string(dir.join("inspect.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("players[0].score"));
    assert!(!html.contains("src=\"http") && !html.contains("href=\"http"));
}

#[test]
fn telemetry_stays_under_two_kilobytes_a_minute_of_play() {
    let dir = scratch("size");
    let frames = 900;
    let (host, join) = play(&dir, frames, &[]);
    for (side, name) in [(&host, "host"), (&join, "join")] {
        assert_eq!(side.code(), Some(0), "{}", side.stderr);
        let bytes = side.summary()["telemetry_bytes"].as_u64().unwrap();
        let minutes = f64::from(frames) / 3600.0;
        let per_minute = bytes as f64 / minutes;
        eprintln!("{name}: {bytes} bytes of telemetry, {per_minute:.0} bytes per minute");
        assert!(per_minute <= 2048.0, "{name}: {per_minute:.0} B/min");
        let report = inspect(&dir, &[&format!("{name}.tsr")]);
        let peer = &report["peers"][0];
        assert!(peer["rtt_ms"]["median"].as_f64().unwrap() >= 50.0, "{peer}");
        assert!(peer["loss_pct"].as_f64().unwrap() > 0.0, "{peer}");
        assert!(peer["bytes_sent"].as_u64().unwrap() > 0, "{peer}");
        assert_eq!(report.get("first_divergent_frame"), None, "{report}");
    }
    let report = inspect(&dir, &["host.tsr", "join.tsr"]);
    assert_eq!(report["first_divergent_frame"], Value::Null, "{report}");
}

#[test]
fn a_replay_without_telemetry_inspects_and_a_bad_sidecar_is_one_line() {
    let dir = scratch("old");
    let recorded = run(
        &dir,
        &[
            "local",
            "--headless",
            "--frames",
            "120",
            "--seed",
            "7",
            "--record",
            "old.tsr",
        ],
        LIMIT,
    );
    assert_eq!(recorded.code(), Some(0), "{}", recorded.stderr);
    assert!(
        !dir.join("old.tsn").exists(),
        "a local match writes no telemetry"
    );
    let report = inspect(&dir, &["old.tsr", "old.tsr"]);
    assert_eq!(report["peers"][0]["telemetry"], Value::Null, "{report}");
    assert_eq!(report["first_divergent_frame"], Value::Null, "{report}");
    assert_eq!(report["frames"], 120);
    // Replays committed by earlier builds: one of this simulation version
    // inspects (no sidecar: no telemetry figures); one of another is
    // refused in one line, as `replay` refuses it.
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let committed = repo.join("fuzz/seeds/replay_bytes/default-150-finished.tsr");
    let report = inspect(&dir, &[committed.to_str().unwrap()]);
    assert_eq!(report["frames"], 150, "{report}");
    assert_eq!(report["peers"][0]["telemetry"], Value::Null, "{report}");
    let old_sim = repo.join("tests/fixtures/replays/sim-v1-default-150.tsr");
    let done = run(&dir, &["inspect", old_sim.to_str().unwrap()], LIMIT);
    assert_eq!(done.code(), Some(2), "{}", done.stderr);
    assert_eq!(done.stderr.lines().count(), 1, "{}", done.stderr);
    // A sidecar that is none: exit 2, one line naming it, no panic.
    std::fs::copy(dir.join("old.tsr"), dir.join("bad.tsr")).unwrap();
    for junk in [&b"not telemetry"[..], b"TSNET\0\x01\0\xff\xff\0\0garbage"] {
        std::fs::write(dir.join("bad.tsn"), junk).unwrap();
        let done = run(&dir, &["inspect", "bad.tsr", "--json"], LIMIT);
        assert_eq!(done.code(), Some(2), "{}", done.stderr);
        let lines: Vec<&str> = done.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{}", done.stderr);
        assert!(lines[0].contains("bad.tsn"), "{}", done.stderr);
        assert!(!done.stderr.contains("panicked"));
    }
    // A file that is no replay at all.
    std::fs::write(dir.join("junk.tsr"), b"junk").unwrap();
    let done = run(&dir, &["inspect", "junk.tsr"], LIMIT);
    assert_eq!(done.code(), Some(2), "{}", done.stderr);
}
