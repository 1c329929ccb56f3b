//! The connected gamepads, read through gilrs (evdev and udev natively, the
//! browser's Gamepad API in wasm), once at the start of every drawn frame
//! and again just before a match reads its inputs, beside the keyboard.
//!
//! Kept in one place per window (a thread-local: macroquad runs every
//! screen on one thread) because every screen reads the pads: menus turn
//! them into the key presses they already understand (`menu_key`), the
//! match turns them into `Input` (`input::PadMap`).

use std::cell::RefCell;

use gilrs::{Axis, Button, EventType, GamepadId, Gilrs};

use crate::input::pad::{MenuMove, MenuReader};
use crate::input::{Input, PadButton, PadMap, PadState};

/// A change the player should be told about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PadNotice {
    Connected(String),
    Disconnected(String),
}

struct Pads {
    /// None where gilrs could not start (no input subsystem): no pads.
    gilrs: Option<Gilrs>,
    /// Connected pads in the order they were connected, with their names.
    order: Vec<(GamepadId, String)>,
    notices: Vec<PadNotice>,
    map: PadMap,
    keyboard_is_player_one: bool,
    menus: Vec<(GamepadId, MenuReader)>,
    /// This frame's menu moves from every pad.
    moves: Vec<MenuMove>,
    /// Buttons each pad held last frame, and those any pad pressed this one.
    held: Vec<(GamepadId, u32)>,
    just: u32,
}

thread_local! {
    static PADS: RefCell<Option<Pads>> = const { RefCell::new(None) };
}

fn with<T>(f: impl FnOnce(&mut Pads) -> T) -> T {
    PADS.with(|cell| {
        let mut slot = cell.borrow_mut();
        let pads = slot.get_or_insert_with(Pads::start);
        f(pads)
    })
}

impl Pads {
    fn start() -> Pads {
        let gilrs = match Gilrs::new() {
            Ok(g) => Some(g),
            Err(e) => {
                tracing::info!("no gamepads: {e}");
                None
            }
        };
        let settings = crate::settings::Settings::load_or_default();
        let mut pads = Pads {
            gilrs,
            order: Vec::new(),
            notices: Vec::new(),
            map: settings.pad.map(),
            keyboard_is_player_one: settings.pad.keyboard_is_player_one,
            menus: Vec::new(),
            moves: Vec::new(),
            held: Vec::new(),
            just: 0,
        };
        // Pads already plugged in at start are not news.
        if let Some(g) = &pads.gilrs {
            pads.order = g
                .gamepads()
                .map(|(id, pad)| (id, short_name(pad.name())))
                .collect();
        }
        pads
    }

    fn poll(&mut self) {
        let Some(gilrs) = &mut self.gilrs else {
            return;
        };
        while let Some(event) = gilrs.next_event() {
            match event.event {
                EventType::Connected if !self.order.iter().any(|(id, _)| *id == event.id) => {
                    let name = short_name(gilrs.gamepad(event.id).name());
                    tracing::info!("gamepad connected: {name}");
                    self.notices.push(PadNotice::Connected(name.clone()));
                    self.order.push((event.id, name));
                }
                EventType::Disconnected => {
                    if let Some(i) = self.order.iter().position(|(id, _)| *id == event.id) {
                        let (_, name) = self.order.remove(i);
                        tracing::info!("gamepad disconnected: {name}");
                        self.notices.push(PadNotice::Disconnected(name));
                    }
                }
                _ => {}
            }
        }
    }

    fn state(&self, id: GamepadId) -> PadState {
        let Some(pad) = self.gilrs.as_ref().and_then(|g| g.connected_gamepad(id)) else {
            return PadState::default();
        };
        let buttons = PadButton::ALL
            .into_iter()
            .filter(|&b| pad.is_pressed(gilrs_button(b)))
            .fold(PadState::default(), PadState::with)
            .buttons;
        let analog = |b| pad.button_data(b).map_or(0.0, |d| d.value());
        PadState {
            buttons,
            // gilrs' y grows upwards; ours downwards.
            stick: (pad.value(Axis::LeftStickX), -pad.value(Axis::LeftStickY)),
            right_stick: (pad.value(Axis::RightStickX), -pad.value(Axis::RightStickY)),
            left_trigger: analog(Button::LeftTrigger2),
            right_trigger: analog(Button::RightTrigger2),
        }
    }

    fn update_menus(&mut self) {
        self.moves.clear();
        self.just = 0;
        let ids: Vec<GamepadId> = self.order.iter().map(|(id, _)| *id).collect();
        self.menus.retain(|(id, _)| ids.contains(id));
        for id in ids {
            let state = self.state(id);
            let i = match self.menus.iter().position(|(m, _)| *m == id) {
                Some(i) => i,
                None => {
                    self.menus.push((id, MenuReader::default()));
                    self.menus.len() - 1
                }
            };
            let moves = self.menus[i].1.update(&self.map, &state);
            self.moves.extend(moves);
            let before = match self.held.iter_mut().find(|(h, _)| *h == id) {
                Some((_, bits)) => std::mem::replace(bits, state.buttons),
                None => {
                    self.held.push((id, state.buttons));
                    0
                }
            };
            self.just |= state.buttons & !before;
        }
    }
}

/// A pad's name as the screen shows it: browsers append "(STANDARD GAMEPAD
/// Vendor: ... Product: ...)" and drivers can be long-winded.
fn short_name(name: &str) -> String {
    let name = name.split(" (").next().unwrap_or(name).trim();
    let name = if name.is_empty() { "gamepad" } else { name };
    name.chars().take(28).collect()
}

/// The W3C standard layout's names for gilrs' buttons.
fn gilrs_button(b: PadButton) -> Button {
    match b {
        PadButton::A => Button::South,
        PadButton::B => Button::East,
        PadButton::X => Button::West,
        PadButton::Y => Button::North,
        PadButton::LeftShoulder => Button::LeftTrigger,
        PadButton::RightShoulder => Button::RightTrigger,
        PadButton::LeftTrigger => Button::LeftTrigger2,
        PadButton::RightTrigger => Button::RightTrigger2,
        PadButton::Back => Button::Select,
        PadButton::Start => Button::Start,
        PadButton::LeftStick => Button::LeftThumb,
        PadButton::RightStick => Button::RightThumb,
        PadButton::Up => Button::DPadUp,
        PadButton::Down => Button::DPadDown,
        PadButton::Left => Button::DPadLeft,
        PadButton::Right => Button::DPadRight,
    }
}

/// Reads the pads' events (connections, buttons, sticks) now.
pub fn poll() {
    with(Pads::poll);
}

/// Once per drawn frame, at its start: poll, and work out the menu moves.
pub fn start_frame() {
    with(|p| {
        p.poll();
        p.update_menus();
    });
}

/// Takes the settings' mapping (at start and after the Settings screen).
pub fn configure(settings: &crate::settings::Settings) {
    with(|p| {
        p.map = settings.pad.map();
        p.keyboard_is_player_one = settings.pad.keyboard_is_player_one;
    });
}

/// Names of the connected pads, in the order they were connected.
pub fn connected() -> Vec<String> {
    with(|p| p.order.iter().map(|(_, n)| n.clone()).collect())
}

/// Connections and disconnections since the last call.
pub fn take_notices() -> Vec<PadNotice> {
    with(|p| std::mem::take(&mut p.notices))
}

/// A pad's menu moves this frame, as the key a keyboard player would press.
pub fn menu_key(key: macroquad::input::KeyCode) -> bool {
    use macroquad::input::KeyCode;
    let want = match key {
        KeyCode::Up => MenuMove::Up,
        KeyCode::Down => MenuMove::Down,
        KeyCode::Left => MenuMove::Left,
        KeyCode::Right => MenuMove::Right,
        KeyCode::Enter => MenuMove::Confirm,
        KeyCode::Escape => MenuMove::Back,
        _ => return false,
    };
    with(|p| p.moves.contains(&want))
}

/// This frame's menu moves from every pad.
pub fn menu_moves() -> Vec<MenuMove> {
    with(|p| p.moves.clone())
}

/// Whether any pad pressed `button` this frame (held last frame: no).
pub fn just_pressed(button: PadButton) -> bool {
    with(|p| p.just & button.bit() != 0)
}

/// Whether any pad pressed any button this frame.
pub fn any_just_pressed() -> bool {
    with(|p| p.just != 0)
}

/// Each local keyboard player's pad input now, in player order: `players`
/// is how many keyboard players the match has (1 online, 2 in a local
/// match). Pads are assigned by [`crate::input::pad::assign_pads`].
pub fn player_inputs(players: usize) -> [Input; 2] {
    with(|p| {
        let ids: Vec<u32> = (0..p.order.len() as u32).collect();
        let slots: [Option<u32>; 2] = if players >= 2 {
            crate::input::pad::assign_pads(&ids, p.keyboard_is_player_one)
        } else {
            // One local player: the keyboard and the first pad both play.
            [ids.first().copied(), None]
        };
        slots.map(|slot| {
            slot.and_then(|i| p.order.get(i as usize))
                .map_or(Input(0), |(id, _)| p.map.read(&p.state(*id)))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::short_name;

    #[test]
    fn pad_names_are_short_enough_for_a_menu_line() {
        assert_eq!(
            short_name("Xbox Wireless Controller (STANDARD GAMEPAD Vendor: 045e Product: 02fd)"),
            "Xbox Wireless Controller"
        );
        assert_eq!(short_name(""), "gamepad");
        assert_eq!(short_name(" (x)"), "gamepad");
        assert_eq!(short_name(&"p".repeat(100)).len(), 28);
    }
}
