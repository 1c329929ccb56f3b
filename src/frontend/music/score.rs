//! The tracks' scores: an eight-bar chord progression each, with bass,
//! drums, chords and a melody built from a few two-bar phrases, arranged in
//! four eight-bar sections so a loop does not repeat for a minute.

use super::synth::{Instrument, Note, Score};

const STEPS_PER_BAR: u32 = 16;
/// Every track is 32 bars: four sections of the eight-bar progression.
const BARS: u32 = 32;

/// A chord: its root (MIDI, octave 3: the bass's written note) and whether
/// it is minor.
type Chord = (u8, bool);

/// A two-bar melody: (step, length in steps, chord tone), where tone 0, 1,
/// 2 are the root, third and fifth of the chord of the bar the note starts
/// in, 3 is the root an octave up, and so on.
type Phrase = &'static [(u32, u32, u8)];

const RISING: Phrase = &[
    (0, 3, 2),
    (3, 3, 1),
    (6, 2, 0),
    (8, 4, 1),
    (12, 4, 2),
    (16, 6, 3),
    (22, 2, 2),
    (24, 8, 1),
];
const RUNNING: Phrase = &[
    (0, 2, 0),
    (2, 2, 1),
    (4, 2, 2),
    (6, 2, 3),
    (8, 4, 4),
    (12, 4, 3),
    (16, 3, 2),
    (19, 3, 1),
    (22, 2, 0),
    (24, 8, 2),
];
const LONG: Phrase = &[(0, 8, 3), (8, 4, 2), (12, 4, 1), (16, 12, 0)];
const BUSY: Phrase = &[
    (0, 2, 0),
    (2, 2, 2),
    (4, 2, 1),
    (6, 2, 3),
    (8, 2, 2),
    (10, 2, 4),
    (12, 2, 3),
    (14, 2, 5),
    (16, 2, 4),
    (18, 2, 3),
    (20, 2, 2),
    (22, 2, 1),
    (24, 2, 2),
    (26, 2, 0),
    (28, 4, 1),
];

/// The match: A minor, 120 beats a minute, 64 s.
const PLAY_CHORDS: [Chord; 8] = [
    (57, true),
    (53, false),
    (60, false),
    (55, false),
    (57, true),
    (53, false),
    (55, false),
    (52, false),
];
/// 22050 Hz / 8 steps a second (sixteenths at 120 bpm), rounded.
const PLAY_STEP: u32 = 2756;

/// The menu: D major, 100 beats a minute, 77 s.
const MENU_CHORDS: [Chord; 8] = [
    (50, false),
    (47, true),
    (43, false),
    (45, false),
    (50, false),
    (54, true),
    (43, false),
    (45, false),
];
/// 22050 Hz / 6.67 steps a second (sixteenths at 100 bpm), rounded.
const MENU_STEP: u32 = 3307;

fn chord_at(chords: &[Chord; 8], bar: u32) -> Chord {
    chords[bar as usize % chords.len()]
}

/// Chord tone `tone` (see [`Phrase`]) above `base` semitones over the root.
fn tone((root, minor): Chord, base: u8, tone: u8) -> u8 {
    let third = if minor { 3 } else { 4 };
    let interval = [0, third, 7][usize::from(tone % 3)] + 12 * (tone / 3);
    root + base + interval
}

struct Builder {
    chords: [Chord; 8],
    notes: Vec<Note>,
}

impl Builder {
    fn add(&mut self, step: u32, steps: u32, midi: u8, instrument: Instrument, gain: f32) {
        self.notes.push(Note {
            step,
            steps,
            midi,
            instrument,
            gain,
        });
    }

    /// `phrase` over bars `bar` and `bar + 1`, `base` semitones up.
    fn phrase(&mut self, bar: u32, phrase: Phrase, base: u8, gain: f32) {
        for &(step, steps, t) in phrase {
            let chord = chord_at(&self.chords, bar + step / STEPS_PER_BAR);
            let at = bar * STEPS_PER_BAR + step;
            self.add(at, steps, tone(chord, base, t), Instrument::Lead, gain);
        }
    }

    /// Four phrases: one eight-bar section from `bar`.
    fn melody(&mut self, bar: u32, phrases: [Option<Phrase>; 4], base: u8, gain: f32) {
        for (i, phrase) in phrases.into_iter().enumerate() {
            if let Some(phrase) = phrase {
                self.phrase(bar + 2 * i as u32, phrase, base, gain);
            }
        }
    }

    /// `hits` (steps in a bar) of one drum in every bar of `bars`.
    fn drum(&mut self, bars: std::ops::Range<u32>, hits: &[u32], drum: Instrument, gain: f32) {
        for bar in bars {
            for &hit in hits {
                // One step: the drums have died away by then (and a hit
                // on the last step still ends with the track).
                self.add(bar * STEPS_PER_BAR + hit, 1, 0, drum, gain);
            }
        }
    }

    /// The chord's tones, one per `every` steps, `base` semitones up.
    fn arpeggio(&mut self, bars: std::ops::Range<u32>, every: u32, base: u8, gain: f32) {
        let order = [0, 1, 2, 3, 2, 1];
        for bar in bars {
            let chord = chord_at(&self.chords, bar);
            for (i, step) in (0..STEPS_PER_BAR).step_by(every as usize).enumerate() {
                let midi = tone(chord, base, order[i % order.len()]);
                self.add(
                    bar * STEPS_PER_BAR + step,
                    every,
                    midi,
                    Instrument::Arp,
                    gain,
                );
            }
        }
    }

    fn score(self, step_samples: u32, bars: u32) -> Score {
        Score {
            step_samples,
            steps: bars * STEPS_PER_BAR,
            notes: self.notes,
        }
    }
}

/// The menu's calm loop: chords and bass, then an arpeggio, then a melody.
pub fn menu() -> Score {
    let mut b = Builder {
        chords: MENU_CHORDS,
        notes: Vec::new(),
    };
    for bar in 0..BARS {
        let chord = chord_at(&MENU_CHORDS, bar);
        let at = bar * STEPS_PER_BAR;
        b.add(at, 8, chord.0, Instrument::Bass, 0.5);
        b.add(at + 8, 8, tone(chord, 0, 2), Instrument::Bass, 0.4);
        // The third and fifth: the bass has the root, and a held pad
        // voice is the costliest thing to render.
        for t in 1..3 {
            b.add(at, 16, tone(chord, 12, t), Instrument::Pad, 0.14);
        }
    }
    b.arpeggio(8..BARS, 2, 24, 0.12);
    b.drum(16..BARS, &[4, 12], Instrument::Hat, 0.08);
    b.melody(
        16,
        [Some(LONG), Some(RISING), Some(LONG), Some(RUNNING)],
        24,
        0.2,
    );
    b.melody(
        24,
        [Some(RISING), Some(LONG), Some(RUNNING), Some(LONG)],
        24,
        0.2,
    );
    b.score(MENU_STEP, BARS)
}

/// A match's driving loop: four bars of bass and drums, then the melody.
pub fn play() -> Score {
    let mut b = Builder {
        chords: PLAY_CHORDS,
        notes: Vec::new(),
    };
    for bar in 0..BARS {
        let chord = chord_at(&PLAY_CHORDS, bar);
        for step in (0..STEPS_PER_BAR).step_by(2) {
            // Eighths on the root, jumping an octave on the off-beats' end.
            let octave = if step % 8 == 6 { 12 } else { 0 };
            let at = bar * STEPS_PER_BAR + step;
            b.add(at, 2, chord.0 + octave, Instrument::Bass, 0.45);
        }
    }
    b.drum(0..BARS, &[0, 8], Instrument::Kick, 0.9);
    b.drum(0..BARS, &[4, 12], Instrument::Snare, 0.35);
    b.drum(0..BARS, &[2, 6, 10, 14], Instrument::Hat, 0.12);
    b.melody(0, [None, None, Some(LONG), Some(LONG)], 12, 0.3);
    b.melody(
        8,
        [Some(RISING), Some(RUNNING), Some(RISING), Some(BUSY)],
        12,
        0.3,
    );
    b.melody(
        16,
        [Some(RUNNING), Some(RISING), Some(BUSY), Some(LONG)],
        12,
        0.3,
    );
    b.melody(
        24,
        [Some(RISING), Some(RUNNING), Some(BUSY), Some(LONG)],
        12,
        0.3,
    );
    b.score(PLAY_STEP, BARS)
}

/// Bars in the intensity layer: the progression once. It loops four times
/// per loop of [`play`], in step with it (the same bar length in samples).
pub const LAYER_BARS: u32 = 8;

/// What joins [`play`] in a fight: a sixteenth-note arpeggio, kicks on
/// every beat, sixteenth hats and a snare fill into the next loop.
pub fn play_layer() -> Score {
    let mut b = Builder {
        chords: PLAY_CHORDS,
        notes: Vec::new(),
    };
    b.arpeggio(0..LAYER_BARS, 1, 24, 0.25);
    b.drum(0..LAYER_BARS, &[0, 4, 8, 12], Instrument::Kick, 0.8);
    let sixteenths: Vec<u32> = (0..STEPS_PER_BAR).collect();
    b.drum(0..LAYER_BARS, &sixteenths, Instrument::Hat, 0.1);
    b.drum(
        LAYER_BARS - 1..LAYER_BARS,
        &[13, 14, 15],
        Instrument::Snare,
        0.4,
    );
    b.score(PLAY_STEP, LAYER_BARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracks_last_a_minute_or_more_and_the_layer_fits_the_match_track() {
        assert!(menu().seconds() >= 60.0, "{}", menu().seconds());
        assert!(play().seconds() >= 60.0, "{}", play().seconds());
        let (play, layer) = (play(), play_layer());
        assert_eq!(play.step_samples, layer.step_samples);
        assert_eq!(play.samples() % layer.samples(), 0, "whole layer loops");
    }

    #[test]
    fn every_note_ends_inside_its_track_and_has_a_length() {
        for score in [menu(), play(), play_layer()] {
            assert!(!score.notes.is_empty());
            for n in &score.notes {
                assert!(n.steps > 0 && n.step + n.steps <= score.steps, "{n:?}");
                assert!((0.0..=1.0).contains(&n.gain), "{n:?}");
            }
        }
    }

    #[test]
    fn chord_tones_stack_thirds_and_octaves() {
        let a_minor = (57, true);
        assert_eq!(tone(a_minor, 12, 0), 69, "A4");
        assert_eq!(tone(a_minor, 12, 1), 72, "C5");
        assert_eq!(tone(a_minor, 12, 2), 76, "E5");
        assert_eq!(tone(a_minor, 12, 3), 81, "A5");
        assert_eq!(tone((50, false), 0, 1), 54, "D major's F#");
    }
}
