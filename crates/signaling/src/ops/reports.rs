//! The reports file (`--reports FILE`): one JSON object per line, for an
//! operator to read, grep or ship to whatever reviews them. Bounded: once
//! a report would take the file past its size limit, it is renamed to
//! `FILE.1` (replacing the one before) and a new file begins, so the two
//! together never hold more than twice the limit.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Serialize;

/// Default `--reports-max-bytes`: 16 MiB, tens of thousands of reports.
pub const DEFAULT_REPORTS_MAX_BYTES: u64 = 16 * 1024 * 1024;

/// One report, as the file holds it.
#[derive(Debug, Serialize)]
pub struct ReportEntry {
    /// When the server took it, in Unix seconds.
    pub time_s: u64,
    /// The room's code as players write it (`K7Q-2XM`).
    pub room: String,
    /// `player 1`, `player 2` or `spectator`.
    pub reporter: String,
    /// Whom it reports, as the reporter's chat named them.
    pub name: String,
    pub reason: String,
    /// The room's last chat lines as the reporter saw them, oldest first.
    pub lines: Vec<String>,
}

/// The file, shared by the request handlers (one writer at a time).
#[derive(Clone, Debug)]
pub struct ReportsFile {
    path: PathBuf,
    max_bytes: u64,
    lock: Arc<Mutex<()>>,
}

impl ReportsFile {
    /// Checks that `path` can be appended to now, so a wrong path fails at
    /// start-up rather than at the first report.
    pub fn open(path: &Path, max_bytes: u64) -> std::io::Result<ReportsFile> {
        append_to(path)?;
        Ok(ReportsFile {
            path: path.to_owned(),
            max_bytes,
            lock: Arc::default(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `entry` as one line, rotating first if it would not fit.
    pub fn append(&self, entry: &ReportEntry) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(entry).map_err(std::io::Error::other)?;
        line.push(b'\n');
        let _one_writer = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let size = std::fs::metadata(&self.path).map_or(0, |m| m.len());
        if size > 0 && size + line.len() as u64 > self.max_bytes {
            std::fs::rename(&self.path, rotated(&self.path))?;
        }
        let mut file = append_to(&self.path)?;
        file.write_all(&line)?;
        file.flush()
    }
}

fn append_to(path: &Path) -> std::io::Result<File> {
    OpenOptions::new().create(true).append(true).open(path)
}

/// `FILE.1`: where the previous file goes.
pub fn rotated(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".1");
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(reason: &str) -> ReportEntry {
        ReportEntry {
            time_s: 1_700_000_000,
            room: "K7Q-2XM".into(),
            reporter: "player 1".into(),
            name: "S1".into(),
            reason: reason.into(),
            lines: vec!["S1: spam".into(), "P1: stop".into()],
        }
    }

    fn temp_dir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("twinstar-reports-{}", rand::random::<u64>()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn reports_are_json_lines_and_the_file_rotates_at_its_limit() {
        let dir = temp_dir();
        let path = dir.join("reports.jsonl");
        let file = ReportsFile::open(&path, 600).unwrap();
        for i in 0..5 {
            file.append(&entry(&format!("reason {i}"))).unwrap();
        }
        let now = std::fs::read_to_string(&path).unwrap();
        let before = std::fs::read_to_string(rotated(&path)).unwrap();
        assert!(now.len() <= 600 && before.len() <= 600, "{now}\n{before}");
        let lines: Vec<serde_json::Value> = (before.lines().chain(now.lines()))
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        // The newest are kept, in order, each whole.
        let last = lines.last().unwrap();
        assert_eq!(last["reason"], "reason 4");
        assert_eq!(last["lines"][0], "S1: spam");
        assert_eq!(last["room"], "K7Q-2XM");
        let reasons: Vec<_> = lines.iter().map(|l| l["reason"].clone()).collect();
        let mut sorted = reasons.clone();
        sorted.sort_by_key(|r| r.to_string());
        assert_eq!(reasons, sorted);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_path_that_cannot_be_written_fails_at_once() {
        let dir = temp_dir();
        assert!(ReportsFile::open(&dir.join("no/such/dir/reports.jsonl"), 1000).is_err());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
