//! The replay viewer: play, pause, single-step, x0.25..x8, seek anywhere.
//!
//! Seeking restores the nearest keyframe (a saved world every 5 seconds,
//! built while loading) and re-simulates at most 299 frames, so any seek in
//! a 10-minute match costs well under a millisecond of simulation per frame
//! skipped and never replays from the start.

use macroquad::prelude::*;

use super::window::draw_world;
use crate::replay::Replay;
use crate::session::FPS;
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

pub fn run(replay: Replay, title: &str) {
    let conf = Conf {
        window_title: format!("twinstar replay - {title}"),
        window_width: 1280,
        window_height: 720,
        ..Default::default()
    };
    macroquad::Window::from_config(conf, async move {
        if let Some(timeline) = Timeline::build(replay) {
            view(timeline).await;
        }
    });
}

async fn view(timeline: Timeline) {
    let mut world = timeline.seek(0);
    let mut paused = false;
    let mut speed = 1.0f32;
    let mut pending = 0.0f32;
    let tick = 1.0 / FPS as f32;
    loop {
        if is_key_pressed(KeyCode::Escape) {
            return;
        }
        if is_key_pressed(KeyCode::Space) {
            paused = !paused;
        }
        if is_key_pressed(KeyCode::Up) {
            speed = (speed * 2.0).min(8.0);
        }
        if is_key_pressed(KeyCode::Down) {
            speed = (speed / 2.0).max(0.25);
        }
        let seek_to = if is_key_pressed(KeyCode::Right) {
            Some(world.frame.saturating_add(SEEK_STEP))
        } else if is_key_pressed(KeyCode::Left) {
            Some(world.frame.saturating_sub(SEEK_STEP))
        } else if is_key_pressed(KeyCode::Home) {
            Some(0)
        } else if is_key_pressed(KeyCode::End) {
            Some(timeline.len())
        } else {
            None
        };
        if let Some(frame) = seek_to {
            world = timeline.seek(frame);
        }
        let single_step = paused && is_key_pressed(KeyCode::Period);
        if !paused {
            pending += get_frame_time().min(0.25) * speed;
        }
        while (pending >= tick || single_step) && world.frame < timeline.len() {
            world.step(timeline.replay.inputs[world.frame as usize], &mut ());
            if single_step {
                break;
            }
            pending -= tick;
        }
        if world.frame >= timeline.len() {
            pending = 0.0;
        }
        draw_world(&world);
        draw_hud(&timeline, &world, paused, speed);
        next_frame().await;
    }
}

fn draw_hud(timeline: &Timeline, world: &World, paused: bool, speed: f32) {
    let total = timeline.len();
    let y = screen_height() - 48.0;
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
    let check = match timeline.check_at(world.frame) {
        None => "no checksum yet".to_string(),
        Some((f, true)) => format!("checksum OK at frame {f}"),
        Some((f, false)) => format!("CHECKSUM MISMATCH at frame {f}"),
    };
    let state = if paused { "paused" } else { "playing" };
    let line = format!(
        "frame {}/{}  {state} x{speed}  {check}   Space pause  . step  Up/Down speed  Left/Right seek 5 s  Home/End  Esc",
        world.frame, total
    );
    draw_text(&line, 20.0, y - 10.0, 20.0, WHITE);
}
