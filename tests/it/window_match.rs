//! A match in a real window (under Xvfb) ends by the same rules as a
//! headless one: the session's lifecycle compares the end checksums, so a
//! desync in the last frames before `--frames N` is caught there too.

use crate::common;

use std::time::Duration;

use common::{Display, Finished, Server, Twinstar, peer_args, scratch};

/// A headless bot host and a joiner in a window (its player a bot too)
/// play `frames` frames in room `code`; returns (host, joiner).
fn window_joiner_against_headless_host(
    name: &str,
    code: &str,
    frames: &str,
    join_extra: &[&str],
) -> (Finished, Finished) {
    let display = Display::start();
    let server = Server::start();
    let dir = scratch(name);
    let host = Twinstar::spawn(
        &dir,
        &peer_args("host", Some(code), &server.url, frames, &["--no-record"]),
    );
    std::thread::sleep(Duration::from_millis(200));
    let mut extra = vec!["--volume", "0", "--no-record"];
    extra.extend_from_slice(join_extra);
    let mut join_args = peer_args("join", Some(code), &server.url, frames, &extra);
    join_args.retain(|a| *a != "--headless");
    let join = Twinstar::spawn_in_window(&dir, &join_args, &display);
    let join = join.finish(Duration::from_secs(60));
    (host.finish(Duration::from_secs(60)), join)
}

#[test]
fn a_window_peer_catches_a_desync_in_the_last_frames() {
    // GGRS compares checksums every 10 frames; the joiner's simulation goes
    // wrong 3 frames before the end, after the last check inside the match.
    let (host, join) = window_joiner_against_headless_host(
        "window-desync",
        "K7Q2XM",
        "295",
        &["--inject-desync", "292"],
    );
    let both = host.report("host", 15) + &join.report("window joiner", 15);
    for side in [&host, &join] {
        assert_eq!(side.code(), Some(1), "{both}");
        assert!(side.stderr.contains("desync at frame 29"), "{both}");
        assert_eq!(side.summary()["desyncs"], 1, "{both}");
    }
    // The window run reports drawing figures: it really drew.
    assert!(
        join.summary()["draw_ms_mean"].is_number(),
        "{}",
        join.stdout
    );
}

#[test]
fn a_window_match_ends_in_sync_with_a_headless_peer() {
    let (host, join) = window_joiner_against_headless_host("window-sync", "J4M2XW", "240", &[]);
    assert_eq!(join.code(), Some(0), "{}", join.stderr);
    assert_eq!(host.code(), Some(0), "{}", host.stderr);
    let (h, j) = (host.summary(), join.summary());
    assert_eq!(h["checksum_frame"], 240);
    assert_eq!(h["checksum"], j["checksum"]);
    assert_eq!(h["checksum_frame"], j["checksum_frame"]);
}
