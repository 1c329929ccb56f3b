//! Room chat between two real `twinstar` processes: lines sent with `--say`
//! reach the other player over the control channel and land in both
//! replays as `chat` events; a peer flooding junk and valid lines
//! (`--debug-chat-flood`) is dropped, counted and rate-limited without
//! disturbing the match; in a window, Enter opens the prompt, typing there
//! never reaches the game, and Esc closes the prompt without leaving.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::{
    Display, Finished, Server, Twinstar, chat_events, host_then_join, peer_args, scratch,
    spectator, started_match, verify_replay,
};
use twinstar::input::Input;
use twinstar_netcode::testing::chat::NETWORK_SLACK;

const BURST: u32 = twinstar_netcode::session::ChatLine::BURST;

const LIMIT: Duration = Duration::from_secs(60);
const FRAMES: u32 = 600;

/// A 10 s bot match between a host and a joiner, both recording.
fn play(name: &str, host_extra: &[&str], join_extra: &[&str]) -> (Finished, Finished, String) {
    let server = Server::start();
    let dir = scratch(name);
    let host_args = [host_extra, &["--record", "host.tsr"]].concat();
    let join_args = [join_extra, &["--record", "join.tsr"]].concat();
    let (host, join) = host_then_join(
        &dir,
        &server.url,
        ("K7Q-2XM", "k7q2xm"),
        &FRAMES.to_string(),
        &host_args,
        &join_args,
    );
    let (host, join) = (host.finish(LIMIT), join.finish(LIMIT));
    let both = host.report("host", 30) + &join.report("join", 30);
    assert_eq!(host.code(), Some(0), "{both}");
    assert_eq!(join.code(), Some(0), "{both}");
    let (h, j) = (host.summary(), join.summary());
    assert_eq!(h["checksum_frame"], FRAMES, "{h}");
    assert_eq!(h["checksum"], j["checksum"], "{both}");
    assert_eq!(
        (h["desyncs"].as_u64(), j["desyncs"].as_u64()),
        (Some(0), Some(0))
    );
    for name in ["host.tsr", "join.tsr"] {
        verify_replay(&dir.join(name), Some(FRAMES));
    }
    (host, join, dir.display().to_string())
}

fn counters(summary: &serde_json::Value) -> [u64; 3] {
    ["chat_sent", "chat_received", "chat_dropped"].map(|key| {
        summary[key]
            .as_u64()
            .unwrap_or_else(|| panic!("no {key} in {summary}"))
    })
}

#[test]
fn said_lines_reach_the_other_player_and_both_replays() {
    let (host, join, dir) = play(
        "say",
        &["--say", "hello from one", "--say", "  gg  "],
        &["--say", "hi from two"],
    );
    // [sent, received, dropped]: each received exactly the other's lines.
    assert_eq!(counters(&host.summary()), [2, 1, 0]);
    assert_eq!(counters(&join.summary()), [1, 2, 0]);
    assert!(
        host.stderr.contains("chat P2: hi from two"),
        "{}",
        host.stderr
    );
    assert!(join.stderr.contains("chat P1: gg"), "{}", join.stderr);
    let all = ["P1: hello from one", "P1: gg", "P2: hi from two"];
    for name in ["host.tsr", "join.tsr"] {
        let events = chat_events(&Path::new(&dir).join(name));
        let mut details: Vec<&str> = events.iter().map(|(_, d)| d.as_str()).collect();
        // One side's lines keep their order; the two sides interleave.
        let ones: Vec<&str> = details
            .iter()
            .copied()
            .filter(|d| d.starts_with("P1"))
            .collect();
        assert_eq!(ones, ["P1: hello from one", "P1: gg"], "{name}: {events:?}");
        details.sort_unstable();
        let mut expected = all.to_vec();
        expected.sort_unstable();
        assert_eq!(details, expected, "{name}: {events:?}");
        // Sent right after the first frame: recorded within the first
        // seconds, not at the end.
        assert!(events.iter().all(|(f, _)| *f < 300), "{name}: {events:?}");
    }
}

/// `/mute P2` (typed as a line; here with `--say`) is answered locally and
/// never sent: the muter neither shows nor records the muted player's lines
/// from then on, while the other side still sends and records its own.
#[test]
fn a_muted_players_lines_stop_at_the_muter() {
    let (host, join, dir) = play(
        "mute",
        &["--say", "/mute p2", "--say", "still here"],
        // Two seconds in: after the mute typed at the start, which a line
        // sent at once could overtake (seen on a loaded CI machine).
        &["--debug-say-at", "120:hi from two"],
    );
    // The command went nowhere: one line sent; the muted line not received.
    assert_eq!(counters(&host.summary()), [1, 0, 0], "{}", host.stderr);
    assert_eq!(counters(&join.summary()), [1, 1, 0]);
    assert!(
        !host.stderr.contains("chat P2: hi from two"),
        "{}",
        host.stderr
    );
    let details = |name: &str| -> Vec<String> {
        chat_events(&Path::new(&dir).join(name))
            .into_iter()
            .map(|(_, d)| d)
            .collect()
    };
    assert_eq!(details("host.tsr"), ["P1: still here"]);
    let mut joined = details("join.tsr");
    joined.sort();
    assert_eq!(joined, ["P1: still here", "P2: hi from two"]);
}

#[test]
fn a_chat_flood_is_dropped_counted_and_rate_limited() {
    let (rogue, victim, dir) = play("flood", &["--debug-chat-flood", "500"], &[]);
    let v = victim.summary();
    let [sent, received, dropped] = counters(&v);
    assert_eq!(sent, 0, "{v}");
    // The flood's valid lines (one in six) fill the burst, then one a
    // second gets through; everything else is dropped.
    let elapsed = v["elapsed_s"].as_f64().unwrap();
    let allowed = u64::from(BURST + NETWORK_SLACK) + elapsed.ceil() as u64 + 1;
    assert!(
        (u64::from(BURST)..=allowed).contains(&received),
        "received {received}, at most {allowed} allowed in {elapsed} s: {v}"
    );
    // 500 a second for 10 s.
    assert!(dropped > 3000, "only {dropped} dropped: {v}");
    // The first drop is logged, the rest only counted.
    assert_eq!(
        victim.stderr.matches("dropped a chat message").count(),
        1,
        "{}",
        common::tail(&victim.stderr, 30)
    );
    // The flood's own messages are not lines it said.
    assert_eq!(counters(&rogue.summary()), [0, 0, 0]);
    // Every accepted line, and nothing else, is in the victim's replay.
    let events = chat_events(&Path::new(&dir).join("join.tsr"));
    assert_eq!(events.len() as u64, received, "{events:?}");
    assert!(
        events.iter().all(|(_, d)| d.starts_with("P1: flood line ")),
        "{events:?}"
    );
}

#[test]
fn a_spectators_chat_flood_is_dropped_at_the_player_it_watches() {
    let server = Server::start();
    let dir = scratch("spectator-flood");
    let (host, join) = started_match(
        &dir,
        &server.url,
        ("F7D2XM", "F7D2XM"),
        &FRAMES.to_string(),
        &["--record", "host.tsr"],
        &["--record", "join.tsr"],
    );
    let rogue = spectator(
        &dir,
        &server.url,
        "F7D2XM",
        &["--no-record", "--debug-chat-flood", "500"],
    );
    let (host, join, rogue) = (host.finish(LIMIT), join.finish(LIMIT), rogue.finish(LIMIT));
    let all = host.report("host", 20) + &join.report("join", 20) + &rogue.report("rogue", 10);
    for run in [&host, &join, &rogue] {
        assert_eq!(run.code(), Some(0), "{all}");
    }
    let (h, j) = (host.summary(), join.summary());
    assert_eq!(h["checksum"], j["checksum"], "{all}");
    assert_eq!(h["checksum"], rogue.summary()["checksum"], "{all}");
    assert_eq!(h["stalled_frames"], 0, "{all}");
    // The host drops the junk and holds the valid lines to the
    // spectator's rate; the joiner hears only what the host passed on.
    let [_, received, dropped] = counters(&h);
    let elapsed = h["elapsed_s"].as_f64().unwrap();
    let allowed = u64::from(BURST + NETWORK_SLACK) + elapsed.ceil() as u64 + 1;
    assert!(
        (u64::from(BURST)..=allowed).contains(&received),
        "received {received}, at most {allowed} allowed in {elapsed} s: {h}"
    );
    assert!(dropped > 1000, "only {dropped} dropped: {h}");
    assert_eq!(counters(&j), [0, received, 0], "{j}");
    assert_eq!(
        host.stderr.matches("dropped a chat message").count(),
        1,
        "{}",
        common::tail(&host.stderr, 30)
    );
    for name in ["host.tsr", "join.tsr"] {
        let events = chat_events(&dir.join(name));
        assert_eq!(events.len() as u64, received, "{name}: {events:?}");
        assert!(
            events.iter().all(|(_, d)| d.starts_with("S1: flood line ")),
            "{name}: {events:?}"
        );
    }
}

#[test]
fn a_line_typed_in_the_window_is_sent_and_the_keys_never_reach_the_game() {
    let display = Display::start();
    let server = Server::start();
    let dir = scratch("window");
    let code = "K7Q2XM";
    let frames = "480";
    let host = Twinstar::spawn(
        &dir,
        &peer_args(
            "host",
            Some(code),
            &server.url,
            frames,
            &["--record", "host.tsr"],
        ),
    );
    std::thread::sleep(Duration::from_millis(200));
    // The joiner plays from the keyboard (no bot), in a window.
    let extra = ["--volume", "0", "--record", "join.tsr"];
    let mut join_args = peer_args("join", Some(code), &server.url, frames, &extra);
    join_args.retain(|a| *a != "--headless" && *a != "--bot");
    let mut join = Twinstar::spawn_in_window(&dir, &join_args, &display);
    assert!(
        join.wait_for("synchronized with the peer", Duration::from_secs(20)),
        "{}",
        join.stderr()
    );
    std::thread::sleep(Duration::from_millis(500));
    // W, A, S and D are this player's movement keys; typed into the prompt
    // they must not move the ship. The second prompt is closed with Esc,
    // which must not leave the match.
    display.type_keys(&[
        "<Return>", "wasd Hi!", "<Return>", "@0.3", "<Return>", "dddd", "<Escape>",
    ]);
    let (host, join) = (host.finish(LIMIT), join.finish(LIMIT));
    let both = host.report("host", 20) + &join.report("window joiner", 20);
    assert_eq!(host.code(), Some(0), "{both}");
    assert_eq!(join.code(), Some(0), "{both}");
    let (h, j) = (host.summary(), join.summary());
    assert_eq!(h["checksum"], j["checksum"], "{both}");
    assert_eq!(j["frames"], 480, "the Esc left the match: {both}");
    assert_eq!(counters(&j), [1, 0, 0], "{j}");
    assert_eq!(counters(&h), [0, 1, 0], "{h}");
    for name in ["host.tsr", "join.tsr"] {
        let events = chat_events(&dir.join(name));
        let details: Vec<&str> = events.iter().map(|(_, d)| d.as_str()).collect();
        assert_eq!(details, ["P2: wasd Hi!"], "{name}");
    }
    // Nothing but the prompt was typed: player 2 (the keyboard) pressed
    // nothing in any frame.
    let replay = twinstar::replay::read(&dir.join("join.tsr")).unwrap();
    assert_eq!(replay.frames(), 480);
    let pressed = replay
        .inputs
        .iter()
        .filter(|i| i[1] != Input::default())
        .count();
    assert_eq!(pressed, 0, "keys typed into the chat reached the game");
}
