//! `twinstar inspect A [B] [--json] [--html OUT]`: one or two peers'
//! recordings of one online match, side by side. Each is a replay and,
//! when present, its telemetry sidecar (`A.tsn`, the netcode's
//! `replay::telemetry`): rollbacks, frames ahead, stalls, RTT, loss and
//! events per peer, and with two, the first frame where they differ and
//! the world's fields that differ there (re-simulated from the inputs; a
//! desync that re-simulation does not reproduce, a recording's own
//! non-determinism, takes its fields from the desync report the match
//! wrote beside the replay). The HTML report is one file with an SVG
//! timeline and no network fetches.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use twinstar_netcode::replay::EventKind;
use twinstar_netcode::replay::telemetry::{self, Telemetry};

use super::replay::{first_state_difference, load};
use super::{Failure, Report};
use crate::cli::InspectArgs;
use crate::replay::{Divergence, FieldDiff, Replay, first_divergence, verify};

/// One peer's recording.
struct Peer {
    file: PathBuf,
    replay: Replay,
    /// The sidecar's path and what it holds, when there is one.
    telemetry: Option<(PathBuf, Telemetry)>,
}

/// Where two recordings part.
struct Divergent {
    frame: u32,
    divergence: Divergence,
    fields: Vec<FieldDiff>,
    /// `resimulation`, `desync_report`, or `none`.
    fields_from: &'static str,
    /// Whether each recording re-simulates to its own checksums.
    reproduces: [bool; 2],
}

pub fn inspect(args: &InspectArgs) -> Result<Report, Failure> {
    let mut peers = vec![peer(&args.a)?];
    if let Some(b) = &args.b {
        peers.push(peer(b)?);
    }
    let divergent = match &peers[..] {
        [a, b] => divergence(a, b)?,
        _ => None,
    };
    let report = json_report(&peers, divergent.as_ref());
    if let Some(out) = &args.html {
        let html = html_report(&peers, divergent.as_ref(), &report);
        std::fs::write(out, html)
            .map_err(|e| Failure::BadInput(format!("cannot write {}: {e}", out.display())))?;
        if !args.json {
            eprintln!("twinstar: wrote {}", out.display());
        }
    }
    if args.json {
        println!("{report}");
    } else {
        print_human(&report);
    }
    Ok(Report::Printed)
}

/// A replay and its sidecar: an unreadable one of either is bad input.
fn peer(file: &Path) -> Result<Peer, Failure> {
    let replay = load(file)?;
    let sidecar = telemetry::sidecar_path(file);
    let telemetry = if sidecar.exists() {
        let t = telemetry::read(&sidecar)
            .map_err(|e| Failure::BadInput(format!("{}: {e}", sidecar.display())))?;
        Some((sidecar, t))
    } else {
        None
    };
    Ok(Peer {
        file: file.to_path_buf(),
        replay,
        telemetry,
    })
}

/// The first divergent frame: the first frame whose inputs or recorded
/// checksums differ, or earlier when a desync event of either recording
/// says the peers' checksums already differed there (the replay records a
/// checksum a second; the peers compared them every few frames).
fn divergence(a: &Peer, b: &Peer) -> Result<Option<Divergent>, Failure> {
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
    let (_, mut fields) = first_state_difference(&a.replay, &b.replay, frame)?;
    let mut fields_from = "resimulation";
    let reproduces = [a, b].map(|p| verify(&p.replay).is_some_and(|v| v.first_mismatch.is_none()));
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

/// The differing fields of the desync report beside `peer`'s replay
/// (`desync-*.json` naming it), as `a` = the first file's value; `swap`
/// when `peer` is the second file.
fn report_fields(peer: &Peer, swap: bool) -> Option<Vec<FieldDiff>> {
    let dir = match peer.file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = peer.file.file_name()?.to_string_lossy().to_string();
    let mut candidates: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name().is_some_and(|n| {
                let n = n.to_string_lossy();
                n.starts_with("desync-") && n.ends_with(".json")
            })
        })
        .collect();
    candidates.sort();
    for path in candidates {
        let Ok(bytes) = crate::platform::files::read_limited(&path, 4 << 20) else {
            continue;
        };
        let Ok(report) = serde_json::from_slice::<Value>(&bytes) else {
            continue;
        };
        let names_it = report["replay"]
            .as_str()
            .and_then(|r| Path::new(r).file_name())
            .is_some_and(|n| n.to_string_lossy() == name);
        let Some(list) = report["differing_fields"].as_array().filter(|_| names_it) else {
            continue;
        };
        let text = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
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
        return Some(fields);
    }
    None
}

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
fn peer_json(peer: &Peer) -> Value {
    let replay = &peer.replay;
    let mut out = json!({
        "file": peer.file.display().to_string(),
        "mode": replay.header.mode,
        "frames": replay.frames(),
        "input_delay": replay.header.input_delay,
        "telemetry": null,
        "replay_events": replay.events.iter().filter(|e| e.kind != EventKind::Chat).count(),
    });
    let Some((path, t)) = &peer.telemetry else {
        return out;
    };
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
    let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
    let minutes = f64::from(replay.frames().max(1)) / f64::from(t.fps.max(1)) / 60.0;
    let path_kind = t.seconds.iter().rev().find_map(|s| s.path);
    out["telemetry"] = json!({
        "file": path.display().to_string(),
        "bytes": bytes,
        "bytes_per_minute": round(bytes as f64 / minutes, 1),
    });
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
    out
}

fn json_report(peers: &[Peer], divergent: Option<&Divergent>) -> Value {
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

fn print_human(report: &Value) {
    println!("{} frames", report["frames"]);
    for (i, p) in report["peers"].as_array().into_iter().flatten().enumerate() {
        let name = ["A", "B"].get(i).copied().unwrap_or("?");
        let text = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
        println!("{name}: {} ({})", text(&p["file"]), text(&p["mode"]));
        if p["telemetry"].is_null() {
            println!(
                "   no telemetry beside it ({} events in the replay)",
                p["replay_events"]
            );
            continue;
        }
        println!(
            "   rollback {} frames (max {}, p99 {}), {} frames ahead on average, {} stalls",
            p["rollback"]["frames"],
            p["rollback"]["max"],
            p["rollback"]["p99"],
            p["frames_ahead_mean"],
            p["stalls"]
        );
        println!(
            "   rtt {} ms median, {} ms p99; loss {} %; path {}; {} events",
            p["rtt_ms"]["median"],
            p["rtt_ms"]["p99"],
            p["loss_pct"],
            text(&p["path"]),
            p["events"]
        );
    }
    if report.get("first_divergent_frame").is_none() {
        return;
    }
    match report["first_divergent_frame"].as_u64() {
        None => println!("identical: same inputs and checksums"),
        Some(frame) => {
            println!("first divergent frame: {frame}");
            for f in report["fields"].as_array().into_iter().flatten().take(10) {
                let text = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
                println!(
                    "   {}: {} vs {}",
                    text(&f["path"]),
                    text(&f["a"]),
                    text(&f["b"])
                );
            }
        }
    }
}

// The HTML report.

const WIDTH: f64 = 1100.0;
const LEFT: f64 = 130.0;

fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The x of `frame` on a timeline of `frames`.
fn x_of(frame: u32, frames: u32) -> f64 {
    LEFT + WIDTH * f64::from(frame) / f64::from(frames.max(1))
}

/// A row of a value per frame, as the maximum per pixel column (bars).
fn bars(svg: &mut String, y: f64, h: f64, frames: u32, points: &[(u32, f64)], color: &str) {
    let top = points.iter().map(|p| p.1).fold(0.0f64, f64::max).max(1.0);
    let mut columns = vec![0.0f64; WIDTH as usize + 1];
    for &(f, v) in points {
        let c = ((x_of(f, frames) - LEFT) as usize).min(WIDTH as usize);
        columns[c] = columns[c].max(v);
    }
    let mut d = String::new();
    for (c, v) in columns.iter().enumerate().filter(|(_, v)| **v > 0.0) {
        let bh = h * v / top;
        let _ = write!(d, "M{:.1} {:.1}v{:.1}", LEFT + c as f64 + 0.5, y + h, -bh);
    }
    let _ = write!(
        svg,
        r#"<path d="{d}" stroke="{color}" stroke-width="1"/><text x="{}" y="{:.1}" class="s">max {top}</text>"#,
        LEFT + WIDTH + 4.0,
        y + 10.0
    );
}

/// A line through (frame, value) points.
fn line(svg: &mut String, y: f64, h: f64, frames: u32, points: &[(u32, f64)], color: &str) {
    if points.is_empty() {
        return;
    }
    let lo = points.iter().map(|p| p.1).fold(f64::MAX, f64::min).min(0.0);
    let hi = points
        .iter()
        .map(|p| p.1)
        .fold(f64::MIN, f64::max)
        .max(lo + 1.0);
    let mut d = String::new();
    for (i, &(f, v)) in points.iter().enumerate() {
        let py = y + h - h * (v - lo) / (hi - lo);
        let _ = write!(
            d,
            "{}{:.1} {:.1}",
            if i == 0 { "M" } else { "L" },
            x_of(f, frames),
            py
        );
    }
    let _ = write!(
        svg,
        r#"<path d="{d}" fill="none" stroke="{color}" stroke-width="1.2"/><text x="{}" y="{:.1}" class="s">{lo:.0}..{hi:.0}</text>"#,
        LEFT + WIDTH + 4.0,
        y + 10.0
    );
}

/// A player's inputs: one colour per input held, white for none.
fn inputs_row(svg: &mut String, y: f64, h: f64, frames: u32, replay: &Replay, player: usize) {
    let mut last: Option<(u16, f64)> = None;
    let flush = |svg: &mut String, from: Option<(u16, f64)>, to: f64| {
        if let Some((bits, x0)) = from
            && bits != 0
        {
            let hue = (u32::from(bits) * 47) % 360;
            let _ = write!(
                svg,
                r#"<rect x="{x0:.1}" y="{y:.1}" width="{:.2}" height="{h}" fill="hsl({hue},60%,55%)"/>"#,
                (to - x0).max(0.3)
            );
        }
    };
    for (i, inputs) in replay.inputs.iter().enumerate() {
        let bits = inputs[player].0;
        let x = x_of(i as u32, frames);
        if last.is_none_or(|(b, _)| b != bits) {
            flush(svg, last, x);
            last = Some((bits, x));
        }
    }
    flush(svg, last, x_of(replay.frames(), frames));
}

/// A row's label at the left.
fn label(svg: &mut String, y: f64, text: &str) {
    let _ = write!(
        svg,
        r#"<text x="4" y="{:.1}" class="l">{}</text>"#,
        y + 14.0,
        esc(text)
    );
}

/// The time axis: a tick a second (fewer on a long match).
fn time_axis(svg: &mut String, frames: u32, fps: u32) {
    let step = (frames / fps / 20).max(1) * fps;
    let mut f = 0;
    while f <= frames {
        let x = x_of(f, frames);
        let _ = write!(
            svg,
            r#"<line x1="{x:.1}" x2="{x:.1}" y1="14" y2="100%" class="t"/><text x="{x:.1}" y="10" class="s">{}s</text>"#,
            f / fps
        );
        f += step;
    }
}

/// How a row draws its points (`bars` or `line`).
type Draw = fn(&mut String, f64, f64, u32, &[(u32, f64)], &str);
/// A row's points: (frame, value).
type Points = Vec<(u32, f64)>;

/// One peer's telemetry rows from `y`: rollback, frames ahead, stalls,
/// RTT, loss and events; returns the `y` below them.
fn telemetry_rows(svg: &mut String, mut y: f64, frames: u32, t: &Telemetry) -> f64 {
    let per_frame = |g: fn(&telemetry::FrameSample) -> f64| {
        t.frames.iter().map(|s| (s.frame, g(s))).collect::<Vec<_>>()
    };
    let rtt: Vec<_> = (t.seconds.iter())
        .filter_map(|s| Some((s.frame, f64::from(s.rtt_ms?))))
        .collect();
    let loss: Vec<_> = (t.seconds.iter())
        .filter_map(|s| Some((s.frame, f64::from(s.loss_permille?) / 10.0)))
        .collect();
    let rows: [(&str, Draw, Points, &str); 5] = [
        (
            "  rollback",
            bars,
            per_frame(|s| f64::from(s.rollback)),
            "#c0392b",
        ),
        (
            "  frames ahead",
            line,
            per_frame(|s| f64::from(s.ahead)),
            "#2c3e50",
        ),
        (
            "  stalls",
            bars,
            per_frame(|s| f64::from(s.stalls + s.waits)),
            "#8e44ad",
        ),
        ("  rtt ms", line, rtt, "#2980b9"),
        ("  loss %", bars, loss, "#d35400"),
    ];
    for (name, draw, points, colour) in rows {
        label(svg, y, name);
        draw(svg, y + 2.0, ROW - 6.0, frames, &points, colour);
        y += ROW;
    }
    label(svg, y, "  events");
    for e in &t.events {
        let x = x_of(e.frame, frames);
        let _ = write!(
            svg,
            r#"<g><title>frame {}: {} {}</title><circle cx="{x:.1}" cy="{:.1}" r="5" class="e {}"/></g>"#,
            e.frame,
            esc(&e.kind),
            esc(&e.detail),
            y + 12.0,
            esc(&e.kind)
        );
    }
    y + ROW
}

/// The first divergence's red line down to `y`, labelled inside the chart.
fn divergence_marker(svg: &mut String, frame: u32, frames: u32, y: f64) {
    let x = x_of(frame, frames);
    let (text_x, anchor) = if x > LEFT + WIDTH * 0.7 {
        (x - 3.0, "end")
    } else {
        (x + 3.0, "start")
    };
    let _ = write!(
        svg,
        r#"<line x1="{x:.1}" x2="{x:.1}" y1="14" y2="{y:.1}" stroke="red" stroke-width="2"/><text x="{text_x:.1}" y="{:.1}" fill="red" class="l" text-anchor="{anchor}">first divergence: frame {frame}</text>"#,
        y + 12.0,
    );
}

/// The divergence in words and its fields' table, or that two
/// recordings agree.
fn fields_html(divergent: Option<&Divergent>, peers: usize) -> String {
    let mut fields = String::new();
    if let Some(d) = divergent {
        let _ = write!(
            fields,
            "<h2>First divergent frame: {}</h2><p>{} (fields from {}; re-simulation reproduces A: {}, B: {})</p><table><tr><th>field</th><th>A</th><th>B</th></tr>",
            d.frame,
            esc(&d.divergence.to_string()),
            d.fields_from,
            d.reproduces[0],
            d.reproduces[1]
        );
        for f in &d.fields {
            let _ = write!(
                fields,
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&f.path),
                esc(&f.a),
                esc(&f.b)
            );
        }
        fields.push_str("</table>");
    } else if peers == 2 {
        fields.push_str("<h2>The recordings are identical</h2>");
    }
    fields
}

/// Height of one timeline row, in SVG pixels.
const ROW: f64 = 34.0;

fn html_report(peers: &[Peer], divergent: Option<&Divergent>, report: &Value) -> String {
    let frames = peers.iter().map(|p| p.replay.frames()).max().unwrap_or(1);
    let mut svg = String::new();
    let mut y = 20.0;
    let fps = peers
        .iter()
        .find_map(|p| p.telemetry.as_ref().map(|(_, t)| t.fps))
        .unwrap_or(60)
        .max(1);
    time_axis(&mut svg, frames, fps);
    for (i, peer) in peers.iter().enumerate() {
        let name = ["A", "B"][i.min(1)];
        let file = peer.file.file_name().unwrap_or_default().to_string_lossy();
        label(&mut svg, y, &format!("{name}: {file}"));
        y += ROW * 0.6;
        for player in 0..2 {
            label(&mut svg, y, &format!("  P{} inputs", player + 1));
            inputs_row(&mut svg, y + 4.0, ROW - 12.0, frames, &peer.replay, player);
            y += ROW;
        }
        match &peer.telemetry {
            Some((_, t)) => y = telemetry_rows(&mut svg, y, frames, t),
            None => {
                label(&mut svg, y, "  (no telemetry)");
                y += ROW;
            }
        }
        y += 8.0;
    }
    if let Some(d) = divergent {
        divergence_marker(&mut svg, d.frame, frames, y);
        y += 20.0;
    }
    let fields = fields_html(divergent, peers.len());
    let summary = serde_json::to_string_pretty(report).unwrap_or_default();
    format!(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>twinstar inspect</title>
<style>
body {{ font: 14px system-ui, sans-serif; margin: 16px; color: #222; }}
svg {{ background: #fafafa; border: 1px solid #ddd; }}
.l {{ font-size: 12px; }} .s {{ font-size: 10px; fill: #666; }}
.t {{ stroke: #e4e4e4; }}
.e {{ fill: #7f8c8d; }} .e.desync {{ fill: red; }} .e.stall {{ fill: #8e44ad; }}
.e.input_delay {{ fill: #27ae60; }} .e.interrupted, .e.reconnect {{ fill: #e67e22; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #ccc; padding: 2px 8px; text-align: left; }}
pre {{ background: #f4f4f4; padding: 8px; overflow: auto; }}
</style></head><body>
<h1>twinstar inspect</h1>
<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}">{svg}</svg>
{fields}
<h2>Figures</h2><pre>{summary}</pre>
</body></html>
"#,
        w = LEFT + WIDTH + 70.0,
        h = y + 10.0,
        summary = esc(&summary),
    )
}
