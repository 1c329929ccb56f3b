//! The macroquad window: a fixed 60 Hz simulation under any display rate,
//! simple shapes for now.

use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Instant;

use macroquad::prelude::*;

use super::InputSource;
use crate::app::Failure;
use crate::net::connect::{BackgroundConnect, ConnectError, Connection, Connector};
use crate::session::{Driver, NetStatus, Pacer, SessionError};
use crate::sim::{ARENA_HEIGHT, ARENA_WIDTH, EnemyKind, Fx, OWNER_ENEMY, World};

/// Most frames simulated per drawn frame, so a stall (window drag,
/// debugger) does not turn into a burst (the pacer also drops old debt).
const MAX_FRAMES_PER_DRAW: u32 = 8;

#[derive(Debug, thiserror::Error)]
pub enum WindowError {
    #[error("no display found (DISPLAY and WAYLAND_DISPLAY are unset); run with --headless")]
    NoDisplay,
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Connect(ConnectError),
    #[error("{}", match .0 { Failure::BadInput(m) | Failure::Runtime(m, _) => m })]
    Setup(Failure),
}

/// Whether a window could open at all (X11 or Wayland).
pub fn display_available() -> bool {
    std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some()
}

/// The driver after a window run, and the error that ended it, if any.
type Outcome = (Driver, Option<SessionError>);

fn window_conf(title: &str) -> Conf {
    Conf {
        window_title: title.to_string(),
        window_width: 1280,
        window_height: 720,
        high_dpi: true,
        ..Default::default()
    }
}

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
    macroquad::Window::from_config(window_conf(title), async move {
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

/// Online in a window: a progress screen through the connection stages,
/// then the match, in the same window. `setup` turns the connection into a
/// driver and input sources.
pub fn run_online(
    connector: Connector,
    setup: impl FnOnce(Connection) -> Result<(Driver, [InputSource; 2]), Failure> + 'static,
    frames: Option<u32>,
    title: &str,
) -> (Option<Driver>, Result<(), WindowError>) {
    type Online = (Option<Driver>, Result<(), WindowError>);
    if !display_available() {
        return (None, Err(WindowError::NoDisplay));
    }
    let slot: Arc<Mutex<Option<Online>>> = Arc::default();
    let out = slot.clone();
    let connecting = BackgroundConnect::spawn(connector);
    macroquad::Window::from_config(window_conf(title), async move {
        let result: Online = match connect_screen(connecting).await {
            Err(e) => (None, Err(e)),
            Ok(connection) => match setup(connection) {
                Err(f) => (None, Err(WindowError::Setup(f))),
                Ok((driver, sources)) => {
                    let (driver, error) = play(driver, sources, frames).await;
                    (Some(driver), error.map_or(Ok(()), |e| Err(e.into())))
                }
            },
        };
        *out.lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
    });
    let taken = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
    taken.unwrap_or((None, Ok(())))
}

async fn connect_screen(connecting: BackgroundConnect) -> Result<Connection, WindowError> {
    let room = connecting
        .room()
        .map_or_else(|| "quick match".to_string(), |r| format!("room {r}"));
    loop {
        if is_key_pressed(KeyCode::Escape) {
            return Err(WindowError::Connect(ConnectError::Cancelled));
        }
        if let Poll::Ready(result) = connecting.poll() {
            return result.map_err(WindowError::Connect);
        }
        let (stage, probes) = connecting.status();
        clear_background(Color::from_rgba(8, 10, 24, 255));
        let lines = [
            room.clone(),
            format!("{stage}..."),
            format!("latency probes: {probes}/{}", crate::net::handshake::PROBES),
            "Esc cancels".to_string(),
        ];
        for (i, line) in lines.iter().enumerate() {
            let size = if i == 0 { 56.0 } else { 28.0 };
            draw_text(line, 80.0, 160.0 + i as f32 * 60.0, size, WHITE);
        }
        next_frame().await;
    }
}

async fn play(mut driver: Driver, mut sources: [InputSource; 2], frames: Option<u32>) -> Outcome {
    let mut pacer = Pacer::new(Instant::now());
    loop {
        if is_key_pressed(KeyCode::Escape) {
            driver.say_goodbye("the player pressed Esc");
            return (driver, None);
        }
        if let Err(e) = driver.poll() {
            return (driver, Some(e));
        }
        let now = Instant::now();
        for _ in 0..MAX_FRAMES_PER_DRAW {
            let skip = driver.take_skip_frames();
            if !pacer.due(now, driver.frames_ahead(), skip) {
                break;
            }
            let inputs = [sources[0].next(is_key_down), sources[1].next(is_key_down)];
            if let Err(e) = driver.advance(inputs) {
                return (driver, Some(e));
            }
            if frames.is_some_and(|n| driver.confirmed_frames() >= n) {
                // Online: let the peer compare end checksums with ours.
                driver.announce_done();
                driver.say_goodbye("the match reached its last frame");
                return (driver, None);
            }
        }
        draw_world(driver.world());
        if let Some(status) = driver.net_status() {
            draw_net_status(&status);
        }
        next_frame().await;
    }
}

fn draw_net_status(status: &NetStatus) {
    let ping = status
        .ping_ms
        .map_or_else(|| "-".to_string(), |p| format!("{p:.0} ms"));
    let line = format!(
        "ping {ping}   input delay {}   ahead {}   {}",
        status.input_delay,
        status.frames_ahead,
        status.connection.unwrap_or("")
    );
    draw_text(&line, 16.0, screen_height() - 16.0, 24.0, WHITE);
    if !status.synchronized {
        draw_text(
            "synchronizing...",
            16.0,
            screen_height() - 48.0,
            32.0,
            YELLOW,
        );
    }
    if status.interrupted {
        draw_text(
            "CONNECTION INTERRUPTED",
            16.0,
            screen_height() - 48.0,
            32.0,
            RED,
        );
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
