//! A ranked replay's link in the page (issue 48): `#replay=ID` downloads
//! the replay from the page's own server, re-simulates it and opens the
//! viewer on it; its result line's summary carries the same final
//! checksum as the native `twinstar replay FILE --verify`. An id the
//! server does not have says so on the page and in the result line.

use super::{serial, web_server};
use crate::common;
use crate::replay_links::ranked_replay;

use common::browser::{self, page_url};
use common::{LIMIT, scratch, verify_replay};

#[test]
fn a_replays_link_plays_it_in_the_page_with_the_native_checksum() {
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
}
