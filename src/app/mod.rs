//! Dispatch: turns parsed arguments into a driver and a frontend, prints the
//! summary, and maps failures to exit codes (1 runtime, 2 bad input).

mod online;
mod replay;

use std::path::PathBuf;
use std::process::ExitCode;

use crate::cli::{Cli, Command, RunArgs};
use crate::frontend::{InputSource, headless, window};
use crate::input::{KeyMap, ScriptBot};
use crate::replay::{Header, Writer};
use crate::session::{Driver, DriverOptions, Mode, SessionError, Summary};
use crate::sim::SimConfig;

/// Frames a headless run plays when `--frames` is not given (one minute).
const DEFAULT_HEADLESS_FRAMES: u32 = 3600;

/// A failure and the exit code it maps to.
#[derive(Debug)]
pub enum Failure {
    /// Arguments, files, room codes: exit 2.
    BadInput(String),
    /// Mismatch, desync, lost peer: exit 1. The summary, when there is one,
    /// is still printed.
    Runtime(String, Option<Box<Summary>>),
}

impl Failure {
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Failure::BadInput(_) => ExitCode::from(2),
            Failure::Runtime(..) => ExitCode::from(1),
        }
    }
}

/// What a successful command leaves for `main` to print.
pub enum Report {
    /// A run summary (human line, or JSON with `--json`).
    Summary(Box<Summary>),
    /// The command printed its own output.
    Printed,
}

pub fn run(cli: Cli) -> Result<Report, Failure> {
    let summary = match cli.command {
        Command::Synctest(args) => {
            let mode = Mode::SyncTest {
                check_distance: args.check_distance,
            };
            play(&args.run, mode, args.debug_inject_desync)?
        }
        Command::Local(args) => play(&args, Mode::Local, None)?,
        Command::Host(args) => online::online(
            crate::net::handshake::Role::Host,
            args.room.as_deref(),
            &args.net,
            &args.run,
        )?,
        Command::Join(args) => online::online(
            crate::net::handshake::Role::Join,
            args.code.as_deref(),
            &args.net,
            &args.run,
        )?,
        Command::Serve(args) => return online::serve(&args),
        Command::Replay(args) => return replay::replay(&args),
        Command::ReplayDiff(args) => return replay::diff(&args),
    };
    Ok(Report::Summary(Box::new(summary)))
}

fn play(args: &RunArgs, mode: Mode, inject_desync_from: Option<u32>) -> Result<Summary, Failure> {
    let config = SimConfig::preset(&args.preset)
        .ok_or_else(|| Failure::BadInput(format!("unknown preset '{}'", args.preset)))?;
    if !args.headless && !window::display_available() {
        return Err(Failure::BadInput(
            window::WindowError::NoDisplay.to_string(),
        ));
    }
    let seed = args.seed.unwrap_or_else(random_seed);
    let options = DriverOptions {
        seed,
        config,
        mode,
        inject_desync_from,
    };
    let mut driver = Driver::new(options).map_err(|e| Failure::Runtime(e.to_string(), None))?;
    if let Some(path) = record_path(args, mode.name(), seed) {
        let writer = Writer::create(&path, &Header::new(mode.name(), seed, &config))
            .map_err(|e| Failure::BadInput(format!("cannot record to {}: {e}", path.display())))?;
        driver.record_to(writer);
    }
    let bot = |player| InputSource::Bot(ScriptBot::new(seed, player));

    if args.headless {
        let mut sources = [bot(0), bot(1)];
        let frames = args.frames.unwrap_or(DEFAULT_HEADLESS_FRAMES);
        let result = headless::run(&mut driver, &mut sources, frames);
        return finish(&mut driver, result.err());
    }

    let player_two = if args.bot || matches!(mode, Mode::SyncTest { .. }) {
        bot(1)
    } else {
        InputSource::Keys(KeyMap::PLAYER_TWO)
    };
    let sources = [InputSource::Keys(KeyMap::PLAYER_ONE), player_two];
    let title = format!("twinstar - {}", mode.name());
    match window::run(driver, sources, args.frames, &title) {
        (mut driver, Ok(())) => finish(&mut driver, None),
        (mut driver, Err(window::WindowError::Session(e))) => finish(&mut driver, Some(e)),
        (_, Err(e)) => Err(Failure::BadInput(e.to_string())),
    }
}

/// `--record PATH`, nothing with `--no-record`, else a fresh name under `replays/`.
pub(super) fn record_path(args: &RunArgs, mode: &str, seed: u64) -> Option<PathBuf> {
    if args.no_record {
        return None;
    }
    if let Some(path) = &args.record {
        return Some(path.clone());
    }
    // 2026-11-22T01:02:03Z -> 20261122-010203
    let stamp: String = humantime::format_rfc3339_seconds(std::time::SystemTime::now())
        .to_string()
        .chars()
        .filter(|c| c.is_ascii_digit() || *c == 'T')
        .map(|c| if c == 'T' { '-' } else { c })
        .collect();
    // Two runs in the same second with the same seed must not overwrite
    // each other's log: take the first free name.
    let base = format!("replays/{stamp}-{mode}-seed{seed}");
    (1..)
        .map(|n| match n {
            1 => PathBuf::from(format!("{base}.tsr")),
            n => PathBuf::from(format!("{base}-{n}.tsr")),
        })
        .find(|path| !path.exists())
}

pub(super) fn finish(driver: &mut Driver, error: Option<SessionError>) -> Result<Summary, Failure> {
    let reason = match &error {
        None => "completed".to_string(),
        Some(e) => e.to_string(),
    };
    driver.finish_recording(&reason);
    let summary = driver.summary();
    match error {
        None => Ok(summary),
        Some(e) => Err(Failure::Runtime(e.to_string(), Some(Box::new(summary)))),
    }
}

pub(super) fn random_seed() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(std::time::SystemTime::now())
}
