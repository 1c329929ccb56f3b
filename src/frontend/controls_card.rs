//! The controls card: one player's bindings, for the device they play
//! with (keys, a gamepad, the touch screen), shown before the first wave
//! of the first match on a device and from the pause menu. The lines are
//! plain data ([`lines`]), so the same words serve the card, the How to
//! play screen and the tests.

use macroquad::prelude::*;

use super::assets::{Align, BitmapFont};
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

/// Draws one card per entry of `players` (player number, device), centred
/// and stacked, with the rules and how to dismiss it under them.
pub fn draw(font: &BitmapFont, players: &[(usize, Device)], footer: &str) {
    let (w, h) = (screen_width(), screen_height());
    let scale = if w < 700.0 { 1.0 } else { 2.0 };
    let line = BitmapFont::line_height(scale) * 1.4;
    let rows: usize = players
        .iter()
        .map(|(_, d)| lines(*d).len() + 2)
        .sum::<usize>()
        + RULES.len()
        + 2;
    let card_w = (w * 0.92).min(820.0);
    let card_h = rows as f32 * line + 24.0;
    let (x, mut y) = ((w - card_w) / 2.0, ((h - card_h) / 2.0).max(4.0));
    draw_rectangle(x, y, card_w, card_h, Color::new(0.02, 0.03, 0.1, 0.98));
    draw_rectangle_lines(x, y, card_w, card_h, 2.0, Color::new(0.4, 0.5, 0.9, 1.0));
    y += 12.0;
    let chars = (card_w / font.width("m", scale)) as usize;
    let cx = w / 2.0;
    for (player, device) in players {
        let title = format!("P{} CONTROLS", player + 1);
        let color = super::look::player_color(*player);
        font.draw(&title, cx, y, scale, color, Align::Center);
        y += line * 1.5;
        for (action, how) in lines(*device) {
            let text = super::text::fit(&format!("{action:<10} {how}"), chars.saturating_sub(2));
            font.draw(&text, x + 16.0, y, scale, WHITE, Align::Left);
            y += line;
        }
        y += line * 0.5;
    }
    for rule in RULES {
        let text = super::text::fit(rule, chars.saturating_sub(2));
        font.draw(&text, cx, y, scale, LIGHTGRAY, Align::Center);
        y += line;
    }
    y += line * 0.5;
    font.draw(footer, cx, y, scale, YELLOW, Align::Center);
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
