//! The controls card: one player's bindings, for the device they play
//! with (keys, a gamepad, the touch screen), shown before the first wave
//! of the first match on a device and from the pause menu. The lines are
//! plain data ([`lines`]), so the same words serve the card, the How to
//! play screen and the tests.

use macroquad::prelude::*;

use super::assets::{Align, BitmapFont};
use super::ui_layout::{Text, chars_in, line_height};
use crate::input::KeyMap;
use crate::input::pad::{PadButton, PadMap};
use crate::settings::key_name;

/// What a player plays with.
#[derive(Clone, Copy, Debug)]
pub enum Device {
    Keys(KeyMap),
    Pad(PadMap),
    Touch,
}

/// A key's name as a player reads it: `Space`, `LeftShift`, `1`.
fn key(k: KeyCode) -> String {
    let name = key_name(k);
    name.strip_prefix("Key").unwrap_or(&name).to_uppercase()
}

fn buttons(b: [PadButton; 2]) -> String {
    if b[0] == b[1] {
        b[0].name().to_uppercase()
    } else {
        format!("{} / {}", b[0].name(), b[1].name()).to_uppercase()
    }
}

/// (action, how) lines for `device`.
pub fn lines(device: Device) -> Vec<(&'static str, String)> {
    match device {
        Device::Keys(k) => vec![
            (
                "MOVE",
                format!(
                    "{} {} {} {}",
                    key(k.up),
                    key(k.left),
                    key(k.down),
                    key(k.right)
                ),
            ),
            ("FIRE", format!("{} - where you last moved", key(k.fire))),
            ("AIM", "the mouse (over the window)".into()),
            (
                "FOCUS",
                format!("{} - slow, keeps your facing", key(k.focus)),
            ),
            ("BOMB", format!("{} - clears bullets near you", key(k.bomb))),
            ("PAUSE", "ESC".into()),
        ],
        Device::Pad(p) => vec![
            ("MOVE", "LEFT STICK / D-PAD".into()),
            ("AIM", "RIGHT STICK".into()),
            ("FIRE", buttons(p.fire)),
            ("FOCUS", buttons(p.focus)),
            ("BOMB", buttons(p.bomb)),
            ("PAUSE", p.start.name().to_uppercase()),
        ],
        Device::Touch => vec![
            ("MOVE", "LEFT STICK".into()),
            ("AIM + FIRE", "RIGHT STICK".into()),
            ("BOMB", "BOMB BUTTON".into()),
            ("PAUSE", "MENU BUTTON (TOP RIGHT)".into()),
        ],
    }
}

/// The rules a card ends with: what the game asks of two players.
pub const RULES: [&str; 3] = [
    "stand by a downed partner to revive them",
    "pickups: spread, rapid, pierce, shield, bomb, life",
    "quick kills grow the team's combo; a hit drops it",
];

/// The card on a `w`×`h` screen at interface scale `ui`: its rectangle,
/// and its texts placed (a player's title, their lines, the rules, the
/// footer), each cut to the card's width. One card per entry of `players`
/// (player number, device), stacked; the scale steps down until it fits.
pub fn texts(
    players: &[(usize, Device)],
    footer: &str,
    w: f32,
    h: f32,
    ui: f32,
) -> (Rect, Vec<Text>) {
    let card_w = (w * 0.92).min(820.0);
    let rows = players
        .iter()
        .map(|(_, d)| lines(*d).len() as f32 + 1.5)
        .sum::<f32>()
        + players.len() as f32 * 0.5
        + RULES.len() as f32
        + 1.5;
    let step = |scale: f32| line_height(scale, ui) * 1.3;
    let scale = [2.0, 1.5, 1.0, 0.5]
        .into_iter()
        .find(|&s| rows * step(s) + 24.0 <= h - 8.0 && (w >= 700.0 || s <= 1.0))
        .unwrap_or(0.5);
    let line = step(scale);
    let card_h = rows * line + 24.0;
    let (x, top) = ((w - card_w) / 2.0, ((h - card_h) / 2.0).max(4.0));
    let chars = chars_in(card_w - 32.0, scale, ui);
    let cx = w / 2.0;
    let text = |text: String, x, y, align, color| Text {
        text: super::text::fit(&text, chars),
        x,
        y,
        scale,
        align,
        color,
    };
    let mut out = Vec::new();
    let mut y = top + 12.0;
    for (player, device) in players {
        let color = super::look::player_color(*player);
        out.push(text(
            format!("P{} CONTROLS", player + 1),
            cx,
            y,
            Align::Center,
            color,
        ));
        y += line * 1.5;
        for (action, how) in lines(*device) {
            out.push(text(
                format!("{action:<10} {how}"),
                x + 16.0,
                y,
                Align::Left,
                WHITE,
            ));
            y += line;
        }
        y += line * 0.5;
    }
    for rule in RULES {
        out.push(text(rule.to_string(), cx, y, Align::Center, LIGHTGRAY));
        y += line;
    }
    y += line * 0.5;
    out.push(text(footer.to_string(), cx, y, Align::Center, YELLOW));
    (Rect::new(x, top, card_w, card_h), out)
}

/// Draws the card (see [`texts`]).
pub fn draw(font: &BitmapFont, players: &[(usize, Device)], footer: &str) {
    let ui = super::look::get().ui_scale;
    let (r, texts) = texts(players, footer, screen_width(), screen_height(), ui);
    draw_rectangle(r.x, r.y, r.w, r.h, Color::new(0.02, 0.03, 0.1, 0.98));
    draw_rectangle_lines(r.x, r.y, r.w, r.h, 2.0, Color::new(0.4, 0.5, 0.9, 1.0));
    for t in &texts {
        font.draw(&t.text, t.x, t.y, t.scale, t.color, t.align);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_device_shows_moving_firing_or_aiming_the_bomb_and_pause() {
        let devices = [
            Device::Keys(KeyMap::PLAYER_ONE),
            Device::Keys(KeyMap::PLAYER_TWO),
            Device::Pad(PadMap::STANDARD),
            Device::Touch,
        ];
        for device in devices {
            let actions: Vec<&str> = lines(device).iter().map(|(a, _)| *a).collect();
            for wanted in ["MOVE", "BOMB", "PAUSE"] {
                assert!(actions.contains(&wanted), "{device:?}: {actions:?}");
            }
            assert!(actions.iter().any(|a| a.contains("FIRE")), "{device:?}");
            assert!(actions.iter().any(|a| a.contains("AIM")), "{device:?}");
        }
    }

    #[test]
    fn the_lines_name_the_players_own_bindings() {
        let p1 = lines(Device::Keys(KeyMap::PLAYER_ONE));
        assert_eq!(p1[0].1, "W A S D");
        assert!(
            p1.iter()
                .any(|(a, how)| *a == "BOMB" && how.starts_with("E "))
        );
        let p2 = lines(Device::Keys(KeyMap::PLAYER_TWO));
        assert!(
            p2.iter()
                .any(|(a, how)| *a == "BOMB" && how.starts_with("RIGHTCONTROL"))
        );
        let pad = lines(Device::Pad(PadMap::STANDARD));
        assert!(
            pad.iter().any(|(a, how)| *a == "FIRE" && how == "A / RT"),
            "{pad:?}"
        );
    }
}
