//! A ranked replay's link in the page (issue 48): `#replay=ID` downloads
//! the replay from the page's own server, re-simulates it and opens the
//! viewer on it; its result line's summary carries the same final
//! checksum as the native `twinstar replay FILE --verify`. An id the
//! server does not have says so on the page and in the result line. The
//! page's Leaderboard screen lists the match and plays it.

use super::{serial, web_server};
use crate::common;
use crate::replay_links::ranked_replay;

use common::browser::{self, page_url};
use common::{LIMIT, scratch, verify_replay};

#[test]
fn a_replays_link_and_the_pages_leaderboard_play_it_with_the_native_checksum() {
    let _one = serial();
    let server = web_server();
    let dir = scratch("browser-replay-link");
    let (id, file) = ranked_replay(&server, &dir, "RPW-AAA");
    let native = verify_replay(&file, Some(300));
    let url = page_url(&server, &format!("#replay={id}"));
    let page = browser::open(&url, &["--timeout", "60"]).finish(LIMIT);
    let result = browser::result(&page);
    assert_eq!(result["exit"], 0, "{result}");
    let summary = &result["summary"];
    assert_eq!(summary["checksum_frame"], 300, "{summary}");
    assert_eq!(summary["mismatches"], 0, "{summary}");
    assert_eq!(
        summary["checksum"], native["checksum"],
        "the page and the native verify disagree: {summary}"
    );
    // From the page's own server, by the id alone.
    assert!(
        page.stdout
            .contains(&format!("downloaded http://{}/replays/{id}", server.addr)),
        "{}",
        common::tail(&page.stdout, 30)
    );

    // An id the server does not have: said on the page, exit 2, no panic.
    let url = page_url(&server, "#replay=nosuchreplay");
    let page = browser::open(&url, &["--timeout", "30"]).finish(LIMIT);
    let result = browser::result(&page);
    assert_eq!(result["exit"], 2, "{result}");
    let error = result["error"].as_str().unwrap_or_default();
    assert!(error.contains("no such replay"), "{result}");
    assert!(
        page.stdout.contains("TWINSTAR-SAID twinstar: ") && page.stdout.contains("no such replay"),
        "{}",
        common::tail(&page.stdout, 30)
    );
    assert!(!page.stdout.contains("panicked"), "{}", page.stdout);

    // The page's Leaderboard screen (fifth item): today's board is empty
    // (seed 5 is no daily challenge), Right shows this week's with the
    // match, Enter on it plays it, verified to the same checksum.
    let keys = "on:main menu,ArrowDown@300,ArrowDown@600,ArrowDown@900,ArrowDown@1200,\
                Enter@1500,on:leaderboard: 0 listed on daily,ArrowRight@300,\
                on:leaderboard: 1 listed on week,ArrowDown@300,Enter@600";
    let until = format!("leaderboard: playing {id}");
    let args = ["--timeout", "60", "--keys", keys, "--until", &until];
    let page = browser::open(&page_url(&server, ""), &args).finish(LIMIT);
    assert_eq!(
        page.code(),
        Some(0),
        "the page's leaderboard did not play the match:\n{}",
        common::tail(&page.stdout, 30)
    );
    let played = format!("leaderboard: playing {id}: verified 300 frames");
    let checksum = format!("final {}", native["checksum"].as_str().unwrap());
    assert!(
        page.stdout.contains(&played) && page.stdout.contains(&checksum),
        "{}",
        common::tail(&page.stdout, 30)
    );
}

/// A board keeps the entries ranked under the first rules as history; the
/// page asked to play one (`#replay=ID`, a board's link) refuses it with
/// the line the native viewer says, naming both simulation versions, and
/// exit 2.
#[test]
fn an_old_rules_replays_link_is_refused_in_the_page_naming_both_versions() {
    use twinstar_signaling::boards::Entry;
    use twinstar_signaling::replay_store::Store;

    let _one = serial();
    let dir = scratch("browser-old-replay");
    let data = dir.join("data");
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/replays/sim-v1-default-150.tsr");
    let bytes = std::fs::read(&fixture).unwrap();
    let today = time::OffsetDateTime::now_utc().date();
    let mut store = Store::open(&data).unwrap();
    let entry = Entry {
        id: "oldrules0001".into(),
        seq: store.next_seq(),
        names: ["p1".into(), "p2".into()],
        score: 300,
        wave: 1,
        frames: 150,
        fps: 60,
        // Ranked before boards were kept per version: the bare preset.
        preset: "default".into(),
        date: today,
        daily: false,
    };
    let added = store.add("old-match", entry, bytes, today).unwrap();
    assert!(added.is_ok(), "the store took no entry: {added:?}");
    drop(store);

    let web = browser::web_dir();
    browser::require_web_client();
    let (web, data) = (web.to_string_lossy(), data.to_string_lossy());
    let server = common::Server::start_with(&["--web", &web, "--data", &data], &[]);
    let native = common::run(
        &dir,
        &[
            "replay",
            &fixture.to_string_lossy(),
            "--headless",
            "--verify",
        ],
        std::time::Duration::from_secs(30),
    );
    assert_eq!(native.code(), Some(2), "{}", native.report("native", 10));

    let url = page_url(&server, "#replay=oldrules0001");
    let page = browser::open(&url, &["--timeout", "30"]).finish(LIMIT);
    let result = browser::result(&page);
    assert_eq!(result["exit"], 2, "{result}");
    let error = result["error"].as_str().unwrap_or_default();
    let this_build = format!("this build is version {}", twinstar::sim::SIM_VERSION);
    assert!(
        error.contains("simulation version 1") && error.contains(&this_build),
        "the page's refusal names no versions: {result}"
    );
    assert!(
        page.stdout.contains("TWINSTAR-SAID twinstar: ") && page.stdout.contains("version 1"),
        "{}",
        common::tail(&page.stdout, 30)
    );
    assert!(!page.stdout.contains("panicked"), "{}", page.stdout);
}
