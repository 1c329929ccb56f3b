//! Dispatch: turns parsed arguments into a driver and a frontend, prints the
//! summary, and maps failures to exit codes (1 runtime, 2 bad input).

mod daily;
mod desync;
// Natively only (`imp::inspect`): the report's code would cost the game
// page's first download KBs it has no room for; the page's inspector is
// its own page and wasm (/inspect, crates/inspect-web).
#[cfg(not(target_arch = "wasm32"))]
mod inspect;
mod join;
mod lan;
mod leaderboard;
mod menu;
mod online;

// Natively or in the page, chosen here once: the process's `main`, what
// blocks natively (the window's loop, a headless connect) and what the
// page does instead (its result on the console). Both offer `main`,
// `windowed`, `connect_blocking`, `open_when_connecting` and `inspect`
// with one signature.
#[cfg_attr(not(target_arch = "wasm32"), path = "native.rs")]
#[cfg_attr(target_arch = "wasm32", path = "page.rs")]
mod imp;

pub use imp::main;
use imp::{connect_blocking, open_when_connecting, windowed};
pub use menu::labels as main_menu_labels;
mod replay;
mod rooms;
mod servers;
mod upload;
mod video;
mod watch;

use std::path::PathBuf;
use std::process::ExitCode;

use crate::cli::{Cli, Command, MenuArgs, RunArgs};
use crate::frontend::hud::MatchInfo;
use crate::frontend::window::{self, MatchEnd, MatchOptions};
use crate::frontend::{InputSource, headless};
use crate::input::{BotStyle, KeyMap};
use crate::platform::server;

use crate::session::{Driver, Finished, Match, Summary};
use crate::settings::{Settings, key_name};
use crate::sim::Frame;
use crate::sim::SimConfig;
use twinstar_netcode::session::{Mode, Outcome, Pacing};

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
        ExitCode::from(self.code())
    }

    /// The exit status: 2 bad input, 1 runtime failure.
    pub fn code(&self) -> u8 {
        match self {
            Failure::BadInput(_) => 2,
            Failure::Runtime(..) => 1,
        }
    }

    pub fn message(&self) -> &str {
        match self {
            Failure::BadInput(m) | Failure::Runtime(m, _) => m,
        }
    }
}

/// No window could open: the user asked for one where there is no display.
impl From<window::WindowError> for Failure {
    fn from(e: window::WindowError) -> Self {
        Failure::BadInput(e.to_string())
    }
}

/// What a successful command leaves for `main` to print.
pub enum Report {
    /// A run summary (human line, or JSON with `--json`).
    Summary(Box<Summary>),
    /// The command printed its own output.
    Printed,
    /// In the browser: the command runs on the page's event loop (in its
    /// window) and reports its own conclusion when it ends.
    Running,
}

/// A line of a command's conclusion.
pub struct Line {
    pub to_stderr: bool,
    pub text: String,
}

/// What a finished command prints (the summary as a line or as JSON, or
/// the error and any summary) and its exit status.
pub fn conclusion(result: &Result<Report, Failure>, json: bool) -> (Vec<Line>, u8) {
    let summary_line = |summary: &Summary| Line {
        to_stderr: false,
        text: if json {
            serde_json::to_string(summary).expect("a summary always serializes")
        } else {
            format!(
                "{}: {} frames, checksum {} at frame {}, {} mismatches, {} rollback frames, seed {}",
                summary.mode,
                summary.frames,
                summary.checksum,
                summary.checksum_frame,
                summary.mismatches,
                summary.rollback_frames,
                summary.seed
            )
        },
    };
    match result {
        Ok(Report::Summary(summary)) => (vec![summary_line(summary)], 0),
        Ok(Report::Printed | Report::Running) => (Vec::new(), 0),
        Err(failure) => {
            let mut lines = vec![Line {
                to_stderr: true,
                text: format!("twinstar: {}", failure.message()),
            }];
            if let Failure::Runtime(_, Some(summary)) = failure {
                lines.push(summary_line(summary));
            }
            (lines, failure.code())
        }
    }
}

pub fn run(cli: Cli) -> Result<Report, Failure> {
    let command = cli.command.unwrap_or(Command::Menu(MenuArgs {
        window: cli.window,
        dev: cli.dev,
    }));
    match command {
        Command::Menu(args) => menu::menu(&args),
        Command::Synctest(args) => {
            let mode = Mode::SyncTest {
                check_distance: args.check_distance,
            };
            play(&args.run, mode, args.inject_desync)
        }
        Command::Local(args) => play(&args, Mode::Local, None),
        Command::Solo(args) => play_solo(&args),
        Command::Host(args) => online::online(
            twinstar_netcode::connect::Role::Host,
            args.room.as_deref(),
            &args.net,
            &args.run,
            false,
        ),
        Command::Join(args) => online::online(
            twinstar_netcode::connect::Role::Join,
            args.code.as_deref(),
            &args.net,
            &args.run,
            args.lan,
        ),
        Command::Watch(args) => watch::watch(&args),
        Command::Serve(args) => {
            server::serve(&args)
                .map(|()| Report::Printed)
                .map_err(|e| match e {
                    server::ServeError::BadInput(m) => Failure::BadInput(m),
                    server::ServeError::Runtime(m) => Failure::Runtime(m, None),
                })
        }
        Command::Replay(args) => replay::replay(&args),
        Command::ReplayDiff(args) => replay::diff(&args),
        Command::Inspect(args) => imp::inspect(&args),
    }
}

/// A recorded local or synctest match, ready to run.
pub(super) fn prepare_local(
    args: &RunArgs,
    mode: Mode,
    inject_desync_from: Option<Frame>,
) -> Result<Driver, Failure> {
    let mut config =
        SimConfig::from_preset_name(&args.preset).map_err(|e| Failure::BadInput(e.to_string()))?;
    if let Some(wave) = args.start_wave {
        config.start_wave = wave;
    }
    let seed = args.seed.unwrap_or_else(random_seed);
    let driver = match mode {
        Mode::SyncTest { check_distance } => Driver::synctest(seed, config, check_distance),
        Mode::Local => Driver::local(seed, config),
        Mode::Online(_) | Mode::Watch => {
            let what = format!("{} is not a match on this machine", mode.name());
            return Err(Failure::Runtime(what, None));
        }
    };
    let mut driver = driver.map_err(|e| Failure::Runtime(e.to_string(), None))?;
    if let Some(from) = inject_desync_from {
        driver = twinstar_netcode::testing::inject_desync(driver, from);
    }
    if let Some(path) = record_path(args, mode.name(), seed) {
        driver
            .record_to_file(&path)
            .map_err(|e| Failure::BadInput(format!("cannot record to {}: {e}", path.display())))?;
    }
    Ok(driver)
}

/// Who plays a local match in a window: keyboard players from the
/// settings' bindings, bots where asked (synctest's player 2 always).
pub(super) fn local_sources(
    args: &RunArgs,
    mode: Mode,
    seed: u64,
    keys: [KeyMap; 2],
) -> [InputSource; 2] {
    let bot = |player| InputSource::bot(args.bot_style, seed, player);
    let player_one = if args.bots {
        bot(0)
    } else {
        InputSource::Keys(keys[0])
    };
    let player_two = if args.bot || args.bots || matches!(mode, Mode::SyncTest { .. }) {
        bot(1)
    } else {
        InputSource::Keys(keys[1])
    };
    [player_one, player_two]
}

/// The music's volume: the settings', unless `--volume 0` asked for a
/// silent window (the tests' windows, a recording without sound).
pub(super) fn music_volume(volume_flag: Option<u8>, settings: &Settings) -> u8 {
    if volume_flag == Some(0) {
        0
    } else {
        settings.music_volume
    }
}

/// How a match in a window is shown: overlay, screenshot, the result panel's texts.
pub(super) fn match_options(
    args: &RunArgs,
    driver: &Driver,
    sources: &[InputSource; 2],
    settings: &Settings,
    escape_does: &'static str,
) -> MatchOptions {
    let check_distance = match driver.options().mode {
        Mode::SyncTest { check_distance } => Some(check_distance),
        _ => None,
    };
    let start_keys = [0, 1].map(|i| match &sources[i] {
        InputSource::Keys(map) => Some(key_name(map.start).trim_start_matches("Key").to_string()),
        InputSource::Bot(_) | InputSource::Human(_) => None,
    });
    MatchOptions {
        screenshot: args.window.screenshot.clone(),
        overlay: args.window.overlay || settings.net_overlay || check_distance.is_some(),
        info: MatchInfo {
            replay: driver.recording_path().map(|p| p.display().to_string()),
            start_keys,
            escape_does,
            ..MatchInfo::default()
        },
        check_distance,
        // Online matches turn it on (`online::online_in_window`).
        chat: false,
        first_match: !settings.controls_seen,
        pad: settings.pad.map(),
        records_as: match (driver.options().mode, sources) {
            (Mode::Local, [InputSource::Keys(_), InputSource::Human(_)]) => Some("solo"),
            (Mode::Local, _) => Some("co-op"),
            (Mode::Online { .. }, _) => Some("online"),
            _ => None,
        },
        // Local modes only: online, a game over is both players' to end.
        until_game_over: args.until_game_over
            && !matches!(driver.options().mode, Mode::Online { .. }),
    }
}

/// `twinstar solo`: a local match whose player 2 is the human-like bot
/// (headless, player 1 is a bot of `--bot-style` too); its summary's mode
/// is `solo`.
fn play_solo(args: &RunArgs) -> Result<Report, Failure> {
    let args = RunArgs {
        bot: true,
        ..args.clone()
    };
    play_as(&args, Mode::Local, None, Partner::HumanBot)
}

/// A finished match's summary under the name of the way it was played:
/// `solo` when player 2 was the human-like partner. Applied where the
/// summary is made, so the page (whose window reports by itself) says it
/// too.
fn named(partner: Partner, result: Result<Summary, Failure>) -> Result<Report, Failure> {
    let name = |summary: &mut Summary| {
        if partner == Partner::HumanBot {
            summary.netcode.mode = "solo".into();
        }
    };
    match result {
        Ok(mut summary) => {
            name(&mut summary);
            Ok(Report::Summary(Box::new(summary)))
        }
        Err(Failure::Runtime(why, Some(mut summary))) => {
            name(&mut summary);
            Err(Failure::Runtime(why, Some(summary)))
        }
        Err(other) => Err(other),
    }
}

/// Who plays player 2 when `--bot` asks for a bot.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Partner {
    /// A bot of `--bot-style`.
    AsAsked,
    /// The human-like bot, whatever `--bot-style` says (solo).
    HumanBot,
}

fn play(args: &RunArgs, mode: Mode, inject_desync_from: Option<Frame>) -> Result<Report, Failure> {
    play_as(args, mode, inject_desync_from, Partner::AsAsked)
}

fn play_as(
    args: &RunArgs,
    mode: Mode,
    inject_desync_from: Option<Frame>,
    partner: Partner,
) -> Result<Report, Failure> {
    if !args.headless {
        crate::frontend::require_display()?;
    }
    let driver = prepare_local(args, mode, inject_desync_from)?;
    let seed = driver.options().seed;
    if args.headless {
        let bot = |player| InputSource::bot(args.bot_style, seed, player);
        let mut sources = [bot(0), bot(1)];
        if partner == Partner::HumanBot {
            sources[1] = InputSource::bot(BotStyle::Human, seed, 1);
        }
        let frames = args.frames.unwrap_or(DEFAULT_HEADLESS_FRAMES);
        let game = Match::new(driver, Pacing::Unpaced, Some(frames));
        let finished = headless::run_until(game, &mut sources, args.until_game_over);
        return named(partner, finish(finished));
    }
    let settings = Settings::load_or_default();
    let mut sources = local_sources(args, mode, seed, settings.keymaps());
    if partner == Partner::HumanBot {
        sources[1] = InputSource::bot(BotStyle::Human, seed, 1);
    }
    let options = match_options(args, &driver, &sources, &settings, "quit");
    let volume = args.window.volume.unwrap_or(settings.volume);
    let music_volume = music_volume(args.window.volume, &settings);
    let title = format!("twinstar - {}", mode.name());
    let game = Match::new(driver, Pacing::RealTime, args.frames);
    windowed(
        &title,
        move |mut ui| async move {
            ui.audio.set_volume(volume);
            ui.audio.set_music_volume(music_volume);
            window::play_match(&mut ui, game, sources, options).await
        },
        move |end| {
            let end =
                end.ok_or_else(|| Failure::Runtime("the window closed unexpectedly".into(), None))?;
            named(partner, finish_window(end))
        },
    )
}

/// Summary of a match played in a window, with its drawing figures.
pub(super) fn finish_window(end: MatchEnd) -> Result<Summary, Failure> {
    let MatchEnd {
        finished,
        draw,
        sim,
        screenshot_error,
        upload,
        info: _,
    } = end;
    let mut result = finish(finished);
    if let Ok(summary) = &mut result {
        summary.upload = upload;
    }
    let (draw, sim) = (draw.figures(), sim.figures());
    if let Some(d) = draw {
        tracing::info!(
            "drawing took {:.2} ms per frame on average, {:.2} ms at the 99th percentile",
            d.mean,
            d.p99
        );
    }
    if let Some(s) = sim {
        tracing::info!(
            "simulating took {:.3} ms per frame at the median, {:.3} ms at the 99th percentile",
            s.p50,
            s.p99
        );
    }
    let summary = match &mut result {
        Ok(summary) => Some(summary),
        Err(Failure::Runtime(_, Some(summary))) => Some(&mut **summary),
        Err(_) => None,
    };
    if let Some(summary) = summary {
        if let Some(d) = draw {
            summary.set_draw_ms(d.mean, d.p99);
        }
        if let Some(s) = sim {
            summary.set_sim_ms(s.p50, s.p99);
        }
    }
    match (screenshot_error, result) {
        (Some(e), Ok(_)) => Err(Failure::BadInput(e)),
        (_, result) => result,
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
    // humantime formats std's SystemTime; the browser's clock is web_time's.
    let since_epoch = web_time::SystemTime::now()
        .duration_since(web_time::UNIX_EPOCH)
        .unwrap_or_default();
    let stamp: String = humantime::format_rfc3339_seconds(std::time::UNIX_EPOCH + since_epoch)
        .to_string()
        .chars()
        .filter(|c| c.is_ascii_digit() || *c == 'T')
        .map(|c| if c == 'T' { '-' } else { c })
        .collect();
    // Two runs in the same second with the same seed must not overwrite
    // each other's log: take the first free name.
    let base = format!("{}/{stamp}-{mode}-seed{seed}", crate::replay::DEFAULT_DIR);
    (1..)
        .map(|n| match n {
            1 => PathBuf::from(format!("{base}.tsr")),
            n => PathBuf::from(format!("{base}-{n}.tsr")),
        })
        .find(|path| !path.exists())
}

/// A connect that ended without a connection, as a failure: bad input
/// when the player can fix it.
fn connect_failure(e: twinstar_netcode::connect::ConnectError) -> Failure {
    if e.is_bad_input() {
        Failure::BadInput(e.to_string())
    } else if crate::platform::net::offline() {
        // A page opened offline from its service worker's copy: the cause
        // first, in words, then what the connection said.
        Failure::Runtime(
            format!("this device is offline: online play needs the network ({e})"),
            None,
        )
    } else {
        Failure::Runtime(e.to_string(), None)
    }
}

/// The summary of a finished match, or the failure that ended it (with the
/// summary still attached). After a desync online, the report that
/// explains it is written next to the replay (`app::desync`).
pub(super) fn finish(finished: Finished) -> Result<Summary, Failure> {
    let Finished { driver, outcome } = finished;
    let mut summary = Summary::of_driver(&driver);
    // A replay the player named (not one kept in the default folder) is
    // theirs: in the browser that means "save it to my downloads".
    if let Some(replay) = summary.replay.as_deref().map(std::path::Path::new)
        && !replay.starts_with(crate::replay::DEFAULT_DIR)
        && let Err(e) = crate::platform::downloads::download(replay)
    {
        tracing::warn!("{e}");
    }
    let error = match outcome {
        Outcome::Completed | Outcome::Left => return Ok(summary),
        Outcome::Failed(e) => e,
    };
    if let Some(forensics) = driver.desync_forensics() {
        desync::report(forensics, &mut summary);
    }
    Err(Failure::Runtime(error.to_string(), Some(Box::new(summary))))
}

pub(super) fn random_seed() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(web_time::SystemTime::now())
}
