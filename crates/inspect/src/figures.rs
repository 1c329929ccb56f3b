//! The report as JSON (`twinstar inspect --json`): each peer's figures
//! and, with two, where they part.

use serde_json::{Value, json};
use twinstar_netcode::replay::EventKind;
use twinstar_netcode::replay::telemetry::Telemetry;

use crate::{Divergent, Recording};

/// A percentile of sorted values (nearest rank).
fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

fn round(v: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (v * scale).round() / scale
}

/// One peer's figures.
fn peer_json(peer: &Recording) -> Value {
    let replay = &peer.replay;
    let mut out = json!({
        "file": peer.file,
        "mode": replay.header.mode,
        "frames": replay.frames(),
        "input_delay": replay.header.input_delay,
        "telemetry": null,
        "replay_events": replay.events.iter().filter(|e| e.kind != EventKind::Chat).count(),
    });
    let Some(sidecar) = &peer.telemetry else {
        return out;
    };
    let t = &sidecar.telemetry;
    let minutes = f64::from(replay.frames().max(1)) / f64::from(t.fps.max(1)) / 60.0;
    out["telemetry"] = json!({
        "file": sidecar.file,
        "bytes": sidecar.bytes,
        "bytes_per_minute": round(sidecar.bytes as f64 / minutes, 1),
    });
    telemetry_figures(&mut out, t);
    out
}

/// A sidecar's figures, into `out`.
fn telemetry_figures(out: &mut Value, t: &Telemetry) {
    let mut depths: Vec<f64> = t.frames.iter().map(|s| f64::from(s.rollback)).collect();
    depths.sort_by(f64::total_cmp);
    let total: u64 = t.frames.iter().map(|s| u64::from(s.rollback)).sum();
    let ahead = (!t.frames.is_empty())
        .then(|| t.frames.iter().map(|s| f64::from(s.ahead)).sum::<f64>() / t.frames.len() as f64);
    let mut rtts: Vec<f64> = t
        .seconds
        .iter()
        .filter_map(|s| s.rtt_ms.map(f64::from))
        .collect();
    rtts.sort_by(f64::total_cmp);
    let losses: Vec<f64> = t
        .seconds
        .iter()
        .filter_map(|s| s.loss_permille.map(f64::from))
        .collect();
    let loss_pct = (!losses.is_empty())
        .then(|| round(losses.iter().sum::<f64>() / losses.len() as f64 / 10.0, 2));
    let path_kind = t.seconds.iter().rev().find_map(|s| s.path);
    out["rollback"] = json!({
        "frames": total,
        "max": depths.last().copied().unwrap_or(0.0) as u64,
        "p99": percentile(&depths, 99.0).unwrap_or(0.0) as u64,
    });
    out["frames_ahead_mean"] = json!(ahead.map(|a| round(a, 3)));
    out["stalls"] = json!(t.frames.iter().map(|s| u64::from(s.stalls)).sum::<u64>());
    out["rtt_ms"] = json!({
        "median": percentile(&rtts, 50.0),
        "p99": percentile(&rtts, 99.0),
    });
    out["loss_pct"] = json!(loss_pct);
    out["bytes_sent"] = json!(t.seconds.iter().map(|s| s.bytes_sent).sum::<u64>());
    out["bytes_received"] = json!(t.seconds.iter().map(|s| s.bytes_received).sum::<u64>());
    out["path"] = json!(path_kind);
    out["events"] = json!(t.events.len());
    let mut kinds = serde_json::Map::new();
    for e in &t.events {
        let n = kinds.get(&e.kind).and_then(Value::as_u64).unwrap_or(0);
        kinds.insert(e.kind.clone(), json!(n + 1));
    }
    out["event_kinds"] = Value::Object(kinds);
}

/// The whole report: `frames` (the longer recording's), `peers`, and with
/// two recordings where they part (docs/inspect.md lists the fields).
pub fn json_report(peers: &[Recording], divergent: Option<&Divergent>) -> Value {
    let frames = peers.iter().map(|p| p.replay.frames()).max().unwrap_or(0);
    let mut report = json!({
        "frames": frames,
        "peers": peers.iter().map(peer_json).collect::<Vec<_>>(),
    });
    if peers.len() == 2 {
        report["first_divergent_frame"] = json!(divergent.map(|d| d.frame));
        report["divergence"] = json!(divergent.map(|d| &d.divergence));
        report["fields"] = json!(divergent.map_or(&[][..], |d| &d.fields[..]));
        report["fields_from"] = json!(divergent.map(|d| d.fields_from));
        report["reproduces"] = json!(divergent.map(|d| d.reproduces));
    }
    report
}
