//! Where two recordings part: the first divergent frame, what differs
//! first, and the world's fields that differ there.

use serde_json::Value;
use twinstar_netcode::replay::EventKind;
use twinstar_sim::{FieldDiff, Frame};

use crate::recording::base_name;
use crate::{Divergence, Recording, Replay, first_divergence, first_state_difference, reproduces};

/// Where two recordings part.
pub struct Divergent {
    pub frame: Frame,
    pub divergence: Divergence,
    pub fields: Vec<FieldDiff>,
    /// `resimulation`, `desync_report`, or `none`.
    pub fields_from: &'static str,
    /// Whether each recording re-simulates to its own checksums.
    pub reproduces: [bool; 2],
}

/// The first divergent frame: the first frame whose inputs or recorded
/// checksums differ, or earlier when a desync event of either recording
/// says the peers' checksums already differed there (the replay records a
/// checksum a second; the peers compared them every few frames). `Err`
/// when a header's rules are unreadable.
pub fn divergence(a: &Recording, b: &Recording) -> Result<Option<Divergent>, String> {
    let Some(divergence) = first_divergence(&a.replay, &b.replay) else {
        return Ok(None);
    };
    if let Divergence::Header { .. } = divergence {
        return Ok(Some(Divergent {
            frame: 0,
            divergence,
            fields: Vec::new(),
            fields_from: "none",
            reproduces: [true, true],
        }));
    }
    let desync_at = [a, b].iter().flat_map(|p| desync_frames(&p.replay)).min();
    let frame = desync_at.map_or(divergence.frame(), |f| f.min(divergence.frame()));
    let (_, mut fields) = first_state_difference(&a.replay, &b.replay, frame)
        .ok_or_else(|| "unreadable simulation config".to_string())?;
    let mut fields_from = "resimulation";
    let reproduces = [a, b].map(|p| reproduces(&p.replay));
    if fields.is_empty() {
        // Same inputs, same re-simulated worlds, different recorded
        // checksums: a peer's own run did not follow its inputs. Its world
        // is gone; the desync report kept both sides' fields.
        fields = report_fields(a, false)
            .or_else(|| report_fields(b, true))
            .unwrap_or_default();
        fields_from = if fields.is_empty() {
            "none"
        } else {
            "desync_report"
        };
    }
    Ok(Some(Divergent {
        frame,
        divergence,
        fields,
        fields_from,
        reproduces,
    }))
}

/// The frames of a replay's desync events (`frame F: ours X, theirs Y`).
fn desync_frames(replay: &Replay) -> impl Iterator<Item = u32> + '_ {
    replay
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Desync)
        .filter_map(|e| {
            let rest = e.detail.strip_prefix("frame ")?;
            rest.split(':').next()?.trim().parse().ok()
        })
}

/// The differing fields of the first of `peer`'s desync reports that
/// names its replay, as `a` = the first file's value; `swap` when `peer`
/// is the second file.
fn report_fields(peer: &Recording, swap: bool) -> Option<Vec<FieldDiff>> {
    let name = peer.file_name();
    let text = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
    peer.desync_reports.iter().find_map(|report| {
        let names_it = report["replay"].as_str().map(base_name) == Some(name);
        let list = report["differing_fields"].as_array().filter(|_| names_it)?;
        let fields = list
            .iter()
            .map(|f| {
                let (ours, theirs) = (text(&f["ours"]), text(&f["theirs"]));
                let (a, b) = if swap { (theirs, ours) } else { (ours, theirs) };
                FieldDiff {
                    path: text(&f["field"]),
                    a,
                    b,
                }
            })
            .collect();
        Some(fields)
    })
}
