//! Sound effects. Sounds follow simulation events through the rollback-safe
//! `EventLedger`: a re-simulated event does not play again, and the sound of
//! an event a rollback erased is stopped (the mispredicted death of the
//! other player's ship is not heard out to its end).
//!
//! macroquad can only stop every instance of a `Sound` at once, so each cue
//! is loaded into a few voices (separate `Sound`s of the same bytes) played
//! in turn; [`VoiceBook`] remembers which voice played which frame's cue, so
//! cancelling one frame's cue stops only that voice.
//!
//! Without a sound device (a server, Xvfb in CI) macroquad's audio thread
//! panics at start-up. That panic is caught by [`install_panic_filter`],
//! reported in one line, and the game plays on silently.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Once};
use web_time::{Duration, Instant};

use macroquad::audio::{PlaySoundParams, Sound, load_sound_from_bytes, play_sound, stop_sound};
use macroquad::experimental::coroutines::start_coroutine;

use super::assets::Arriving;
pub use super::cues::Cue;
use super::cues::{CUES, cue_for};
use super::effects::{Changes, EventLedger};
use super::music::{Music, Track};
use crate::sim::Event;

static AUDIO_FAILED: AtomicBool = AtomicBool::new(false);
static FILTER: Once = Once::new();
/// Whether this process plays sound itself (a video's export does not: it
/// mixes its sound track offline, so a missing device is not news).
static DEVICE_WANTED: AtomicBool = AtomicBool::new(true);

/// This process plays no sound: a missing device goes unmentioned.
pub fn no_device_needed() {
    DEVICE_WANTED.store(false, Ordering::SeqCst);
}

/// How long the audio thread gets to open the device before sounds are
/// loaded (loading into a dead audio thread prints noise on stdout).
const DEVICE_GRACE: Duration = Duration::from_millis(300);

/// Turns a panic of macroquad's audio thread (no sound device) into one
/// warning line; every other panic keeps the default report.
pub fn install_panic_filter() {
    FILTER.call_once(|| {
        twinstar_netcode::route_panics_from("quad-snd", |_| {
            if !AUDIO_FAILED.swap(true, Ordering::SeqCst) && DEVICE_WANTED.load(Ordering::SeqCst) {
                eprintln!("twinstar: no usable sound device; playing without sound");
            }
        })
    });
}

/// Which frame's sounds to start and stop after one advance.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SoundChanges {
    pub start: Vec<(u32, Cue)>,
    pub stop: Vec<(u32, Cue)>,
}

/// Enemy shots come many a frame in a boss fight: their sound plays at
/// most once per this many frames, so it stays a patter, not a buzz.
pub const ENEMY_SHOT_FRAMES: u32 = 4;

/// The frame a cue's sound belongs to: its own, or for enemy shots the
/// first of its [`ENEMY_SHOT_FRAMES`]-frame slot. Slots are fixed, not
/// counted from the last sound, so a rollback cannot shift them.
fn sound_frame(frame: u32, cue: Cue) -> (u32, u32) {
    if cue == Cue::EnemyShot {
        (frame - frame % ENEMY_SHOT_FRAMES, ENEMY_SHOT_FRAMES)
    } else {
        (frame, 1)
    }
}

/// Each frame (each slot, for enemy shots) makes at most one sound per cue
/// (two ships firing together is one zap). That sound starts when the
/// first event with the cue appears and stops when a rollback leaves the
/// frame with none: an erased kill replaced by another kill in the same
/// frame keeps the sound playing. `local` is [`cue_for`]'s.
pub fn sound_changes(changes: &Changes, ledger: &EventLedger, local: [bool; 2]) -> SoundChanges {
    let mut out = SoundChanges::default();
    let mut seen: Vec<(u32, Cue)> = Vec::new();
    let touched = changes.fired.iter().chain(&changes.cancelled);
    for (frame, cue) in touched.filter_map(|(f, e)| Some((*f, cue_for(e, local)?))) {
        let (first, span) = sound_frame(frame, cue);
        if seen.contains(&(first, cue)) {
            continue;
        }
        seen.push((first, cue));
        let has_cue = |e: &Event| cue_for(e, local) == Some(cue);
        let in_slot = |list: &[(u32, Event)]| {
            list.iter()
                .filter(|(f, e)| sound_frame(*f, cue).0 == first && has_cue(e))
                .count()
        };
        let after: usize = (first..first + span)
            .map(|f| ledger.events_at(f).iter().filter(|e| has_cue(e)).count())
            .sum();
        let before = (after + in_slot(&changes.cancelled)).saturating_sub(in_slot(&changes.fired));
        if before == 0 && after > 0 {
            out.start.push((first, cue));
        } else if before > 0 && after == 0 {
            out.stop.push((first, cue));
        }
    }
    out
}

/// A cue's level under the sound volume (a video's mix uses it too).
pub fn cue_level(cue: Cue) -> f32 {
    // Shots come several a second: keep them under the rest.
    if matches!(cue, Cue::Shot | Cue::EnemyShot) {
        0.5
    } else {
        1.0
    }
}

/// Voices per cue: more than the same cue can start during one rollback
/// window (8 frames) in practice, so a stopped voice is almost always the
/// erased event's alone.
const VOICES: usize = 4;

/// Which voice of each cue last played which frame's event. Pure
/// bookkeeping, so it is unit-tested without a sound device.
#[derive(Debug, Default)]
pub struct VoiceBook {
    cues: HashMap<Cue, Voices>,
}

#[derive(Debug, Default)]
struct Voices {
    /// The voice the next play uses (round robin).
    next: usize,
    /// The frame whose event each voice last played.
    frames: [Option<u32>; VOICES],
}

impl VoiceBook {
    /// Picks the voice for `cue` of simulation `frame`.
    pub fn play(&mut self, cue: Cue, frame: u32) -> usize {
        let voices = self.cues.entry(cue).or_default();
        let voice = voices.next;
        voices.frames[voice] = Some(frame);
        voices.next = (voice + 1) % VOICES;
        voice
    }

    /// The voice still playing `cue` of `frame`, if no newer event took it.
    pub fn cancel(&mut self, cue: Cue, frame: u32) -> Option<usize> {
        let frames = &mut self.cues.get_mut(&cue)?.frames;
        let voice = frames.iter().position(|f| *f == Some(frame))?;
        frames[voice] = None;
        Some(voice)
    }
}

/// Per cue, its [`VOICES`] copies (one for menu cues).
type Loaded = Vec<(Cue, Vec<Sound>)>;

/// The cues loaded so far. The load adds each cue as soon as its voices
/// are ready: in the browser every voice decodes over at least a frame, and
/// waiting for all ~140 kept the menu's ticks (loaded first) silent for
/// seconds.
type Shared = Arc<Mutex<Loaded>>;

enum Sounds {
    NotStarted,
    Started(Shared),
}

/// Every cue's voices, into `loaded` one cue at a time, in [`CUES`]
/// order (their files all asked for at once, in the page); a cue that does
/// not load is left out, with a warning. Says when the last is in.
async fn load_cues(loaded: Shared) {
    let started = Instant::now();
    let arriving: Vec<(Cue, Arriving)> = CUES
        .iter()
        .map(|(cue, file)| (*cue, Arriving::start(*file)))
        .collect();
    let mut count = 0;
    for (cue, file) in arriving {
        match file.wait().await {
            Ok(bytes) => match load_voices(cue, &bytes).await {
                Ok(voices) => {
                    count += 1;
                    loaded
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((cue, voices));
                }
                Err(e) => tracing::warn!("sound {cue:?} did not load: {e}"),
            },
            Err(e) => tracing::warn!("sound {cue:?} did not load: {e}"),
        }
    }
    tracing::info!(
        "sounds: {count} of {} loaded in {} ms",
        CUES.len(),
        started.elapsed().as_millis()
    );
}

/// A cue's voices: [`VOICES`] copies of its sound (one for a menu cue,
/// never cancelled).
async fn load_voices(cue: Cue, bytes: &[u8]) -> Result<Vec<Sound>, macroquad::Error> {
    let count = if matches!(cue, Cue::MenuMove | Cue::MenuSelect) {
        1
    } else {
        VOICES
    };
    let mut voices = Vec::with_capacity(count);
    for _ in 0..count {
        voices.push(load_sound_from_bytes(bytes).await?);
    }
    Ok(voices)
}

pub struct Audio {
    started: Instant,
    sounds: Sounds,
    book: VoiceBook,
    /// 0.0..=1.0
    volume: f32,
    music: Music,
}

impl Audio {
    pub fn new(volume_percent: u8) -> Audio {
        Audio {
            started: Instant::now(),
            sounds: Sounds::NotStarted,
            book: VoiceBook::default(),
            volume: f32::from(volume_percent.min(100)) / 100.0,
            music: Music::new(0),
        }
    }

    pub fn set_music_volume(&mut self, volume_percent: u8) {
        self.music.set_volume(volume_percent);
    }

    /// The music this screen plays from now on (it starts once rendered).
    pub fn play_music(&mut self, track: Track) {
        self.music.want(track);
    }

    /// The match music's intensity layer, 0.0..=1.0 (see
    /// [`super::music::intensity_for`]).
    pub fn set_intensity(&mut self, level: f32) {
        self.music.set_intensity(level);
    }

    pub fn set_volume(&mut self, volume_percent: u8) {
        self.volume = f32::from(volume_percent.min(100)) / 100.0;
    }

    /// Starts loading the sounds once the device is known to work (each
    /// plays from when it is loaded), and drives the music. Call every
    /// frame; it never waits.
    ///
    /// In the browser a sound decodes over several animation frames
    /// (macroquad's `load_sound_from_bytes` awaits `next_frame` until it
    /// is ready). Awaited here, those frames drew nothing: the menu went
    /// black and a match stalled. The load runs as a macroquad coroutine
    /// beside the caller's loop instead.
    pub fn update(&mut self) {
        let device_ok =
            !AUDIO_FAILED.load(Ordering::SeqCst) && self.started.elapsed() >= DEVICE_GRACE;
        self.music.update(device_ok);
        if matches!(self.sounds, Sounds::NotStarted) && self.volume > 0.0 && device_ok {
            let loaded = Shared::default();
            // It runs beside the caller's loop to its end; nothing waits for it.
            let _ = start_coroutine(load_cues(loaded.clone()));
            self.sounds = Sounds::Started(loaded);
        }
    }

    /// The voice, if loaded yet (a `Sound` is a shared handle: cheap to clone).
    fn voice(&self, cue: Cue, voice: usize) -> Option<Sound> {
        if AUDIO_FAILED.load(Ordering::SeqCst) || self.volume == 0.0 {
            return None;
        }
        let Sounds::Started(loaded) = &self.sounds else {
            return None;
        };
        let loaded = loaded.lock().unwrap_or_else(|e| e.into_inner());
        loaded
            .iter()
            .find(|(c, _)| *c == cue)
            .and_then(|(_, voices)| voices.get(voice))
            .cloned()
    }

    /// Plays a cue outside the simulation (menus).
    pub fn play(&mut self, cue: Cue) {
        self.start(cue, 0);
    }

    /// Plays the cue of an event of simulation `frame`.
    pub fn play_event(&mut self, cue: Cue, frame: u32) {
        let voice = self.book.play(cue, frame);
        self.start(cue, voice);
    }

    fn start(&self, cue: Cue, voice: usize) {
        if let Some(sound) = self.voice(cue, voice) {
            play_sound(
                &sound,
                PlaySoundParams {
                    looped: false,
                    volume: self.volume * cue_level(cue),
                },
            );
        }
    }

    /// A rollback erased the event of `frame` that played this cue: stop
    /// its voice (a no-op when it has finished or was reused since).
    pub fn cancel_event(&mut self, cue: Cue, frame: u32) {
        if let Some(voice) = self.book.cancel(cue, frame)
            && let Some(sound) = self.voice(cue, voice)
        {
            stop_sound(&sound);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::session::FrameReport;

    fn advance(
        ledger: &mut EventLedger,
        from: u32,
        to: u32,
        events: &[(u32, Event)],
    ) -> SoundChanges {
        let report = FrameReport {
            simulated: Some((from, to)),
            events: events.to_vec(),
            ..FrameReport::default()
        };
        let changes = ledger.apply(&report);
        // Local co-op: both ships' losses are "own", one cue.
        sound_changes(&changes, ledger, [true, true])
    }

    fn death(player: u8) -> Event {
        Event::PlayerKilled {
            player,
            pos: crate::sim::Vec2::default(),
        }
    }

    #[test]
    fn one_sound_per_cue_and_frame_started_once_stopped_when_erased() {
        let mut ledger = EventLedger::new();
        let shot = |player| Event::PlayerShot { player };
        let first = advance(
            &mut ledger,
            10,
            10,
            &[(10, shot(0)), (10, shot(1)), (10, death(1))],
        );
        assert_eq!(first.start, vec![(10, Cue::Shot), (10, Cue::OwnDeath)]);
        assert!(first.stop.is_empty());
        // Re-simulated: player 1 was not hit after all and fired one shot fewer.
        let second = advance(&mut ledger, 9, 11, &[(10, shot(0)), (11, shot(0))]);
        assert_eq!(second.start, vec![(11, Cue::Shot)]);
        assert_eq!(
            second.stop,
            vec![(10, Cue::OwnDeath)],
            "the shot at 10 still happened"
        );
    }

    #[test]
    fn a_death_moved_to_the_other_player_keeps_playing() {
        let mut ledger = EventLedger::new();
        advance(&mut ledger, 10, 10, &[(10, death(0))]);
        let changes = advance(&mut ledger, 10, 10, &[(10, death(1))]);
        assert_eq!(changes, SoundChanges::default());
    }

    #[test]
    fn enemy_shots_sound_at_most_once_per_slot_of_frames() {
        let mut ledger = EventLedger::new();
        let fire = |id| Event::EnemyShot { id, kind: 1 };
        let mut started = Vec::new();
        // Twelve frames of fire, two shots a frame: three sounds.
        for frame in 8..20 {
            let shots = [(frame, fire(1)), (frame, fire(2))];
            started.extend(advance(&mut ledger, frame, frame, &shots).start);
        }
        assert_eq!(
            started,
            vec![
                (8, Cue::EnemyShot),
                (12, Cue::EnemyShot),
                (16, Cue::EnemyShot)
            ]
        );
    }

    #[test]
    fn an_erased_enemy_shot_stops_only_when_its_slot_has_none_left() {
        let mut ledger = EventLedger::new();
        let fire = Event::EnemyShot { id: 1, kind: 1 };
        let first = advance(&mut ledger, 9, 9, &[(9, fire)]);
        assert_eq!(first.start, vec![(8, Cue::EnemyShot)]);
        // Re-simulated: the shot came a frame later, in the same slot.
        let moved = advance(&mut ledger, 9, 10, &[(10, fire)]);
        assert_eq!(moved, SoundChanges::default());
        // Re-simulated again: no shot at all in the slot.
        let gone = advance(&mut ledger, 9, 11, &[]);
        assert_eq!(gone.stop, vec![(8, Cue::EnemyShot)]);
    }

    #[test]
    fn each_frame_gets_its_own_voice_and_only_that_one_is_stopped() {
        let mut book = VoiceBook::default();
        let a = book.play(Cue::OwnDeath, 100);
        let b = book.play(Cue::OwnDeath, 103);
        assert_ne!(a, b);
        assert_eq!(book.cancel(Cue::OwnDeath, 103), Some(b));
        // Already stopped; and the other frame's voice is untouched.
        assert_eq!(book.cancel(Cue::OwnDeath, 103), None);
        assert_eq!(book.cancel(Cue::OwnDeath, 100), Some(a));
    }

    #[test]
    fn cues_are_independent_and_reused_voices_are_not_stopped() {
        let mut book = VoiceBook::default();
        book.play(Cue::Hit, 7);
        assert_eq!(book.cancel(Cue::OwnDeath, 7), None, "no death played at 7");
        let first = book.play(Cue::OwnDeath, 1);
        for f in 2..=VOICES as u32 {
            book.play(Cue::OwnDeath, f);
        }
        // The next play wraps onto the first voice: frame 1 no longer owns it.
        assert_eq!(book.play(Cue::OwnDeath, 50), first);
        assert_eq!(book.cancel(Cue::OwnDeath, 1), None);
        assert_eq!(book.cancel(Cue::OwnDeath, 50), Some(first));
        assert!(book.cancel(Cue::Hit, 7).is_some());
    }
}
