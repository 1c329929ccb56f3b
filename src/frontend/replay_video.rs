//! A replay drawn for a video: every simulated frame of a clip drawn once,
//! whole (no interpolation between frames, no real-time pacing: the next
//! frame is drawn as soon as the last one is taken), read back from the
//! window as the screenshots are, and handed on as RGBA rows.
//!
//! The picture is the match as the viewer draws it (world, HUD, chat)
//! without the viewer's bar. Effects that began before the clip (a shake,
//! particles) are there from its first frame: the frames just before it
//! are simulated into the event ledger first.

use macroquad::prelude::*;

use super::chat_box;
use super::effects::{EventLedger, HISTORY_FRAMES};
use super::hud;
use super::scene::{Motion, draw_world};
use super::ui::{open_sized, screen_pixels};
use super::window::{Ui, WindowError, end_frame, pressed};
use crate::replay::Replay;
use crate::session::FrameReport;
use crate::sim::World;

/// Frames `from + 1 ..= to` of a replay: `to - from` frames.
#[derive(Clone, Copy, Debug)]
pub struct Clip {
    pub from: u32,
    pub to: u32,
}

/// Takes each frame's RGBA rows (top first) and says whether to go on.
pub type Sink = Box<dyn FnMut(&[u8]) -> Result<(), String>>;

/// Opens a window of `size` and draws `clip` of `replay` into `sink`, one
/// frame at a time. The world at the clip's last frame, or why it
/// stopped (the sink's error, Esc, a window of another size); `None` if
/// the window was closed.
pub fn render(
    replay: Replay,
    title: &str,
    clip: Clip,
    size: (u32, u32),
    mut sink: Sink,
) -> Result<Option<Result<Box<World>, String>>, WindowError> {
    let title = format!("twinstar video - {title}");
    super::audio::no_device_needed();
    open_sized(&title, size, move |ui| async move {
        let result = frames(&ui, &replay, clip, size, &mut sink).await;
        // The encoder sees the end of its frames here, not when the
        // window's loop lets this future go.
        drop(sink);
        result
    })
}

/// Steps `world` one frame, its events into the ledger.
fn step(world: &mut World, replay: &Replay, ledger: &mut EventLedger, motion: &mut Motion) {
    motion.remember(world);
    let mut events = Vec::new();
    world.step(replay.inputs[world.frame as usize], &mut events);
    let report = FrameReport {
        simulated: Some((world.frame, world.frame)),
        events: events.into_iter().map(|e| (world.frame, e)).collect(),
        ..FrameReport::default()
    };
    ledger.apply(&report);
}

async fn frames(
    ui: &Ui,
    replay: &Replay,
    clip: Clip,
    (width, height): (u32, u32),
    sink: &mut Sink,
) -> Result<Box<World>, String> {
    let chat = chat_box::replay_lines(&replay.events);
    let names = replay.header.player_names();
    let warm_from = clip.from.saturating_sub(HISTORY_FRAMES);
    let mut world = crate::replay::simulate_to(replay, warm_from)
        .ok_or_else(|| "unreadable simulation config".to_string())?;
    let mut ledger = EventLedger::new();
    let mut motion = Motion::default();
    while world.frame < clip.from {
        step(&mut world, replay, &mut ledger, &mut motion);
    }
    while world.frame < clip.to {
        if pressed(KeyCode::Escape) {
            return Err(format!("stopped by Esc at frame {}", world.frame));
        }
        step(&mut world, replay, &mut ledger, &mut motion);
        let layout = draw_world(&ui.sprites, &world, &motion, &ledger, 1.0, 0.0);
        hud::draw_hud(&ui.sprites, &world, &layout, &ledger, &names);
        chat.draw(&ui.sprites.font, &layout, world.frame, &names);
        let (w, h, pixels) = screen_pixels();
        if (w, h) != (width, height) {
            return Err(format!(
                "the window is {w}x{h}, not the video's {width}x{height} (was it resized?)"
            ));
        }
        sink(&pixels)?;
        end_frame().await;
    }
    Ok(world)
}
