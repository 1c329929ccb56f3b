//! Music: a looping track for the menu and one for matches, with an
//! intensity layer over the match track that swells in boss fights.
//!
//! The tracks are synthesised from their scores (`score.rs`, `synth.rs`)
//! when first wanted, inside a macroquad coroutine like the sounds' load,
//! and only the current screen's music is kept (a minute of decoded audio
//! is tens of megabytes in the mixer).

pub mod score;
pub mod synth;

use macroquad::audio::{
    PlaySoundParams, Sound, load_sound_from_bytes, play_sound, set_sound_volume, stop_sound,
};
use macroquad::experimental::coroutines::{Coroutine, start_coroutine};
use macroquad::window::next_frame;
use web_time::{Duration, Instant};

use crate::sim::World;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Track {
    Menu,
    Play,
}

impl Track {
    fn scores(self) -> (synth::Score, Option<synth::Score>) {
        match self {
            Track::Menu => (score::menu(), None),
            Track::Play => (score::play(), Some(score::play_layer())),
        }
    }
}

/// The intensity layer's level for this world: full while a boss is in
/// play, up to half as the arena fills, none once the match is over.
pub fn intensity_for(world: &World) -> f32 {
    if world.is_game_over() {
        return 0.0;
    }
    intensity(world.boss().is_some(), world.enemies().len())
}

/// Enemies at which a crowd gives the layer its most without a boss.
const CROWD: f32 = 40.0;

pub fn intensity(boss: bool, enemies: usize) -> f32 {
    if boss {
        1.0
    } else {
        (enemies as f32 / CROWD).min(1.0) * 0.5
    }
}

/// Moves the layer's level toward `target` over `dt` seconds: in within
/// about a second (the boss is there), out over four (no abrupt drop when
/// it dies under the fanfare).
pub fn ease(level: f32, target: f32, dt: f32) -> f32 {
    let seconds = if target > level { 0.7 } else { 4.0 };
    level + (target - level) * (1.0 - (-dt / seconds).exp())
}

/// A track's sounds, playing looped from the same moment.
struct Loaded {
    main: Sound,
    layer: Option<Sound>,
}

enum State {
    Silent,
    Loading(Track, Coroutine<Option<Loaded>>),
    Playing(Track, Loaded),
}

async fn load(track: Track) -> Option<Loaded> {
    let started = Instant::now();
    let (main, layer) = track.scores();
    let main = synth::wav_bytes(&render_between_frames(&main).await);
    let layer = match layer {
        Some(score) => Some(synth::wav_bytes(&render_between_frames(&score).await)),
        None => None,
    };
    tracing::info!(
        "music {track:?} rendered in {} ms",
        started.elapsed().as_millis()
    );
    let sound = |bytes: Vec<u8>| async move {
        load_sound_from_bytes(&bytes)
            .await
            .map_err(|e| tracing::warn!("music {track:?} did not load: {e}"))
            .ok()
    };
    let main = sound(main).await?;
    let layer = match layer {
        Some(bytes) => Some(sound(bytes).await?),
        None => None,
    };
    Some(Loaded { main, layer })
}

/// Renders `score` a slice of [`RENDER_SLICE`] at a time, one slice per
/// frame (a loading track is a coroutine beside the screen's loop): no
/// frame, and in the page no network message, waits behind a whole track.
async fn render_between_frames(score: &synth::Score) -> Vec<i16> {
    let mut rendering = synth::Rendering::new(score);
    loop {
        let slice = Instant::now();
        while slice.elapsed() < RENDER_SLICE {
            if rendering.run(RENDER_NOTES) {
                return rendering.finish();
            }
        }
        next_frame().await;
    }
}

/// Rendering time per frame (a sixth of a 60 Hz frame)...
const RENDER_SLICE: Duration = Duration::from_millis(3);
/// ...checked every this many notes (a note is microseconds to a ms).
const RENDER_NOTES: usize = 4;

pub struct Music {
    wanted: Option<Track>,
    state: State,
    /// 0.0..=1.0
    volume: f32,
    /// The layer's level now and where it is going (0.0..=1.0).
    level: f32,
    target: f32,
    /// The layer's volume last sent to the mixer.
    applied: f32,
    last_update: Instant,
}

impl Music {
    pub fn new(volume_percent: u8) -> Music {
        Music {
            wanted: None,
            state: State::Silent,
            volume: percent(volume_percent),
            level: 0.0,
            target: 0.0,
            applied: -1.0,
            last_update: Instant::now(),
        }
    }

    pub fn set_volume(&mut self, volume_percent: u8) {
        self.volume = percent(volume_percent);
        if let State::Playing(_, loaded) = &self.state {
            set_sound_volume(&loaded.main, self.volume);
            self.applied = -1.0;
        }
    }

    pub fn want(&mut self, track: Track) {
        self.wanted = Some(track);
    }

    pub fn set_intensity(&mut self, target: f32) {
        self.target = target.clamp(0.0, 1.0);
    }

    /// Call every frame. `can_play`: a sound device is known to work.
    pub fn update(&mut self, can_play: bool) {
        let dt = self.last_update.elapsed().as_secs_f32().min(0.1);
        self.last_update = Instant::now();
        self.level = ease(self.level, self.target, dt);
        let state = std::mem::replace(&mut self.state, State::Silent);
        self.state = match state {
            State::Playing(track, loaded) if Some(track) == self.wanted => {
                State::Playing(track, loaded)
            }
            State::Playing(_, loaded) => {
                stop(&loaded);
                State::Silent
            }
            State::Loading(track, loading) => match loading.retrieve() {
                None => State::Loading(track, loading),
                Some(None) => State::Silent,
                Some(Some(loaded)) if Some(track) == self.wanted => {
                    self.start(&loaded);
                    State::Playing(track, loaded)
                }
                Some(Some(_)) => State::Silent,
            },
            State::Silent => match self.wanted {
                Some(track) if can_play && self.volume > 0.0 => {
                    State::Loading(track, start_coroutine(load(track)))
                }
                _ => State::Silent,
            },
        };
        if let State::Playing(
            _,
            Loaded {
                layer: Some(layer), ..
            },
        ) = &self.state
        {
            let volume = self.volume * self.level;
            // Only real changes reach the mixer (a message each).
            if (volume - self.applied).abs() > 0.005 {
                set_sound_volume(layer, volume);
                self.applied = volume;
            }
        }
    }

    fn start(&mut self, loaded: &Loaded) {
        // Started together, the layer and the track (whole multiples of
        // the same bar) stay in step for as long as they loop.
        let looped = |volume| PlaySoundParams {
            looped: true,
            volume,
        };
        play_sound(&loaded.main, looped(self.volume));
        if let Some(layer) = &loaded.layer {
            self.applied = self.volume * self.level;
            play_sound(layer, looped(self.applied));
        }
    }
}

fn stop(loaded: &Loaded) {
    stop_sound(&loaded.main);
    if let Some(layer) = &loaded.layer {
        stop_sound(layer);
    }
}

fn percent(volume_percent: u8) -> f32 {
    f32::from(volume_percent.min(100)) / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_boss_brings_the_layer_in_fully_and_a_crowd_halfway() {
        assert_eq!(intensity(true, 0), 1.0);
        assert_eq!(intensity(false, 0), 0.0);
        assert_eq!(intensity(false, 20), 0.25);
        assert_eq!(intensity(false, 400), 0.5);
    }

    #[test]
    fn the_layer_swells_in_fast_and_fades_out_slowly() {
        let mut up = 0.0;
        for _ in 0..60 {
            up = ease(up, 1.0, 1.0 / 60.0);
        }
        assert!(up > 0.7 && up < 1.0, "{up} after a second");
        let mut down = 1.0;
        for _ in 0..60 {
            down = ease(down, 0.0, 1.0 / 60.0);
        }
        assert!(down > 0.7, "{down} a second after the boss died");
    }

    #[test]
    fn the_rendered_tracks_loop_without_a_click_and_last_a_minute() {
        for track in [Track::Menu, Track::Play] {
            let (main, layer) = track.scores();
            for score in std::iter::once(main).chain(layer) {
                let started = Instant::now();
                let samples = synth::render(&score);
                println!(
                    "{track:?}: {} samples ({:.1} s) rendered in {} ms",
                    samples.len(),
                    score.seconds(),
                    started.elapsed().as_millis()
                );
                assert_eq!(samples.len(), score.samples());
                // The seam: the end fades into the start, both silent.
                let (first, last) = (samples[0], samples[samples.len() - 1]);
                assert!(first.unsigned_abs() < 200 && last.unsigned_abs() < 200);
                let tail = samples[samples.len() - 5..].iter();
                assert!(tail.map(|s| s.unsigned_abs()).max() < Some(3000));
                let peak = samples.iter().map(|s| s.unsigned_abs()).max();
                assert!(peak > Some(10_000), "{track:?} is not silent");
            }
            let main = synth::render(&track.scores().0);
            assert!(main.len() as f32 / synth::RATE as f32 >= 60.0);
        }
    }

    #[test]
    fn rendering_is_deterministic() {
        let a = synth::render(&score::play_layer());
        let b = synth::render(&score::play_layer());
        assert_eq!(a, b);
    }
}
