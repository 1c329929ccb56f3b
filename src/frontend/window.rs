//! The macroquad window: a fixed 60 Hz simulation under any display rate,
//! simple shapes for now.

use std::sync::{Arc, Mutex};

use macroquad::prelude::*;

use super::InputSource;
use crate::session::{Driver, FPS, SessionError};
use crate::sim::{ARENA_HEIGHT, ARENA_WIDTH, EnemyKind, Fx, OWNER_ENEMY, World};

const TICK: f32 = 1.0 / FPS as f32;
/// Longest stretch of wall time one display frame may catch up on, so a
/// stall (window drag, debugger) does not turn into a burst of frames.
const MAX_CATCH_UP: f32 = 0.25;

#[derive(Debug, thiserror::Error)]
pub enum WindowError {
    #[error("no display found (DISPLAY and WAYLAND_DISPLAY are unset); run with --headless")]
    NoDisplay,
    #[error(transparent)]
    Session(#[from] SessionError),
}

/// Whether a window could open at all (X11 or Wayland).
pub fn display_available() -> bool {
    std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some()
}

/// The driver after a window run, and the error that ended it, if any.
type Outcome = (Driver, Option<SessionError>);

/// Opens the window and plays until Esc, the window closes, or `frames`.
/// Returns the driver (so the caller can summarise the run) and how it ended.
pub fn run(
    driver: Driver,
    sources: [InputSource; 2],
    frames: Option<u32>,
    title: &str,
) -> (Driver, Result<(), WindowError>) {
    if !display_available() {
        return (driver, Err(WindowError::NoDisplay));
    }
    let slot: Arc<Mutex<Option<Outcome>>> = Arc::default();
    let out = slot.clone();
    let conf = Conf {
        window_title: title.to_string(),
        window_width: 1280,
        window_height: 720,
        high_dpi: true,
        ..Default::default()
    };
    macroquad::Window::from_config(conf, async move {
        let result = play(driver, sources, frames).await;
        *out.lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
    });
    let (driver, error) = slot
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
        .expect("the window loop always reports back");
    let result = match error {
        None => Ok(()),
        Some(e) => Err(e.into()),
    };
    (driver, result)
}

async fn play(mut driver: Driver, mut sources: [InputSource; 2], frames: Option<u32>) -> Outcome {
    let mut pending = 0.0f32;
    loop {
        if is_key_pressed(KeyCode::Escape) {
            return (driver, None);
        }
        pending += get_frame_time().min(MAX_CATCH_UP);
        while pending >= TICK {
            pending -= TICK;
            let inputs = [sources[0].next(is_key_down), sources[1].next(is_key_down)];
            if let Err(e) = driver.advance(inputs) {
                return (driver, Some(e));
            }
            if frames.is_some_and(|n| driver.world().frame >= n) {
                return (driver, None);
            }
        }
        draw_world(driver.world());
        next_frame().await;
    }
}

fn to_f32(v: Fx) -> f32 {
    v.to_num::<f32>()
}

pub(crate) fn draw_world(world: &World) {
    clear_background(Color::from_rgba(8, 10, 24, 255));
    let (aw, ah) = (to_f32(ARENA_WIDTH), to_f32(ARENA_HEIGHT));
    let scale = (screen_width() / aw).min(screen_height() / ah);
    let (ox, oy) = (
        (screen_width() - aw * scale) / 2.0,
        (screen_height() - ah * scale) / 2.0,
    );
    let at = |x: Fx, y: Fx| (ox + to_f32(x) * scale, oy + to_f32(y) * scale);
    draw_rectangle_lines(
        ox,
        oy,
        aw * scale,
        ah * scale,
        2.0,
        Color::from_rgba(60, 70, 120, 255),
    );

    for e in world.enemies() {
        let (x, y) = at(e.pos.x, e.pos.y);
        let color = match e.kind() {
            EnemyKind::Wanderer => Color::from_rgba(120, 220, 120, 255),
            EnemyKind::Shooter => Color::from_rgba(240, 170, 60, 255),
            EnemyKind::Charger => Color::from_rgba(240, 80, 90, 255),
        };
        draw_circle(x, y, 10.0 * scale, color);
    }
    for b in world.bullets() {
        let (x, y) = at(b.pos.x, b.pos.y);
        let (r, color) = if b.owner == OWNER_ENEMY {
            (4.0, Color::from_rgba(255, 120, 200, 255))
        } else {
            (3.0, WHITE)
        };
        draw_circle(x, y, r * scale, color);
    }
    let ship_colors = [
        Color::from_rgba(80, 200, 255, 255),
        Color::from_rgba(255, 220, 90, 255),
    ];
    for (p, color) in world.players.iter().zip(ship_colors) {
        let blink = p.invulnerable > 0 && (world.frame / 4) % 2 == 0;
        if p.alive == 0 || blink {
            continue;
        }
        let (x, y) = at(p.pos.x, p.pos.y);
        let s = 9.0 * scale;
        draw_triangle(
            vec2(x, y - s),
            vec2(x - s * 0.8, y + s * 0.7),
            vec2(x + s * 0.8, y + s * 0.7),
            color,
        );
    }

    let hud = format!(
        "wave {}   P1 {} ({} lives)   P2 {} ({} lives)   team {}   frame {}",
        world.spawner.wave,
        world.players[0].score,
        world.players[0].lives,
        world.players[1].score,
        world.players[1].lives,
        world.shared_score(),
        world.frame
    );
    draw_text(&hud, ox + 8.0, oy + 22.0, 24.0, WHITE);
    if world.is_game_over() {
        let msg = "GAME OVER - both players press start (1 and 2)";
        let size = measure_text(msg, None, 40, 1.0);
        draw_text(
            msg,
            (screen_width() - size.width) / 2.0,
            screen_height() / 2.0,
            40.0,
            WHITE,
        );
    }
}
