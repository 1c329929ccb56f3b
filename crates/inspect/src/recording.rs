//! One peer's recording: its replay, its telemetry sidecar when there is
//! one, and the desync reports its match wrote.

use serde_json::Value;
use twinstar_netcode::replay::telemetry::{self, Telemetry};

use crate::{Replay, read_replay};

/// One peer's recording.
pub struct Recording {
    /// The replay's name as the report shows it (a path natively, the
    /// picked file's name in the page).
    pub file: String,
    pub replay: Replay,
    /// The sidecar, when there is one.
    pub telemetry: Option<Sidecar>,
    /// Desync reports (`desync-*.json`) that may name this replay; the
    /// ones that do not are passed over.
    pub desync_reports: Vec<Value>,
}

/// A telemetry sidecar, read.
pub struct Sidecar {
    /// Its name as the report shows it.
    pub file: String,
    /// Its size in bytes.
    pub bytes: u64,
    pub telemetry: Telemetry,
}

impl Recording {
    /// A recording from its files' bytes: the replay, and the sidecar's
    /// name and bytes. An unreadable one of either is one line naming it.
    pub fn from_bytes(
        file: &str,
        replay: &[u8],
        sidecar: Option<(&str, &[u8])>,
    ) -> Result<Recording, String> {
        let replay = read_replay(replay).map_err(|e| format!("{file}: {e}"))?;
        let telemetry = match sidecar {
            Some((name, bytes)) => Some(Sidecar {
                file: name.to_string(),
                bytes: bytes.len() as u64,
                telemetry: telemetry::decode(bytes).map_err(|e| format!("{name}: {e}"))?,
            }),
            None => None,
        };
        Ok(Recording {
            file: file.to_string(),
            replay,
            telemetry,
            desync_reports: Vec::new(),
        })
    }

    /// The replay's file name, without its folders.
    pub fn file_name(&self) -> &str {
        base_name(&self.file)
    }
}

/// The last part of a path, either separator.
pub(crate) fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}
