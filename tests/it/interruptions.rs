//! A cut in the network pauses the match instead of ending it: GGRS stops
//! at its prediction window; after 2 s of silence player 2 reconnects
//! through the server (`session::online::reconnect`) while player 1 waits,
//! and once a fresh connection gets through the same match goes on, in
//! sync, with the interruption and the reconnect in both replays. A cut
//! longer than the window ends it on both sides. The cut is simulated
//! in-process (`--sim-outage AT:LEN`, both peers: both directions, and
//! every connection made during it).

use crate::common;

use std::time::Duration;

use common::{Server, host_then_join, scratch, verify_replay};

#[test]
fn a_three_second_cut_pauses_the_match_and_it_resumes_in_sync() {
    let server = Server::start();
    let dir = scratch("cut-and-resume");
    let cut = ["--sim-outage", "3:3"];
    let (host, join) = host_then_join(
        &dir,
        &server.url,
        ("K7Q2XM", "K7Q2XM"),
        "600",
        &[&cut[..], &["--record", "host.tsr"]].concat(),
        &[&cut[..], &["--record", "join.tsr"]].concat(),
    );
    let (host, join) = (
        host.finish(Duration::from_secs(60)),
        join.finish(Duration::from_secs(60)),
    );
    let both = host.report("host", 30) + &join.report("join", 30);
    assert_eq!(host.code(), Some(0), "{both}");
    assert_eq!(join.code(), Some(0), "{both}");
    let (h, j) = (host.summary(), join.summary());
    assert_eq!(h["checksum_frame"], 600, "{h}");
    assert_eq!(h["checksum"], j["checksum"], "{both}");
    assert_eq!(
        (h["desyncs"].as_u64(), j["desyncs"].as_u64()),
        (Some(0), Some(0))
    );
    assert!(
        join.stderr.contains("reconnecting through the server"),
        "{both}"
    );
    assert!(join.stderr.contains("reconnected to player 1"), "{both}");
    assert!(host.stderr.contains("player 2 reconnected"), "{both}");
    for side in [&host, &join] {
        assert!(
            side.stderr
                .contains("interrupted; waiting up to 30 s in all"),
            "{both}"
        );
        assert_eq!(side.summary()["reconnects"], 1, "{both}");
        // 10 s of play plus the 3 s cut: the match paused, it did not skip.
        let elapsed = side.summary()["elapsed_s"].as_f64().unwrap();
        assert!(elapsed > 12.0, "elapsed {elapsed} s\n{both}");
    }
    for name in ["host.tsr", "join.tsr"] {
        verify_replay(&dir.join(name), Some(600));
    }
    let diff = common::run(
        &dir,
        &["replay-diff", "host.tsr", "join.tsr"],
        common::LIMIT,
    );
    assert_eq!(diff.code(), Some(0), "{}\n{}", diff.stdout, diff.stderr);
}

#[test]
fn a_cut_longer_than_the_window_ends_the_match_on_both_sides() {
    let server = Server::start();
    let dir = scratch("cut-too-long");
    let args = [
        "--sim-outage",
        "2:60",
        "--reconnect-window",
        "3",
        "--no-record",
    ];
    let (host, join) = host_then_join(
        &dir,
        &server.url,
        ("J4M2XW", "J4M2XW"),
        "3600",
        &args,
        &args,
    );
    let (host, join) = (
        host.finish(Duration::from_secs(60)),
        join.finish(Duration::from_secs(60)),
    );
    let both = host.report("host", 30) + &join.report("join", 30);
    // Player 2 tries fresh connections, which the cut cuts too; player 1,
    // told by the server that its old connection left, waits for it.
    assert!(
        join.stderr.contains("could not reconnect within 3 s"),
        "{both}"
    );
    assert!(
        host.stderr.contains("did not rejoin within 3 s")
            || host
                .stderr
                .contains("stopped responding (no packets for 3 s)"),
        "{both}"
    );
    for side in [&host, &join] {
        assert_eq!(side.code(), Some(1), "{both}");
        // About 1 s to connect, 2 s of play, the 3 s window: well under
        // window + 3 s after the cut.
        assert!(
            side.took < Duration::from_secs(12),
            "{:?}\n{both}",
            side.took
        );
        assert!(side.summary()["frames"].as_u64().unwrap() < 300, "{both}");
    }
}
