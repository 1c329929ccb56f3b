//! `twinstar replay FILE --video OUT`: a 10-second clip of a recorded bot
//! match rendered in a real (virtual) window and encoded by ffmpeg, read
//! back by ffprobe; and the one-line refusals (no ffmpeg, a bad clip, a
//! bad name). Needs Xvfb and ffmpeg (scripts/test.sh installs both as
//! root: scripts/lib/debian-packages.sh).

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{Display, LIMIT, Twinstar, last_json, run, scratch};

/// A bot match of `frames` frames recorded as `dir/r.tsr`.
fn record(dir: &Path, frames: &str) -> String {
    let out = run(
        dir,
        &[
            "local",
            "--headless",
            "--bot",
            "--frames",
            frames,
            "--seed",
            "31",
            "--record",
            "r.tsr",
        ],
        LIMIT,
    );
    assert!(out.status.success(), "{}", out.stderr);
    "r.tsr".into()
}

/// `tool ARGS`'s stdout; fails with its stderr.
pub fn tool(dir: &Path, tool: &str, args: &[&str]) -> Vec<u8> {
    let out = Command::new(tool)
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {tool} ({e}): apt-get install ffmpeg"));
    assert!(
        out.status.success(),
        "{tool} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Frame `n` of `video` as raw RGB bytes.
pub fn frame(dir: &Path, video: &str, n: u32) -> Vec<u8> {
    let select = format!("select=eq(n\\,{n})");
    tool(
        dir,
        "ffmpeg",
        &[
            "-v",
            "error",
            "-i",
            video,
            "-vf",
            &select,
            "-frames:v",
            "1",
            "-f",
            "rawvideo",
            "-pix_fmt",
            "rgb24",
            "-",
        ],
    )
}

#[test]
fn a_ten_second_clip_has_600_frames_that_change_and_a_sound_track() {
    let display = Display::start();
    let dir = scratch("clip");
    let replay = record(&dir, "700");
    let args = [
        "replay",
        &replay,
        "--video",
        "clip.mp4",
        "--from",
        "60",
        "--to",
        "660",
        "--video-size",
        "640x360",
        "--json",
    ];
    let out = Twinstar::spawn_in_window(&dir, &args, &display).finish(Duration::from_secs(300));
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
    let summary = last_json(&out.stdout);
    assert_eq!(summary["mode"], "replay-video", "{summary}");
    assert_eq!(summary["frames"], 600, "{summary}");
    assert_eq!(summary["checksum_frame"], 660, "{summary}");
    let bytes = std::fs::metadata(dir.join("clip.mp4")).unwrap().len();
    assert_eq!(summary["bytes"], bytes, "{summary}");
    assert!(summary["render_fps"].as_f64().unwrap() > 0.0, "{summary}");
    eprintln!(
        "replay video: 600 frames at 640x360 rendered at {} frames/s, {bytes} B",
        summary["render_fps"]
    );

    let probe = tool(
        &dir,
        "ffprobe",
        &[
            "-v",
            "error",
            "-count_frames",
            "-show_entries",
            "stream=codec_type,nb_read_frames,duration,width,height",
            "-of",
            "json",
            "clip.mp4",
        ],
    );
    let probe: serde_json::Value = serde_json::from_slice(&probe).unwrap();
    let streams = probe["streams"].as_array().unwrap();
    let of = |kind: &str| streams.iter().find(|s| s["codec_type"] == kind);
    let video = of("video").unwrap_or_else(|| panic!("no video stream: {probe}"));
    assert_eq!(video["nb_read_frames"], "600", "{probe}");
    assert_eq!(
        (video["width"].as_u64(), video["height"].as_u64()),
        (Some(640), Some(360))
    );
    let duration: f64 = video["duration"].as_str().unwrap().parse().unwrap();
    assert!((duration - 10.0).abs() <= 0.05, "{duration} s: {probe}");
    let audio = of("audio").unwrap_or_else(|| panic!("no sound track: {probe}"));
    let heard: f64 = audio["duration"].as_str().unwrap().parse().unwrap();
    assert!((heard - 10.0).abs() <= 0.1, "sound of {heard} s: {probe}");

    let (first, last) = (frame(&dir, "clip.mp4", 0), frame(&dir, "clip.mp4", 599));
    assert_eq!(first.len(), 640 * 360 * 3);
    assert_eq!(last.len(), first.len());
    let differing = first
        .chunks_exact(3)
        .zip(last.chunks_exact(3))
        .filter(|(a, b)| a.iter().zip(b.iter()).any(|(p, q)| p.abs_diff(*q) > 24))
        .count();
    assert!(
        differing > 640 * 360 / 100,
        "the first and last frames differ in only {differing} pixels"
    );
}

#[test]
fn without_ffmpeg_the_video_is_refused_in_one_line() {
    let dir = scratch("no-ffmpeg");
    let empty = dir.join("bin");
    std::fs::create_dir_all(&empty).unwrap();
    let mut command = common::command(&dir, &["replay", "r.tsr", "--video", "out.mp4"]);
    command.env("PATH", &empty);
    let out = Twinstar::spawn_command(command).finish(LIMIT);
    assert_eq!(out.code(), Some(2), "{}", out.stderr);
    assert_eq!(
        out.stderr.trim(),
        "twinstar: --video needs ffmpeg (Debian: apt-get install ffmpeg)"
    );
    assert!(!dir.join("out.mp4").exists());
}

#[test]
fn a_bad_clip_or_name_is_refused_in_one_line() {
    let dir = scratch("bad-clip");
    let replay = record(&dir, "120");
    let cases: [(&[&str], &str); 6] = [
        (
            &["--video", "a.mp4", "--from", "100", "--to", "50"],
            "--from 100 must be before --to 50",
        ),
        (
            &["--video", "a.mp4", "--to", "121"],
            "--to 121 is past the replay's end (it has 120 frames)",
        ),
        (&["--video", "a.avi"], "the file must end in .mp4 or .webm"),
        (
            &["--from", "10"],
            "--from is for a video; add --video OUT.mp4",
        ),
        (
            &["--video", "a.mp4", "--video-size", "641x360"],
            "width and height must be even",
        ),
        (&["--video", "a.mp4", "--headless"], "cannot be used with"),
    ];
    for (extra, expected) in cases {
        let mut args = vec!["replay", replay.as_str()];
        args.extend_from_slice(extra);
        let out = run(&dir, &args, LIMIT);
        let said = out.stderr.trim();
        assert_eq!(out.code(), Some(2), "{args:?}: {said}");
        assert_eq!(said.lines().count(), 1, "{args:?}: {said}");
        assert!(said.starts_with("twinstar: "), "{args:?}: {said}");
        assert!(said.contains(expected), "{args:?}: {said}");
        assert!(!dir.join("a.mp4").exists());
    }
}
