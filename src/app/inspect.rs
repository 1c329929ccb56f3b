//! `twinstar inspect A [B] [--json] [--html OUT]`: one or two peers'
//! recordings of one online match, side by side (the twinstar-inspect
//! crate's analysis, which the page's inspector runs too). This is its
//! command line: it reads each replay, its telemetry sidecar (`A.tsn`)
//! when present and the desync reports beside it (`desync-*.json`, whose
//! fields explain a desync that re-simulation does not reproduce), then
//! prints or writes the report.

use std::path::{Path, PathBuf};

use serde_json::Value;
use twinstar_inspect::{Recording, Sidecar, divergence, html_report, json_report};
use twinstar_netcode::replay::telemetry;

use super::replay::load;
use super::{Failure, Report};
use crate::cli::InspectArgs;

pub fn inspect(args: &InspectArgs) -> Result<Report, Failure> {
    let mut peers = vec![peer(&args.a)?];
    if let Some(b) = &args.b {
        peers.push(peer(b)?);
    }
    let divergent = match &peers[..] {
        [a, b] => divergence(a, b).map_err(Failure::BadInput)?,
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

/// A replay, its sidecar and the desync reports beside it: an unreadable
/// replay or sidecar is bad input.
fn peer(file: &Path) -> Result<Recording, Failure> {
    let replay = load(file)?;
    let sidecar = telemetry::sidecar_path(file);
    let telemetry = if sidecar.exists() {
        let t = telemetry::read(&sidecar)
            .map_err(|e| Failure::BadInput(format!("{}: {e}", sidecar.display())))?;
        Some(Sidecar {
            file: sidecar.display().to_string(),
            bytes: std::fs::metadata(&sidecar).map_or(0, |m| m.len()),
            telemetry: t,
        })
    } else {
        None
    };
    Ok(Recording {
        file: file.display().to_string(),
        replay,
        telemetry,
        desync_reports: desync_reports(file),
    })
}

/// The desync reports (`desync-*.json`) in `replay`'s folder, by name;
/// unreadable ones are passed over.
fn desync_reports(replay: &Path) -> Vec<Value> {
    let dir = match replay.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut candidates: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name().is_some_and(|n| {
                let n = n.to_string_lossy();
                n.starts_with("desync-") && n.ends_with(".json")
            })
        })
        .collect();
    candidates.sort();
    candidates
        .iter()
        .filter_map(|path| crate::platform::files::read_limited(path, 4 << 20).ok())
        .filter_map(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .collect()
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
