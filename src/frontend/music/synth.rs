//! Turns a note score into 16-bit samples and a WAV file in memory. The
//! music is made here at run time rather than shipped: a minute of it as a
//! file would be megabytes in the page's wasm, its score is a few hundred
//! notes.
//!
//! Chip instruments only (pulse, triangle, noise): a track renders in
//! 60-110 ms here, spread over frames by [`Rendering`] where one thread
//! also draws and answers the network.

/// Samples per second: what the sound files use, enough for chip sounds.
pub const RATE: u32 = 22050;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Instrument {
    /// Pulse wave, a quarter duty: the melody.
    Lead,
    /// Triangle, an octave under the written note.
    Bass,
    /// Short pulse blips (an eighth duty): arpeggios.
    Arp,
    /// Soft triangle held through the note: chords.
    Pad,
    Kick,
    Snare,
    Hat,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Note {
    /// Start, in steps (sixteenth notes) from the track's start.
    pub step: u32,
    /// Length in steps.
    pub steps: u32,
    /// MIDI note number (69 = A4, 440 Hz); ignored by the drums.
    pub midi: u8,
    pub instrument: Instrument,
    /// 0.0..=1.0
    pub gain: f32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Score {
    /// Samples per step: a whole number, so every bar has the same length
    /// in samples and a loop of whole bars never drifts.
    pub step_samples: u32,
    /// The track's length in steps.
    pub steps: u32,
    pub notes: Vec<Note>,
}

impl Score {
    pub fn samples(&self) -> usize {
        self.steps as usize * self.step_samples as usize
    }

    pub fn seconds(&self) -> f32 {
        self.samples() as f32 / RATE as f32
    }
}

/// Peak of a rendered track: two tracks play together (a match's track
/// and its intensity layer) without clipping.
const PEAK: f32 = 0.45;
/// A note fades in and out over this many samples (2 ms).
const EDGE: usize = 44;

/// The track's samples. Deterministic: the same score gives the same samples.
/// Notes are cut at the track's end with the usual fade, so the last sample
/// is silence like the first and the loop joins without a click.
pub fn render(score: &Score) -> Vec<i16> {
    let mut rendering = Rendering::new(score);
    while !rendering.run(usize::MAX) {}
    rendering.finish()
}

/// A score rendered a few notes at a time: a whole track is 60-110 ms of
/// one thread here and four times that on a phone, and where that thread
/// also draws the frames and answers the network (the page), one long
/// render is a hitch and a connection's round trips waiting behind it.
/// The same samples as [`render`].
pub struct Rendering<'a> {
    score: &'a Score,
    mix: Vec<f32>,
    next: usize,
}

impl<'a> Rendering<'a> {
    pub fn new(score: &'a Score) -> Self {
        Rendering {
            score,
            mix: vec![0.0; score.samples()],
            next: 0,
        }
    }

    /// Adds up to `notes` more notes; true once all are in.
    pub fn run(&mut self, notes: usize) -> bool {
        let (score, len) = (self.score, self.mix.len());
        let end = self.next.saturating_add(notes).min(score.notes.len());
        for note in &score.notes[self.next..end] {
            let start = note.step as usize * score.step_samples as usize;
            if start >= len {
                continue;
            }
            let held = note.steps as usize * score.step_samples as usize;
            let stop = (start + held.max(1)).min(len);
            add_note(&mut self.mix[start..stop], note);
        }
        self.next = end;
        self.next == score.notes.len()
    }

    /// The samples, normalised to the track's peak.
    pub fn finish(self) -> Vec<i16> {
        let top = self.mix.iter().fold(0.0f32, |m, s| m.max(s.abs()));
        let gain = if top > 0.0 { PEAK / top } else { 0.0 };
        self.mix
            .iter()
            .map(|s| (s * gain * 32767.0).round() as i16)
            .collect()
    }
}

fn add_note(out: &mut [f32], note: &Note) {
    let freq = 440.0 * 2f32.powf((f32::from(note.midi) - 69.0) / 12.0);
    // Each drum hit gets its own noise, seeded by where it is.
    let mut noise = Noise((0x9E37_79B9 ^ note.step.wrapping_mul(0x85EB_CA6B)) | 1);
    let gain = note.gain;
    // One tight loop per instrument, decays as a running product: the
    // menu's minute is ~8 million note samples, and the browser renders
    // it between two frames.
    match note.instrument {
        Instrument::Lead => pitched(out, freq, 0.6, gain, |p| pulse(p, 0.25)),
        Instrument::Bass => pitched(out, freq / 2.0, f32::INFINITY, gain, triangle),
        Instrument::Arp => pitched(out, freq, 0.08, gain, |p| pulse(p, 0.125)),
        Instrument::Pad => pitched(out, freq, f32::INFINITY, gain * 0.8, triangle),
        Instrument::Kick => {
            // A sine falling from 150 Hz to 45 Hz: the thump.
            let (mut level, fall) = (1.0, falloff(0.09));
            let (mut sweep, sweep_fall) = (1.0, falloff(0.03));
            let mut phase = 0.0f32;
            shaped(out, gain, || {
                let s = (phase * std::f32::consts::TAU).sin() * level;
                phase = (phase + (45.0 + 105.0 * sweep) / RATE as f32).fract();
                level *= fall;
                sweep *= sweep_fall;
                s
            });
        }
        Instrument::Snare => noisy(out, &mut noise, 0.06, gain),
        Instrument::Hat => noisy(out, &mut noise, 0.015, gain),
    }
}

/// The per-sample factor of a decay with this time constant.
fn falloff(seconds: f32) -> f32 {
    (-1.0 / (seconds * RATE as f32)).exp()
}

fn pitched(out: &mut [f32], freq: f32, decay: f32, gain: f32, wave: impl Fn(f32) -> f32) {
    let (mut level, fall, step) = (1.0, falloff(decay), freq / RATE as f32);
    let mut phase = 0.0f32;
    shaped(out, gain, || {
        let s = wave(phase) * level;
        phase = (phase + step).fract();
        level *= fall;
        s
    });
}

fn noisy(out: &mut [f32], noise: &mut Noise, decay: f32, gain: f32) {
    let (mut level, fall) = (1.0, falloff(decay));
    shaped(out, gain, || {
        let s = noise.next() * level;
        level *= fall;
        s
    });
}

/// Adds `wave() * gain` to each of `out`, faded in and out over [`EDGE`]
/// samples: no click at a note's edges, and so none at the loop's seam,
/// where every note has ended.
fn shaped(out: &mut [f32], gain: f32, mut wave: impl FnMut() -> f32) {
    let n = out.len();
    for (i, slot) in out.iter_mut().enumerate() {
        let edge = i.min(n - 1 - i);
        let fade = if edge < EDGE {
            edge as f32 / EDGE as f32
        } else {
            1.0
        };
        *slot += wave() * gain * fade;
    }
}

fn pulse(phase: f32, duty: f32) -> f32 {
    if phase < duty { 1.0 } else { -1.0 }
}

fn triangle(phase: f32) -> f32 {
    4.0 * (phase - 0.5).abs() - 1.0
}

/// xorshift32: cheap white noise, the same every run.
struct Noise(u32);

impl Noise {
    fn next(&mut self) -> f32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        (x as f32 / u32::MAX as f32) * 2.0 - 1.0
    }
}

/// A 16-bit mono PCM WAV file of `samples` at [`RATE`], what
/// `load_sound_from_bytes` reads.
pub fn wav_bytes(samples: &[i16]) -> Vec<u8> {
    let data = u32::try_from(samples.len() * 2).unwrap_or(u32::MAX);
    let mut out = Vec::with_capacity(44 + samples.len() * 2);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // mono
    out.extend_from_slice(&RATE.to_le_bytes());
    out.extend_from_slice(&(RATE * 2).to_le_bytes()); // bytes per second
    out.extend_from_slice(&2u16.to_le_bytes()); // bytes per frame
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data.to_le_bytes());
    for s in samples {
        out.extend_from_slice(&s.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(instrument: Instrument, step: u32, steps: u32) -> Score {
        Score {
            step_samples: 1000,
            steps: 16,
            notes: vec![Note {
                step,
                steps,
                midi: 60,
                instrument,
                gain: 1.0,
            }],
        }
    }

    #[test]
    fn a_note_cut_by_the_track_end_fades_to_silence_at_the_seam() {
        // Two steps long from the last step: it is cut at the end.
        let samples = render(&one(Instrument::Lead, 15, 2));
        assert_eq!(samples.len(), 16_000);
        assert_eq!(samples[0], 0, "nothing plays at the start");
        assert_eq!(*samples.last().unwrap(), 0, "the cut note has faded out");
        let loud = samples[15_000..].iter().map(|s| s.unsigned_abs()).max();
        assert!(loud > Some(10_000), "the note does play: {loud:?}");
    }

    #[test]
    fn every_instrument_sounds_and_starts_without_a_click() {
        use Instrument::*;
        for instrument in [Lead, Bass, Arp, Pad, Kick, Snare, Hat] {
            let samples = render(&one(instrument, 4, 4));
            let start = 4000;
            assert_eq!(samples[start], 0, "{instrument:?}");
            // The first sample after the start moves by a fraction of the peak.
            let first = samples[start + 1].unsigned_abs();
            assert!(first < 32767 / 10, "{instrument:?}: {first}");
            let peak = samples.iter().map(|s| s.unsigned_abs()).max().unwrap();
            assert!(peak > 10_000, "{instrument:?}: peak {peak}");
        }
    }

    #[test]
    fn a_track_rendered_a_few_notes_at_a_time_is_the_same_track() {
        let score = super::super::score::play_layer();
        assert!(
            score.notes.len() > 10,
            "a score of a few notes proves little"
        );
        let whole = render(&score);
        let mut rendering = Rendering::new(&score);
        let mut runs = 1;
        while !rendering.run(3) {
            runs += 1;
        }
        assert_eq!(runs, score.notes.len().div_ceil(3));
        assert!(rendering.finish() == whole, "the spread render differs");
    }

    #[test]
    fn the_wav_header_describes_the_samples() {
        let wav = wav_bytes(&[0, 1, -1]);
        assert_eq!(wav.len(), 44 + 6);
        assert_eq!(&wav[0..4], b"RIFF");
        assert_eq!(u32::from_le_bytes(wav[4..8].try_into().unwrap()), 42);
        assert_eq!(u32::from_le_bytes(wav[24..28].try_into().unwrap()), RATE);
        assert_eq!(u32::from_le_bytes(wav[40..44].try_into().unwrap()), 6);
        assert_eq!(&wav[46..48], &1i16.to_le_bytes());
    }
}
