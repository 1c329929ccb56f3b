//! The player's settings, kept in `<config dir>/twinstar/settings.toml`
//! (`TWINSTAR_CONFIG` names another file). Command-line flags override
//! them for one run; the Settings screen edits and saves them.
//!
//! A settings file that does not parse is reported and left untouched:
//! defaults are used, and nothing is written over it until the player
//! saves from the Settings screen.

use macroquad::input::KeyCode;
use serde::{Deserialize, Serialize};

use crate::input::{KeyMap, PadButton, PadMap};
use crate::platform::records;
use twinstar_netcode::connect::{DelaySetting, MAX_INPUT_DELAY};
use twinstar_netcode::signaling::{PlayerName, check_server_url};

/// Largest settings file read: a few hundred bytes in practice.
const MAX_SETTINGS_BYTES: u64 = 64 * 1024;

/// Seconds an interrupted match waits by default: long enough for a Wi-Fi
/// or mobile link to come back, short enough that a player who is really
/// gone does not hold the other for long. Measured in the NAT testbed
/// (docs/nat-testbed.md): a 15 s cut of a player's whole network plays on
/// 1.2–2.1 s after the link returns (17 s in all), a 20 s cut of only the
/// path between the peers 5.1 s after (25 s); 30 s covers both with room.
pub const DEFAULT_RECONNECT_WINDOW: u32 = 30;
/// The values the settings screen steps through.
pub const RECONNECT_WINDOWS: [u32; 7] = [0, 5, 10, 20, 30, 60, 120];

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Signaling server URL (checked and normalised like `--server`); empty
    /// for this machine (the host starts one).
    pub server: String,
    /// The player's display name in public rooms (`--name`); empty: none
    /// yet (the menu asks for one the first time a public room needs it).
    pub name: String,
    /// In the file: "auto" or "0".."8" (a bare number is read too).
    #[serde(with = "delay_text")]
    pub input_delay: DelaySetting,
    /// Sound effects, 0..=100.
    pub volume: u8,
    /// Music, 0..=100: apart from the sounds, so either can be turned off.
    pub music_volume: u8,
    /// Show the network overlay (F1 toggles it during a match).
    pub net_overlay: bool,
    /// Room chat: show the other player's lines and open the prompt on
    /// Enter (`--no-chat` turns it off for one run). Off, lines are still
    /// counted and recorded in the replay.
    pub chat: bool,
    /// Seconds an interrupted match waits for the other player's packets
    /// (`--reconnect-window`); 0 ends it after 2 s.
    pub reconnect_window: u32,
    pub player_one: Keys,
    pub player_two: Keys,
    /// Gamepads: dead zone, button mapping, who plays with the keyboard.
    pub pad: PadSettings,
    /// The best wave this player reached in an online match: the level a
    /// quick-match ticket carries (self-reported; it only orders partners).
    pub best_wave: u32,
    /// Colour-blind-safe colours, with shapes that tell players and
    /// bullets apart by more than hue (`frontend::look`).
    pub colour_blind: bool,
    /// The interface's scale in percent: 100..=200 in steps of 25 (text,
    /// menus, the HUD, the touch buttons).
    pub ui_scale: u16,
    /// No screen shake; flashes and blinking replaced by a steady change.
    pub reduced_motion: bool,
    /// Send a finished online match's replay to the server it was played
    /// through, to be ranked (`--no-upload` turns it off for one run).
    pub upload: bool,
    /// The controls card was shown and dismissed once on this device: the
    /// first match's card does not come back (the pause menu still has it).
    pub controls_seen: bool,
}

/// The interface scales the settings screen steps through, in percent.
pub const UI_SCALES: [u16; 5] = [100, 125, 150, 175, 200];

/// Gamepad settings, in the file as `[pad]`: buttons by the names of
/// [`PadButton::name`] (`a`, `b`, `x`, `y`, `lb`, `rb`, `lt`, `rt`, `back`,
/// `start`, `ls`, `rs`, `up`, `down`, `left`, `right`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PadSettings {
    /// Percent of the stick's travel that still counts as centred (5..=90).
    pub dead_zone: u8,
    #[serde(with = "pad_pair")]
    pub fire: [PadButton; 2],
    #[serde(with = "pad_pair")]
    pub focus: [PadButton; 2],
    #[serde(with = "pad_one")]
    pub start: PadButton,
    #[serde(with = "pad_pair")]
    pub bomb: [PadButton; 2],
    #[serde(with = "pad_pair")]
    pub back: [PadButton; 2],
    /// In a local match the keyboard plays player one, so the first pad
    /// plays player two (otherwise the first pad is player one).
    pub keyboard_is_player_one: bool,
}

impl Default for PadSettings {
    fn default() -> Self {
        PadSettings::from_map(&PadMap::STANDARD)
    }
}

/// Dead-zone percents the settings screen steps through.
pub const DEAD_ZONES: [u8; 9] = [5, 10, 15, 20, 25, 30, 40, 50, 60];

impl PadSettings {
    pub fn from_map(map: &PadMap) -> PadSettings {
        PadSettings {
            dead_zone: (map.dead_zone * 100.0).round().clamp(0.0, 100.0) as u8,
            fire: map.fire,
            focus: map.focus,
            start: map.start,
            bomb: map.bomb,
            back: map.back,
            keyboard_is_player_one: false,
        }
    }

    pub fn map(&self) -> PadMap {
        let (lo, hi) = PadMap::DEAD_ZONE_RANGE;
        PadMap {
            fire: self.fire,
            focus: self.focus,
            start: self.start,
            bomb: self.bomb,
            back: self.back,
            dead_zone: (f32::from(self.dead_zone) / 100.0).clamp(lo, hi),
        }
    }

    fn validate(&self) -> Result<(), String> {
        let (lo, hi) = PadMap::DEAD_ZONE_RANGE;
        let percent = (lo * 100.0).round() as u8..=(hi * 100.0).round() as u8;
        if !percent.contains(&self.dead_zone) {
            return Err(format!(
                "pad dead_zone {} is outside {}..={} (percent of the stick's travel)",
                self.dead_zone,
                percent.start(),
                percent.end()
            ));
        }
        Ok(())
    }

    /// Moves the dead zone along [`DEAD_ZONES`], like [`Settings::step_delay`].
    pub fn step_dead_zone(&mut self, step: i32, wrap: bool) {
        let now = DEAD_ZONES
            .iter()
            .position(|&z| z >= self.dead_zone)
            .unwrap_or(DEAD_ZONES.len() - 1);
        self.dead_zone = DEAD_ZONES[stepped(DEAD_ZONES.len(), now, step, wrap)];
    }

    /// Moves the first button of a pad action to the next of
    /// [`PadButton::ALL`] (the second, a trigger by default, stays).
    pub fn step_button(&mut self, action: PadAction, step: i32, wrap: bool) {
        let slot = match action {
            PadAction::Fire => &mut self.fire[0],
            PadAction::Focus => &mut self.focus[0],
            PadAction::Start => &mut self.start,
            PadAction::Back => &mut self.back[0],
        };
        let all = PadButton::ALL;
        let now = all.iter().position(|b| b == slot).unwrap_or(0);
        *slot = all[stepped(all.len(), now, step, wrap)];
    }
}

/// A pad action the settings screen remaps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadAction {
    Fire,
    Focus,
    Start,
    Back,
}

impl PadAction {
    pub const ALL: [PadAction; 4] = [
        PadAction::Fire,
        PadAction::Focus,
        PadAction::Start,
        PadAction::Back,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PadAction::Fire => "fire",
            PadAction::Focus => "focus",
            PadAction::Start => "start",
            PadAction::Back => "back",
        }
    }

    /// The buttons bound to it, for the screen ("a / rt").
    pub fn buttons(self, pad: &PadSettings) -> String {
        let pair = |p: [PadButton; 2]| {
            if p[0] == p[1] {
                p[0].name().to_string()
            } else {
                format!("{} / {}", p[0].name(), p[1].name())
            }
        };
        match self {
            PadAction::Fire => pair(pad.fire),
            PadAction::Focus => pair(pad.focus),
            PadAction::Start => pad.start.name().to_string(),
            PadAction::Back => pair(pad.back),
        }
    }
}

/// A pad button in the file: its name.
mod pad_one {
    use serde::{Deserialize, Deserializer, Serializer, de};

    use crate::input::PadButton;

    pub fn serialize<S: Serializer>(b: &PadButton, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(b.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<PadButton, D::Error> {
        let name = String::deserialize(d)?;
        PadButton::from_name(&name)
            .ok_or_else(|| de::Error::custom(format!("unknown pad button '{name}'")))
    }
}

/// Two pad buttons in the file: `["a", "rt"]`, or one name for both.
mod pad_pair {
    use serde::{Deserialize, Deserializer, Serializer, de};

    use crate::input::PadButton;

    pub fn serialize<S: Serializer>(p: &[PadButton; 2], s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(2))?;
        seq.serialize_element(p[0].name())?;
        seq.serialize_element(p[1].name())?;
        seq.end()
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Names {
        One(String),
        Many(Vec<String>),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<[PadButton; 2], D::Error> {
        let names = match Names::deserialize(d)? {
            Names::One(n) => vec![n],
            Names::Many(v) => v,
        };
        let parse = |n: &String| {
            PadButton::from_name(n)
                .ok_or_else(|| de::Error::custom(format!("unknown pad button '{n}'")))
        };
        match names.as_slice() {
            [a] => Ok([parse(a)?; 2]),
            [a, b] => Ok([parse(a)?, parse(b)?]),
            _ => Err(de::Error::custom("one or two pad buttons")),
        }
    }
}

/// One player's bindings. In the file each is a key name (`W`, `Space`,
/// `LeftShift`, `Up`, ...; see [`BINDABLE_KEYS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Keys {
    #[serde(with = "key_text")]
    pub up: KeyCode,
    #[serde(with = "key_text")]
    pub down: KeyCode,
    #[serde(with = "key_text")]
    pub left: KeyCode,
    #[serde(with = "key_text")]
    pub right: KeyCode,
    #[serde(with = "key_text")]
    pub fire: KeyCode,
    #[serde(with = "key_text")]
    pub focus: KeyCode,
    #[serde(with = "key_text")]
    pub start: KeyCode,
    /// Absent in files written before bombs existed: the player's default.
    #[serde(
        default,
        with = "key_text_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub bomb: Option<KeyCode>,
}

/// What a binding does; names one field of [`Keys`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Up,
    Down,
    Left,
    Right,
    Fire,
    Focus,
    Start,
    Bomb,
}

impl Action {
    /// In the order the Settings screen lists them.
    pub const ALL: [Action; 8] = [
        Action::Up,
        Action::Down,
        Action::Left,
        Action::Right,
        Action::Fire,
        Action::Focus,
        Action::Start,
        Action::Bomb,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Action::Up => "up",
            Action::Down => "down",
            Action::Left => "left",
            Action::Right => "right",
            Action::Fire => "fire",
            Action::Focus => "focus",
            Action::Start => "start",
            Action::Bomb => "bomb",
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            server: String::new(),
            name: String::new(),
            input_delay: DelaySetting::Auto,
            volume: 70,
            // Under the sounds: the music accompanies, the sounds inform.
            music_volume: 50,
            net_overlay: false,
            chat: true,
            reconnect_window: DEFAULT_RECONNECT_WINDOW,
            player_one: Keys::from_map(&KeyMap::PLAYER_ONE),
            player_two: Keys::from_map(&KeyMap::PLAYER_TWO),
            pad: PadSettings::default(),
            best_wave: 0,
            colour_blind: false,
            ui_scale: 100,
            reduced_motion: false,
            upload: true,
            controls_seen: false,
        }
    }
}

impl Settings {
    /// Settings from the text of a settings file, checked.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Settings, String> {
        let text = String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())?;
        let mut settings: Settings = toml::from_str(&text).map_err(|e| {
            let message = e.message().replace('\n', " ");
            match e.span() {
                Some(span) => format!("line {}: {message}", line_of(&text, span.start)),
                None => message,
            }
        })?;
        settings.server = settings.checked_server()?;
        settings.validate()?;
        // Valid or empty, as checked: kept trimmed.
        settings.name = settings.name().map_or(String::new(), |n| n.to_string());
        Ok(settings)
    }

    /// The text of a settings file.
    pub fn to_text(&self) -> String {
        toml::to_string_pretty(self).expect("settings always serialize")
    }

    /// The kept settings (`platform::records`: a file natively, the page's
    /// local storage in the browser); the defaults when none are kept, or
    /// when they cannot be read or are invalid, which the player is told
    /// (what was kept is left as it is until they save).
    pub fn load_or_default() -> Settings {
        let place = records::settings_place;
        let problem = match records::read_settings(MAX_SETTINGS_BYTES) {
            Ok(None) => return Settings::default(),
            Ok(Some(bytes)) => match Settings::from_bytes(bytes) {
                Ok(settings) => return settings,
                Err(reason) => format!(
                    "settings {} are invalid ({reason}); using the defaults (the file is left as it is)",
                    place()
                ),
            },
            Err(e) => format!("cannot read settings {}: {e}; using the defaults", place()),
        };
        records::warn(&problem);
        Settings::default()
    }

    /// Keeps these settings where [`Settings::load_or_default`] finds them.
    pub fn keep(&self) -> Result<(), String> {
        records::keep_settings(&self.to_text())
    }

    /// What the types do not rule out already.
    pub fn validate(&self) -> Result<(), String> {
        if self.volume > 100 {
            return Err(format!("volume {} is above 100", self.volume));
        }
        if self.music_volume > 100 {
            return Err(format!("music_volume {} is above 100", self.music_volume));
        }
        if !(100..=200).contains(&self.ui_scale) {
            return Err(format!(
                "ui_scale {} is not 100 to 200 (percent)",
                self.ui_scale
            ));
        }
        let most = twinstar_netcode::signaling::MAX_LEVEL;
        if self.best_wave > most {
            return Err(format!("best_wave {} is above {most}", self.best_wave));
        }
        self.pad.validate()?;
        if !self.name.trim().is_empty() {
            PlayerName::parse(&self.name).map_err(|e| format!("name: {e}"))?;
        }
        self.checked_server().map(|_| ())
    }

    /// The display name, if one is set (and valid).
    pub fn name(&self) -> Option<PlayerName> {
        PlayerName::parse(&self.name).ok()
    }

    /// The server, checked by the same rule as `--server` and normalised;
    /// empty stays empty (this machine).
    fn checked_server(&self) -> Result<String, String> {
        match self.server.trim() {
            "" => Ok(String::new()),
            url => check_server_url(url).map_err(|e| format!("server: {e}")),
        }
    }

    /// The input delay a match uses unless `--input-delay` says otherwise.
    pub fn delay(&self) -> DelaySetting {
        self.input_delay
    }

    /// Moves the input delay along auto, 0, 1, ..., 8: Left/Right stop at
    /// the ends, Enter (`wrap`) goes round.
    pub fn step_delay(&mut self, step: i32, wrap: bool) {
        let values: Vec<DelaySetting> = std::iter::once(DelaySetting::Auto)
            .chain((0..=MAX_INPUT_DELAY).map(DelaySetting::Fixed))
            .collect();
        let now = values.iter().position(|v| *v == self.input_delay);
        self.input_delay = values[stepped(values.len(), now.unwrap_or(0), step, wrap)];
    }

    /// Moves the reconnect window along [`RECONNECT_WINDOWS`], like
    /// [`Settings::step_delay`].
    pub fn step_reconnect_window(&mut self, step: i32, wrap: bool) {
        let now = RECONNECT_WINDOWS
            .iter()
            .position(|&w| w >= self.reconnect_window)
            .unwrap_or(RECONNECT_WINDOWS.len() - 1);
        self.reconnect_window =
            RECONNECT_WINDOWS[stepped(RECONNECT_WINDOWS.len(), now, step, wrap)];
    }

    /// Moves the interface scale along [`UI_SCALES`], like
    /// [`Settings::step_delay`].
    pub fn step_ui_scale(&mut self, step: i32, wrap: bool) {
        let now = UI_SCALES
            .iter()
            .position(|&s| s >= self.ui_scale)
            .unwrap_or(UI_SCALES.len() - 1);
        self.ui_scale = UI_SCALES[stepped(UI_SCALES.len(), now, step, wrap)];
    }

    /// Moves the volume in steps of 10 %, like [`Settings::step_delay`].
    pub fn step_volume(&mut self, step: i32, wrap: bool) {
        let now = usize::from(self.volume.min(100) / 10);
        self.volume = stepped(11, now, step, wrap) as u8 * 10;
    }

    /// Moves the music volume in steps of 10 %, like [`Settings::step_volume`].
    pub fn step_music_volume(&mut self, step: i32, wrap: bool) {
        let now = usize::from(self.music_volume.min(100) / 10);
        self.music_volume = stepped(11, now, step, wrap) as u8 * 10;
    }

    /// The server to use, if one is set.
    pub fn server(&self) -> Option<&str> {
        Some(self.server.trim()).filter(|s| !s.is_empty())
    }

    pub fn keymaps(&self) -> [KeyMap; 2] {
        [
            self.player_one.map_or(&KeyMap::PLAYER_ONE),
            self.player_two.map_or(&KeyMap::PLAYER_TWO),
        ]
    }

    /// One player's bindings: 0 is player one, anything else player two.
    pub fn keys_mut(&mut self, player: usize) -> &mut Keys {
        if player == 0 {
            &mut self.player_one
        } else {
            &mut self.player_two
        }
    }
}

/// 1-based line number of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

impl Keys {
    pub fn from_map(map: &KeyMap) -> Keys {
        Keys {
            up: map.up,
            down: map.down,
            left: map.left,
            right: map.right,
            fire: map.fire,
            focus: map.focus,
            start: map.start,
            bomb: Some(map.bomb),
        }
    }

    /// The bindings, with `default`'s bomb key where the file had none.
    pub fn map_or(&self, default: &KeyMap) -> KeyMap {
        KeyMap {
            bomb: self.bomb.unwrap_or(default.bomb),
            ..self.map()
        }
    }

    pub fn map(&self) -> KeyMap {
        KeyMap {
            up: self.up,
            down: self.down,
            left: self.left,
            right: self.right,
            fire: self.fire,
            focus: self.focus,
            start: self.start,
            bomb: self.bomb.unwrap_or(KeyCode::Unknown),
        }
    }

    /// The key bound to `action`; a file without a bomb key has
    /// `KeyCode::Unknown` here (`Settings::keymaps` puts the default in).
    pub fn get(&self, action: Action) -> KeyCode {
        match action {
            Action::Up => self.up,
            Action::Down => self.down,
            Action::Left => self.left,
            Action::Right => self.right,
            Action::Fire => self.fire,
            Action::Focus => self.focus,
            Action::Start => self.start,
            Action::Bomb => self.bomb.unwrap_or(KeyCode::Unknown),
        }
    }

    pub fn set(&mut self, action: Action, key: KeyCode) {
        match action {
            Action::Up => self.up = key,
            Action::Down => self.down = key,
            Action::Left => self.left = key,
            Action::Right => self.right = key,
            Action::Fire => self.fire = key,
            Action::Focus => self.focus = key,
            Action::Start => self.start = key,
            Action::Bomb => self.bomb = Some(key),
        }
    }
}

/// `input_delay` in the file: the text `--input-delay` takes ("auto", "3").
/// A bare TOML number is read as well; it is written as text, as always.
mod delay_text {
    use serde::de::{self, Visitor};
    use serde::{Deserializer, Serializer};

    use twinstar_netcode::connect::DelaySetting;

    pub fn serialize<S: Serializer>(delay: &DelaySetting, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(delay)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DelaySetting, D::Error> {
        struct Text;
        impl Visitor<'_> for Text {
            type Value = DelaySetting;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("\"auto\" or a number of frames")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<DelaySetting, E> {
                v.parse()
                    .map_err(|e| E::custom(format!("input_delay '{v}': {e}")))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<DelaySetting, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<DelaySetting, E> {
                self.visit_str(&v.to_string())
            }
        }
        d.deserialize_any(Text)
    }
}

/// A key binding in the file: its name, one of [`BINDABLE_KEYS`].
mod key_text {
    use macroquad::input::KeyCode;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(key: &KeyCode, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::key_name(*key))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<KeyCode, D::Error> {
        let name = String::deserialize(d)?;
        super::parse_key(&name).map_err(serde::de::Error::custom)
    }
}

mod key_text_opt {
    use macroquad::input::KeyCode;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(key: &Option<KeyCode>, s: S) -> Result<S::Ok, S::Error> {
        match key {
            Some(k) => super::key_text::serialize(k, s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<KeyCode>, D::Error> {
        let name = String::deserialize(d)?;
        super::parse_key(&name)
            .map(Some)
            .map_err(serde::de::Error::custom)
    }
}

/// Keys a player may bind. Escape (leave) and F1 (overlay) are reserved.
pub const BINDABLE_KEYS: &[KeyCode] = {
    use KeyCode::*;
    &[
        A,
        B,
        C,
        D,
        E,
        F,
        G,
        H,
        I,
        J,
        K,
        L,
        M,
        N,
        O,
        P,
        Q,
        R,
        S,
        T,
        U,
        V,
        W,
        X,
        Y,
        Z,
        Key0,
        Key1,
        Key2,
        Key3,
        Key4,
        Key5,
        Key6,
        Key7,
        Key8,
        Key9,
        Space,
        Enter,
        Tab,
        Backspace,
        LeftShift,
        RightShift,
        LeftControl,
        RightControl,
        LeftAlt,
        RightAlt,
        Up,
        Down,
        Left,
        Right,
        Kp0,
        Kp1,
        Kp2,
        Kp3,
        Kp4,
        Kp5,
        Kp6,
        Kp7,
        Kp8,
        Kp9,
        KpEnter,
        Comma,
        Period,
        Slash,
        Semicolon,
        Apostrophe,
        Minus,
        Equal,
        LeftBracket,
        RightBracket,
        Backslash,
        GraveAccent,
        Insert,
        Delete,
        Home,
        End,
        PageUp,
        PageDown,
    ]
};

/// `index + step` among `len` values, wrapping round or stopping at the ends.
fn stepped(len: usize, index: usize, step: i32, wrap: bool) -> usize {
    let target = index as i64 + i64::from(step);
    if wrap {
        target.rem_euclid(len as i64) as usize
    } else {
        target.clamp(0, len as i64 - 1) as usize
    }
}

pub fn key_name(key: KeyCode) -> String {
    format!("{key:?}")
}

pub fn parse_key(name: &str) -> Result<KeyCode, String> {
    BINDABLE_KEYS
        .iter()
        .copied()
        .find(|k| key_name(*k).eq_ignore_ascii_case(name.trim()))
        .ok_or_else(|| format!("unknown key '{name}' (names like W, Space, LeftShift, Up, Key1)"))
}

#[cfg(test)]
#[path = "settings_tests.rs"]
mod tests;
