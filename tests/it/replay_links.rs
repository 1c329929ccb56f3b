//! Ranked replays as links: `twinstar replay https://SERVER/replays/ID`
//! (and `https://SERVER/#replay=ID`) downloads the replay and does what
//! `twinstar replay FILE` does; a link that is none, an unknown id, a
//! server that is no server of ours: one line, non-zero exit. The page's
//! `#replay=ID` is tests/it/browser/replay_link.rs, on the same helper.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{Server, host_then_join, http_get, run, scratch};

const LIMIT: Duration = Duration::from_secs(60);

/// One headless bot match through `server` (room `code`), its host's
/// replay sent and ranked as the match ended: the replay's id and the
/// host's file.
pub fn ranked_replay(server: &Server, dir: &Path, code: &str) -> (String, PathBuf) {
    std::fs::create_dir_all(dir).unwrap();
    let record = ["--record", "host.tsr", "--seed", "5"];
    let (host, join) = host_then_join(dir, &server.url, (code, code), "300", &record, &[]);
    let (host, join) = (host.finish(LIMIT), join.finish(LIMIT));
    assert_eq!(host.code(), Some(0), "host failed:\n{}", host.stderr);
    assert_eq!(join.code(), Some(0), "join failed:\n{}", join.stderr);
    let summary = host.summary();
    let id = summary["upload"]["ranked"]["id"].as_str();
    let id = id.unwrap_or_else(|| panic!("the host's replay was not ranked: {summary}"));
    (id.to_owned(), dir.join("host.tsr"))
}

/// A link to a one-shot server that answers 200 with `body` (not one of
/// ours: bytes that are no replay, a download past the cap).
fn answering(body: Vec<u8>) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let Ok((mut s, _)) = listener.accept() else {
            return;
        };
        let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
        let mut request = [0u8; 4096];
        let _ = s.read(&mut request);
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        let _ = s.write_all(head.as_bytes());
        let _ = s.write_all(&body);
    });
    format!("http://{addr}/replays/fake")
}

/// `twinstar replay SOURCE --headless --verify --json`'s final checksum.
fn verified_checksum(dir: &Path, source: &str) -> (u64, String) {
    let out = run(
        dir,
        &["replay", source, "--headless", "--verify", "--json"],
        LIMIT,
    );
    assert_eq!(out.code(), Some(0), "{source}:\n{}", out.stderr);
    let summary = out.summary();
    (
        summary["checksum_frame"].as_u64().unwrap(),
        summary["checksum"].as_str().unwrap().to_owned(),
    )
}

#[test]
fn a_replays_link_verifies_to_the_files_checksum_and_bad_links_are_refused() {
    let server = Server::start();
    let dir = scratch("replay-links");
    let (id, file) = ranked_replay(&server, &dir, "RPK-AAA");
    let base = format!("http://{}", server.addr);
    let from_file = verified_checksum(&dir, &file.to_string_lossy());
    assert_eq!(from_file.0, 300, "{from_file:?}");
    for link in [
        format!("{base}/replays/{id}"),
        format!("{base}/#replay={id}"),
    ] {
        assert_eq!(verified_checksum(&dir, &link), from_file, "{link}");
    }
    // Refusals: one line each, the exit the brief of `replay FILE` gives
    // (2: bad input; 1: nobody answered).
    let (status, _) = http_get(server.addr, "/replays/nosuchreplay").unwrap();
    assert_eq!(status, 404);
    let dead = format!(
        "http://127.0.0.1:{}/replays/{id}",
        common::free_loopback_port()
    );
    for (link, exit, says) in [
        (format!("{base}/replays/nosuchreplay"), 2, "no such replay"),
        (format!("{base}/rooms/{id}"), 2, "not a replay link"),
        (format!("{base}/#K7Q-2XM"), 2, "not a replay link"),
        // The page itself is no replay.
        (
            format!("{base}/replays/../index.html"),
            2,
            "not a replay link",
        ),
        (dead, 1, "did not answer"),
        (answering(b"hello".to_vec()), 2, "not a twinstar replay"),
        (answering(vec![0; 4 * 1024 * 1024 + 1]), 2, "larger than"),
    ] {
        let out = run(&dir, &["replay", &link, "--headless", "--verify"], LIMIT);
        assert_eq!(out.code(), Some(exit), "{link}:\n{}", out.stderr);
        let last = out.stderr.trim_end().lines().last().unwrap_or_default();
        assert!(
            last.starts_with("twinstar: ") && last.contains(says),
            "{link}: {}",
            out.stderr
        );
        assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    }
}

/// The main menu's Leaderboard screen (fifth item) on a server with one
/// ranked match: today's board first (empty: the match's seed is no daily
/// challenge), Right to this week's, where it is listed; Enter on it
/// downloads its replay, verifies it to the file's final checksum and
/// opens the viewer.
#[test]
fn the_menus_leaderboard_lists_a_ranked_match_and_plays_it() {
    let display = common::Display::start();
    let server = Server::start();
    let dir = scratch("leaderboard-menu");
    let (id, file) = ranked_replay(&server, &dir, "RPM-AAA");
    let (_, checksum) = verified_checksum(&dir, &file.to_string_lossy());
    let settings = dir.join("settings.toml");
    std::fs::write(&settings, format!("server = \"{}\"\n", server.url)).unwrap();
    let mut command = common::command(&dir, &["--volume", "0"]);
    command
        .env("DISPLAY", &display.name)
        .env("TWINSTAR_CONFIG", &settings);
    let mut menu = common::Twinstar::spawn_command(command);
    let wait = |menu: &mut common::Twinstar, line: &str| {
        assert!(
            menu.wait_for(line, Duration::from_secs(20)),
            "no '{line}':\n{}",
            common::tail(&menu.stderr(), 30)
        );
    };
    wait(&mut menu, "main menu");
    // The window takes keys a moment after its first frame (a loaded
    // machine dropped a first Down at 500 ms).
    std::thread::sleep(Duration::from_millis(1000));
    let mut keys = ["<Down>", "@0.1"].repeat(4);
    keys.push("<Return>");
    display.type_keys(&keys);
    wait(&mut menu, "leaderboard: 0 listed on daily");
    display.type_keys(&["@0.3", "<Right>"]);
    wait(&mut menu, "leaderboard: 1 listed on week");
    display.type_keys(&["@0.3", "<Down>", "@0.3", "<Return>"]);
    wait(
        &mut menu,
        &format!("leaderboard: playing {id}: verified 300 frames"),
    );
    assert!(
        menu.stderr().contains(&format!("final {checksum}")),
        "the menu's replay is not the file's (final {checksum}):\n{}",
        common::tail(&menu.stderr(), 30)
    );
    drop(menu);
}

/// Over https the download is checked against the game's TLS roots:
/// trusted through `SSL_CERT_FILE` (a private CA), the server answers (an
/// unknown id: its 404, in its words); without it, the certificate is
/// refused with what to do, as bad input.
#[test]
fn a_https_link_is_checked_like_the_games_other_requests() {
    let dir = scratch("replay-links-tls");
    let (cert, key) = common::certificate(&dir, "server");
    let server = Server::start_tls(&cert, &key);
    let link = format!("https://{}/#replay=nosuchreplay", server.addr);
    let args = ["replay", link.as_str(), "--headless", "--verify"];
    let mut trusting = common::command(&dir, &args);
    trusting.env("SSL_CERT_FILE", dir.join("ca.pem"));
    let trusted = common::Twinstar::spawn_command(trusting).finish(LIMIT);
    assert_eq!(trusted.code(), Some(2), "{}", trusted.stderr);
    assert!(
        trusted
            .stderr
            .contains("no such replay on the server (no replay 'nosuchreplay' here)"),
        "{}",
        trusted.stderr
    );
    let untrusted = run(&dir, &args, LIMIT);
    assert_eq!(untrusted.code(), Some(2), "{}", untrusted.stderr);
    assert!(
        untrusted.stderr.contains("not trusted here") && untrusted.stderr.contains("SSL_CERT_FILE"),
        "{}",
        untrusted.stderr
    );
}
