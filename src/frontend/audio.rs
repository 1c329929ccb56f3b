//! Sound effects. Sounds follow simulation events through the rollback-safe
//! `EventLedger`: a re-simulated event does not play again, and a long
//! sound whose event a rollback erased is stopped.
//!
//! Without a sound device (a server, Xvfb in CI) macroquad's audio thread
//! panics at start-up. That panic is caught by [`install_panic_filter`],
//! reported in one line, and the game plays on silently.

use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use macroquad::audio::{PlaySoundParams, Sound, load_sound_from_bytes, play_sound, stop_sound};

use crate::sim::Event;

static AUDIO_FAILED: AtomicBool = AtomicBool::new(false);
static FILTER: Once = Once::new();

/// How long the audio thread gets to open the device before sounds are
/// loaded (loading into a dead audio thread prints noise on stdout).
const DEVICE_GRACE: Duration = Duration::from_millis(300);

/// Turns a panic of macroquad's audio thread (no sound device) into one
/// warning line; every other panic keeps the default report.
pub fn install_panic_filter() {
    FILTER.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let from_audio = info
                .location()
                .is_some_and(|l| l.file().contains("quad-snd"));
            if from_audio {
                if !AUDIO_FAILED.swap(true, Ordering::SeqCst) {
                    eprintln!("twinstar: no usable sound device; playing without sound");
                }
            } else {
                default(info);
            }
        }));
    });
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cue {
    Shot,
    Hit,
    Death,
    WaveStart,
    GameOver,
    MenuMove,
    MenuSelect,
}

const CUES: [(Cue, &[u8]); 7] = [
    (Cue::Shot, include_bytes!("../../assets/sounds/shot.wav")),
    (Cue::Hit, include_bytes!("../../assets/sounds/hit.wav")),
    (Cue::Death, include_bytes!("../../assets/sounds/death.wav")),
    (
        Cue::WaveStart,
        include_bytes!("../../assets/sounds/wave_start.wav"),
    ),
    (
        Cue::GameOver,
        include_bytes!("../../assets/sounds/game_over.wav"),
    ),
    (
        Cue::MenuMove,
        include_bytes!("../../assets/sounds/menu_move.wav"),
    ),
    (
        Cue::MenuSelect,
        include_bytes!("../../assets/sounds/menu_select.wav"),
    ),
];

/// The sound an event makes, if any.
pub fn cue_for(event: &Event) -> Option<Cue> {
    match event {
        Event::PlayerShot { .. } => Some(Cue::Shot),
        Event::EnemyHit { .. } => Some(Cue::Hit),
        Event::EnemyKilled { .. } | Event::PlayerKilled { .. } => Some(Cue::Death),
        Event::WaveStarted { .. } => Some(Cue::WaveStart),
        Event::GameOver => Some(Cue::GameOver),
        Event::EnemyShot { .. } | Event::PlayerRespawned { .. } | Event::Restarted => None,
    }
}

pub struct Audio {
    started: Instant,
    sounds: Option<Vec<(Cue, Sound)>>,
    /// 0.0..=1.0
    volume: f32,
}

impl Audio {
    pub fn new(volume_percent: u8) -> Audio {
        Audio {
            started: Instant::now(),
            sounds: None,
            volume: f32::from(volume_percent.min(100)) / 100.0,
        }
    }

    pub fn set_volume(&mut self, volume_percent: u8) {
        self.volume = f32::from(volume_percent.min(100)) / 100.0;
    }

    /// Loads the sounds once the device is known to work. Call every frame.
    pub async fn update(&mut self) {
        if self.sounds.is_some()
            || self.volume == 0.0
            || AUDIO_FAILED.load(Ordering::SeqCst)
            || self.started.elapsed() < DEVICE_GRACE
        {
            return;
        }
        let mut loaded = Vec::new();
        for (cue, bytes) in CUES {
            match load_sound_from_bytes(bytes).await {
                Ok(sound) => loaded.push((cue, sound)),
                Err(e) => tracing::warn!("sound {cue:?} did not load: {e}"),
            }
        }
        self.sounds = Some(loaded);
    }

    fn sound(&self, cue: Cue) -> Option<&Sound> {
        if AUDIO_FAILED.load(Ordering::SeqCst) || self.volume == 0.0 {
            return None;
        }
        let sounds = self.sounds.as_ref()?;
        sounds.iter().find(|(c, _)| *c == cue).map(|(_, s)| s)
    }

    pub fn play(&self, cue: Cue) {
        if let Some(sound) = self.sound(cue) {
            // Shots come several a second: keep them under the rest.
            let level = if cue == Cue::Shot { 0.5 } else { 1.0 };
            play_sound(
                sound,
                PlaySoundParams {
                    looped: false,
                    volume: self.volume * level,
                },
            );
        }
    }

    /// A rollback erased this cue's event. Short cues are over before any
    /// rollback could arrive; the long ones are stopped.
    pub fn cancel(&self, cue: Cue) {
        if matches!(cue, Cue::WaveStart | Cue::GameOver)
            && let Some(sound) = self.sound(cue)
        {
            stop_sound(sound);
        }
    }
}
