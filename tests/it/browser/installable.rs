//! The page as an installable app (issue 49): Chromium's own verdict on its
//! manifest and installability over the DevTools protocol, a synctest run
//! from the service worker's copy with the network cut, the screen wake
//! lock held during a match and let go after it, and online play saying
//! that it needs the network. `tests/web/pwa.mjs` and `drive.mjs` drive
//! Chromium; these tests judge what they print.
//!
//! Headless Chromium on http://127.0.0.1 is a secure context: service
//! workers and the Screen Wake Lock API work there as on https, and
//! Chromium grants a visible page's `screen` wake lock without asking (no
//! flag or permission needed).

use super::{serial, web_server};
use crate::common;

use common::LIMIT;
use common::browser::{self, json_line, page_url};

/// The version build-web.sh wrote into the served sw.js.
fn worker_version() -> String {
    let sw = std::fs::read_to_string(browser::web_dir().join("sw.js"))
        .expect("the web build has sw.js (bash scripts/build-web.sh)");
    sw.lines()
        .find_map(|l| l.strip_prefix("const VERSION = \""))
        .and_then(|rest| rest.split('"').next())
        .map(str::to_string)
        .expect("sw.js has a `const VERSION = \"...\"` line")
}

#[test]
fn chromium_finds_the_page_installable() {
    let _one = serial();
    let server = web_server();
    let out = browser::pwa("install", &page_url(&server, ""), &["--timeout", "60"]).finish(LIMIT);
    assert_eq!(
        out.code(),
        Some(0),
        "{}\n{}",
        common::tail(&out.stdout, 30),
        common::tail(&out.stderr, 10)
    );
    let manifest = json_line(&out, "manifest: ");
    assert_eq!(manifest["errors"], serde_json::json!([]), "{manifest}");
    assert!(
        manifest["url"]
            .as_str()
            .is_some_and(|u| u.ends_with("/manifest.webmanifest")),
        "{manifest}"
    );
    assert_eq!(manifest["name"], "twinstar", "{manifest}");
    assert_eq!(manifest["display"], "fullscreen", "{manifest}");
    assert_eq!(manifest["orientation"], "landscape", "{manifest}");
    let icons = manifest["icons"].as_array().cloned().unwrap_or_default();
    for (size, purpose) in [
        ("192x192", "any"),
        ("512x512", "any"),
        ("512x512", "maskable"),
    ] {
        assert!(
            icons
                .iter()
                .any(|i| i["sizes"] == size && i["purpose"] == purpose),
            "no {size} {purpose} icon: {manifest}"
        );
    }
    let errors = json_line(&out, "installability-errors: ");
    assert_eq!(errors, serde_json::json!([]), "Chromium says: {errors}");
}

/// The page once opened online has its worker's copy: with the network cut
/// a reload runs the same synctest to the same result, and a room's link
/// says that online play needs the network; the inspector opens too.
#[test]
fn with_the_network_cut_a_reload_still_runs_a_synctest() {
    let _one = serial();
    let server = web_server();
    let url = page_url(
        &server,
        "#!synctest --headless --json --seed 3 --frames 600 --no-record",
    );
    let out = browser::pwa("offline", &url, &["--timeout", "90"]).finish(LIMIT);
    let all = format!(
        "{}\n{}",
        common::tail(&out.stdout, 40),
        common::tail(&out.stderr, 10)
    );
    assert_eq!(out.code(), Some(0), "{all}");
    // The worker's copy is the build's version, and only it.
    let caches = json_line(&out, "controlled: ");
    assert_eq!(
        caches,
        serde_json::json!([format!("twinstar-{}", worker_version())]),
        "{all}"
    );
    assert!(
        out.stdout
            .contains("reloaded: from-service-worker=true status=200"),
        "the reload was not answered by the worker:\n{all}"
    );
    let online = json_line(&out, "online-result: TWINSTAR-RESULT ");
    let offline = json_line(&out, "offline-result: TWINSTAR-RESULT ");
    for result in [&online, &offline] {
        assert_eq!(result["exit"], 0, "{result}\n{all}");
        assert_eq!(result["summary"]["checksum_frame"], 600, "{result}");
    }
    assert_eq!(
        online["summary"]["checksum"], offline["summary"]["checksum"],
        "{all}"
    );
    // Offline, the page's own fetch of its server's ICE list failed (it
    // is never answered from the cache).
    let reload = out
        .stdout
        .split("offline: network cut")
        .nth(1)
        .unwrap_or("");
    assert!(
        reload.contains("twinstar: no ICE servers from the server"),
        "{all}"
    );
    // A room's link, still offline, says in words why it cannot play: on
    // its waiting screen and console, and in how it ended.
    let offline_says = "this device is offline: online play needs the network";
    assert!(
        out.stdout
            .lines()
            .any(|l| l.starts_with("offline-join: ") && l.contains(offline_says)),
        "{all}"
    );
    let joined = json_line(&out, "offline-join-result: TWINSTAR-RESULT ");
    assert_eq!(joined["exit"], 1, "{joined}");
    assert!(
        joined["error"]
            .as_str()
            .is_some_and(|e| e.starts_with(offline_says)),
        "{joined}"
    );
    // The inspector (/inspect) opens from the same offline copy: its page,
    // script and own wasm were cached at install, after the game's files.
    assert!(
        out.stdout
            .lines()
            .any(|l| l == "offline-inspect: inspect: pick one or two peers' recordings"),
        "{all}"
    );
}

/// The lines of `out` that start with `prefix` (a console line of the page).
fn lines_with<'a>(out: &'a common::Finished, prefix: &str) -> Vec<(usize, &'a str)> {
    out.stdout
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with(prefix))
        .collect()
}

/// A windowed match (a synctest of 5 s at 60 frames a second) holds the
/// wake lock from its start; the page is hidden for a second mid-match
/// (the lock goes, as a browser takes it from a hidden page) and comes
/// back (the lock is taken again); at the match's end it is let go.
#[test]
fn the_screen_stays_on_during_a_match_and_not_after() {
    let _one = serial();
    let server = web_server();
    let url = page_url(
        &server,
        "#!synctest --json --seed 2 --frames 300 --no-record",
    );
    let out = browser::open(
        &url,
        &[
            "--timeout",
            "60",
            "--stop-on",
            "^TWINSTAR-WAKELOCK held",
            "--stop",
            "hide@500+1000",
            "--until",
            r"^TWINSTAR-WAKELOCK released \(the match is over\)",
        ],
    )
    .finish(LIMIT);
    let all = format!(
        "{}\n{}",
        common::tail(&out.stdout, 40),
        common::tail(&out.stderr, 10)
    );
    assert_eq!(out.code(), Some(0), "{all}");
    let wake = lines_with(&out, "console: TWINSTAR-WAKELOCK ");
    let said: Vec<&str> = wake
        .iter()
        .map(|(_, l)| l.trim_start_matches("console: TWINSTAR-WAKELOCK "))
        .collect();
    assert_eq!(
        said,
        [
            "held",
            "released (the page was hidden)",
            "held",
            "released (the match is over)"
        ],
        "{all}"
    );
    let result = lines_with(&out, "console: TWINSTAR-RESULT ");
    assert_eq!(result.len(), 1, "{all}");
    // Held again before the match's result; let go as the match ended
    // (the game lets go before it reports, so this line comes first).
    assert!(wake[2].0 < result[0].0, "{all}");
    assert!(result[0].1.contains(r#""exit":0"#), "{all}");
}

/// A copy of the built web client in a scratch folder, as the next build
/// would be: sw.js of another version (`VERSION-next`) and index.html
/// marked `<meta name="twinstar-build" content="next">` (their stale `.gz`
/// twins left out).
fn next_build() -> std::path::PathBuf {
    let web = browser::web_dir();
    let next = common::scratch("web-next");
    for entry in std::fs::read_dir(&web).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        match name.as_str() {
            "sw.js.gz" | "index.html.gz" => {}
            "sw.js" => {
                let sw = std::fs::read_to_string(&path).unwrap();
                let version = worker_version();
                let sw = sw.replace(&format!("\"{version}\""), &format!("\"{version}-next\""));
                std::fs::write(next.join(name), sw).unwrap();
            }
            "index.html" => {
                let html = std::fs::read_to_string(&path).unwrap();
                let html = html.replacen(
                    "<head>",
                    "<head>\n<meta name=\"twinstar-build\" content=\"next\">",
                    1,
                );
                std::fs::write(next.join(name), html).unwrap();
            }
            _ => {
                std::fs::copy(&path, next.join(name)).unwrap();
            }
        }
    }
    next
}

/// A new build replaces the cached one on the next visit: a page opened
/// once (its worker's cache holds the first build), then, after the
/// server restarted with the next build, reloaded: the new worker takes
/// over and the old cache is gone; the reload after that shows the new
/// page.
#[test]
fn the_next_build_replaces_the_cached_one_on_the_next_visit() {
    let _one = serial();
    browser::require_web_client();
    let next = next_build();
    let (web, next) = (browser::web_dir(), next);
    let out = browser::pwa_update(common::BIN, &web, &next).finish(LIMIT);
    let all = format!(
        "{}\n{}",
        common::tail(&out.stdout, 30),
        common::tail(&out.stderr, 10)
    );
    assert_eq!(out.code(), Some(0), "{all}");
    let version = worker_version();
    assert_eq!(
        json_line(&out, "first: "),
        serde_json::json!([format!("twinstar-{version}")]),
        "{all}"
    );
    assert_eq!(
        json_line(&out, "next: "),
        serde_json::json!([format!("twinstar-{version}-next")]),
        "{all}"
    );
    assert!(out.stdout.lines().any(|l| l == "page: next"), "{all}");
}
