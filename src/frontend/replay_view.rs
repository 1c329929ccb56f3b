//! The replay viewer: play, pause, single-step, x0.25..x8, seek anywhere.
//!
//! Seeking restores the nearest keyframe (a saved world every 5 seconds,
//! built while loading) and re-simulates at most 299 frames, so any seek in
//! a 10-minute match costs well under a millisecond of simulation per frame
//! skipped and never replays from the start.

use macroquad::prelude::*;

use super::assets::Align;
use super::chat_box;
use super::effects::EventLedger;
use super::hud;
use super::scene::{Motion, draw_world};
use super::window::{
    self, KeepAwake, Screenshot, Ui, WindowError, end_frame, enter_screen, pressed, save_screenshot,
};
use crate::replay::Replay;
use crate::session::FrameReport;
use crate::sim::FPS;
use crate::sim::World;

const KEYFRAME_INTERVAL: u32 = 300;
const SEEK_STEP: u32 = 5 * FPS;

struct Timeline {
    replay: Replay,
    /// World at frame k * KEYFRAME_INTERVAL.
    keyframes: Vec<Box<World>>,
    /// (frame, recorded checksum matched) for every recorded checksum.
    checks: Vec<(u32, bool)>,
}

impl Timeline {
    fn build(replay: Replay) -> Option<Timeline> {
        let mut world = crate::replay::simulate_to(&replay, 0)?;
        let mut keyframes = vec![world.clone()];
        let mut checks = Vec::new();
        let mut recorded = replay.checksums.iter().peekable();
        for inputs in &replay.inputs {
            world.step(*inputs, &mut ());
            if world.frame % KEYFRAME_INTERVAL == 0 {
                keyframes.push(world.clone());
            }
            if let Some((frame, checksum)) = recorded.next_if(|(f, _)| *f == world.frame) {
                checks.push((*frame, *checksum == world.checksum()));
            }
        }
        Some(Timeline {
            replay,
            keyframes,
            checks,
        })
    }

    fn len(&self) -> u32 {
        self.replay.frames()
    }

    fn seek(&self, frame: u32) -> Box<World> {
        let frame = frame.min(self.len());
        let mut world = self.keyframes[(frame / KEYFRAME_INTERVAL) as usize].clone();
        while world.frame < frame {
            world.step(self.replay.inputs[world.frame as usize], &mut ());
        }
        world
    }

    /// The verdict of the last recorded checksum at or before `frame`.
    fn check_at(&self, frame: u32) -> Option<(u32, bool)> {
        self.checks
            .iter()
            .take_while(|(f, _)| *f <= frame)
            .last()
            .copied()
    }
}

/// Opens a window on `replay`. With `capture`, shows frame
/// `capture.after_frames`, saves the screenshot and closes.
pub fn run(
    replay: Replay,
    title: &str,
    capture: Option<Screenshot>,
) -> Result<Option<Result<(), String>>, WindowError> {
    let name = title.to_string();
    let title = format!("twinstar replay - {title}");
    window::open(&title, move |mut ui| async move {
        view(&mut ui, replay, &name, capture.as_ref()).await
    })
    .map(Option::flatten)
}

/// The viewer inside an open window; returns when the player presses Esc
/// (`None`) or the capture was taken.
pub async fn view(
    ui: &mut Ui,
    replay: Replay,
    name: &str,
    capture: Option<&Screenshot>,
) -> Option<Result<(), String>> {
    enter_screen();
    let chat = chat_box::replay_lines(&replay.events);
    let names = replay.header.player_names();
    let timeline = Timeline::build(replay)?;
    let mut world = timeline.seek(capture.map_or(0, |c| c.after_frames));
    let mut paused = false;
    let mut speed = 1.0f32;
    let mut pending = 0.0f32;
    let tick = 1.0 / FPS as f32;
    let mut ledger = EventLedger::new();
    let mut motion = Motion::default();
    let _awake = KeepAwake::hold();
    // The page's Save as video: the video's file name while recording.
    let mut recording: Option<String> = None;
    tracing::info!("replay viewer: {name}, {} frames", timeline.len());
    loop {
        if pressed(KeyCode::Escape) {
            stop_recording(&mut recording);
            return None;
        }
        if pressed(KeyCode::V) {
            if recording.is_some() {
                stop_recording(&mut recording);
            } else if let Some(file) = start_recording(name) {
                // From the start, at normal speed, to the end.
                world = timeline.seek(0);
                ledger.clear();
                (paused, speed, pending) = (false, 1.0, 0.0);
                recording = Some(file);
            }
        }
        pace_keys(&mut paused, &mut speed);
        if let Some(frame) = seek_key(world.frame, timeline.len()) {
            world = timeline.seek(frame);
            // Effects belong to the timeline left behind.
            ledger.clear();
        }
        let single_step = paused && pressed(KeyCode::Period);
        if !paused {
            pending += get_frame_time().min(0.25) * speed;
        }
        while (pending >= tick || single_step) && world.frame < timeline.len() {
            motion.remember(&world);
            step(&mut world, &timeline, &mut ledger);
            if single_step {
                break;
            }
            pending -= tick;
        }
        if world.frame >= timeline.len() {
            pending = 0.0;
            stop_recording(&mut recording);
        }
        let alpha = if paused {
            1.0
        } else {
            (pending / tick).clamp(0.0, 1.0)
        };
        let layout = draw_world(&ui.sprites, &world, &motion, &ledger, alpha, 0.0);
        hud::draw_hud(&ui.sprites, &world, &layout, &ledger, &names);
        chat.draw(&ui.sprites.font, &layout, world.frame, &names);
        // A video shows the match, not the viewer's controls.
        if recording.is_none() {
            draw_bar(ui, &timeline, &world, paused, speed, name);
        }
        if let Some(shot) = capture {
            return Some(save_screenshot(&shot.path));
        }
        end_frame().await;
    }
}

/// Space pauses and resumes, Up and Down double and halve the speed
/// (1/4× to 8×).
fn pace_keys(paused: &mut bool, speed: &mut f32) {
    if pressed(KeyCode::Space) {
        *paused = !*paused;
    }
    if pressed(KeyCode::Up) {
        *speed = (*speed * 2.0).min(8.0);
    }
    if pressed(KeyCode::Down) {
        *speed = (*speed / 2.0).max(0.25);
    }
}

/// Plays the replay's next frame, its events to the ledger (effects and
/// sounds).
fn step(world: &mut World, timeline: &Timeline, ledger: &mut EventLedger) {
    let mut report = FrameReport::default();
    let mut events = Vec::new();
    world.step(timeline.replay.inputs[world.frame as usize], &mut events);
    report.simulated = Some((world.frame, world.frame));
    report.events = events.into_iter().map(|e| (world.frame, e)).collect();
    ledger.apply(&report);
}

/// The frame a seek key asks for from `frame`: Right and Left 5 s on and
/// back, Home the start, End the end (`len`).
fn seek_key(frame: u32, len: u32) -> Option<u32> {
    if pressed(KeyCode::Right) {
        Some(frame.saturating_add(SEEK_STEP))
    } else if pressed(KeyCode::Left) {
        Some(frame.saturating_sub(SEEK_STEP))
    } else if pressed(KeyCode::Home) {
        Some(0)
    } else if pressed(KeyCode::End) {
        Some(len)
    } else {
        None
    }
}

/// Starts the page's recording of the replay from its start: the video's
/// file name, or `None` (said in the log) where it cannot record (natively
/// `twinstar replay FILE --video OUT.mp4` makes one, with the sound).
fn start_recording(name: &str) -> Option<String> {
    let file = video_file_name(name);
    if crate::platform::screen::record_canvas(Some(&file)) {
        tracing::info!("video: recording {file} from frame 0");
        Some(file)
    } else if crate::platform::downloads::IN_PAGE {
        tracing::warn!("video: this browser cannot record the page (no MediaRecorder with WebM)");
        None
    } else {
        tracing::warn!("video: run `twinstar replay FILE --video OUT.mp4` to save one");
        None
    }
}

/// Stops a recording, if one runs: the page offers the video as a download.
fn stop_recording(recording: &mut Option<String>) {
    if let Some(file) = recording.take() {
        crate::platform::screen::record_canvas(None);
        tracing::info!("video: stopped {file}");
    }
}

/// `twinstar-replay-NAME.webm`, from the replay's name (a path or a link)
/// with only the characters a file name keeps everywhere.
fn video_file_name(name: &str) -> String {
    let stem = name
        .rsplit(['/', '\\', '='])
        .next()
        .unwrap_or(name)
        .trim_end_matches(".tsr");
    let safe: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect();
    format!("twinstar-replay-{safe}.webm")
}

fn draw_bar(ui: &Ui, timeline: &Timeline, world: &World, paused: bool, speed: f32, name: &str) {
    let font = &ui.sprites.font;
    let total = timeline.len();
    let h = 84.0;
    let top = screen_height() - h;
    draw_rectangle(0.0, top, screen_width(), h, Color::new(0.0, 0.0, 0.05, 0.8));
    let y = top + 44.0;
    let width = screen_width() - 40.0;
    draw_rectangle(20.0, y, width, 8.0, Color::from_rgba(50, 50, 80, 255));
    let done = if total == 0 {
        1.0
    } else {
        world.frame as f32 / total as f32
    };
    draw_rectangle(
        20.0,
        y,
        width * done,
        8.0,
        Color::from_rgba(120, 160, 255, 255),
    );
    for &(frame, ok) in &timeline.checks {
        if !ok {
            let x = 20.0 + width * frame as f32 / total.max(1) as f32;
            draw_rectangle(x, y - 4.0, 2.0, 16.0, RED);
        }
    }
    let (check, color) = match timeline.check_at(world.frame) {
        None => ("no checksum yet".to_string(), WHITE),
        Some((f, true)) => (
            format!("checksum OK at {f}"),
            Color::new(0.5, 1.0, 0.5, 1.0),
        ),
        Some((f, false)) => (format!("CHECKSUM MISMATCH at {f}"), RED),
    };
    let state = if paused { "PAUSED" } else { "playing" };
    let secs = |f: u32| format!("{}:{:02}", f / FPS / 60, f / FPS % 60);
    let line = format!(
        "REPLAY {name}  {} / {}  frame {}/{}  {state} x{speed}",
        secs(world.frame),
        secs(total),
        world.frame,
        total
    );
    font.draw(&line, 20.0, top + 8.0, 2.0, WHITE, Align::Left);
    font.draw(
        &check,
        screen_width() - 20.0,
        top + 8.0,
        2.0,
        color,
        Align::Right,
    );
    let keys = if crate::platform::downloads::IN_PAGE {
        "Space pause  . step  Up/Down speed  Left/Right 5 s  Home/End  V video  Esc back"
    } else {
        "Space pause  . step  Up/Down speed  Left/Right 5 s  Home/End  Esc back"
    };
    font.draw(
        keys,
        screen_width() / 2.0,
        top + 56.0,
        2.0,
        Color::new(0.6, 0.65, 0.8, 1.0),
        Align::Center,
    );
}

#[cfg(test)]
mod tests {
    use super::video_file_name;

    #[test]
    fn a_videos_name_comes_from_the_replays_without_path_or_odd_characters() {
        assert_eq!(
            video_file_name("replays/K7Q-2XM 1.tsr"),
            "twinstar-replay-K7Q-2XM_1.webm"
        );
        assert_eq!(
            video_file_name("https://example.org/#replay=ab12"),
            "twinstar-replay-ab12.webm"
        );
        assert_eq!(video_file_name(r"C:\m\x.tsr"), "twinstar-replay-x.webm");
    }
}
