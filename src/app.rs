//! Dispatch: turns parsed arguments into a driver and a frontend, prints the
//! summary, and maps failures to exit codes (1 runtime, 2 bad input).

use std::process::ExitCode;

use crate::cli::{Cli, Command, RunArgs};
use crate::frontend::{InputSource, headless, window};
use crate::input::{KeyMap, ScriptBot};
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

pub fn run(cli: Cli) -> Result<Summary, Failure> {
    match cli.command {
        Command::Synctest(args) => {
            let mode = Mode::SyncTest {
                check_distance: args.check_distance,
            };
            play(&args.run, mode, args.debug_inject_desync)
        }
        Command::Local(args) => play(&args, Mode::Local, None),
    }
}

fn play(args: &RunArgs, mode: Mode, inject_desync_from: Option<u32>) -> Result<Summary, Failure> {
    let config = SimConfig::preset(&args.preset)
        .ok_or_else(|| Failure::BadInput(format!("unknown preset '{}'", args.preset)))?;
    let seed = args.seed.unwrap_or_else(random_seed);
    let options = DriverOptions {
        seed,
        config,
        mode,
        inject_desync_from,
    };
    let mut driver = Driver::new(options).map_err(|e| Failure::Runtime(e.to_string(), None))?;
    let bot = |player| InputSource::Bot(ScriptBot::new(seed, player));

    if args.headless {
        let mut sources = [bot(0), bot(1)];
        let frames = args.frames.unwrap_or(DEFAULT_HEADLESS_FRAMES);
        let result = headless::run(&mut driver, &mut sources, frames);
        return finish(&driver, result.err());
    }

    let player_two = if args.bot || matches!(mode, Mode::SyncTest { .. }) {
        bot(1)
    } else {
        InputSource::Keys(KeyMap::PLAYER_TWO)
    };
    let sources = [InputSource::Keys(KeyMap::PLAYER_ONE), player_two];
    let title = format!("twinstar - {}", mode.name());
    match window::run(driver, sources, args.frames, &title) {
        (driver, Ok(())) => finish(&driver, None),
        (_, Err(e @ window::WindowError::NoDisplay)) => Err(Failure::BadInput(e.to_string())),
        (driver, Err(window::WindowError::Session(e))) => finish(&driver, Some(e)),
    }
}

fn finish(driver: &Driver, error: Option<SessionError>) -> Result<Summary, Failure> {
    let summary = driver.summary();
    match error {
        None => Ok(summary),
        Some(e) => Err(Failure::Runtime(e.to_string(), Some(Box::new(summary)))),
    }
}

fn random_seed() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(std::time::SystemTime::now())
}
