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
