//! Spectators: `twinstar watch CODE` joins a room beside its two players at
//! any time, is streamed the confirmed match by the first player, fast-
//! forwards what it missed, follows live, and ends with the players'
//! checksum and a replay equal to theirs. A spectator never disturbs the
//! players, and a room takes eight.

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{
    Display, LIMIT, Server, Twinstar, chat_events, host_then_join, peer_args, scratch, spectator,
    started_match, verify_replay,
};

fn replay_diff(dir: &Path, a: &str, b: &str) {
    let diff = common::run(dir, &["replay-diff", a, b], common::LIMIT);
    assert_eq!(
        diff.code(),
        Some(0),
        "{a} vs {b}:\n{}\n{}",
        diff.stdout,
        diff.stderr
    );
}

/// The lines each of the four says with `--say`, as every replay records
/// them (spectator A is the first the host streams to, B the second).
const SAID: [&str; 4] = [
    "P1: host here",
    "P2: joiner here",
    "S1: A watching from the start",
    "S2: B arrived at half time",
];

#[test]
fn spectators_from_the_start_and_from_half_time_see_the_players_match_and_chat() {
    const FRAMES: u32 = 3600;
    let server = Server::start();
    let dir = scratch("early-and-late");
    let started = Instant::now();
    // A is in the room before either player.
    let a = spectator(
        &dir,
        &server.url,
        "K7Q-2XM",
        &["--record", "a.tsr", "--say", "A watching from the start"],
    );
    let (host, join) = started_match(
        &dir,
        &server.url,
        ("K7Q2XM", "K7Q2XM"),
        &FRAMES.to_string(),
        &["--record", "host.tsr", "--say", "host here"],
        &["--record", "join.tsr", "--say", "joiner here"],
    );
    // B comes at about frame 1800 of the 3600.
    std::thread::sleep(Duration::from_secs(30));
    let b_started = Instant::now();
    let b = spectator(
        &dir,
        &server.url,
        "k7q2xm",
        &["--record", "b.tsr", "--say", "B arrived at half time"],
    );
    let limit = Duration::from_secs(110).saturating_sub(started.elapsed());
    let (host, join, a, b) = (
        host.finish(limit),
        join.finish(limit),
        a.finish(limit),
        b.finish(limit),
    );
    let all = format!(
        "{}\n{}\n{}\n{}",
        host.report("host", 20),
        join.report("join", 10),
        a.report("spectator A", 20),
        b.report("spectator B", 20)
    );
    for run in [&host, &join, &a, &b] {
        assert_eq!(run.code(), Some(0), "{all}");
    }
    let (h, j, sa, sb) = (host.summary(), join.summary(), a.summary(), b.summary());
    for s in [&h, &j, &sa, &sb] {
        assert_eq!(s["checksum_frame"], FRAMES, "{all}");
        assert_eq!(s["checksum"], h["checksum"], "{all}");
        // Each said one line and heard the other three.
        assert_eq!(
            (&s["chat_sent"], &s["chat_received"], &s["chat_dropped"]),
            (&1.into(), &3.into(), &0.into()),
            "{s}\n{all}"
        );
    }
    for s in [&sa, &sb] {
        assert_eq!(s["mode"], "watch", "{all}");
        assert_eq!(s["frames"], FRAMES, "{all}");
        assert!(s["bytes_received"].as_u64().unwrap() > 0, "{all}");
        assert!(s["behind_live_ms"].as_u64().is_some(), "{all}");
    }
    // The host streamed to both; the joiner to none.
    assert_eq!(h["spectators"], 2, "{all}");
    assert_eq!(j["spectators"], 0, "{all}");
    let streamed = h["spectator_bytes_sent"].as_u64().unwrap();
    assert!(
        streamed > 1000 && streamed < 80_000,
        "{streamed} bytes for two spectators of 60 s\n{all}"
    );
    // The players' own traffic is what it always is (inputs both ways).
    assert_eq!(h["bytes_sent"], j["bytes_received"], "{all}");
    // B arrived half way: brought up to the present at once, then live.
    let caught_up = sb["caught_up_ms"].as_u64().expect("B caught up");
    assert!(
        Duration::from_millis(caught_up) < b_started.elapsed(),
        "{all}"
    );
    assert!(
        caught_up < 5_000,
        "B took {caught_up} ms to catch up\n{all}"
    );
    let b_frame: u32 = b
        .stderr
        .split("brought up to the present (frame ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("B never said where it caught up\n{all}"));
    assert!(
        (1500..2400).contains(&b_frame),
        "B caught up at frame {b_frame}, not near half time\n{all}"
    );
    assert!(b.stderr.contains("fast-forwarded"), "{all}");
    // Both spectators recorded the whole match, equal to the players'.
    for name in ["a.tsr", "b.tsr", "host.tsr", "join.tsr"] {
        verify_replay(&dir.join(name), Some(FRAMES));
    }
    replay_diff(&dir, "host.tsr", "a.tsr");
    replay_diff(&dir, "host.tsr", "b.tsr");
    replay_diff(&dir, "join.tsr", "b.tsr");
    // Every line is in every replay, B's too (the lines said before it
    // came were sent with the match so far); the spectators recorded them
    // at the host's frames.
    let host_chat = chat_events(&dir.join("host.tsr"));
    for name in ["host.tsr", "join.tsr", "a.tsr", "b.tsr"] {
        let events = chat_events(&dir.join(name));
        let mut details: Vec<&str> = events.iter().map(|(_, d)| d.as_str()).collect();
        details.sort_unstable();
        assert_eq!(details, SAID, "{name}: {events:?}\n{all}");
    }
    assert_eq!(chat_events(&dir.join("a.tsr")), host_chat, "{all}");
    assert_eq!(chat_events(&dir.join("b.tsr")), host_chat, "{all}");
    // B's line was said after it came, the others' near the start.
    let b_line = host_chat.iter().find(|(_, d)| d.starts_with("S2:"));
    assert!(
        b_line.is_some_and(|(f, _)| *f >= b_frame.saturating_sub(120)),
        "{host_chat:?}"
    );
}

#[test]
fn a_spectator_killed_mid_match_does_not_disturb_the_players() {
    let server = Server::start();
    let dir = scratch("killed-spectator");
    let (host, join) = started_match(
        &dir,
        &server.url,
        ("H4RD4X", "H4RD4X"),
        "900",
        &["--no-record"],
        &["--no-record"],
    );
    let mut watcher = spectator(&dir, &server.url, "H4RD4X", &["--no-record"]);
    assert!(
        watcher.wait_for("brought up to the present", Duration::from_secs(10)),
        "the spectator never caught up\n{}",
        watcher.stderr()
    );
    std::thread::sleep(Duration::from_secs(2));
    watcher.kill();
    let host = host.finish(Duration::from_secs(40));
    let join = join.finish(Duration::from_secs(40));
    let both = format!("{}\n{}", host.report("host", 20), join.report("join", 20));
    assert_eq!(host.code(), Some(0), "{both}");
    assert_eq!(join.code(), Some(0), "{both}");
    let (h, j) = (host.summary(), join.summary());
    assert_eq!(h["checksum_frame"], 900, "{both}");
    assert_eq!(h["checksum"], j["checksum"], "{both}");
    assert_eq!(h["spectators"], 1, "{both}");
    assert_eq!(h["stalled_frames"], 0, "{both}");
    assert!(
        host.stderr
            .lines()
            .any(|l| l.contains("spectator") && l.ends_with(" left")),
        "{both}"
    );
}

/// A desync caused on purpose on the host (player 1's score changes from
/// frame 480 on) while a spectator watches: the players end with exit 1
/// and their reports, and the spectator, which simulated the stream
/// itself, ends with them and writes its own report against the streaming
/// player's world, naming the field.
#[test]
fn a_spectator_of_a_desynced_match_reports_the_field_too() {
    let server = Server::start();
    let dir = scratch("desync-spectator");
    let (host, join) = started_match(
        &dir,
        &server.url,
        ("D5YNCX", "D5YNCX"),
        "1200",
        &["--record", "host.tsr", "--inject-desync", "480"],
        &["--record", "join.tsr"],
    );
    let mut watcher = spectator(&dir, &server.url, "D5YNCX", &["--record", "watch.tsr"]);
    assert!(
        watcher.wait_for("brought up to the present", Duration::from_secs(10)),
        "the spectator never caught up\n{}",
        watcher.stderr()
    );
    let host = host.finish(Duration::from_secs(40));
    let join = join.finish(Duration::from_secs(40));
    let watcher = watcher.finish(Duration::from_secs(40));
    let all = format!(
        "{}\n{}\n{}",
        host.report("host", 20),
        join.report("join", 20),
        watcher.report("spectator", 20)
    );
    let mut frames = Vec::new();
    for side in [&host, &join, &watcher] {
        assert_eq!(side.code(), Some(1), "{all}");
        let summary = side.summary();
        let path = summary["desync_report"]
            .as_str()
            .unwrap_or_else(|| panic!("{all}"));
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(path)).unwrap()).unwrap();
        let fields = report["differing_fields"].as_array();
        assert!(
            fields.is_some_and(|f| f.iter().any(|f| f["field"] == "players[0].score")),
            "{path}: {report}\n{all}"
        );
        frames.push(report["frame"].clone());
    }
    assert!(frames.iter().all(|f| *f == frames[0]), "{frames:?}");
    let spectator_report = watcher.summary()["desync_report"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(spectator_report.ends_with("-S1.json"), "{spectator_report}");
}

#[test]
fn a_spectator_watches_on_while_a_killed_player_rejoins() {
    let server = Server::start();
    let dir = scratch("rejoin");
    let (host, mut join) = started_match(
        &dir,
        &server.url,
        ("R3J4NX", "R3J4NX"),
        "1200",
        &["--record", "host.tsr"],
        &["--no-record"],
    );
    let mut watcher = spectator(&dir, &server.url, "R3J4NX", &["--record", "watch.tsr"]);
    assert!(
        watcher.wait_for("brought up to the present", Duration::from_secs(10)),
        "{}",
        watcher.stderr()
    );
    std::thread::sleep(Duration::from_secs(3));
    join.kill();
    // A second spectator comes while the match is paused: the server
    // introduces it to the host with the rejoiner, in either order.
    let late = spectator(&dir, &server.url, "R3J4NX", &["--no-record"]);
    std::thread::sleep(Duration::from_secs(1));
    let rejoin = Twinstar::spawn(
        &dir,
        &peer_args(
            "join",
            Some("R3J4NX"),
            &server.url,
            "1200",
            &["--no-record"],
        ),
    );
    let limit = Duration::from_secs(45);
    let (host, rejoin, watcher, late) = (
        host.finish(limit),
        rejoin.finish(limit),
        watcher.finish(limit),
        late.finish(limit),
    );
    let all = format!(
        "{}\n{}\n{}\n{}",
        host.report("host", 30),
        rejoin.report("rejoin", 10),
        watcher.report("spectator", 20),
        late.report("late spectator", 20)
    );
    for run in [&host, &rejoin, &watcher, &late] {
        assert_eq!(run.code(), Some(0), "{all}");
    }
    let (h, r, w, l) = (
        host.summary(),
        rejoin.summary(),
        watcher.summary(),
        late.summary(),
    );
    assert_eq!(h["rejoins"], 1, "{all}");
    assert_eq!(h["spectators"], 2, "{all}");
    for s in [&r, &w, &l] {
        assert_eq!(s["checksum_frame"], 1200, "{all}");
        assert_eq!(s["checksum"], h["checksum"], "{all}");
    }
    replay_diff(&dir, "host.tsr", "watch.tsr");
}

#[test]
fn a_spectator_of_another_version_is_refused_and_both_say_why() {
    let server = Server::start();
    let dir = scratch("version");
    let (host, join) = started_match(
        &dir,
        &server.url,
        ("V3RS4N", "V3RS4N"),
        "600",
        &["--no-record"],
        &["--no-record"],
    );
    let other = common::run(
        &dir,
        &[
            "watch",
            "V3RS4N",
            "--server",
            &server.url,
            "--stun",
            "none",
            "--headless",
            "--no-record",
            "--debug-protocol-skew",
            "1",
        ],
        Duration::from_secs(20),
    );
    let host = host.finish(Duration::from_secs(30));
    let join = join.finish(Duration::from_secs(30));
    let all = format!(
        "{}\n{}\n{}",
        other.report("spectator", 20),
        host.report("host", 20),
        join.report("join", 10)
    );
    assert_eq!(other.code(), Some(2), "{all}");
    assert!(other.stderr.contains("twinstar: version mismatch"), "{all}");
    assert!(host.stderr.contains("refused spectator"), "{all}");
    // The players' match is untouched.
    assert_eq!(host.code(), Some(0), "{all}");
    assert_eq!(join.code(), Some(0), "{all}");
    let (h, j) = (host.summary(), join.summary());
    assert_eq!(h["checksum"], j["checksum"], "{all}");
    assert_eq!(h["spectators"], 0, "{all}");
}

#[test]
fn a_ninth_spectator_is_refused() {
    let server = Server::start();
    let dir = scratch("ninth");
    let mut eight = Vec::new();
    for _ in 0..8 {
        let mut s = spectator(
            &dir,
            &server.url,
            "N9NTHX",
            &["--no-record", "--timeout", "30"],
        );
        assert!(
            s.wait_for("waiting for both players", Duration::from_secs(10)),
            "a spectator did not get in\n{}",
            s.stderr()
        );
        eight.push(s);
    }
    let ninth = common::run(
        &dir,
        &[
            "watch",
            "N9NTHX",
            "--server",
            &server.url,
            "--stun",
            "none",
            "--headless",
            "--no-record",
        ],
        Duration::from_secs(20),
    );
    assert_eq!(ninth.code(), Some(2), "{}", ninth.report("ninth", 20));
    assert!(
        ninth
            .stderr
            .contains("twinstar: room N9N-THX already has 8 spectators"),
        "{}",
        ninth.report("ninth", 20)
    );
    // The eight are still waiting: nobody was pushed out.
    for s in &mut eight {
        assert!(s.is_running(), "{}", s.stderr());
    }
}

/// Spectators waiting in the room before the players must never cost the
/// joiner its seat: the host may take a spectator for its partner until
/// that spectator's `Watch` arrives, and the joiner's `Hello` in between
/// must not be answered `Busy` (it was, and the joiner gave up). A race, so
/// three rounds of eight early spectators.
#[test]
fn spectators_waiting_before_the_players_never_take_the_joiners_seat() {
    let server = Server::start();
    for round in 0..3 {
        let dir = scratch(&format!("early-eight-{round}"));
        let code = format!("E8R{}XM", ["A", "B", "C"][round]);
        let eight: Vec<Twinstar> = (0..8)
            .map(|_| spectator(&dir, &server.url, &code, &["--no-record"]))
            .collect();
        let (host, join) = host_then_join(
            &dir,
            &server.url,
            (&code, &code),
            "300",
            &["--no-record"],
            &["--no-record"],
        );
        let (host, join) = (host.finish(LIMIT), join.finish(LIMIT));
        let eight: Vec<_> = eight.into_iter().map(|s| s.finish(LIMIT)).collect();
        let both = format!(
            "round {round}\n{}\n{}",
            host.report("host", 30),
            join.report("join", 10)
        );
        assert_eq!(host.code(), Some(0), "{both}");
        assert_eq!(join.code(), Some(0), "{both}");
        let checksum = &host.summary()["checksum"];
        assert_eq!(&join.summary()["checksum"], checksum, "{both}");
        assert_eq!(host.summary()["spectators"], 8, "{both}");
        for s in &eight {
            assert_eq!(s.code(), Some(0), "{both}\n{}", s.report("spectator", 10));
            assert_eq!(&s.summary()["checksum"], checksum, "{both}");
        }
    }
}

#[test]
fn a_spectator_window_pauses_resumes_behind_live_and_jumps_back() {
    let display = Display::start();
    let server = Server::start();
    let dir = scratch("window");
    let (host, join) = started_match(
        &dir,
        &server.url,
        ("WXNDWW", "WXNDWW"),
        "1200",
        &["--record", "host.tsr"],
        &["--no-record"],
    );
    let mut watcher = Twinstar::spawn_in_window(
        &dir,
        &[
            "watch",
            "WXNDWW",
            "--server",
            &server.url,
            "--stun",
            "none",
            "--json",
            "--volume",
            "0",
            "--record",
            "watch.tsr",
        ],
        &display,
    );
    assert!(
        watcher.wait_for("brought up to the present", Duration::from_secs(20)),
        "{}",
        watcher.stderr()
    );
    std::thread::sleep(Duration::from_millis(500));
    // A chat line with a space in it: typed into the prompt, it must not
    // pause. Then Space pauses, Space resumes 1.5 s later, End jumps.
    display.type_keys(&[
        "<Return>", "g g", "<Return>", "@0.5", "<space>", "@1.5", "<space>", "@1", "<End>",
    ]);
    let limit = Duration::from_secs(40);
    let (host, join, watcher) = (
        host.finish(limit),
        join.finish(limit),
        watcher.finish(limit),
    );
    let all = format!(
        "{}\n{}\n{}",
        host.report("host", 10),
        join.report("join", 10),
        watcher.report("window spectator", 30)
    );
    for run in [&host, &join, &watcher] {
        assert_eq!(run.code(), Some(0), "{all}");
    }
    let (h, w) = (host.summary(), watcher.summary());
    assert_eq!(w["checksum_frame"], 1200, "{all}");
    assert_eq!(w["checksum"], h["checksum"], "{all}");
    // Resumed some 1.5 s (90 frames) behind, then jumped back to live.
    let resumed = watcher
        .stderr
        .lines()
        .find_map(|l| {
            l.split("resumed, ")
                .nth(1)?
                .split(' ')
                .next()?
                .parse::<u32>()
                .ok()
        })
        .unwrap_or_else(|| panic!("never resumed\n{all}"));
    assert!(resumed >= 60, "resumed {resumed} frames behind\n{all}");
    assert_eq!(watcher.stderr.matches("resumed, ").count(), 1, "{all}");
    // The typed line went out and is in the host's replay and the
    // spectator's, at the same frame.
    assert_eq!(w["chat_sent"], 1, "{all}");
    let said = chat_events(&dir.join("host.tsr"));
    assert_eq!(
        said.iter().map(|(_, d)| d.as_str()).collect::<Vec<_>>(),
        ["S1: g g"],
        "{all}"
    );
    assert_eq!(chat_events(&dir.join("watch.tsr")), said, "{all}");
    // End: the frames it was behind are fast-forwarded after the resume.
    let after_resume = &watcher.stderr[watcher.stderr.find("resumed, ").unwrap_or(0)..];
    assert!(after_resume.contains("fast-forwarded"), "{all}");
    replay_diff(&dir, "host.tsr", "watch.tsr");
}
