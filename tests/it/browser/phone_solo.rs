//! A phone alone (issue 58): the page plays `solo` by touch on a 3x phone
//! held upright, opens the pause menu with the MENU button (where the page
//! published it), and a tap beside the menu resumes. The simulation stops
//! while paused: the frame it paused at is the frame it resumed at, and
//! the match still plays all its frames, with the bot as the partner.

use super::{serial, web_server};
use crate::common;

use common::browser::{self, page_url};
use common::{LIMIT, frame_after};

#[test]
fn a_phone_alone_plays_solo_and_pauses_and_resumes_by_touch() {
    let _one = serial();
    let server = web_server();
    let (w, h) = (390, 844);
    // The stick moves right for a while, then MENU is tapped (a finger down
    // and up), then, two seconds later, a tap beside the menu.
    let touch = format!(
        r#"[
        {{"at": 300, "type": "touchStart", "points": [[60, {sy}, 1]]}},
        {{"at": 400, "type": "touchMove", "points": [[120, {sy}, 1]]}},
        {{"at": 1500, "type": "touchEnd", "points": []}},
        {{"at": 3000, "type": "touchStart", "points": [["menu", 2]]}},
        {{"at": 3100, "type": "touchEnd", "points": []}},
        {{"at": 5000, "type": "touchStart", "points": [[{cx}, 4, 3]]}},
        {{"at": 5100, "type": "touchEnd", "points": []}}
    ]"#,
        sy = h * 85 / 100,
        cx = w / 2,
    );
    let url = page_url(&server, "#!solo --frames 600 --json --no-record");
    let args = [
        "--timeout",
        "60",
        "--phone",
        "--dpr",
        "3",
        "--safe-area",
        "47,0,34,0",
        "--size",
        &format!("{w}x{h}"),
        "--touch",
        &touch,
    ];
    let page = browser::open(&url, &args).finish(LIMIT);
    let out = &page.stdout;
    let result = browser::result(&page);
    assert_eq!(result["exit"], 0, "{result}\n{}", common::tail(out, 30));
    let summary = &result["summary"];
    assert_eq!(summary["mode"], "solo", "{summary}");
    assert_eq!(summary["frames"], 600, "{summary}");
    let paused = frame_after(out, "paused at frame ");
    let resumed = frame_after(out, "resumed at frame ");
    assert!(
        paused.is_some() && paused == resumed,
        "paused at {paused:?}, resumed at {resumed:?}:\n{}",
        common::tail(out, 40)
    );
}
