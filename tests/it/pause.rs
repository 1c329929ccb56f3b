//! Pausing a match nobody else plays (issue 58): `twinstar solo` in a
//! window under Xvfb, driven from its keyboard. The first match on a
//! device shows the controls card (the first key dismisses it, and it is
//! not shown again); Esc pauses — the simulation stops, so the frame the
//! pause began is the frame it resumes at, and the replay holds no frame
//! for the paused seconds; the pause menu's last row leaves.

use crate::common;

use std::time::{Duration, Instant};

use common::{Display, Twinstar, scratch};

/// The frame after `prefix` in `stderr`, which must say it.
fn frame_after(stderr: &str, prefix: &str) -> u32 {
    common::frame_after(stderr, prefix)
        .unwrap_or_else(|| panic!("no frame after '{prefix}' in:\n{stderr}"))
}

#[test]
fn solo_pauses_with_esc_records_no_frame_while_paused_resumes_and_leaves_from_the_menu() {
    let display = Display::start();
    let dir = scratch("pause-solo");
    let config = dir.join("settings.toml");
    let args = ["solo", "--volume", "0", "--record", "solo.tsr", "--json"];
    let mut command = common::command(&dir, &args);
    command.env("DISPLAY", &display.name);
    command.env("TWINSTAR_CONFIG", &config);
    let mut solo = Twinstar::spawn_command(command);
    let limit = Duration::from_secs(30);
    assert!(
        solo.wait_for("the controls card is shown", limit),
        "{}",
        solo.stderr()
    );
    let started = Instant::now();
    std::thread::sleep(Duration::from_millis(500));
    // Any key dismisses the card (it would go at the first wave anyway).
    display.type_keys(&["<Escape>"]);
    assert!(
        solo.wait_for("the controls card was dismissed", limit),
        "{}",
        solo.stderr()
    );
    std::thread::sleep(Duration::from_millis(500));
    display.type_keys(&["<Escape>"]);
    assert!(solo.wait_for("paused at frame", limit), "{}", solo.stderr());
    std::thread::sleep(Duration::from_secs(2));
    // Esc again resumes (the menu opens on RESUME).
    display.type_keys(&["<Escape>"]);
    assert!(
        solo.wait_for("resumed at frame", limit),
        "{}",
        solo.stderr()
    );
    std::thread::sleep(Duration::from_millis(500));
    // Pause, then Up wraps to the last row, LEAVE THE MATCH.
    display.type_keys(&["<Escape>", "@0.3", "<Up>", "@0.3", "<Return>"]);
    let solo = solo.finish(limit);
    let ran_for = started.elapsed();
    assert_eq!(solo.code(), Some(0), "{}", solo.report("solo", 30));
    let paused = frame_after(&solo.stderr, "paused at frame ");
    let resumed = frame_after(&solo.stderr, "resumed at frame ");
    assert_eq!(paused, resumed, "frames ran while paused:\n{}", solo.stderr);
    let left = frame_after(&solo.stderr, "left from the match's menu at frame ");
    let summary = solo.summary();
    assert_eq!(summary["mode"], "solo", "{summary}");
    assert_eq!(summary["frames"], left, "{summary}");
    // Two seconds paused (and the second pause's moments) are not in the
    // match: it is at least 100 frames shorter than the time it was open.
    let open_frames = (ran_for.as_secs_f64() * 60.0) as u32;
    assert!(
        left + 100 < open_frames,
        "{left} frames in {ran_for:?}: the pause did not stop the clock"
    );
    let replay = twinstar::replay::read(&dir.join("solo.tsr")).unwrap();
    assert_eq!(replay.frames(), left, "the replay holds other frames");
    // The card was seen: the settings remember it.
    let settings = std::fs::read_to_string(&config).unwrap_or_default();
    assert!(
        settings.contains("controls_seen = true"),
        "settings:\n{settings}"
    );
}
