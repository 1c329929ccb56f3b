//! `twinstar-server`, the signaling server alone for operators: it links
//! none of the game's desktop libraries, takes `twinstar serve`'s options
//! (with or without the word `serve`), and two games meet through it.

use std::process::Command;

use crate::common::{self, LIMIT, SERVER_BIN, Server, host_then_join, scratch};

/// The shared libraries `ldd` lists for a binary (the file names).
fn linked(bin: &str) -> Vec<String> {
    let out = Command::new("ldd")
        .arg(bin)
        .output()
        .unwrap_or_else(|e| panic!("cannot run ldd: {e}"));
    assert!(out.status.success(), "ldd {bin}: {out:?}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect()
}

/// Libraries a headless server has no business needing: sound, gamepads,
/// the window (X11, its input extensions) and OpenGL.
const DESKTOP: [&str; 6] = [
    "libasound",
    "libudev",
    "libX11",
    "libXi",
    "libXcursor",
    "libGL",
];

#[test]
fn the_server_binary_links_no_desktop_library() {
    let desktop = |libs: &[String]| -> Vec<String> {
        libs.iter()
            .filter(|l| DESKTOP.iter().any(|d| l.starts_with(d)))
            .cloned()
            .collect()
    };
    // The check sees them where they are: the game links sound and udev.
    let game = desktop(&linked(common::BIN));
    assert!(
        game.iter().any(|l| l.starts_with("libasound")),
        "ldd of the game shows no libasound; is this check blind? {game:?}"
    );
    let server = desktop(&linked(SERVER_BIN));
    assert!(
        server.is_empty(),
        "twinstar-server needs desktop libraries: {server:?}"
    );
}

#[test]
fn two_games_play_through_the_server_binary() {
    let server = Server::start_of(SERVER_BIN, &[], &[]);
    let dir = scratch("server-binary");
    let (host, join) = host_then_join(
        &dir,
        &server.url,
        ("SRV-2XM", "srv2xm"),
        "300",
        &["--no-record"],
        &["--no-record"],
    );
    let join = join.finish(LIMIT);
    let host = host.finish(LIMIT);
    assert_eq!(host.code(), Some(0), "{}", host.report("host", 30));
    assert_eq!(join.code(), Some(0), "{}", join.report("join", 30));
    let (h, j) = (host.summary(), join.summary());
    assert_eq!(h["checksum_frame"], 300, "{h}");
    assert_eq!(h["checksum"], j["checksum"], "host {h}\njoin {j}");
    assert!(
        server
            .stderr()
            .contains("twinstar: signaling server on ws://"),
        "{}",
        server.stderr()
    );
}

#[test]
fn the_server_binary_takes_serve_options_with_or_without_serve() {
    let dir = scratch("server-binary-args");
    for args in [&["--help"][..], &["serve", "--help"]] {
        let out = common::run_of(SERVER_BIN, &dir, args, LIMIT);
        assert_eq!(out.code(), Some(0), "{args:?}: {}", out.stderr);
        assert!(
            out.stdout.contains("--turn-secret"),
            "{args:?}: {}",
            out.stdout
        );
    }
    // A bad option: one line, exit 2, the way to the help.
    let out = common::run_of(SERVER_BIN, &dir, &["serve", "--bind", "nowhere"], LIMIT);
    assert_eq!(out.code(), Some(2), "{}", out.stderr);
    assert_eq!(out.stderr.trim().lines().count(), 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("twinstar-server --help"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_health_probe_says_whether_the_server_answers() {
    let dir = scratch("server-binary-health");
    let server = Server::start_of(SERVER_BIN, &[], &[]);
    let port = server.addr.port().to_string();
    let up = common::run_of(SERVER_BIN, &dir, &["health", "--port", &port], LIMIT);
    assert_eq!(up.code(), Some(0), "{}\n{}", up.stdout, up.stderr);
    assert!(up.stdout.contains("/healthz: ok"), "{}", up.stdout);
    drop(server);
    // Nothing listens there any more: unhealthy, in one line.
    let down = common::run_of(SERVER_BIN, &dir, &["health", "--port", &port], LIMIT);
    assert_eq!(down.code(), Some(1), "{}\n{}", down.stdout, down.stderr);
    assert_eq!(down.stderr.trim().lines().count(), 1, "{}", down.stderr);
}
