//! The desync report on disk: `desync-CODE-FRAME-pN.json` beside the
//! replay (CODE the room's code, or `quick`; N our player number, as both
//! players may record into one folder), named on stderr and in the
//! summary. What it says is `session::desync`'s.

use std::path::{Path, PathBuf};

use crate::game::Twinstar;
use crate::session::Summary;
use crate::sim::PLAYERS;
use twinstar_netcode::session::desync::{Forensics, explain};

/// How many differing fields the summary and the result panel name (the
/// file has them all).
const FIELDS_SHOWN: usize = 5;

/// Writes the report for `forensics` and says where in `summary` and on
/// stderr; a report that cannot be written is said, never fatal.
pub(super) fn report(forensics: &Forensics<Twinstar, PLAYERS>, summary: &mut Summary) {
    let Some(ours) = &forensics.ours else {
        return;
    };
    let report = explain(ours, forensics.theirs.as_ref(), forensics.local);
    let mut json = report.json;
    json["room"] = forensics.room.clone().into();
    json["replay"] = summary.replay.clone().into();
    let code = forensics
        .room
        .as_deref()
        .unwrap_or("quick")
        .replace('-', "");
    let who = match &forensics.spectator {
        // "theirs" is the streaming player's; names may hold spaces.
        Some(name) => {
            json["spectator"] = name.clone().into();
            if let Some(o) = json.as_object_mut() {
                o.remove("player");
            }
            name.chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect()
        }
        None => format!("p{}", forensics.local + 1),
    };
    let name = format!("desync-{code}-{}-{who}.json", report.frame);
    let dir = summary
        .replay
        .as_deref()
        .and_then(|r| Path::new(r).parent())
        .map_or_else(
            || PathBuf::from(crate::replay::DEFAULT_DIR),
            Path::to_path_buf,
        );
    let path = dir.join(name);
    let text = serde_json::to_string_pretty(&json).unwrap_or_default() + "\n";
    // In the browser, beside the replay in the page's memory.
    let written = crate::platform::files::create(&path).and_then(|mut out| {
        use std::io::Write;
        out.write_all(text.as_bytes())?;
        out.sync()
    });
    if let Err(e) = written {
        eprintln!(
            "twinstar: could not write the desync report {}: {e}",
            path.display()
        );
        return;
    }
    let fields: Vec<String> = report.fields.iter().take(FIELDS_SHOWN).cloned().collect();
    let differ = if fields.is_empty() {
        json["differing_fields"]
            .as_str()
            .unwrap_or("no field differs")
            .to_string()
    } else {
        format!(
            "{} differ, first {}",
            report.fields.len(),
            fields.join(", ")
        )
    };
    eprintln!("twinstar: desync report: {} ({differ})", path.display());
    summary.desync_report = Some(path.display().to_string());
    summary.desync_fields = Some(fields);
}
