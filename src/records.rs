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
    /// When it ended (seconds since 1970, UTC); none in records kept
    /// before runs were dated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_unix: Option<u64>,
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

    /// The Records screen's lines: the bests (solo, co-op, online; each
    /// preset), then the last runs, newest first, with how long ago each
    /// ended (`now`: seconds since 1970, when the clock is known).
    pub fn lines(&self, now: Option<u64>) -> Vec<Line> {
        let mut out = vec![Line::Heading("PERSONAL BESTS".into())];
        let mut bests: Vec<&Best> = self.bests.iter().collect();
        bests.sort_by_key(|b| (mode_rank(&b.mode), b.preset.clone()));
        out.extend(bests.iter().map(|b| {
            Line::Entry(format!(
                "{} {}: {} points, wave {}",
                b.mode, b.preset, b.team_score, b.wave
            ))
        }));
        if bests.is_empty() {
            out.push(Line::Note("none yet: play a game to its end".into()));
        }
        out.push(Line::Heading(format!("LAST {LAST_RUNS} RUNS")));
        out.extend(self.runs.iter().map(|r| {
            let when = match (r.ended_unix, now) {
                (Some(ended), Some(now)) => format!(", {}", ago(now.saturating_sub(ended))),
                _ => String::new(),
            };
            Line::Entry(format!(
                "{} {}: {} points, wave {}, {}:{:02}{when}",
                r.mode,
                r.preset,
                r.team_score,
                r.wave,
                r.seconds / 60,
                r.seconds % 60
            ))
        }));
        if self.runs.is_empty() {
            out.push(Line::Note("none yet".into()));
        }
        out
    }
}

/// One line of the Records screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    Heading(String),
    Entry(String),
    /// Said where a part is empty.
    Note(String),
}

impl Line {
    pub fn text(&self) -> &str {
        match self {
            Line::Heading(t) | Line::Entry(t) | Line::Note(t) => t,
        }
    }
}

/// Solo first, then co-op, then online, then anything else.
fn mode_rank(mode: &str) -> usize {
    ["solo", "co-op", "online"]
        .iter()
        .position(|m| *m == mode)
        .unwrap_or(3)
}

/// `seconds` ago in words: "just now", "5 min ago", "3 h ago", "2 days ago".
pub fn ago(seconds: u64) -> String {
    match seconds {
        0..60 => "just now".into(),
        60..3600 => format!("{} min ago", seconds / 60),
        3600..86_400 => format!("{} h ago", seconds / 3600),
        86_400..172_800 => "1 day ago".into(),
        _ => format!("{} days ago", seconds / 86_400),
    }
}

/// Now, in seconds since 1970 (none if the clock says earlier).
pub fn now_unix() -> Option<u64> {
    web_time::SystemTime::now()
        .duration_since(web_time::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_secs())
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
            ended_unix: Some(1_000_000),
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
        let lines = records.lines(Some(1_000_000 + 7200));
        assert_eq!(lines[1].text(), "online default: 2400 points, wave 24");
        assert_eq!(
            lines[3].text(),
            "online default: 2400 points, wave 24, 1:30, 2 h ago"
        );
        assert_eq!(lines.len(), 1 + 1 + 1 + LAST_RUNS);
    }

    #[test]
    fn records_kept_before_runs_were_dated_still_load_and_list_without_a_date() {
        let old = r#"{"bests":[{"mode":"solo","preset":"default","team_score":5,"wave":2}],
            "runs":[{"mode":"solo","preset":"default","team_score":5,"wave":2,"seconds":61}]}"#;
        let records: Records = serde_json::from_str(old).unwrap();
        assert_eq!(records.runs[0].ended_unix, None);
        let lines = records.lines(Some(1_000_000));
        assert_eq!(lines[3].text(), "solo default: 5 points, wave 2, 1:01");
        // A file older still, with bests only.
        let records: Records = serde_json::from_str(r#"{"bests":[]}"#).unwrap();
        assert_eq!(records, Records::default());
    }

    #[test]
    fn the_screen_lists_solo_first_and_says_when_nothing_is_kept() {
        let empty = Records::default().lines(None);
        assert!(matches!(empty[1], Line::Note(_)), "{empty:?}");
        assert!(matches!(empty[3], Line::Note(_)), "{empty:?}");
        let mut records = Records::default();
        records.add(run("online", 10, 1));
        records.add(run("solo", 20, 2));
        records.add(run("co-op", 30, 3));
        let lines = records.lines(None);
        let bests: Vec<&str> = lines[1..4].iter().map(Line::text).collect();
        assert_eq!(
            bests,
            [
                "solo default: 20 points, wave 2",
                "co-op default: 30 points, wave 3",
                "online default: 10 points, wave 1"
            ]
        );
        // Newest first, no date without a clock.
        assert_eq!(lines[5].text(), "co-op default: 30 points, wave 3, 1:30");
    }

    #[test]
    fn how_long_ago_reads_as_words() {
        assert_eq!(ago(59), "just now");
        assert_eq!(ago(60 * 5 + 3), "5 min ago");
        assert_eq!(ago(3600 * 3), "3 h ago");
        assert_eq!(ago(86_400 + 5), "1 day ago");
        assert_eq!(ago(86_400 * 12), "12 days ago");
    }
}
