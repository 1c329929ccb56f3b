//! The page's inspector (issue 61): `/inspect` on `twinstar serve` loads
//! two peers' recordings of a match with an injected desync (picked in its
//! file inputs, each replay with its telemetry sidecar and the match's
//! desync reports), shows the first divergent frame where the native
//! `twinstar inspect` finds it and the field `players[0].score`, and its
//! cursor draws the world at the frames it is moved to. A file that is no replay is one line on the page.

use super::{serial, web_server};
use crate::common;
use crate::inspect::play;
use crate::replay_links::ranked_replay;

use std::path::Path;

use common::{LIMIT, Twinstar, scratch};
use serde_json::Value;

/// The JSON after `PREFIX` on each stdout line that starts with it.
fn lines(out: &common::Finished, prefix: &str) -> Vec<Value> {
    out.stdout
        .lines()
        .filter_map(|l| l.strip_prefix(prefix))
        .map(|t| serde_json::from_str(t).unwrap_or_else(|e| panic!("{e}: {t}")))
        .collect()
}

/// tests/web/inspect.mjs on `/inspect` of a web server, with the host's
/// files as A, the joiner's as B (each with every desync report in
/// `dir`), then a file that is no replay.
fn run_inspector(dir: &Path) -> common::Finished {
    let file = |name: &str| dir.join(name).to_string_lossy().into_owned();
    std::fs::write(dir.join("junk.tsr"), b"no replay at all").unwrap();
    // The desync reports the match wrote (the fields of a desync that
    // re-simulation does not reproduce), given with both peers' files.
    let mut reports: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("desync-") && n.ends_with(".json"))
        .map(|n| file(&n))
        .collect();
    reports.sort();
    assert!(!reports.is_empty(), "the match wrote no desync report");
    let peer = |name: &str| {
        let mut files = vec![file(&format!("{name}.tsr")), file(&format!("{name}.tsn"))];
        files.extend(reports.iter().cloned());
        files.join(",")
    };
    let _one = serial();
    let server = web_server();
    let mut command = std::process::Command::new("node");
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("tests/web/inspect.mjs")
        .arg(format!("http://{}/inspect", server.addr))
        .args(["--a", &peer("host")])
        .args(["--b", &peer("join")])
        .args(["--junk", &file("junk.tsr"), "--timeout", "90"]);
    let page = Twinstar::spawn_command(command).finish(LIMIT);
    let output = common::tail(&page.stdout, 30);
    assert_eq!(page.code(), Some(0), "{output}\n{}", page.stderr);
    page
}

#[test]
fn the_pages_inspector_finds_an_injected_desync_and_draws_the_world_at_its_cursor() {
    let dir = scratch("browser-inspect");
    let (host, join) = play(&dir, 600, &["--inject-desync", "120"]);
    assert_eq!(host.code(), Some(1), "{}", host.stderr);
    assert_eq!(join.code(), Some(1), "{}", join.stderr);
    let page = run_inspector(&dir);
    let output = common::tail(&page.stdout, 30);

    let loaded = &lines(&page, "loaded: ")[0];
    assert!(loaded["error"].is_null(), "{loaded}");
    let report = &loaded["report"];
    let frame = report["first_divergent_frame"]
        .as_u64()
        .unwrap_or_else(|| panic!("{report}"));
    // Where the native test finds it (tests/it/inspect.rs): injected from
    // frame 120, the peers compare checksums every 10 frames.
    assert!((120..=180).contains(&frame), "{report}");
    assert_eq!(
        loaded["heading"],
        format!("First divergent frame: {frame}").as_str()
    );
    let shown = loaded["fields"].as_array().unwrap();
    assert!(
        shown
            .iter()
            .any(|f| f[0] == "players[0].score" && f[1] != f[2]),
        "no players[0].score row on the page: {loaded}"
    );
    for peer in report["peers"].as_array().unwrap() {
        assert!(peer["telemetry"]["bytes"].as_u64().unwrap() > 0, "{peer}");
    }
    // The cursor starts at the divergence.
    assert_eq!(loaded["frame"], frame);

    let frames = report["frames"].as_u64().unwrap();
    // The match ends soon after its desync: about 126 frames.
    assert!(frames > 60, "{frames} frames");
    check_cursor(&page, &output, frames, 2);

    let junk = &lines(&page, "junk: ")[0];
    let error = junk["error"].as_str().unwrap_or_default();
    assert!(error.contains("junk.tsr"), "{junk}");
    assert_eq!(junk["lines"], 1, "{junk}");
}

/// A click a third of the way along the timeline's `frames`, then ten
/// frames on by keys: each of the `peers`' worlds drawn at each, and
/// different.
fn check_cursor(page: &common::Finished, output: &str, frames: u64, peers: usize) {
    let moves = lines(page, "cursor: ");
    assert_eq!(moves.len(), 2, "{output}");
    let (click, keys) = (&moves[0], &moves[1]);
    let clicked = click["frame"].as_u64().unwrap();
    // The match ends soon after its desync: about 126 frames.
    assert!(frames > 60, "{frames} frames");
    assert!(
        clicked.abs_diff(frames / 3) <= 3,
        "{frames} frames: {click}"
    );
    assert_eq!(keys["frame"].as_u64(), Some(clicked + 10), "{keys}");
    for at in [click, keys] {
        let worlds = at["worlds"].as_array().unwrap();
        assert_eq!(worlds.len(), peers, "{at}");
        assert_eq!(worlds[0]["frame"], at["frame"], "{at}");
        assert_eq!(worlds[0]["players"].as_array().unwrap().len(), 2, "{at}");
    }
    assert_ne!(
        click["worlds"][0], keys["worlds"][0],
        "the world did not move"
    );
    assert_ne!(click["drawn"], keys["drawn"], "the drawing did not change");
}

/// `/inspect#replay=ID`: a ranked replay of the page's own server, one
/// recording (no telemetry: a ranked upload has no sidecar), drawn at its
/// cursor; an id the server does not have is one line on the page.
#[test]
fn the_pages_inspector_opens_a_ranked_replay_by_its_link() {
    let _one = serial();
    let server = web_server();
    let dir = scratch("browser-inspect-link");
    let (id, _file) = ranked_replay(&server, &dir, "RPN-AAA");
    let open = |fragment: &str| {
        let mut command = std::process::Command::new("node");
        command
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .arg("tests/web/inspect.mjs")
            .arg(format!("http://{}/inspect#replay={fragment}", server.addr))
            .args(["--timeout", "60"]);
        Twinstar::spawn_command(command).finish(LIMIT)
    };
    let page = open(&id);
    let output = common::tail(&page.stdout, 30);
    assert_eq!(page.code(), Some(0), "{output}\n{}", page.stderr);
    let loaded = &lines(&page, "loaded: ")[0];
    assert!(loaded["error"].is_null(), "{loaded}");
    let report = &loaded["report"];
    assert_eq!(report["frames"], 300, "{report}");
    assert_eq!(report["peers"][0]["file"], format!("{id}.tsr").as_str());
    assert!(report["peers"][0]["telemetry"].is_null(), "{report}");
    assert_eq!(report.get("first_divergent_frame"), None, "{report}");
    check_cursor(&page, &output, 300, 1);

    let page = open("nosuchreplay");
    let output = common::tail(&page.stdout, 30);
    assert_eq!(page.code(), Some(0), "{output}\n{}", page.stderr);
    let loaded = &lines(&page, "loaded: ")[0];
    let error = loaded["error"].as_str().unwrap_or_default();
    assert!(error.contains("nosuchreplay"), "{loaded}");
    assert!(!error.contains('\n'), "{loaded}");
}
