//! Faults around a match, with every party a real process: the signaling
//! server (`twinstar serve`) dies while two `twinstar` peers play, or while
//! a host still waits in its room. Every wait is bounded.

use crate::common;

use std::time::{Duration, Instant};

use common::{Server, Twinstar, host_then_join, peer_args, scratch, verify_replay};

/// The peers talk directly once WebRTC is up: losing the signaling server
/// mid-match must cost nothing.
#[test]
fn the_match_plays_on_when_the_signaling_server_is_killed() {
    let mut server = Server::start();
    let dir = scratch("server-killed");
    let frames = "900";
    let (mut host, mut join) = host_then_join(
        &dir,
        &server.url,
        ("KXM-7ED", "kxm 7ed"),
        frames,
        &["--record", "host.tsr"],
        &["--record", "join.tsr"],
    );
    for (name, side) in [("host", &mut host), ("join", &mut join)] {
        assert!(
            side.wait_for("synchronized with the peer", Duration::from_secs(20)),
            "{name} never started the match:\n{}",
            side.stderr()
        );
    }
    // One second into the match: SIGKILL, no goodbye to anyone.
    std::thread::sleep(Duration::from_secs(1));
    let status = server.kill();
    assert!(!status.success(), "the server was not killed: {status}");
    assert!(
        host.is_running() && join.is_running(),
        "a peer ended before the server was killed"
    );

    let (host, join) = (
        host.finish(Duration::from_secs(60)),
        join.finish(Duration::from_secs(60)),
    );
    assert_eq!(host.status.code(), Some(0), "host:\n{}", host.stderr);
    assert_eq!(join.status.code(), Some(0), "join:\n{}", join.stderr);
    let (h, j) = (host.summary(), join.summary());
    assert_eq!(h["checksum_frame"], 900, "{h}");
    assert_eq!(j["checksum_frame"], 900, "{j}");
    assert_eq!(h["checksum"], j["checksum"], "host {h}\njoin {j}");
    assert_eq!((&h["desyncs"], &j["desyncs"]), (&0.into(), &0.into()));
    verify_replay(&dir.join("host.tsr"), Some(900));
    verify_replay(&dir.join("join.tsr"), Some(900));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A host alone in its room has nothing but the server: when it dies the
/// host says so at once instead of waiting out its timeout.
#[test]
fn a_waiting_host_learns_at_once_that_the_server_died() {
    let mut server = Server::start();
    let dir = scratch("server-killed-waiting");
    let mut host = Twinstar::spawn(
        &dir,
        &peer_args(
            "host",
            Some("WA7-TNG"),
            &server.url,
            "60",
            &["--no-record", "--timeout", "30"],
        ),
    );
    assert!(
        host.wait_for("waiting for the other player", Duration::from_secs(10)),
        "{}",
        host.stderr()
    );
    std::thread::sleep(Duration::from_millis(300));
    server.kill();
    let killed = Instant::now();
    let host = host.finish(Duration::from_secs(40));
    assert_eq!(host.status.code(), Some(1), "{}", host.stderr);
    assert!(
        killed.elapsed() < Duration::from_secs(5),
        "took {:?} after the kill (the run took {:?})",
        killed.elapsed(),
        host.took
    );
    assert!(
        host.stderr.contains("signaling server"),
        "no clear message:\n{}",
        host.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}
