//! Pong's window: the field, the paddles, the ball and the score, drawn
//! between the frames the match asks for; W/S or the arrow keys move this
//! machine's paddle, Esc leaves. Everything else is the match's
//! (`twinstar_netcode::session::Match`), as in the headless loop.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use macroquad::prelude::*;
use pong::{DOWN, Pong, State, UP, bot};
use twinstar_netcode::session::{Finished, Match, Next};

/// Whether a window can open here (natively: an X11 or Wayland display).
pub fn display_available() -> bool {
    let set = |name| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    cfg!(not(target_os = "linux")) || set("DISPLAY") || set("WAYLAND_DISPLAY")
}

/// Plays `game` in a window: the keyboard for player `keys`' slot (a bot
/// elsewhere; `None`: a spectator, nobody's), until the match is over or
/// the window closes. `None` if the window closed before the end.
pub fn play(
    game: Match<Pong, 2>,
    keys: Option<usize>,
    bots: [bool; 2],
) -> Option<Finished<Pong, 2>> {
    let slot: Arc<Mutex<Option<Finished<Pong, 2>>>> = Arc::default();
    let out = slot.clone();
    let conf = Conf {
        window_title: "pong".to_string(),
        window_width: 960,
        window_height: 540,
        ..Conf::default()
    };
    macroquad::Window::from_config(conf, async move {
        let finished = run(game, keys, bots).await;
        *out.lock().unwrap_or_else(|e| e.into_inner()) = Some(finished);
    });
    slot.lock().unwrap_or_else(|e| e.into_inner()).take()
}

async fn run(mut game: Match<Pong, 2>, keys: Option<usize>, bots: [bool; 2]) -> Finished<Pong, 2> {
    loop {
        if is_key_pressed(KeyCode::Escape) {
            game.leave("the player left");
        }
        match game.next(Instant::now()) {
            Next::Frame => {
                let state = game.driver().world();
                let mut inputs = [0; 2];
                for (player, input) in inputs.iter_mut().enumerate() {
                    *input = match (keys, bots[player]) {
                        (Some(k), _) if k == player => held(),
                        (_, true) => bot(state, player),
                        _ => 0,
                    };
                }
                game.advance(inputs);
            }
            Next::Wait(_) => {
                draw(game.driver().world());
                next_frame().await;
            }
            Next::Over => return game.finish(),
        }
    }
}

/// This frame's buttons.
fn held() -> u8 {
    let up = is_key_down(KeyCode::W) || is_key_down(KeyCode::Up);
    let down = is_key_down(KeyCode::S) || is_key_down(KeyCode::Down);
    (u8::from(up) * UP) | (u8::from(down) * DOWN)
}

/// The field scaled into the window (640 x 360 units).
fn draw(state: &State) {
    clear_background(Color::from_rgba(12, 14, 24, 255));
    let scale = (screen_width() / 640.0).min(screen_height() / 360.0);
    let (ox, oy) = (
        (screen_width() - 640.0 * scale) / 2.0,
        (screen_height() - 360.0 * scale) / 2.0,
    );
    let at = |x: f32, y: f32| (ox + x * scale, oy + y * scale);
    let (x0, y0) = at(0.0, 0.0);
    draw_rectangle_lines(x0, y0, 640.0 * scale, 360.0 * scale, 2.0, GRAY);
    for (player, paddle) in state.paddles.iter().enumerate() {
        let (x, y) = at([16.0, 616.0][player], paddle.to_num::<f32>() - 30.0);
        draw_rectangle(x, y, 8.0 * scale, 60.0 * scale, WHITE);
    }
    let (bx, by) = at(
        state.ball[0].to_num::<f32>() - 4.0,
        state.ball[1].to_num::<f32>() - 4.0,
    );
    draw_rectangle(bx, by, 8.0 * scale, 8.0 * scale, YELLOW);
    let score = format!("{}   {}", state.score[0], state.score[1]);
    let size = measure_text(&score, None, 48, 1.0);
    draw_text(
        &score,
        screen_width() / 2.0 - size.width / 2.0,
        oy + 48.0,
        48.0,
        WHITE,
    );
}
