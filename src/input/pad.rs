//! Gamepads as one more source of the same `Input`: a pure mapping from a
//! pad's state (buttons in the W3C "standard" layout, the left stick, the
//! triggers) to the sim's bits and to menu moves. Reading real pads is the
//! frontend's job (`frontend::pads`); everything here is testable without one.

use super::Input;

/// A button of the W3C standard gamepad layout; the discriminant is its
/// index in `Gamepad.buttons` there (gilrs names the same buttons natively).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum PadButton {
    /// Xbox A, PlayStation cross: the bottom face button.
    A = 0,
    B = 1,
    X = 2,
    Y = 3,
    LeftShoulder = 4,
    RightShoulder = 5,
    LeftTrigger = 6,
    RightTrigger = 7,
    Back = 8,
    Start = 9,
    LeftStick = 10,
    RightStick = 11,
    Up = 12,
    Down = 13,
    Left = 14,
    Right = 15,
}

impl PadButton {
    pub const ALL: [PadButton; 16] = [
        PadButton::A,
        PadButton::B,
        PadButton::X,
        PadButton::Y,
        PadButton::LeftShoulder,
        PadButton::RightShoulder,
        PadButton::LeftTrigger,
        PadButton::RightTrigger,
        PadButton::Back,
        PadButton::Start,
        PadButton::LeftStick,
        PadButton::RightStick,
        PadButton::Up,
        PadButton::Down,
        PadButton::Left,
        PadButton::Right,
    ];

    /// The name in the settings file and on screen.
    pub fn name(self) -> &'static str {
        match self {
            PadButton::A => "a",
            PadButton::B => "b",
            PadButton::X => "x",
            PadButton::Y => "y",
            PadButton::LeftShoulder => "lb",
            PadButton::RightShoulder => "rb",
            PadButton::LeftTrigger => "lt",
            PadButton::RightTrigger => "rt",
            PadButton::Back => "back",
            PadButton::Start => "start",
            PadButton::LeftStick => "ls",
            PadButton::RightStick => "rs",
            PadButton::Up => "up",
            PadButton::Down => "down",
            PadButton::Left => "left",
            PadButton::Right => "right",
        }
    }

    pub fn from_name(name: &str) -> Option<PadButton> {
        PadButton::ALL.into_iter().find(|b| b.name() == name)
    }

    /// Its bit in [`PadState::buttons`].
    pub fn bit(self) -> u32 {
        1 << self as u8
    }
}

/// One pad at one moment, whatever read it. Stick axes run -1..1 with y
/// growing downwards (screen and sim convention); triggers 0..1.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PadState {
    /// Bit `b as u8` set while button `b` is held.
    pub buttons: u32,
    pub stick: (f32, f32),
    /// The right stick (aim), same convention.
    pub right_stick: (f32, f32),
    pub left_trigger: f32,
    pub right_trigger: f32,
}

impl PadState {
    pub fn holding(&self, button: PadButton) -> bool {
        let analog = match button {
            PadButton::LeftTrigger => self.left_trigger,
            PadButton::RightTrigger => self.right_trigger,
            _ => 0.0,
        };
        // A trigger counts from half way down, whether the reader reports it
        // as a button, an axis or both.
        self.buttons & button.bit() != 0 || analog >= TRIGGER_PRESSED
    }

    pub fn with(mut self, button: PadButton) -> PadState {
        self.buttons |= button.bit();
        self
    }
}

const TRIGGER_PRESSED: f32 = 0.5;

/// What each pad button does in a match; kept in the settings beside the
/// key bindings. Two buttons per action, so a trigger and a face button can
/// both fire.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PadMap {
    pub fire: [PadButton; 2],
    pub focus: [PadButton; 2],
    pub start: PadButton,
    pub bomb: [PadButton; 2],
    /// Leaves a match, goes back in menus (not a sim input).
    pub back: [PadButton; 2],
    /// Stick travel (0..1 of full) that still counts as centred.
    pub dead_zone: f32,
}

impl PadMap {
    pub const DEFAULT_DEAD_ZONE: f32 = 0.25;
    /// The settings refuse dead zones outside this range: below it a worn
    /// stick drifts, above it the ship hardly moves.
    pub const DEAD_ZONE_RANGE: (f32, f32) = (0.05, 0.9);

    pub const STANDARD: PadMap = PadMap {
        fire: [PadButton::A, PadButton::RightTrigger],
        focus: [PadButton::LeftShoulder, PadButton::LeftTrigger],
        start: PadButton::Start,
        bomb: [PadButton::X, PadButton::RightShoulder],
        back: [PadButton::B, PadButton::Back],
        dead_zone: PadMap::DEFAULT_DEAD_ZONE,
    };

    /// The sim's bits for this pad state: stick or d-pad moves, the right
    /// stick aims, the mapped buttons fire, focus, bomb and start.
    pub fn read(&self, pad: &PadState) -> Input {
        let any = |buttons: &[PadButton]| buttons.iter().any(|&b| pad.holding(b));
        Input(stick_direction(pad.stick, self.dead_zone) | dpad_direction(pad))
            .with(Input::FIRE, any(&self.fire))
            .with(Input::FOCUS, any(&self.focus))
            .with(Input::BOMB, any(&self.bomb))
            .with(Input::START, pad.holding(self.start))
            .with_aim(aim_direction(pad.right_stick, self.dead_zone))
    }

    pub fn holding_back(&self, pad: &PadState) -> bool {
        self.back.iter().any(|&b| pad.holding(b))
    }
}

impl Default for PadMap {
    fn default() -> Self {
        PadMap::STANDARD
    }
}

fn dpad_direction(pad: &PadState) -> u16 {
    [
        (PadButton::Up, Input::UP),
        (PadButton::Down, Input::DOWN),
        (PadButton::Left, Input::LEFT),
        (PadButton::Right, Input::RIGHT),
    ]
    .into_iter()
    .filter(|&(b, _)| pad.holding(b))
    .fold(0, |acc, (_, bit)| acc | bit)
}

/// sin(17.5°): an axis counts once its share of the stick's travel reaches
/// this. Equal sectors would be sin(22.5°); the smaller share gives each
/// diagonal 55° of the circle and each straight direction 35°, because a
/// thumb aiming for a diagonal drifts off it more than one aiming straight.
const AXIS_SHARE: f32 = 0.3007;

/// One of the 8 directions the sim knows (as its bits), or none inside the
/// dead zone. A radial dead zone, so a diagonal push is not cut short.
pub fn stick_direction((x, y): (f32, f32), dead_zone: f32) -> u16 {
    // NaN or out-of-range readings from a misbehaving driver count as centred.
    let clean = |v: f32| {
        if v.is_finite() {
            v.clamp(-1.0, 1.0)
        } else {
            0.0
        }
    };
    let (x, y) = (clean(x), clean(y));
    let travel = (x * x + y * y).sqrt();
    if travel <= dead_zone.clamp(0.0, 1.0) || travel == 0.0 {
        return 0;
    }
    let mut bits = 0;
    if x.abs() >= AXIS_SHARE * travel {
        bits |= if x < 0.0 { Input::LEFT } else { Input::RIGHT };
    }
    if y.abs() >= AXIS_SHARE * travel {
        bits |= if y < 0.0 { Input::UP } else { Input::DOWN };
    }
    bits
}

/// The aim direction (0..32, the sim's `Input::aim`) a stick points in,
/// or none inside the dead zone. Floats are fine here: only the direction
/// index crosses into the simulation.
pub fn aim_direction((x, y): (f32, f32), dead_zone: f32) -> Option<u32> {
    if !x.is_finite() || !y.is_finite() {
        return None;
    }
    let travel = (x * x + y * y).sqrt();
    if travel <= dead_zone.clamp(0.0, 1.0) || travel == 0.0 {
        return None;
    }
    Some(angle_to_aim(y.atan2(x)))
}

/// The nearest of the 32 aim directions to an angle in radians (0 = right,
/// y down, as the screen and the sim count).
pub fn angle_to_aim(angle: f32) -> u32 {
    let steps = Input::AIM_DIRECTIONS as f32;
    let turn = angle / std::f32::consts::TAU * steps;
    (turn.round() as i32).rem_euclid(Input::AIM_DIRECTIONS as i32) as u32
}

/// A move in a menu, from a pad.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MenuMove {
    Up,
    Down,
    Left,
    Right,
    Confirm,
    Back,
}

/// Frames a held direction waits before repeating, then between repeats.
const REPEAT_DELAY: u32 = 24;
const REPEAT_EVERY: u32 = 6;

/// Turns a pad's held buttons into menu moves: a press moves once, a
/// held direction repeats like a held key. One per pad.
#[derive(Clone, Debug, Default)]
pub struct MenuReader {
    held: Vec<MenuMove>,
    held_for: u32,
}

impl MenuReader {
    /// The moves for this frame, given the pad now.
    pub fn update(&mut self, map: &PadMap, pad: &PadState) -> Vec<MenuMove> {
        let now = menu_holds(map, pad);
        let mut out: Vec<MenuMove> = now
            .iter()
            .copied()
            .filter(|m| !self.held.contains(m))
            .collect();
        let same_direction = now.iter().any(|m| is_direction(*m))
            && now
                .iter()
                .filter(|m| is_direction(**m))
                .all(|m| self.held.contains(m));
        self.held_for = if same_direction { self.held_for + 1 } else { 0 };
        if same_direction
            && self.held_for >= REPEAT_DELAY
            && (self.held_for - REPEAT_DELAY).is_multiple_of(REPEAT_EVERY)
        {
            out.extend(now.iter().copied().filter(|m| is_direction(*m)));
        }
        self.held = now;
        out
    }
}

fn is_direction(m: MenuMove) -> bool {
    matches!(
        m,
        MenuMove::Up | MenuMove::Down | MenuMove::Left | MenuMove::Right
    )
}

/// What the pad holds, as menu moves: the stick (past a firm push, so a
/// resting thumb does not scroll) or the d-pad, A or Start to confirm, the
/// back buttons to go back.
fn menu_holds(map: &PadMap, pad: &PadState) -> Vec<MenuMove> {
    let dir = stick_direction(pad.stick, map.dead_zone.max(0.5)) | dpad_direction(pad);
    let mut out = Vec::new();
    for (bit, m) in [
        (Input::UP, MenuMove::Up),
        (Input::DOWN, MenuMove::Down),
        (Input::LEFT, MenuMove::Left),
        (Input::RIGHT, MenuMove::Right),
    ] {
        if dir & bit != 0 {
            out.push(m);
        }
    }
    if pad.holding(PadButton::A) || pad.holding(PadButton::Start) {
        out.push(MenuMove::Confirm);
    }
    if map.holding_back(pad) {
        out.push(MenuMove::Back);
    }
    out
}

/// Which connected pad plays which local player: pads in the order they
/// were connected fill the players without one, from player 1 unless the
/// keyboard plays player 1 (then from player 2). `pads` are stable ids.
pub fn assign_pads<const N: usize>(pads: &[u32], keyboard_is_player_one: bool) -> [Option<u32>; N] {
    let mut slots = [None; N];
    let first = usize::from(keyboard_is_player_one && N > 1);
    for (slot, &pad) in slots.iter_mut().skip(first).zip(pads) {
        *slot = Some(pad);
    }
    slots
}

#[cfg(test)]
#[path = "pad_tests.rs"]
mod tests;
