//! The page's larger assets (issue 60): the sounds and the starfield are
//! not in its wasm; the page asks its server for them after its first
//! frame, all at once, and every one arrives (none answered 404).

use super::{serial, web_server};
use crate::common;

use common::LIMIT;
use common::browser::{self, page_url};

#[test]
fn the_page_fetches_every_sound_and_the_starfield_after_its_first_frame() {
    let _one = serial();
    let server = web_server();
    // A window (not --headless): sounds load once the audio device works.
    let url = page_url(&server, "#!synctest --frames 100000 --no-record");
    let page = browser::open(
        &url,
        &["--timeout", "60", "--until", r"sounds: \d+ of \d+ loaded"],
    )
    .finish(LIMIT);
    let out = &page.stdout;
    let all = common::tail(out, 30);
    assert_eq!(
        page.code(),
        Some(0),
        "no line says the sounds loaded:\n{all}"
    );
    let counts = out
        .lines()
        .find_map(|l| l.split("sounds: ").nth(1))
        .and_then(|rest| {
            let mut words = rest.split_whitespace();
            let loaded: usize = words.next()?.parse().ok()?;
            let of: usize = words.nth(1)?.parse().ok()?;
            Some((loaded, of))
        });
    assert!(
        matches!(counts, Some((loaded, of)) if loaded == of && of >= 37),
        "{counts:?}:\n{all}"
    );
    assert!(
        out.contains("starfield: fetched"),
        "the starfield never arrived:\n{all}"
    );
    let refused: Vec<&str> = out.lines().filter(|l| l.starts_with("http: ")).collect();
    assert!(
        refused.iter().all(|l| l.ends_with("/ice")),
        "the page asked for a file the server does not have: {refused:?}"
    );
    // Before the first frame, the page did not wait for them.
    let first_frame = out.find("timing: first frame");
    let sounds = out.find("sounds: ");
    assert!(
        first_frame.is_some() && first_frame < sounds,
        "the sounds loaded before the first frame was drawn:\n{all}"
    );
}
