//! The binary's contracts: `--json` last line, exit codes, error lines.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::{Finished, LIMIT, scratch};

/// The scratch directory the runs of this test process share, so default
/// recordings land there.
fn runs_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    // One per process: nextest runs each test in a process of its own,
    // and `scratch` empties the directory it names, so a shared "runs"
    // was emptied under a test by the next one to start (seen: a replay
    // the run had just written was gone).
    DIR.get_or_init(|| scratch(&format!("runs-{}", std::process::id())))
}

/// Runs the binary in [`runs_dir`].
fn twinstar(args: &[&str]) -> Finished {
    common::run(runs_dir(), args, LIMIT)
}

#[test]
fn synctest_json_summary_has_the_contract_fields() {
    let out = twinstar(&[
        "synctest",
        "--headless",
        "--frames",
        "600",
        "--seed",
        "1",
        "--json",
    ]);
    assert!(out.status.success(), "{}", out.stderr);
    let s = out.summary();
    for key in [
        "mode",
        "frames",
        "checksum_frame",
        "checksum",
        "desyncs",
        "mismatches",
        "rollback_frames",
        "input_delay",
        "rtt_ms",
        "bytes_sent",
        "bytes_received",
        "connection",
        "replay",
    ] {
        assert!(s.get(key).is_some(), "summary lacks {key}: {s}");
    }
    assert_eq!(s["mode"], "synctest");
    assert_eq!(s["frames"], 600);
    assert_eq!(s["checksum_frame"], 600);
    assert_eq!(s["mismatches"], 0);
    assert_eq!(s["connection"], "local");
    assert_eq!(s["checksum"].as_str().unwrap().len(), 32);

    // The tests' reader holds the line to the game's type: a field the
    // type lacks, a mistyped one, or asking for a renamed one fails.
    let line = out.stdout.lines().last().unwrap();
    let mut extra: serde_json::Value = serde_json::from_str(line).unwrap();
    extra["checksum_renamed"] = extra["checksum"].clone();
    assert!(common::Summary::check(extra).is_err());
    let mut mistyped: serde_json::Value = serde_json::from_str(line).unwrap();
    mistyped["frames"] = "600".into();
    assert!(common::Summary::check(mistyped).is_err());
    let asked = std::panic::catch_unwind(|| s["checksum_renamed"].clone());
    assert!(
        asked.is_err(),
        "indexing a field the summary lacks must fail"
    );
}

/// The checksum of a headless synctest of `frames` frames from `seed`
/// (plus `extra` arguments), which must pass with no mismatch.
fn synctest_checksum(frames: &str, seed: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "synctest",
        "--headless",
        "--frames",
        frames,
        "--seed",
        seed,
        "--json",
    ];
    args.extend_from_slice(extra);
    let out = twinstar(&args);
    assert!(out.status.success(), "{args:?}: {}", out.stderr);
    let s = out.summary();
    assert_eq!(s["mismatches"], 0, "{args:?}");
    s["checksum"].as_str().unwrap().to_string()
}

#[test]
fn synctest_10k_frames_is_reproducible_and_seed_dependent() {
    let run = |seed| synctest_checksum("10000", seed, &[]);
    let first = run("1");
    assert_eq!(first, run("1"));
    assert_ne!(first, run("2"));
}

#[test]
fn synctest_of_the_human_bot_has_no_mismatch_and_differs_from_the_script_bot() {
    let run = |style| synctest_checksum("3000", "1", &["--bot-style", style]);
    assert_ne!(run("human"), run("script"));
}

#[test]
fn injected_nondeterminism_exits_1_with_frame_and_both_checksums() {
    let out = twinstar(&[
        "synctest",
        "--headless",
        "--frames",
        "600",
        "--seed",
        "1",
        "--json",
        "--inject-desync",
        "250",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = &out.stderr;
    assert!(stderr.contains("mismatch at frame 250"), "{stderr}");
    assert!(
        stderr.matches(|c: char| c.is_ascii_hexdigit()).count() >= 64,
        "{stderr}"
    );
    assert_eq!(out.summary()["mismatches"], 1);
}

/// A player who finds the hidden test hook cannot break a match with it:
/// without `TWINSTAR_TEST_HOOKS=1` it is refused in one line, exit 2.
#[test]
fn the_desync_test_hook_is_refused_outside_tests() {
    for mode in [
        &["synctest", "--headless"][..],
        &["host", "--room", "K7Q-2XM", "--headless"],
    ] {
        let mut command =
            common::command(runs_dir(), &[mode, &["--inject-desync", "120"]].concat());
        command.env_remove("TWINSTAR_TEST_HOOKS");
        let out = command.output().expect("twinstar runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{mode:?}: {stderr}");
        assert!(
            stderr.contains("TWINSTAR_TEST_HOOKS=1"),
            "{mode:?}: {stderr}"
        );
        assert_eq!(stderr.trim().lines().count(), 1, "{mode:?}: {stderr}");
    }
}

#[test]
fn bad_arguments_exit_2_with_one_line() {
    for args in [
        &["synctest", "--check-distance", "0"][..],
        &["synctest", "--check-distance", "100"],
        &["synctest", "--check-distance", "1"],
        &["synctest", "--frames", "-5"],
        &["synctest", "--frames", "many"],
        &["synctest", "--unknown-flag"],
        &["local", "--preset", "nope"],
        &["local", "--bot-style", "robot"],
        &["warp"],
        &[],
    ] {
        let out = twinstar(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = &out.stderr;
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn window_without_display_is_a_clear_error() {
    let out = twinstar(&["local", "--frames", "10"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stderr.contains("--headless"));
}

#[test]
fn local_headless_runs_and_never_rolls_back() {
    let out = twinstar(&[
        "local",
        "--headless",
        "--frames",
        "900",
        "--seed",
        "4",
        "--json",
        "--preset",
        "stress",
    ]);
    assert!(out.status.success());
    let s = out.summary();
    assert_eq!(s["mode"], "local");
    assert_eq!(s["rollback_frames"], 0);
    assert_eq!(s["preset"], "stress");
}

#[test]
fn runs_record_by_default_under_replays() {
    let out = twinstar(&[
        "local",
        "--headless",
        "--frames",
        "120",
        "--seed",
        "77",
        "--json",
    ]);
    assert!(out.status.success());
    let path = out.summary()["replay"]
        .as_str()
        .expect("a replay path")
        .to_string();
    assert!(
        path.starts_with("replays/") && path.ends_with("-local-seed77.tsr"),
        "{path}"
    );
    let dir = runs_dir();
    assert!(dir.join(&path).is_file());

    // The same run again within the second gets its own file.
    let again = twinstar(&[
        "local",
        "--headless",
        "--frames",
        "120",
        "--seed",
        "77",
        "--json",
    ]);
    let second = again.summary()["replay"].as_str().unwrap().to_string();
    assert_ne!(second, path);
    assert!(dir.join(&second).is_file() && dir.join(&path).is_file());

    let none = twinstar(&[
        "local",
        "--headless",
        "--frames",
        "10",
        "--no-record",
        "--json",
    ]);
    assert!(none.summary()["replay"].is_null());
}

#[test]
fn broken_replay_files_exit_2_with_one_line() {
    let dir = scratch("bad-replays");
    let empty = dir.join("empty.tsr");
    std::fs::write(&empty, b"").unwrap();
    let junk = dir.join("junk.tsr");
    std::fs::write(&junk, b"definitely not a replay").unwrap();
    for file in [
        empty.to_str().unwrap(),
        junk.to_str().unwrap(),
        dir.to_str().unwrap(),
        "/nonexistent/x.tsr",
    ] {
        let out = twinstar(&["replay", file, "--headless", "--verify"]);
        assert_eq!(out.status.code(), Some(2), "{file}");
        let stderr = &out.stderr;
        assert_eq!(stderr.trim_end().lines().count(), 1, "{file}: {stderr}");
    }
}

/// `twinstar solo`: a local match with the human-like bot as player 2,
/// with local's flags; `--until-game-over` stops at the first game over
/// and the summary (mode `solo`) is that game's, with the new figures.
#[test]
fn solo_plays_to_its_first_game_over_and_says_so() {
    let dir = common::scratch("solo");
    let args = [
        "solo",
        "--headless",
        "--seed",
        "3",
        "--frames",
        "216000",
        "--until-game-over",
        "--no-record",
        "--json",
    ];
    let out = common::run(&dir, &args, common::LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    let s = common::last_json(&out.stdout);
    assert_eq!(s["mode"], "solo", "{s}");
    let frames = s["frames"].as_u64().unwrap();
    assert!(
        frames < 216_000,
        "stopped at the game over, not the cap: {s}"
    );
    assert_eq!(s["restarts"], 0, "{s}");
    for key in [
        "team_score",
        "wave",
        "bosses_defeated",
        "revives",
        "pickups",
        "bombs",
        "max_combo",
    ] {
        assert!(s[key].is_u64(), "{key}: {s}");
    }
    assert_eq!(s["kills"].as_array().map(Vec::len), Some(2), "{s}");
    assert_eq!(s["team_score"], s["shared_score"], "{s}");
    assert!(s["wave"].as_u64().unwrap() >= 1, "{s}");
}
