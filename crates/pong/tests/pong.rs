//! Pong on the netcode, end to end: the `pong` binary against a signaling
//! server in this process (the one `twinstar serve` runs). What twinstar's
//! own tests prove of the netcode holds for a second game with no
//! networking code of its own.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

fn pong() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pong"))
}

/// The last stdout line as JSON.
fn summary(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| panic!("not a summary ({e}): {text}"))
}

/// A signaling server on a free port of this machine, for the test's life.
fn server() -> String {
    let addr = "127.0.0.1:0".parse().unwrap();
    let bound = twinstar_signaling::bind(addr, None).expect("a free port");
    let url = format!("ws://{}", bound.local_addr());
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().expect("a runtime");
        let _ = runtime.block_on(bound.serve(std::future::pending()));
    });
    url
}

fn verify(replay: &Path) -> Value {
    let out = pong()
        .arg("replay")
        .arg(replay)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        replay.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    summary(&out)
}

#[test]
fn a_synctest_of_10000_frames_finds_no_mismatch() {
    let out = pong()
        .args(["synctest", "--headless", "--frames", "10000", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = summary(&out);
    assert_eq!(
        (s["frames"].as_u64(), s["mismatches"].as_u64()),
        (Some(10_000), Some(0))
    );
    assert!(s["rollback_frames"].as_u64().unwrap() >= 19_000, "{s}");
    // Something happened: points were scored.
    let points = s["score"][0].as_u64().unwrap() + s["score"][1].as_u64().unwrap();
    assert!(points + s["games"].as_u64().unwrap() > 0, "{s}");
}

/// Host and join through the server, both players' network cut for 5 s
/// in the middle, a spectator that comes late: all three end at the same
/// frame with the same checksum, both players reconnected, and the three
/// replays verify.
#[test]
fn an_online_match_survives_a_cut_and_a_late_spectator_sees_it_all() {
    let server = server();
    let dir = std::env::temp_dir().join(format!("pong-online-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let player = |role: &str, replay: &str| {
        let mut command = pong();
        command
            .args([
                role, "--room", "PNG7QZ", "--server", &server, "--frames", "1500",
            ])
            .args([
                "--headless",
                "--seed",
                "4",
                "--sim-outage",
                "6:5",
                "--json",
                "--record",
            ])
            .arg(dir.join(replay))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    };
    let mut host = player("host", "host.tsr");
    host.args(["--say", "good luck"]);
    let host = host.spawn().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let join = player("join", "join.tsr").spawn().unwrap();
    std::thread::sleep(Duration::from_secs(4));
    let watch = pong()
        .args([
            "watch",
            "--headless",
            "--room",
            "PNG7QZ",
            "--server",
            &server,
            "--json",
            "--record",
        ])
        .arg(dir.join("watch.tsr"))
        .output()
        .unwrap();
    let (host, join) = (
        host.wait_with_output().unwrap(),
        join.wait_with_output().unwrap(),
    );
    for (name, out) in [("host", &host), ("join", &join), ("watch", &watch)] {
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let (h, j, w) = (summary(&host), summary(&join), summary(&watch));
    for s in [&h, &j, &w] {
        assert_eq!(s["frames"], 1500, "{s}");
        assert_eq!(s["checksum"], h["checksum"], "{s}");
    }
    assert!(
        h["reconnects"].as_u64() >= Some(1) && j["reconnects"].as_u64() >= Some(1),
        "{h}\n{j}"
    );
    assert_eq!(h["spectators"], 1, "{h}");
    for replay in ["host.tsr", "join.tsr", "watch.tsr"] {
        assert_eq!(
            verify(&dir.join(replay))["checksum"],
            h["checksum"],
            "{replay}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Bad input is one line and exit 2, never a panic.
#[test]
fn bad_input_is_one_line_and_exit_2() {
    let cases: [&[&str]; 3] = [
        &["join", "--room", "BAD0", "--server", "ws://127.0.0.1:1"],
        &["replay", "/nonexistent/pong.tsr"],
        &["synctest", "--check-distance", "9"],
    ];
    for args in cases {
        let out = pong().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// The joiner is killed (`kill -9`) mid-match and started again: its
/// rejoin ticket takes it back into the paused match, it is caught up,
/// and both players end at the same frame with the same checksum; the
/// ticket is gone after the match.
#[test]
fn a_player_killed_mid_match_rejoins_and_both_agree() {
    let server = server();
    let dir = std::env::temp_dir().join(format!("pong-rejoin-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let player = |role: &str, data: &str| {
        let mut command = pong();
        command
            .args([
                role, "--room", "PNGRJ7", "--server", &server, "--frames", "1200",
            ])
            .args(["--headless", "--seed", "5", "--json", "--data-dir"])
            .arg(dir.join(data))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    };
    let host = player("host", "host").spawn().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let mut first = player("join", "join").spawn().unwrap();
    std::thread::sleep(Duration::from_secs(6));
    first.kill().unwrap();
    let _ = first.wait();
    assert!(
        dir.join("join").read_dir().unwrap().count() == 1,
        "the crash left its ticket"
    );
    let again = player("join", "join").output().unwrap();
    let host = host.wait_with_output().unwrap();
    for (name, out) in [("host", &host), ("rejoined", &again)] {
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(String::from_utf8_lossy(&again.stderr).contains("rejoined room PNG-RJ7"));
    let (h, j) = (summary(&host), summary(&again));
    assert_eq!(
        (&h["frames"], &h["checksum"]),
        (&j["frames"], &j["checksum"]),
        "{h}\n{j}"
    );
    assert_eq!(h["rejoins"], 1, "{h}");
    assert_eq!(
        dir.join("join").read_dir().unwrap().count(),
        0,
        "the ticket outlived its match"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Without a display the window is refused in one line (exit 2); under a
/// virtual X server (Xvfb, as twinstar's window tests use) a match plays
/// in it to its end.
#[test]
fn the_window_needs_a_display_and_plays_under_xvfb() {
    let out = pong()
        .args(["local", "--frames", "60"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--headless"), "{err}");

    let display = format!(":{}", 90 + std::process::id() % 800);
    let Ok(mut xvfb) = Command::new("Xvfb")
        .args([display.as_str(), "-screen", "0", "1280x720x24"])
        .stderr(Stdio::null())
        .spawn()
    else {
        panic!("Xvfb is not installed: the test command installs it (scripts/test.sh)");
    };
    std::thread::sleep(Duration::from_millis(800));
    let out = pong()
        .args(["local", "--frames", "120", "--bot", "--json"])
        .env("DISPLAY", &display)
        .output()
        .unwrap();
    let _ = xvfb.kill();
    let _ = xvfb.wait();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(summary(&out)["frames"], 120);
}
