//! The page's replay viewer saves the replay as a video (issue 61): V
//! records the canvas from the replay's first frame to its last
//! (MediaRecorder, WebM) and offers it as a download; ffprobe reads it
//! back: its length is the replay's, its frames change.

use super::{serial, web_server};
use crate::common;
use crate::replay_links::ranked_replay;
use crate::replay_video::{frame, tool};

use common::browser::{self, page_url};
use common::{LIMIT, scratch};

#[test]
fn the_pages_replay_viewer_saves_the_replay_as_a_webm_video() {
    let _one = serial();
    let server = web_server();
    let dir = scratch("browser-replay-video");
    // A ranked replay of 300 frames: 5 s at 60 frames a second.
    let (id, _file) = ranked_replay(&server, &dir, "RPV-AAA");
    let downloads = dir.join("downloads");
    std::fs::create_dir_all(&downloads).unwrap();
    let url = page_url(&server, &format!("#replay={id}"));
    let args = [
        "--timeout",
        "60",
        "--keys",
        "on:replay viewer: ,v@500",
        "--downloads",
        downloads.to_str().unwrap(),
        "--until",
        "video: saved",
    ];
    let page = browser::open(&url, &args).finish(LIMIT);
    assert_eq!(
        page.code(),
        Some(0),
        "no video was saved:\n{}",
        common::tail(&page.stdout, 30)
    );
    let name = format!("twinstar-replay-{id}.webm");
    assert!(
        page.stdout
            .contains(&format!("download: {}", downloads.join(&name).display())),
        "the video was not offered as {name}:\n{}",
        common::tail(&page.stdout, 30)
    );

    // The recorder's WebM has no duration in its header: the last video
    // packet's time is its length.
    let video = downloads.join(&name);
    let video = video.to_str().unwrap();
    let times = tool(
        &dir,
        "ffprobe",
        &[
            "-v",
            "error",
            "-select_streams",
            "v:0",
            "-show_entries",
            "packet=pts_time",
            "-of",
            "csv=p=0",
            video,
        ],
    );
    let times: Vec<f64> = String::from_utf8_lossy(&times)
        .lines()
        .filter_map(|l| l.trim().trim_end_matches(',').parse().ok())
        .collect();
    let length = times.iter().cloned().fold(0.0, f64::max);
    // 5 s of replay played at 1x by the wall clock; the recorder starts a
    // frame or two late, and a page stalled over 0.25 s plays slower.
    assert!(
        (4.0..=10.0).contains(&length),
        "the video is {length:.2} s long ({} packets), not the replay's 5 s",
        times.len()
    );
    let counted = tool(
        &dir,
        "ffprobe",
        &[
            "-v",
            "error",
            "-count_frames",
            "-select_streams",
            "v:0",
            "-show_entries",
            "stream=nb_read_frames",
            "-of",
            "csv=p=0",
            video,
        ],
    );
    let frames: u32 = String::from_utf8_lossy(&counted)
        .trim()
        .trim_end_matches(',')
        .parse()
        .unwrap_or_else(|_| panic!("no frame count: {counted:?}"));
    // Software GL draws 20-60 frames a second here (107 in 4.9 s on a
    // loaded machine): a video needs a few a second.
    assert!(frames >= 25, "only {frames} frames in {length:.2} s");
    let (first, last) = (frame(&dir, video, 0), frame(&dir, video, frames - 1));
    assert!(
        !first.is_empty() && first.len() == last.len(),
        "frames 0 and {} did not decode ({} and {} bytes)",
        frames - 1,
        first.len(),
        last.len()
    );
    assert_ne!(
        first, last,
        "the first and last frames are the same picture"
    );
}
