//! A replay's sound as one PCM track, for a video: what a player of the
//! match hears, mixed offline and frame-exact. The cues start where the
//! window would start them ([`sound_changes`] over the event ledger, both
//! ships heard as a local match's), at [`cue_level`] under the default
//! sound volume; the match's music plays from the match's first frame,
//! its intensity layer eased frame by frame toward [`intensity_for`], at
//! the default music volume. Pure: no sound device, no clock.

use super::audio::{cue_level, sound_changes};
use super::cues::{CUES, Cue};
use super::effects::EventLedger;
use super::music::{ease, intensity_for, score, synth};
use super::replay_video::Clip;
use crate::replay::Replay;
use crate::session::FrameReport;
use crate::settings::Settings;
use crate::sim::FPS;

/// Samples per second of the track (the music's own rate).
pub const RATE: u32 = synth::RATE;

/// The first sample of the frame `frames` after the clip's first.
fn sample_at(frames: i64) -> i64 {
    frames * i64::from(RATE) / i64::from(FPS)
}

/// Samples of `bytes`, a mono or stereo PCM WAV file of 8 or 16 bits, as
/// floats at [`RATE`] (resampled linearly); `None` if it is none.
pub fn decode_wav(bytes: &[u8]) -> Option<Vec<f32>> {
    let riff = bytes.get(..12)?;
    if &riff[..4] != b"RIFF" || &riff[8..12] != b"WAVE" {
        return None;
    }
    let (mut format, mut data) = (None, None);
    let mut at = 12;
    while at + 8 <= bytes.len() {
        let id = &bytes[at..at + 4];
        let len = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().ok()?) as usize;
        let body = bytes.get(at + 8..(at + 8 + len).min(bytes.len()))?;
        match id {
            b"fmt " if body.len() >= 16 => {
                let u16_at = |i: usize| u16::from_le_bytes([body[i], body[i + 1]]);
                let rate = u32::from_le_bytes(body[4..8].try_into().ok()?);
                format = Some((u16_at(0), u16_at(2), rate, u16_at(14)));
            }
            b"data" => data = Some(body),
            _ => {}
        }
        at += 8 + len + len % 2;
    }
    let ((tag, channels, rate, bits), data) = (format?, data?);
    if tag != 1 || channels == 0 || rate == 0 {
        return None;
    }
    let channels = usize::from(channels);
    let samples: Vec<f32> = match bits {
        8 => data
            .chunks_exact(channels)
            .map(|f| {
                f.iter()
                    .map(|b| (f32::from(*b) - 128.0) / 128.0)
                    .sum::<f32>()
            })
            .collect(),
        16 => data
            .chunks_exact(2 * channels)
            .map(|f| {
                f.chunks_exact(2)
                    .map(|s| f32::from(i16::from_le_bytes([s[0], s[1]])) / 32768.0)
                    .sum::<f32>()
            })
            .collect(),
        _ => return None,
    };
    let scale = 1.0 / channels as f32;
    Some(
        resample(&samples, rate)
            .into_iter()
            .map(|s| s * scale)
            .collect(),
    )
}

/// `samples` at `rate` as samples at [`RATE`], by linear interpolation.
fn resample(samples: &[f32], rate: u32) -> Vec<f32> {
    if rate == RATE || samples.is_empty() {
        return samples.to_vec();
    }
    let len = (samples.len() as u64 * u64::from(RATE) / u64::from(rate)) as usize;
    let step = rate as f64 / RATE as f64;
    (0..len)
        .map(|i| {
            let at = i as f64 * step;
            let (lo, part) = (at as usize, (at.fract()) as f32);
            let a = samples[lo.min(samples.len() - 1)];
            let b = samples[(lo + 1).min(samples.len() - 1)];
            a + (b - a) * part
        })
        .collect()
}

/// Every cue's samples that are at hand (natively, all of them).
fn cue_samples() -> Vec<(Cue, Vec<f32>)> {
    CUES.iter()
        .filter_map(|(cue, file)| Some((*cue, decode_wav(file.at_hand()?)?)))
        .collect()
}

/// Adds `sound` at `volume` into `mix`, starting `offset` samples into
/// it (before its start when negative: the sound's tail).
fn add(mix: &mut [f32], sound: &[f32], offset: i64, volume: f32) {
    let skip = (-offset).max(0) as usize;
    let start = offset.max(0) as usize;
    for (out, s) in mix.iter_mut().skip(start).zip(sound.iter().skip(skip)) {
        *out += s * volume;
    }
}

/// The sound of frames `clip.from + 1 ..= clip.to`, as 16-bit samples at
/// [`RATE`], as long as the clip's frames last; `None` if the replay's
/// simulation config is unreadable.
pub fn mix(replay: &Replay, clip: Clip) -> Option<Vec<i16>> {
    let defaults = Settings::default();
    let sound_volume = f32::from(defaults.volume) / 100.0;
    let music_volume = f32::from(defaults.music_volume) / 100.0;
    let len = sample_at(i64::from(clip.to.saturating_sub(clip.from))) as usize;
    let mut mix = vec![0.0f32; len];
    let first = i64::from(clip.from) + 1;

    let cues = cue_samples();
    let main = synth::render(&score::play());
    let layer = synth::render(&score::play_layer());
    // The music's sample under the clip's first: the track started with
    // the match's first frame.
    let music_at = |i: i64| (sample_at(first - 1) + i) as usize;

    // From the match's start, for the intensity layer's history.
    let mut world = crate::replay::simulate_to(replay, 0)?;
    let mut ledger = EventLedger::new();
    let mut level = 0.0f32;
    while world.frame < clip.to {
        let mut events = Vec::new();
        world.step(replay.inputs[world.frame as usize], &mut events);
        let frame = world.frame;
        let report = FrameReport {
            simulated: Some((frame, frame)),
            events: events.into_iter().map(|e| (frame, e)).collect(),
            ..FrameReport::default()
        };
        let changes = ledger.apply(&report);
        let offset = sample_at(i64::from(frame) - first);
        for (_, cue) in sound_changes(&changes, &ledger, [true, true]).start {
            if let Some((_, sound)) = cues.iter().find(|(c, _)| *c == cue) {
                add(&mut mix, sound, offset, sound_volume * cue_level(cue));
            }
        }
        level = ease(level, intensity_for(&world), 1.0 / FPS as f32);
        if offset >= 0 {
            // This frame's span of the music, the layer at its level now.
            let end = sample_at(i64::from(frame) + 1 - first).min(len as i64);
            for i in offset..end {
                let at = music_at(i);
                let m = f32::from(main[at % main.len()]) / 32768.0;
                let l = f32::from(layer[at % layer.len()]) / 32768.0;
                mix[i as usize] += music_volume * (m + level * l);
            }
        }
    }
    Some(
        mix.into_iter()
            .map(|s| (s.clamp(-1.0, 1.0) * 32767.0) as i16)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cue_decodes_to_sound_at_the_track_rate() {
        let cues = cue_samples();
        assert_eq!(cues.len(), CUES.len());
        for (cue, samples) in &cues {
            assert!(samples.len() > 100, "{cue:?}: {} samples", samples.len());
            let loudest = samples.iter().fold(0.0f32, |m, s| m.max(s.abs()));
            assert!(loudest > 0.05 && loudest <= 1.0, "{cue:?}: peak {loudest}");
        }
    }

    #[test]
    fn a_sound_started_before_the_clip_plays_its_tail() {
        let mut mix = vec![0.0; 4];
        add(&mut mix, &[1.0, 2.0, 3.0], -1, 1.0);
        assert_eq!(mix, [2.0, 3.0, 0.0, 0.0]);
        add(&mut mix, &[1.0, 1.0], 3, 0.5);
        assert_eq!(mix, [2.0, 3.0, 0.0, 0.5]);
    }

    #[test]
    fn a_clip_lasts_its_frames_exactly() {
        assert_eq!(sample_at(600), 10 * i64::from(RATE));
        assert_eq!(resample(&[0.0, 1.0], RATE / 2), [0.0, 0.5, 1.0, 1.0]);
    }
}
