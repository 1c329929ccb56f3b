//! `twinstar-server`, the signaling server alone for operators (the
//! `twinstar-signaling` crate): it links none of the game's desktop
//! libraries, and two games meet through it. Its own options and health
//! probe are tested in crates/signaling/tests/binary.rs.

use std::process::Command;

use crate::common::{self, LIMIT, Server, host_then_join, scratch, server_bin};

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
    let server = desktop(&linked(server_bin()));
    assert!(
        server.is_empty(),
        "twinstar-server needs desktop libraries: {server:?}"
    );
}

#[test]
fn two_games_play_through_the_server_binary() {
    let server = Server::start_of(server_bin(), &[], &[]);
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
