//! A player whose process stops running for a while (SIGSTOP and SIGCONT,
//! as a laptop lid closed for a moment or a debugger break would) comes
//! back to its match: the other player paused it for them, the stopped
//! one notices the time that passed when it runs again, and both resume
//! from the same confirmed frame and finish in sync (issue 36).

use crate::common;

use std::time::{Duration, Instant};

use common::{Server, Twinstar, host_then_join, scratch, verify_replay};

/// Sends `signal` (`STOP`, `CONT`) to the player's process.
fn signal(player: &Twinstar, signal: &str) {
    let sent = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &player.pid().to_string()])
        .status()
        .unwrap();
    assert!(sent.success(), "kill -{signal} failed");
}

/// Stops `player` for `length`, then lets it run again; returns how soon
/// it says it is back in its match (`back`, for the `nth` time).
fn stop_for(player: &mut Twinstar, length: Duration, back: (&str, usize)) -> Duration {
    signal(player, "STOP");
    std::thread::sleep(length);
    signal(player, "CONT");
    let thawed = Instant::now();
    assert!(
        player.wait_for_nth(back.0, back.1, Duration::from_secs(20)),
        "not back in the match after the stop ('{}')\n{}",
        back.0,
        player.stderr()
    );
    thawed.elapsed()
}

#[test]
fn a_player_stopped_for_seconds_comes_back_and_the_match_ends_in_sync() {
    let server = Server::start();
    let dir = scratch("stopped-players");
    let frames = "1800";
    let (mut host, mut join) = host_then_join(
        &dir,
        &server.url,
        ("W4T-9KP", "W4T9KP"),
        frames,
        &["--record", "host.tsr"],
        &["--record", "join.tsr"],
    );
    assert!(
        join.wait_for("synchronized with the peer", Duration::from_secs(20)),
        "the match never started\n{}",
        join.stderr()
    );
    std::thread::sleep(Duration::from_secs(4));
    // Player 2 stops for 15 s (the case: both used to wait for the
    // other until the window closed), then player 1 for 5 s.
    let join_back = stop_for(
        &mut join,
        Duration::from_secs(15),
        ("reconnected to player 1", 1),
    );
    std::thread::sleep(Duration::from_secs(3));
    let host_back = stop_for(
        &mut host,
        Duration::from_secs(5),
        ("player 2 reconnected", 2),
    );
    eprintln!(
        "back in the match {join_back:?} (player 2) and {host_back:?} (player 1) after SIGCONT"
    );
    let (host, join) = (
        host.finish(Duration::from_secs(90)),
        join.finish(Duration::from_secs(90)),
    );
    let both = host.report("host", 40) + &join.report("join", 40);
    assert_eq!((host.code(), join.code()), (Some(0), Some(0)), "{both}");
    let (h, j) = (host.summary(), join.summary());
    assert_eq!(h["checksum_frame"], 1800, "{both}");
    assert_eq!(h["checksum"], j["checksum"], "{both}");
    assert_eq!(
        (h["desyncs"].as_u64(), j["desyncs"].as_u64()),
        (Some(0), Some(0)),
        "{both}"
    );
    // Each stop paused the match once: player 2 knocked both times. (One
    // CI run under load saw a third pause, a data channel closing 3 s after
    // a reconnect; both sides kept the match for each other until the
    // window closed. Two keepers of one match now resume it, so a spurious
    // drop costs a pause, not the match.)
    let reconnects = (h["reconnects"].as_u64(), j["reconnects"].as_u64());
    assert!(
        matches!(reconnects, (Some(a), Some(b)) if a == b && a >= 2),
        "reconnects {reconnects:?}\n{both}"
    );
    if reconnects.0 > Some(2) {
        eprintln!("more pauses than stops: {reconnects:?}\n{both}");
    }
    for (name, side) in [("host", &host), ("join", &join)] {
        assert!(
            side.stderr.contains("this side did not run for"),
            "{name} did not notice its stop\n{both}"
        );
    }
    for name in ["host.tsr", "join.tsr"] {
        verify_replay(&dir.join(name), Some(1800));
        let replay = twinstar::replay::read(&dir.join(name)).unwrap();
        let stops = replay
            .events
            .iter()
            .filter(|e| e.detail.starts_with("this side did not run for"))
            .count();
        assert_eq!(stops, 1, "{name}: its own stop is recorded once");
    }
    let diff = common::run(
        &dir,
        &["replay-diff", "host.tsr", "join.tsr"],
        common::LIMIT,
    );
    assert_eq!(diff.code(), Some(0), "{}\n{}", diff.stdout, diff.stderr);
}
