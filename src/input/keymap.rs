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
    pub bomb: KeyCode,
}

impl KeyMap {
    /// Player 1: WASD, Space to fire, left Shift to focus (and hold the
    /// facing), E to bomb, 1 to start.
    pub const PLAYER_ONE: KeyMap = KeyMap {
        up: KeyCode::W,
        down: KeyCode::S,
        left: KeyCode::A,
        right: KeyCode::D,
        fire: KeyCode::Space,
        focus: KeyCode::LeftShift,
        start: KeyCode::Key1,
        bomb: KeyCode::E,
    };

    /// Player 2: arrows, Enter to fire, right Shift to focus, right Ctrl
    /// to bomb, 2 to start.
    pub const PLAYER_TWO: KeyMap = KeyMap {
        up: KeyCode::Up,
        down: KeyCode::Down,
        left: KeyCode::Left,
        right: KeyCode::Right,
        fire: KeyCode::Enter,
        focus: KeyCode::RightShift,
        start: KeyCode::Key2,
        bomb: KeyCode::RightControl,
    };

    /// What each binding does, in the order of [`KeyMap::keys`].
    pub const ACTIONS: [&'static str; 8] = [
        "up", "down", "left", "right", "fire", "focus", "start", "bomb",
    ];

    pub fn keys(&self) -> [KeyCode; 8] {
        [
            self.up, self.down, self.left, self.right, self.fire, self.focus, self.start, self.bomb,
        ]
    }

    pub fn from_keys([up, down, left, right, fire, focus, start, bomb]: [KeyCode; 8]) -> KeyMap {
        KeyMap {
            up,
            down,
            left,
            right,
            fire,
            focus,
            start,
            bomb,
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
            (self.bomb, Input::BOMB),
        ]
        .into_iter()
        .fold(Input::default(), |acc, (key, bit)| {
            acc.with(bit, is_down(key))
        })
    }
}
