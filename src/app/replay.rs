//! `twinstar replay` and `twinstar replay-diff`. A replay is a file, or a
//! ranked replay's link on a server (`web::replay_link`), downloaded first.

use std::path::Path;

use serde_json::json;

use super::{Failure, Report, video};
use crate::cli::{ReplayArgs, ReplayDiffArgs};
use crate::frontend::replay_view;
use crate::frontend::window::Screenshot;
use crate::game::Twinstar;
use crate::replay::{self, FieldDiff, Replay, first_divergence};
use crate::session::Summary;
use crate::sim::{PLAYERS, hex_checksum};
use crate::web::replay_link;
use twinstar_netcode::session::MatchSummary;

pub(super) fn load(path: &Path) -> Result<Replay, Failure> {
    let replay =
        replay::read(path).map_err(|e| Failure::BadInput(format!("{}: {e}", path.display())))?;
    warn_if_cut(&replay, &path.display().to_string());
    Ok(replay)
}

fn warn_if_cut(replay: &Replay, name: &str) {
    if let Some(cut) = &replay.cut {
        eprintln!("twinstar: warning: {name}: {cut}; playing up to there");
    }
}

/// The replay `file` names, and its name for messages: a file, or a link
/// (`https://SERVER/replays/ID`, `https://SERVER/#replay=ID`) downloaded
/// now. A link that is none, a 404, a download past the cap or bytes that
/// are no replay are bad input (exit 2) like a bad file; a server that
/// does not answer is a runtime failure (exit 1).
fn load_source(file: &Path) -> Result<(Replay, String), Failure> {
    let text = file.to_string_lossy();
    if !replay_link::is_web_address(&text) {
        return Ok((load(file)?, file.display().to_string()));
    }
    let link = replay_link::parse(&text).map_err(|e| Failure::BadInput(e.to_string()))?;
    let bytes = crate::platform::boards::download_replay(&link.url).map_err(|e| {
        if e.unreachable {
            Failure::Runtime(e.why, None)
        } else {
            Failure::BadInput(e.why)
        }
    })?;
    let replay =
        replay::read_bytes(&bytes).map_err(|e| Failure::BadInput(format!("{}: {e}", link.url)))?;
    warn_if_cut(&replay, &link.url);
    Ok((replay, link.url))
}

/// Flag combinations clap cannot refuse with a clear one-line message.
fn check_flags(args: &ReplayArgs) -> Result<(), Failure> {
    let refuse = |m: &str| Err(Failure::BadInput(m.to_string()));
    // The viewer shows a replay; it does not compare checksums, so a
    // --verify it would ignore is refused rather than passed over.
    if args.verify && !args.headless {
        return refuse("--verify needs --headless (the window plays a replay without checking it)");
    }
    if args.json && !args.headless && !args.dump && args.video.is_none() {
        return refuse("--json needs --headless or --video (the window prints no summary)");
    }
    if args.video.is_none() {
        for (given, flag) in [
            (args.from.is_some(), "--from"),
            (args.to.is_some(), "--to"),
            (args.video_size.is_some(), "--video-size"),
        ] {
            if given {
                return refuse(&format!("{flag} is for a video; add --video OUT.mp4"));
            }
        }
    }
    if args.frames.is_some() && args.screenshot.is_none() {
        return refuse("--frames N picks the frame for --screenshot; add --screenshot PATH");
    }
    Ok(())
}

pub fn replay(args: &ReplayArgs) -> Result<Report, Failure> {
    check_flags(args)?;
    if let Some(out) = &args.video {
        // Every one-line refusal before a window opens.
        let ready = video::precheck(out)?;
        let (replay, name) = load_source(&args.file)?;
        let clip = video::clip_of(args.from, args.to, replay.frames())?;
        crate::frontend::require_display()?;
        return video::export(args, out, ready, clip, replay, &name);
    }
    if !args.headless && !args.dump {
        crate::frontend::require_display()?;
    }
    let (replay, name) = load_source(&args.file)?;
    if args.dump {
        dump(&replay);
        return Ok(Report::Printed);
    }
    if !args.headless {
        // The page has no terminal to come back to when the viewer closes:
        // there the re-simulation's verdict is its result line, given as the
        // viewer opens (which shows each checksum's verdict as it plays).
        let verdict = cfg!(target_arch = "wasm32").then(|| verified(&replay, &name));
        let capture = args.screenshot.clone().map(|path| Screenshot {
            path,
            after_frames: args.frames.unwrap_or(0),
        });
        return match replay_view::run(replay, &name, capture) {
            Err(e) => Err(Failure::BadInput(e.to_string())),
            Ok(Some(Err(e))) => Err(Failure::BadInput(e)),
            Ok(_) => verdict.unwrap_or(Ok(Report::Printed)),
        };
    }
    verified(&replay, &name)
}

/// Re-simulates `replay` and compares every recorded checksum: its
/// summary, or the first mismatch (exit 1, with the summary).
fn verified(replay: &Replay, name: &str) -> Result<Report, Failure> {
    let v = replay::verify(replay)
        .ok_or_else(|| Failure::BadInput("unreadable simulation config".into()))?;
    let netcode = MatchSummary::of_replay::<Twinstar, PLAYERS>(name, replay, &v);
    let summary = Summary::of(netcode, &v.state);
    match v.first_mismatch {
        None => {
            eprintln!(
                "twinstar: verified {} frames, {} checksums match",
                v.frames, v.checked
            );
            Ok(Report::Summary(Box::new(summary)))
        }
        Some((frame, recorded, actual)) => Err(Failure::Runtime(
            format!(
                "replay does not reproduce: checksum mismatch at frame {frame}: recorded {}, re-simulated {}",
                hex_checksum(recorded),
                hex_checksum(actual)
            ),
            Some(Box::new(summary)),
        )),
    }
}

/// JSON lines: the header, one line per frame (with the checksum where one
/// was recorded), the events, and the end record. Stops quietly when the
/// reader goes away (`| head`).
fn dump(replay: &Replay) {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut lines = Vec::with_capacity(replay.inputs.len() + 2);
    lines.push(
        json!({ "header": replay.header, "cut": replay.cut.as_ref().map(|c| c.to_string()) }),
    );
    let mut checksums = replay.checksums.iter().peekable();
    for (i, inputs) in replay.inputs.iter().enumerate() {
        let frame = i as u32 + 1;
        let checksum = checksums
            .next_if(|(f, _)| *f == frame)
            .map(|(_, c)| hex_checksum(*c));
        lines.push(
            json!({ "frame": frame, "inputs": [inputs[0].0, inputs[1].0], "checksum": checksum }),
        );
    }
    lines.extend(replay.events.iter().map(|event| json!({ "event": event })));
    if let Some(end) = &replay.end {
        lines.push(json!({ "end": { "frame": end.frame, "checksum": hex_checksum(end.checksum), "reason": end.reason } }));
    }
    for line in lines {
        if writeln!(out, "{line}").is_err() {
            return;
        }
    }
    let _ = out.flush();
}

/// Exit 0 when the logs are identical, 1 when they diverge (like diff(1)).
pub fn diff(args: &ReplayDiffArgs) -> Result<Report, Failure> {
    let (a, b) = (load(&args.a)?, load(&args.b)?);
    let Some(divergence) = first_divergence(&a, &b) else {
        if args.json {
            println!("{}", json!({ "identical": true, "frames": a.frames() }));
        } else {
            println!(
                "identical: {} frames, same inputs and checksums",
                a.frames()
            );
        }
        return Ok(Report::Printed);
    };
    // With --state: re-simulate both to the divergence, then on until the
    // worlds actually differ (a changed input may take frames to matter).
    let state = if args.state {
        Some(first_state_difference(&a, &b, divergence.frame())?)
    } else {
        None
    };
    if args.json {
        let (state_frame, fields) = state.unzip();
        let report = json!({
            "identical": false,
            "frame": divergence.frame(),
            "divergence": divergence,
            "state_frame": state_frame,
            "state_diff": fields,
        });
        println!("{report}");
    } else {
        println!("{divergence}");
        match &state {
            Some((frame, fields)) if fields.is_empty() => {
                println!("the re-simulated worlds never differ (up to frame {frame})")
            }
            Some((frame, fields)) => {
                println!("the worlds first differ at frame {frame}:");
                for f in fields {
                    println!("  {}: {} vs {}", f.path, f.a, f.b);
                }
            }
            None => {}
        }
    }
    Err(Failure::Runtime(
        format!("the replays diverge at frame {}", divergence.frame()),
        None,
    ))
}

/// The first frame at or after `from` where the two re-simulated worlds
/// differ, with the differing fields (empty if they never do).
pub(super) fn first_state_difference(
    a: &Replay,
    b: &Replay,
    from: u32,
) -> Result<(u32, Vec<FieldDiff>), Failure> {
    twinstar_inspect::first_state_difference(a, b, from)
        .ok_or_else(|| Failure::BadInput("unreadable simulation config".into()))
}
