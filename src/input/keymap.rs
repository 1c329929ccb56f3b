//! Keyboard bindings for the two local players.

use macroquad::input::KeyCode;

use super::Input;

#[derive(Clone, Copy, Debug)]
pub struct KeyMap {
    pub up: KeyCode,
    pub down: KeyCode,
    pub left: KeyCode,
    pub right: KeyCode,
    pub fire: KeyCode,
    pub focus: KeyCode,
    pub start: KeyCode,
}

impl KeyMap {
    /// Player 1: WASD, Space to fire, left Shift to focus, 1 to start.
    pub const PLAYER_ONE: KeyMap = KeyMap {
        up: KeyCode::W,
        down: KeyCode::S,
        left: KeyCode::A,
        right: KeyCode::D,
        fire: KeyCode::Space,
        focus: KeyCode::LeftShift,
        start: KeyCode::Key1,
    };

    /// Player 2: arrows, Enter to fire, right Shift to focus, 2 to start.
    pub const PLAYER_TWO: KeyMap = KeyMap {
        up: KeyCode::Up,
        down: KeyCode::Down,
        left: KeyCode::Left,
        right: KeyCode::Right,
        fire: KeyCode::Enter,
        focus: KeyCode::RightShift,
        start: KeyCode::Key2,
    };

    /// What each binding does, in the order of [`KeyMap::keys`].
    pub const ACTIONS: [&'static str; 7] =
        ["up", "down", "left", "right", "fire", "focus", "start"];

    pub fn keys(&self) -> [KeyCode; 7] {
        [
            self.up, self.down, self.left, self.right, self.fire, self.focus, self.start,
        ]
    }

    pub fn from_keys([up, down, left, right, fire, focus, start]: [KeyCode; 7]) -> KeyMap {
        KeyMap {
            up,
            down,
            left,
            right,
            fire,
            focus,
            start,
        }
    }

    /// The buttons held now, given a "is this key down" query.
    pub fn read(&self, is_down: impl Fn(KeyCode) -> bool) -> Input {
        [
            (self.up, Input::UP),
            (self.down, Input::DOWN),
            (self.left, Input::LEFT),
            (self.right, Input::RIGHT),
            (self.fire, Input::FIRE),
            (self.focus, Input::FOCUS),
            (self.start, Input::START),
        ]
        .into_iter()
        .fold(Input::default(), |acc, (key, bit)| {
            acc.with(bit, is_down(key))
        })
    }
}
