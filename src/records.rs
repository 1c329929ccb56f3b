//! The player's own records on this device: the personal best (team score
//! and wave) per way of playing and preset, and the last runs. Kept as one
//! small record (`platform::records`: a file in the data directory
//! natively, local storage in the page); the menu lists them and the
//! result panel says "new best!". Plain data with the rules unit-tested;
//! [`load`] and [`save`] are the only I/O.

use serde::{Deserialize, Serialize};

/// Runs listed on the menu, newest first.
pub const LAST_RUNS: usize = 10;

/// The record's key in `platform::records`.
const KEY: &str = "records";

/// One finished game (a game over, not a match: a rematch is a new run).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    /// "solo", "co-op" or "online".
    pub mode: String,
    pub preset: String,
    pub team_score: u32,
    pub wave: u32,
    /// Game time, in seconds.
    pub seconds: u32,
}

/// The best a way of playing reached on a preset. Score and wave are
/// bests of their own (the best wave may come from a lower-scoring run).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Best {
    pub mode: String,
    pub preset: String,
    pub team_score: u32,
    pub wave: u32,
}

/// What a run beat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NewBest {
    pub score: bool,
    pub wave: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Records {
    pub bests: Vec<Best>,
    /// Newest first, at most [`LAST_RUNS`].
    pub runs: Vec<Run>,
}

impl Records {
    /// The best of `mode` on `preset`, if it was ever played.
    pub fn best(&self, mode: &str, preset: &str) -> Option<&Best> {
        self.bests
            .iter()
            .find(|b| b.mode == mode && b.preset == preset)
    }

    /// Adds a finished run; says what it beat. The first run of a way of
    /// playing is no "new best" (there was nothing to beat).
    pub fn add(&mut self, run: Run) -> NewBest {
        let new = match self
            .bests
            .iter_mut()
            .find(|b| b.mode == run.mode && b.preset == run.preset)
        {
            Some(best) => {
                let new = NewBest {
                    score: run.team_score > best.team_score,
                    wave: run.wave > best.wave,
                };
                best.team_score = best.team_score.max(run.team_score);
                best.wave = best.wave.max(run.wave);
                new
            }
            None => {
                self.bests.push(Best {
                    mode: run.mode.clone(),
                    preset: run.preset.clone(),
                    team_score: run.team_score,
                    wave: run.wave,
                });
                NewBest::default()
            }
        };
        self.runs.insert(0, run);
        self.runs.truncate(LAST_RUNS);
        new
    }

    /// The menu's lines: each best, then the last runs.
    pub fn lines(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .bests
            .iter()
            .map(|b| {
                format!(
                    "best {} ({}): {} points, wave {}",
                    b.mode, b.preset, b.team_score, b.wave
                )
            })
            .collect();
        if !self.runs.is_empty() {
            out.push(String::new());
            out.push("last runs:".into());
        }
        out.extend(self.runs.iter().map(|r| {
            format!(
                "{} ({}): {} points, wave {}, {}:{:02}",
                r.mode,
                r.preset,
                r.team_score,
                r.wave,
                r.seconds / 60,
                r.seconds % 60
            )
        }));
        out
    }
}

/// The records kept on this device (none yet, or unreadable: empty).
pub fn load() -> Records {
    use twinstar_netcode::tickets::Records as _;
    crate::platform::records::Store
        .read(KEY)
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

/// Keeps `records` on this device.
pub fn save(records: &Records) -> Result<(), String> {
    use twinstar_netcode::tickets::Records as _;
    let text = serde_json::to_string(records).map_err(|e| e.to_string())?;
    crate::platform::records::Store.write(KEY, &text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(mode: &str, score: u32, wave: u32) -> Run {
        Run {
            mode: mode.into(),
            preset: "default".into(),
            team_score: score,
            wave,
            seconds: 90,
        }
    }

    #[test]
    fn bests_are_per_mode_and_each_figure_is_its_own_best() {
        let mut records = Records::default();
        assert_eq!(records.add(run("solo", 1000, 4)), NewBest::default());
        assert_eq!(
            records.add(run("solo", 1500, 3)),
            NewBest {
                score: true,
                wave: false
            }
        );
        assert_eq!(
            records.add(run("solo", 900, 6)),
            NewBest {
                score: false,
                wave: true
            }
        );
        // Co-op keeps its own best.
        assert_eq!(records.add(run("co-op", 10, 1)), NewBest::default());
        let best = records.best("solo", "default").unwrap();
        assert_eq!((best.team_score, best.wave), (1500, 6));
        assert_eq!(records.best("co-op", "default").unwrap().team_score, 10);
        assert!(records.best("solo", "stress").is_none());
    }

    #[test]
    fn the_last_ten_runs_are_kept_newest_first_and_fit_a_record() {
        let mut records = Records::default();
        for i in 0..25 {
            records.add(run("online", i * 100, i));
        }
        assert_eq!(records.runs.len(), LAST_RUNS);
        assert_eq!(records.runs[0].team_score, 2400);
        let text = serde_json::to_string(&records).unwrap();
        assert!(text.len() < 4096, "{} bytes", text.len());
        let back: Records = serde_json::from_str(&text).unwrap();
        assert_eq!(back, records);
        assert!(records.lines()[0].starts_with("best online (default): 2400 points"));
    }
}
