//! The player's settings, kept in `<config dir>/twinstar/settings.toml`
//! (`TWINSTAR_CONFIG` names another file). Command-line flags override
//! them for one run; the Settings screen edits and saves them.
//!
//! A settings file that does not parse is reported and left untouched:
//! defaults are used, and nothing is written over it until the player
//! saves from the Settings screen.

use std::path::{Path, PathBuf};

use macroquad::input::KeyCode;
use serde::{Deserialize, Serialize};

use crate::input::KeyMap;
use crate::net::delay::DelaySetting;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Signaling server URL; empty for this machine (the host starts one).
    pub server: String,
    /// "auto" or 0..=8 frames.
    pub input_delay: String,
    /// 0..=100.
    pub volume: u8,
    /// Show the network overlay (F1 toggles it during a match).
    pub net_overlay: bool,
    pub player_one: Keys,
    pub player_two: Keys,
}

/// One player's bindings, by key name (`W`, `Space`, `LeftShift`, `Up`, ...).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Keys {
    pub up: String,
    pub down: String,
    pub left: String,
    pub right: String,
    pub fire: String,
    pub focus: String,
    pub start: String,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            server: String::new(),
            input_delay: "auto".into(),
            volume: 70,
            net_overlay: false,
            player_one: Keys::from_map(&KeyMap::PLAYER_ONE),
            player_two: Keys::from_map(&KeyMap::PLAYER_TWO),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("cannot read settings {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "settings {path} are invalid ({reason}); using the defaults (the file is left as it is)"
    )]
    Invalid { path: PathBuf, reason: String },
    #[error("cannot save settings to {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Where the settings live.
pub fn settings_path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("TWINSTAR_CONFIG") {
        return Some(PathBuf::from(path));
    }
    dirs::config_dir().map(|d| d.join("twinstar").join("settings.toml"))
}

impl Settings {
    /// The saved settings; defaults when there is no file. A broken file is
    /// an error the caller reports (and then uses the defaults).
    pub fn load(path: &Path) -> Result<Settings, SettingsError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Settings::default()),
            Err(source) => {
                return Err(SettingsError::Read {
                    path: path.into(),
                    source,
                });
            }
        };
        let invalid = |reason: String| SettingsError::Invalid {
            path: path.into(),
            reason,
        };
        let settings: Settings = toml::from_str(&text)
            .map_err(|e| invalid(e.message().to_string().replace('\n', " ")))?;
        settings.validate().map_err(invalid)?;
        Ok(settings)
    }

    /// Loads from the usual place, reporting a problem on stderr.
    pub fn load_or_default() -> Settings {
        let Some(path) = settings_path() else {
            return Settings::default();
        };
        Settings::load(&path).unwrap_or_else(|e| {
            eprintln!("twinstar: {e}");
            Settings::default()
        })
    }

    /// Writes atomically (a temporary file renamed over the old one), so a
    /// crash never leaves half a settings file.
    pub fn save(&self, path: &Path) -> Result<(), SettingsError> {
        let write = |source| SettingsError::Write {
            path: path.into(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(write)?;
        }
        let text = toml::to_string_pretty(self).expect("settings always serialize");
        let tmp = path.with_extension("toml.tmp");
        std::fs::write(&tmp, text).map_err(write)?;
        std::fs::rename(&tmp, path).map_err(write)
    }

    pub fn validate(&self) -> Result<(), String> {
        self.delay()?;
        if self.volume > 100 {
            return Err(format!("volume {} is above 100", self.volume));
        }
        for (who, keys) in [
            ("player_one", &self.player_one),
            ("player_two", &self.player_two),
        ] {
            keys.map().map_err(|e| format!("{who}: {e}"))?;
        }
        Ok(())
    }

    pub fn delay(&self) -> Result<DelaySetting, String> {
        self.input_delay
            .parse()
            .map_err(|e| format!("input_delay '{}': {e}", self.input_delay))
    }

    /// Moves the input delay along auto, 0, 1, ..., 8: Left/Right stop at
    /// the ends, Enter (`wrap`) goes round.
    pub fn step_delay(&mut self, step: i32, wrap: bool) {
        let values: Vec<String> = std::iter::once("auto".to_string())
            .chain((0..=crate::net::delay::MAX_INPUT_DELAY).map(|n| n.to_string()))
            .collect();
        let now = values.iter().position(|v| *v == self.input_delay);
        self.input_delay = values[stepped(values.len(), now.unwrap_or(0), step, wrap)].clone();
    }

    /// Moves the volume in steps of 10 %, like [`Settings::step_delay`].
    pub fn step_volume(&mut self, step: i32, wrap: bool) {
        let now = usize::from(self.volume.min(100) / 10);
        self.volume = stepped(11, now, step, wrap) as u8 * 10;
    }

    /// The server to use, if one is set.
    pub fn server(&self) -> Option<&str> {
        Some(self.server.trim()).filter(|s| !s.is_empty())
    }

    pub fn keymaps(&self) -> [KeyMap; 2] {
        [
            self.player_one.map().unwrap_or(KeyMap::PLAYER_ONE),
            self.player_two.map().unwrap_or(KeyMap::PLAYER_TWO),
        ]
    }
}

impl Keys {
    pub fn from_map(map: &KeyMap) -> Keys {
        let [up, down, left, right, fire, focus, start] = map.keys().map(key_name);
        Keys {
            up,
            down,
            left,
            right,
            fire,
            focus,
            start,
        }
    }

    pub fn map(&self) -> Result<KeyMap, String> {
        let names = self.names();
        let mut keys = [KeyCode::Unknown; 7];
        for (slot, name) in keys.iter_mut().zip(names) {
            *slot = parse_key(name)?;
        }
        Ok(KeyMap::from_keys(keys))
    }

    /// In the order of [`KeyMap::ACTIONS`].
    pub fn names(&self) -> [&String; 7] {
        [
            &self.up,
            &self.down,
            &self.left,
            &self.right,
            &self.fire,
            &self.focus,
            &self.start,
        ]
    }

    pub fn set(&mut self, action: usize, key: KeyCode) {
        let name = key_name(key);
        match action {
            0 => self.up = name,
            1 => self.down = name,
            2 => self.left = name,
            3 => self.right = name,
            4 => self.fire = name,
            5 => self.focus = name,
            _ => self.start = name,
        }
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
mod tests {
    use super::*;

    fn temp_path(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("twinstar-settings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn round_trips_and_missing_file_means_defaults() {
        let path = temp_path("roundtrip.toml");
        let _ = std::fs::remove_file(&path);
        assert_eq!(Settings::load(&path).unwrap(), Settings::default());
        let mut s = Settings {
            server: "ws://192.168.1.20:3536".into(),
            input_delay: "3".into(),
            volume: 25,
            net_overlay: true,
            ..Settings::default()
        };
        s.player_two.set(4, KeyCode::Kp0);
        s.save(&path).unwrap();
        let back = Settings::load(&path).unwrap();
        assert_eq!(back, s);
        assert_eq!(back.keymaps()[1].fire, KeyCode::Kp0);
        assert_eq!(back.delay().unwrap(), DelaySetting::Fixed(3));
    }

    #[test]
    fn a_broken_file_is_reported_and_left_alone() {
        let path = temp_path("broken.toml");
        for text in [
            "volume = 300",
            "input_delay = \"fast\"",
            "[player_one]\nup = \"Escape\"",
            "nonsense",
            "speed = 3",
        ] {
            std::fs::write(&path, text).unwrap();
            let err = Settings::load(&path).unwrap_err().to_string();
            assert!(err.contains("invalid"), "{text}: {err}");
            assert!(!err.contains('\n'), "{err}");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        }
    }

    #[test]
    fn a_partial_file_fills_in_defaults() {
        let path = temp_path("partial.toml");
        std::fs::write(&path, "volume = 5\n").unwrap();
        let s = Settings::load(&path).unwrap();
        assert_eq!(s.volume, 5);
        assert_eq!(s.player_one, Settings::default().player_one);
    }

    #[test]
    fn delay_and_volume_step_with_arrows_and_wrap_with_enter() {
        let mut s = Settings::default();
        let mut seen = vec![s.input_delay.clone()];
        for _ in 0..10 {
            s.step_delay(1, true);
            seen.push(s.input_delay.clone());
        }
        assert_eq!(seen[1], "0");
        assert_eq!(seen[9], "8");
        assert_eq!(seen[10], "auto", "Enter goes round");
        s.step_delay(-1, false);
        assert_eq!(s.input_delay, "auto", "Left stops at auto");
        s.input_delay = "8".into();
        s.step_delay(1, false);
        assert_eq!(s.input_delay, "8", "Right stops at 8");
        s.step_delay(-1, false);
        assert_eq!(s.input_delay, "7");

        s.volume = 95;
        s.step_volume(1, false);
        assert_eq!(s.volume, 100);
        s.step_volume(1, false);
        assert_eq!(s.volume, 100);
        s.step_volume(1, true);
        assert_eq!(s.volume, 0);
        s.step_volume(-1, false);
        assert_eq!(s.volume, 0);
        s.step_volume(1, false);
        assert_eq!(s.volume, 10);
        assert!(s.validate().is_ok());
    }

    #[test]
    fn key_names_round_trip() {
        for key in BINDABLE_KEYS {
            assert_eq!(parse_key(&key_name(*key)).unwrap(), *key);
        }
        assert!(parse_key("Escape").is_err());
        assert_eq!(parse_key("leftshift").unwrap(), KeyCode::LeftShift);
    }
}
