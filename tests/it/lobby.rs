//! The lobby (issue 34): a host that asks for a public room is listed in
//! the server's `GET /rooms` with its name, waiting then playing, and
//! gone once the room empties; a private room never is; the flags are
//! checked in one line.

use std::time::{Duration, Instant};

use crate::common::{self, LIMIT, Server, Twinstar, peer_args, scratch};
use twinstar_netcode::signaling::{RoomStatus, RoomsPage};

fn rooms(server: &Server) -> RoomsPage {
    let (status, body) = common::http_get(server.addr, "/rooms")
        .unwrap_or_else(|| panic!("GET /rooms on {} did not answer", server.addr));
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

/// Polls `GET /rooms` until `done` holds; the last page otherwise.
fn until(server: &Server, within: Duration, done: impl Fn(&RoomsPage) -> bool) -> RoomsPage {
    let started = Instant::now();
    loop {
        let page = rooms(server);
        if done(&page) || started.elapsed() > within {
            return page;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_public_room_is_listed_with_its_host_then_playing_and_a_private_one_never() {
    let server = Server::start();
    let dir = scratch("lobby-public");
    let private = Twinstar::spawn(
        &dir,
        &peer_args(
            "host",
            Some("PRV-2XM"),
            &server.url,
            "60",
            &["--no-record", "--name", "Bo"],
        ),
    );
    let host = Twinstar::spawn(
        &dir,
        &peer_args(
            "host",
            Some("PUB-2XM"),
            &server.url,
            "300",
            &["--no-record", "--public", "--name", "Ana María"],
        ),
    );
    let listed = until(&server, Duration::from_secs(10), |p| !p.rooms.is_empty());
    assert_eq!(listed.rooms.len(), 1, "{listed:?}");
    let room = &listed.rooms[0];
    assert_eq!(
        (room.code.as_str(), room.host.as_str()),
        ("PUB-2XM", "Ana María")
    );
    assert_eq!(room.state, RoomStatus::Waiting);
    let join = Twinstar::spawn(
        &dir,
        &peer_args("join", Some("pub2xm"), &server.url, "300", &["--no-record"]),
    );
    let playing = until(&server, Duration::from_secs(10), |p| {
        p.rooms.iter().any(|r| r.state == RoomStatus::Playing)
    });
    assert!(
        playing.rooms.iter().all(|r| r.code == "PUB-2XM"),
        "only the public room, ever: {playing:?}"
    );
    assert_eq!(playing.rooms.len(), 1, "{playing:?}");
    let (join, host) = (join.finish(LIMIT), host.finish(LIMIT));
    assert_eq!(host.code(), Some(0), "{}", host.report("host", 30));
    assert_eq!(join.code(), Some(0), "{}", join.report("join", 30));
    drop(private);
    let gone = until(&server, Duration::from_secs(10), |p| p.rooms.is_empty());
    assert!(gone.rooms.is_empty(), "{gone:?}");
}

#[test]
fn lobby_flags_are_checked_in_one_line() {
    let dir = scratch("lobby-flags");
    for (args, says) in [
        (
            &["join", "K7Q-2XM", "--public", "--name", "Ana"][..],
            "for twinstar host",
        ),
        (&["host", "--name", "Ana!"][..], "a name may hold only"),
        (&["host", "--name", ""][..], "1 to 16 characters"),
        (&["host", "--public"][..], "--name"),
    ] {
        let out = common::run(&dir, args, LIMIT);
        assert_eq!(out.code(), Some(2), "{args:?}: {}", out.stderr);
        assert_eq!(
            out.stderr.trim().lines().count(),
            1,
            "{args:?}: {}",
            out.stderr
        );
        assert!(out.stderr.contains(says), "{args:?}: {}", out.stderr);
    }
}

/// The main menu's Rooms screen on a window lists the public room of the
/// settings' server and joins it with Enter (Online, the third item, then
/// Rooms, its fourth, then the first row, the waiting room).
#[test]
fn the_menus_rooms_screen_joins_a_listed_room() {
    let display = common::Display::start();
    let server = Server::start();
    let dir = scratch("lobby-menu");
    let host = Twinstar::spawn(
        &dir,
        &peer_args(
            "host",
            Some("MNU-2XM"),
            &server.url,
            "600",
            &[
                "--no-record",
                "--public",
                "--name",
                "Ana",
                "--reconnect-window",
                "0",
            ],
        ),
    );
    let listed = until(&server, Duration::from_secs(10), |p| !p.rooms.is_empty());
    assert_eq!(listed.rooms.len(), 1, "{listed:?}");
    let mut menu = pick_first_room(&display, &dir, &server);
    assert!(
        menu.wait_for("agreed: player 2", Duration::from_secs(30)),
        "the menu did not join the listed room:\n{}",
        common::tail(&menu.stderr(), 30)
    );
    drop(menu);
    drop(host);
}

/// The main menu in a window on `display`, its settings' server `server`,
/// with Enter pressed on the Rooms screen's first row (Online is the third
/// item, Rooms its fourth; its list arrives within a refresh, 2 s).
fn pick_first_room(display: &common::Display, dir: &std::path::Path, server: &Server) -> Twinstar {
    let settings = dir.join("settings.toml");
    std::fs::write(&settings, format!("server = \"{}\"\n", server.url)).unwrap();
    let mut command = common::command(dir, &["--volume", "0"]);
    command
        .env("DISPLAY", &display.name)
        .env("TWINSTAR_CONFIG", &settings);
    let mut menu = Twinstar::spawn_command(command);
    assert!(
        menu.wait_for("main menu", Duration::from_secs(20)),
        "{}",
        menu.stderr()
    );
    std::thread::sleep(Duration::from_millis(500));
    display.type_keys(&["<Down>", "@0.1", "<Down>", "@0.3", "<Return>"]);
    assert!(
        menu.wait_for("online menu", Duration::from_secs(20)),
        "{}",
        menu.stderr()
    );
    display.type_keys(&[
        "@0.3", "<Down>", "@0.1", "<Down>", "@0.1", "<Down>", "@0.3", "<Return>", "@3", "<Return>",
    ]);
    menu
}

/// The window's Rooms screen watches a live match: with a public room
/// playing, its match is the first row, and Enter watches it.
#[test]
fn the_menus_rooms_screen_watches_a_live_match() {
    let display = common::Display::start();
    let server = Server::start();
    let dir = scratch("lobby-menu-watch");
    let (host, join) = common::started_match(
        &dir,
        &server.url,
        ("WTC-2XM", "WTC-2XM"),
        "1800",
        &["--no-record", "--public", "--name", "Ana"],
        &["--no-record"],
    );
    let mut menu = pick_first_room(&display, &dir, &server);
    assert!(
        menu.wait_for("streams the match", Duration::from_secs(30)),
        "the menu did not watch the listed match:\n{}",
        common::tail(&menu.stderr(), 30)
    );
    drop((menu, host, join));
}

/// Quick match through a real server (raw websocket clients, matchbox's
/// protocol): four clients of one version, two far apart in level, pair
/// by level at once; a client of another version is never paired with
/// them, even after the 10 s that open the gap to anyone of its version.
#[test]
fn quick_match_pairs_by_level_and_never_across_versions() {
    use common::ws::{connect, introductions};
    let server = Server::start();
    let quick =
        |version: &str, level: u32| format!("{}/quick?version={version}&level={level}", server.url);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        // Levels 1 and 900 first: too far apart to pair at once.
        let (mut low, _) = connect(&quick("6.3", 1)).await;
        let (mut high, _) = connect(&quick("6.3", 900)).await;
        let (mut other, _) = connect(&quick("6.2", 2)).await;
        // Then one near each: each pairs with its own (the newer moves
        // into the older's room, which is told: NewPeer).
        let (_near_high, near_high_id) = connect(&quick("6.3", 901)).await;
        let (_near_low, near_low_id) = connect(&quick("6.3", 2)).await;
        let wait = Duration::from_millis(500);
        assert_eq!(introductions(&mut high, wait).await, [near_high_id]);
        assert_eq!(introductions(&mut low, wait).await, [near_low_id]);
        // Another version waits alone past the 10 s that open the gap.
        assert!(
            introductions(&mut other, Duration::from_secs(11))
                .await
                .is_empty(),
            "a 6.2 client was paired with a 6.3 one"
        );
    });
}

/// Moderation through a real server, with headless players typing at set
/// frames (`--debug-say-at`): the host of a public room lists its figures
/// once a second while it plays; it removes its spectator with `/kick s1`,
/// which ends that spectator's watching with the reason, and the server
/// refuses it when it comes back within 5 minutes; the other player's
/// `/report S1 ...` lands in the server's reports file with the room's
/// last lines, the spectator's among them.
#[test]
fn the_host_lists_figures_and_kicks_a_spectator_and_a_report_is_filed() {
    let dir = scratch("lobby-moderation");
    let reports = dir.join("reports.jsonl");
    let server = Server::start_with(&["--reports", reports.to_str().unwrap()], &[]);
    let (host, join) = common::started_match(
        &dir,
        &server.url,
        ("KCK-2XM", "KCK-2XM"),
        "1200",
        &[
            "--no-record",
            "--public",
            "--name",
            "Ana",
            "--debug-say-at",
            "420:/kick s1",
        ],
        &[
            "--no-record",
            "--debug-say-at",
            "540:/report S1 selling gold",
        ],
    );
    let spectator = common::spectator(
        &dir,
        &server.url,
        "KCK-2XM",
        &["--no-record", "--say", "buy gold at example.org"],
    );
    let listed = until(&server, Duration::from_secs(10), |p| {
        p.rooms.iter().any(|r| r.elapsed_s.is_some_and(|s| s >= 2))
    });
    let room = &listed.rooms[0];
    assert_eq!(room.state, RoomStatus::Playing, "{listed:?}");
    assert!(room.wave.is_some() && room.score.is_some(), "{listed:?}");

    let spectator = spectator.finish(LIMIT);
    assert!(
        spectator
            .stderr
            .contains("the room's host removed you from the room"),
        "{}",
        spectator.report("spectator", 30)
    );
    let again = common::run(
        &dir,
        &[
            "watch",
            "KCK-2XM",
            "--server",
            &server.url,
            "--stun",
            "none",
            "--headless",
        ],
        LIMIT,
    );
    assert_eq!(again.code(), Some(2), "{}", again.stderr);
    assert!(
        again
            .stderr
            .contains("removed you from it; you may watch it again in"),
        "{}",
        again.stderr
    );
    let (host, join) = (host.finish(LIMIT), join.finish(LIMIT));
    assert_eq!(host.code(), Some(0), "{}", host.report("host", 30));
    assert_eq!(join.code(), Some(0), "{}", join.report("join", 30));
    assert!(
        host.stderr
            .contains("S1 was removed from the room for 5 minutes"),
        "{}",
        host.report("host", 30)
    );
    assert!(
        join.stderr.contains("your report on S1 was sent"),
        "{}",
        join.report("join", 30)
    );

    let text = std::fs::read_to_string(&reports).unwrap_or_default();
    let filed: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(filed.len(), 1, "{text}");
    let report = &filed[0];
    assert_eq!(report["room"], "KCK-2XM");
    assert_eq!(report["reporter"], "player 2");
    assert_eq!(report["name"], "S1");
    assert_eq!(report["reason"], "selling gold");
    let lines: Vec<&str> = (report["lines"].as_array().unwrap().iter())
        .filter_map(|l| l.as_str())
        .collect();
    assert!(lines.contains(&"S1: buy gold at example.org"), "{report}");
    let counted = |action: &str| {
        server
            .metric(&format!(
                "twinstar_room_requests_total{{action=\"{action}\",outcome=\"ok\"}}"
            ))
            .unwrap_or(0.0)
    };
    assert_eq!((counted("kick"), counted("report")), (1.0, 1.0));
    assert!(counted("stats") >= 2.0, "{}", counted("stats"));
}

/// Names: two players who both call themselves Ana are `Ana` and
/// `ana (2)` in the room's chat, a spectator who asks for Zoe is `Zoe`,
/// and the replay records the players' names. Muting: once the host
/// mutes `ana (2)`, her lines reach neither the host nor its spectator.
#[test]
fn players_and_spectators_are_called_by_their_names() {
    let dir = scratch("lobby-names");
    let server = Server::start();
    let replay = dir.join("host.tsr");
    let (host, join) = common::started_match(
        &dir,
        &server.url,
        ("NMS-2XM", "NMS-2XM"),
        "900",
        &[
            "--record",
            replay.to_str().unwrap(),
            "--name",
            "Ana",
            "--debug-say-at",
            "540:/mute ANA (2)",
        ],
        &[
            "--no-record",
            "--name",
            "ana",
            "--debug-say-at",
            "420:hello from two",
            "--debug-say-at",
            "660:muted now",
        ],
    );
    let spectator = common::spectator(
        &dir,
        &server.url,
        "NMS-2XM",
        &["--no-record", "--name", "Zoe", "--say", "hi all"],
    );
    let spectator = spectator.finish(LIMIT);
    let (host, join) = (host.finish(LIMIT), join.finish(LIMIT));
    assert_eq!(host.code(), Some(0), "{}", host.report("host", 30));
    assert_eq!(join.code(), Some(0), "{}", join.report("join", 30));
    assert_eq!(
        spectator.code(),
        Some(0),
        "{}",
        spectator.report("spectator", 30)
    );
    for (who, log) in [("host", &host), ("spectator", &spectator)] {
        assert!(
            log.stderr.contains("chat ana (2): hello from two"),
            "{}",
            log.report(who, 30)
        );
        assert!(!log.stderr.contains("muted now"), "{}", log.report(who, 30));
    }
    assert!(
        join.stderr.contains("chat ana (2): muted now"),
        "{}",
        join.report("join", 30)
    );
    assert!(
        join.stderr.contains("chat Zoe: hi all"),
        "{}",
        join.report("join", 30)
    );
    let recorded = twinstar::replay::read(&replay).expect("the host's replay");
    assert_eq!(recorded.header.names, ["Ana", "ana (2)"]);
    let lines: Vec<String> = common::chat_events(&replay)
        .into_iter()
        .map(|(_, d)| d)
        .collect();
    assert!(
        lines.contains(&"ana (2): hello from two".to_string()),
        "{lines:?}"
    );
    assert!(lines.contains(&"Zoe: hi all".to_string()), "{lines:?}");
    assert!(!lines.iter().any(|l| l.contains("muted now")), "{lines:?}");
}
