//! A player whose game dies mid-match comes back with the same room code:
//! the player who stayed keeps the match paused, sends the confirmed match
//! so far, and both go on from there in sync; the rejoiner's replay covers
//! the whole match and equals the keeper's. Only that player gets back in,
//! and only within the reconnect window.

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{Server, Twinstar, host_then_join, peer_args, scratch, verify_replay};

/// Kills the joiner once its match has played `after`, and waits until the
/// host says it waits for a rejoin.
fn kill_joiner(host: &mut Twinstar, join: &mut Twinstar, after: Duration) {
    assert!(
        join.wait_for("synchronized with the peer", Duration::from_secs(20)),
        "the match never started\n{}",
        join.stderr()
    );
    std::thread::sleep(after);
    join.kill();
    assert!(
        host.wait_for("waiting up to", Duration::from_secs(10)),
        "the host did not notice\n{}",
        host.stderr()
    );
}

#[test]
fn a_killed_player_rejoins_and_the_match_goes_on_in_sync() {
    let server = Server::start();
    let dir = scratch("kill-and-rejoin");
    let (mut host, mut join) = host_then_join(
        &dir,
        &server.url,
        ("K7Q2XM", "K7Q2XM"),
        "1200",
        &["--record", "host.tsr"],
        &["--record", "first.tsr"],
    );
    kill_joiner(&mut host, &mut join, Duration::from_secs(4));
    let rejoin = Twinstar::spawn(
        &dir,
        &peer_args(
            "join",
            Some("K7Q-2XM"),
            &server.url,
            "1200",
            &["--record", "rejoin.tsr"],
        ),
    );
    let (host, rejoin) = (
        host.finish(Duration::from_secs(60)),
        rejoin.finish(Duration::from_secs(60)),
    );
    let both = host.report("host", 30) + &rejoin.report("rejoin", 30);
    assert_eq!(host.code(), Some(0), "{both}");
    assert_eq!(rejoin.code(), Some(0), "{both}");
    let (h, r) = (host.summary(), rejoin.summary());
    assert_eq!(
        (h["checksum_frame"].as_u64(), r["checksum_frame"].as_u64()),
        (Some(1200), Some(1200)),
        "{both}"
    );
    assert_eq!(h["checksum"], r["checksum"], "{both}");
    assert_eq!(
        (h["desyncs"].as_u64(), r["desyncs"].as_u64()),
        (Some(0), Some(0)),
        "{both}"
    );
    // The rejoiner kept player 2's slot; the host kept the match.
    assert_eq!(
        (h["player"].as_u64(), r["player"].as_u64()),
        (Some(1), Some(2)),
        "{both}"
    );
    assert_eq!(h["rejoins"], 1, "{both}");
    let sent = h["catch_up_bytes"].as_u64().unwrap();
    assert!(
        sent > 0 && sent < 4096,
        "{sent} bytes for seconds of play\n{both}"
    );
    assert!(
        rejoin
            .stderr
            .contains("rejoined the match in room K7Q-2XM as player 2"),
        "{both}"
    );
    // The rejoiner's replay has every frame from 0, and equals the host's.
    verify_replay(&dir.join("rejoin.tsr"), Some(1200));
    verify_replay(&dir.join("host.tsr"), Some(1200));
    let diff = common::run(
        &dir,
        &["replay-diff", "host.tsr", "rejoin.tsr"],
        common::LIMIT,
    );
    assert_eq!(diff.code(), Some(0), "{}\n{}", diff.stdout, diff.stderr);
    for name in ["host.tsr", "rejoin.tsr"] {
        let replay = twinstar::replay::read(&dir.join(name)).unwrap();
        let kinds: Vec<_> = replay.events.iter().map(|e| e.kind.to_string()).collect();
        assert!(kinds.iter().any(|k| k == "rejoined"), "{name}: {kinds:?}");
    }
    // Both ended their match: no ticket is left to rejoin with.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("rejoin-"))
        .collect();
    assert!(left.is_empty(), "tickets left: {left:?}");
}

/// A ticket of another match for player 2 of room `code`, in `dir`.
fn forge_ticket(dir: &Path, code: &str, server: &str) {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let ticket = format!(
        r#"{{"server":"{server}","match_id":1,"player":2,"version":"0.1.0","saved_at":{now}}}"#
    );
    std::fs::write(dir.join(format!("rejoin-{code}-p2.json")), ticket).unwrap();
}

#[test]
fn only_the_dropped_player_gets_in_and_only_within_the_window() {
    let server = Server::start();
    let dir = scratch("rejoin-refusals");
    let window = ["--reconnect-window", "8", "--no-record"];
    let (mut host, mut join) = host_then_join(
        &dir,
        &server.url,
        ("J4M2XW", "J4M2XW"),
        "3600",
        &window,
        &["--no-record"],
    );
    kill_joiner(&mut host, &mut join, Duration::from_secs(2));
    let killed = Instant::now();
    // Someone else with the code: no ticket.
    let stranger_dir = scratch("rejoin-refusals-stranger");
    let stranger = common::run(
        &stranger_dir,
        &peer_args("join", Some("J4M2XW"), &server.url, "600", &["--no-record"]),
        common::LIMIT,
    );
    assert_eq!(
        stranger.code(),
        Some(2),
        "{}",
        stranger.report("stranger", 20)
    );
    assert!(
        stranger
            .stderr
            .contains("paused, waiting for player 2 to rejoin"),
        "{}",
        stranger.report("stranger", 20)
    );
    // A player of another match in the same room.
    let other_dir = scratch("rejoin-refusals-other");
    forge_ticket(&other_dir, "J4M2XW", &server.url);
    let other = common::run(
        &other_dir,
        &peer_args("join", Some("J4M2XW"), &server.url, "600", &["--no-record"]),
        common::LIMIT,
    );
    assert_eq!(other.code(), Some(2), "{}", other.report("other", 20));
    assert!(
        other.stderr.contains("not the one you left"),
        "{}",
        other.report("other", 20)
    );
    // Nobody came back: the host ends within the window (+3 s).
    let host = host.finish(Duration::from_secs(30));
    let ended = killed.elapsed();
    assert_eq!(host.code(), Some(1), "{}", host.report("host", 30));
    assert!(
        host.stderr.contains("did not rejoin within 8 s"),
        "{}",
        host.report("host", 30)
    );
    assert!(
        host.stderr.contains("refused") && ended < Duration::from_secs(11),
        "ended {ended:?} after the kill\n{}",
        host.report("host", 30)
    );
    // After the window a ticket finds nobody, and says so.
    let late = common::run(
        &other_dir,
        &peer_args(
            "join",
            Some("J4M2XW"),
            &server.url,
            "600",
            &["--no-record", "--timeout", "2"],
        ),
        common::LIMIT,
    );
    assert_eq!(late.code(), Some(1), "{}", late.report("late", 20));
    assert!(
        late.stderr.contains("no longer waiting for you"),
        "{}",
        late.report("late", 20)
    );
}

/// A game that lost power leaves its websocket open and silent; the
/// server would hold its seat until its liveness check (25 s). The rejoin
/// ticket keeps the player's seat token, so the restarted game takes the
/// seat back at once and rejoins well within that.
#[test]
fn a_frozen_players_restarted_game_takes_its_seat_back_with_its_ticket() {
    let server = Server::start();
    // Each player its own data folder: one machine each, as in real life
    // (two tickets on one machine keep their seats: see `ConnectOptions::rejoin_from`).
    let (host_dir, join_dir) = (scratch("frozen-host"), scratch("frozen-join"));
    let mut host = Twinstar::spawn(
        &host_dir,
        &peer_args(
            "host",
            Some("K7Q-2XM"),
            &server.url,
            "1500",
            &["--record", "host.tsr"],
        ),
    );
    std::thread::sleep(Duration::from_millis(200));
    let mut frozen = Twinstar::spawn(
        &join_dir,
        &peer_args(
            "join",
            Some("K7Q2XM"),
            &server.url,
            "1500",
            &["--no-record"],
        ),
    );
    assert!(
        frozen.wait_for("synchronized with the peer", Duration::from_secs(20)),
        "the match never started\n{}",
        frozen.stderr()
    );
    std::thread::sleep(Duration::from_secs(3));
    // Frozen, not killed: its sockets stay open, as after a power loss
    // behind a NAT that keeps the mapping.
    let stop = std::process::Command::new("kill")
        .args(["-STOP", &frozen.pid().to_string()])
        .status()
        .unwrap();
    assert!(stop.success());
    let frozen_at = Instant::now();
    assert!(
        host.wait_for("waiting up to", Duration::from_secs(10)),
        "the host did not notice\n{}",
        host.stderr()
    );
    let rejoin = Twinstar::spawn(
        &join_dir,
        &peer_args(
            "join",
            Some("K7Q-2XM"),
            &server.url,
            "1500",
            &["--record", "rejoin.tsr"],
        ),
    );
    let mut rejoin_started = rejoin;
    assert!(
        rejoin_started.wait_for("rejoined the match", Duration::from_secs(15)),
        "the restarted game did not get back in\n{}",
        rejoin_started.stderr()
    );
    let back_after = frozen_at.elapsed();
    eprintln!("rejoined {back_after:?} after the freeze");
    assert!(
        back_after < Duration::from_secs(15),
        "{back_after:?}: that is the server's liveness limit at work, not the seat token"
    );
    let (host, rejoin) = (
        host.finish(Duration::from_secs(60)),
        rejoin_started.finish(Duration::from_secs(60)),
    );
    frozen.kill();
    let both = host.report("host", 30) + &rejoin.report("rejoin", 30);
    assert_eq!((host.code(), rejoin.code()), (Some(0), Some(0)), "{both}");
    let (h, r) = (host.summary(), rejoin.summary());
    assert_eq!(h["checksum"], r["checksum"], "{both}");
    assert_eq!(r["checksum_frame"], 1500, "{both}");
    assert_eq!(h["rejoins"], 1, "{both}");
    assert_eq!(
        server.metric("twinstar_seats_taken_back_total"),
        Some(1.0),
        "the seat was not taken back by token\n{both}"
    );
    let diff = common::run(
        &host_dir,
        &[
            "replay-diff",
            "host.tsr",
            &join_dir.join("rejoin.tsr").to_string_lossy(),
        ],
        common::LIMIT,
    );
    assert_eq!(diff.code(), Some(0), "{}\n{}", diff.stdout, diff.stderr);
}
