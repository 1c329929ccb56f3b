//! Command-line arguments (clap). Parsing only; `app` dispatches.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::input::BotStyle;
use crate::sim::PRESET_NAMES;
use twinstar_netcode::connect::DelaySetting;
use twinstar_netcode::connect::Outage;
use twinstar_netcode::session::{CHECK_DISTANCES, ChatLine};
use twinstar_netcode::signaling::PlayerName;

#[derive(Debug, Parser)]
#[command(
    name = "twinstar",
    version,
    about = "A deterministic peer-to-peer co-op arena shooter with rollback netcode",
    mut_arg("screenshot", |a| a.help(MENU_SCREENSHOT_HELP)),
    mut_arg("overlay", |a| a.help(MENU_OVERLAY_HELP)),
    after_help = "Examples:\n  twinstar solo                        play with the bot as your partner\n  twinstar host                        create a room; tell the other player its code\n  twinstar join K7Q-2XM                join that room (add --server ws://HOST:3536)\n  twinstar local                       two players, one keyboard\n  twinstar synctest --headless --json  check determinism without a window"
)]
pub struct Cli {
    /// Without a command: the main menu in a window.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Window flags for the menu when no command is given.
    #[command(flatten)]
    pub window: WindowArgs,

    /// Developer tools in the menu (Synctest).
    #[arg(long)]
    pub dev: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The main menu (the default when no command is given).
    Menu(MenuArgs),
    /// Roll back and re-simulate every frame; stop at the first mismatch.
    Synctest(SynctestArgs),
    /// Play alone: the human-like bot is your partner (it revives you and
    /// takes pickups). Headless, both ships are bots.
    Solo(RunArgs),
    /// Two players on one keyboard (WASD+Space/LShift/E, arrows+Enter/RShift/RCtrl; 1 and 2 start).
    Local(RunArgs),
    /// Create a room and wait for the other player (starts a signaling
    /// server in-process when none runs on this machine).
    Host(HostArgs),
    /// Join a room by its code; without a code, quick-match with the next
    /// player who also joins without one.
    Join(JoinArgs),
    /// Watch the match in room CODE as a spectator (joins at any time;
    /// the match so far is fast-forwarded, then followed live).
    Watch(WatchArgs),
    /// Run the signaling server that pairs players by room code.
    Serve(crate::platform::server::ServeArgs),
    /// Play a replay file in a window, or re-simulate it with --headless --verify.
    Replay(ReplayArgs),
    /// Find the first frame where two replays diverge.
    ReplayDiff(ReplayDiffArgs),
    /// One or two peers' recordings of one online match (replays and their
    /// telemetry sidecars): rollbacks, frames ahead, RTT, loss, events and
    /// where the two first differ, as text, JSON or an HTML report.
    Inspect(InspectArgs),
}

/// The menu takes no `--frames`: its screenshot is of the menu itself.
const MENU_SCREENSHOT_HELP: &str = "Save the main menu as a PNG once it is drawn, and exit";
const MENU_OVERLAY_HELP: &str =
    "Show the network overlay from the start of every match played from the menu (F1 toggles it)";

#[derive(Debug, Args)]
#[command(
    mut_arg("screenshot", |a| a.help(MENU_SCREENSHOT_HELP)),
    mut_arg("overlay", |a| a.help(MENU_OVERLAY_HELP)),
)]
pub struct MenuArgs {
    #[command(flatten)]
    pub window: WindowArgs,

    /// Developer tools in the menu (Synctest).
    #[arg(long)]
    pub dev: bool,
}

/// Flags of every window (ignored with --headless). Each command words the
/// `--screenshot` help for what it shows (`mut_arg`), since only some of
/// them take `--frames`.
#[derive(Clone, Debug, Default, Args)]
pub struct WindowArgs {
    /// Save the window as a PNG and exit.
    #[arg(long, value_name = "PATH")]
    pub screenshot: Option<PathBuf>,

    /// Sound volume from 0 to 100; 0 silences the music too [default: from
    /// the settings, 70]
    #[arg(long, value_name = "0-100", value_parser = clap::value_parser!(u8).range(0..=100))]
    pub volume: Option<u8>,

    /// Show the network overlay from the start (F1 toggles it; synctest
    /// shows it anyway).
    #[arg(long)]
    pub overlay: bool,
}

/// The viewer is silent and has no network overlay, so of the window flags
/// it takes only `--screenshot`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The replay file (.tsr), or a ranked replay's link:
    /// https://SERVER/replays/ID or https://SERVER/#replay=ID.
    pub file: PathBuf,

    /// No window: re-simulate the whole log as fast as possible and compare
    /// every recorded checksum.
    #[arg(long)]
    pub headless: bool,

    /// Compare every recorded checksum (exit 1 at the first that differs).
    /// Only with --headless, which always does; the window does not check.
    #[arg(long)]
    pub verify: bool,

    /// Print the log as JSON lines: the header, then one line per frame.
    #[arg(long, conflicts_with_all = ["headless", "verify"])]
    pub dump: bool,

    /// Print the summary as one JSON object on the last stdout line.
    #[arg(long)]
    pub json: bool,

    /// With --screenshot: the frame to show [default: 0].
    #[arg(long, value_name = "N")]
    pub frames: Option<u32>,

    /// Save the viewer showing frame --frames N (default 0) as a PNG, and exit.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["headless", "dump"])]
    pub screenshot: Option<PathBuf>,

    /// Render the replay to a video file, .mp4 (H.264 + AAC) or .webm (VP9 +
    /// Opus), at 60 frames a second, with the game's sound effects and
    /// music; draws in a window (one is opened) and needs ffmpeg on PATH.
    #[arg(long, value_name = "OUT", conflicts_with_all = ["headless", "dump", "screenshot", "verify", "frames"])]
    pub video: Option<PathBuf>,

    /// With --video: the clip starts after frame F (60 a second) [default: 0].
    #[arg(long, value_name = "F")]
    pub from: Option<u32>,

    /// With --video: the clip ends with frame F [default: the replay's last].
    #[arg(long, value_name = "F")]
    pub to: Option<u32>,

    /// With --video: the picture's size in pixels, even numbers [default: 1280x720].
    #[arg(long, value_name = "WxH", value_parser = parse_video_size)]
    pub video_size: Option<(u32, u32)>,
}

/// `--video-size WxH`: even numbers (H.264 and VP9 halve the colour planes),
/// from 64x64 to 3840x2160.
fn parse_video_size(text: &str) -> Result<(u32, u32), String> {
    let bad = || format!("'{text}' is not a size like 1280x720");
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    let (w, h): (u32, u32) = (
        w.trim().parse().map_err(|_| bad())?,
        h.trim().parse().map_err(|_| bad())?,
    );
    if !(64..=3840).contains(&w) || !(64..=2160).contains(&h) {
        return Err(format!("{w}x{h} is out of range (64x64 to 3840x2160)"));
    }
    if w % 2 != 0 || h % 2 != 0 {
        return Err(format!("{w}x{h}: width and height must be even"));
    }
    Ok((w, h))
}

#[derive(Debug, Args)]
pub struct ReplayDiffArgs {
    pub a: PathBuf,
    pub b: PathBuf,

    /// Re-simulate both logs to the first divergent frame and list every
    /// world field that differs there.
    #[arg(long)]
    pub state: bool,

    /// Print the result as one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct InspectArgs {
    /// A replay (its telemetry, `NAME.tsn` beside it, is read when present).
    pub a: PathBuf,
    /// The other peer's replay of the same match.
    pub b: Option<PathBuf>,

    /// Print the result as one JSON object.
    #[arg(long)]
    pub json: bool,

    /// Write a self-contained HTML report (an SVG timeline) to OUT.
    #[arg(long, value_name = "OUT")]
    pub html: Option<PathBuf>,
}

#[derive(Clone, Debug, Args)]
#[command(mut_arg("screenshot", |a| a.help(
    "Save the window as a PNG when the match ends (after --frames N, or when the player leaves), and exit"
)))]
pub struct RunArgs {
    /// Stop after N frames (60 per second). Headless runs default to 3600.
    #[arg(long, value_name = "N")]
    pub frames: Option<u32>,

    /// Match seed; random when omitted (the summary prints it).
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,

    /// Simulation rules.
    #[arg(long, value_name = "NAME", default_value = "default", value_parser = PRESET_NAMES)]
    pub preset: String,

    /// Run without a window (no display needed); both players are bots.
    #[arg(long)]
    pub headless: bool,

    /// Player 2 is a seeded bot (in a window; headless runs always use bots).
    #[arg(long)]
    pub bot: bool,

    /// Both players are bots (a demo in a window).
    #[arg(long)]
    pub bots: bool,

    /// How bots play: 'script' (random presses from the seed, blind to the
    /// world) or 'human' (reacts to what it sees with a person's timing).
    #[arg(long, value_name = "STYLE", value_enum, default_value_t = BotStyle::Script)]
    pub bot_style: BotStyle,

    /// Print the run summary as one JSON object on the last stdout line.
    #[arg(long)]
    pub json: bool,

    /// Local, solo and synctest runs: stop at the first game over
    /// (instead of both bots restarting); the summary is that game's. In
    /// a window the result panel stays up until Esc (or `--screenshot`
    /// takes it). `--frames` still caps the run.
    #[arg(long)]
    pub until_game_over: bool,

    /// Local, solo and synctest runs: start at wave N (1 to 1000) instead
    /// of the first, e.g. 5 for the first boss. For testing and
    /// screenshots: the rules are then no preset's ("custom" in the
    /// records); online matches refuse it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub start_wave: Option<u16>,

    /// Write the replay here instead of replays/<date>-<mode>-seed<S>.tsr.
    #[arg(long, value_name = "PATH", conflicts_with = "no_record")]
    pub record: Option<PathBuf>,

    /// Do not record a replay.
    #[arg(long)]
    pub no_record: bool,

    #[command(flatten)]
    pub window: WindowArgs,
}

impl RunArgs {
    /// What a match started from the menu uses: a window, keyboard players,
    /// a recorded replay.
    pub fn for_menu(window: WindowArgs) -> RunArgs {
        RunArgs {
            frames: None,
            seed: None,
            preset: "default".into(),
            headless: false,
            bot: false,
            bots: false,
            bot_style: BotStyle::Script,
            json: false,
            until_game_over: false,
            start_wave: None,
            record: None,
            no_record: false,
            window,
        }
    }
}

/// Host and join show a waiting screen before the match starts.
const ONLINE_SCREENSHOT_HELP: &str = "Save the window as a PNG and exit: the waiting screen after --frames N drawn frames (default 1), or the match at frame N if it starts first";

#[derive(Debug, Args)]
#[command(mut_arg("screenshot", |a| a.help(ONLINE_SCREENSHOT_HELP)))]
pub struct HostArgs {
    /// Room code to create (random when omitted), e.g. K7Q-2XM.
    #[arg(long, value_name = "CODE")]
    pub room: Option<String>,

    #[command(flatten)]
    pub net: NetArgs,

    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Args)]
#[command(mut_arg("screenshot", |a| a.help(ONLINE_SCREENSHOT_HELP)))]
pub struct JoinArgs {
    /// The host's room code (case and dashes do not matter); omit for a quick match.
    pub code: Option<String>,

    /// Find the host on this LAN (multicast DNS) instead of naming its
    /// server: without a code the first public LAN game, with one that
    /// room's game (or the one private LAN game)
    #[arg(long, conflicts_with = "server")]
    pub lan: bool,

    #[command(flatten)]
    pub net: NetArgs,

    /// (--seed and --preset are the host's; a joiner's are ignored.)
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Clone, Debug, Args)]
#[command(mut_arg("screenshot", |a| a.help(
    "Save the window as a PNG when the match ends or the spectator leaves, and exit"
)))]
pub struct WatchArgs {
    /// The room's code (case and dashes do not matter).
    pub code: String,

    /// Signaling server [default: the settings' server, else ws://127.0.0.1:3536]
    #[arg(long, value_name = "URL", env = "TWINSTAR_SERVER")]
    pub server: Option<String>,

    /// STUN server (repeatable); 'none' for host candidates only [default: public Google STUN]
    #[arg(long = "stun", value_name = "URL")]
    pub stun: Vec<String>,

    /// TURN relay for when the player cannot be reached directly.
    #[arg(long, value_name = "URL", requires_all = ["turn_user", "turn_pass"])]
    pub turn: Option<String>,

    #[arg(long, value_name = "USER", requires = "turn")]
    pub turn_user: Option<String>,

    #[arg(long, value_name = "PASS", requires = "turn")]
    pub turn_pass: Option<String>,

    /// Your name in the room's chat: 1-16 letters, digits, spaces, '_'
    /// and '-' [default: S1, S2, ... in the order spectators came]
    #[arg(long, value_name = "NAME", value_parser = parse_name)]
    pub name: Option<PlayerName>,

    /// Give up when no match is streamed to us within this many seconds.
    #[arg(long, value_name = "SECS", default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..=86400))]
    pub timeout: u64,

    /// No window: follow the match to its end and print the summary.
    #[arg(long)]
    pub headless: bool,

    /// Print the run summary as one JSON object on the last stdout line.
    #[arg(long)]
    pub json: bool,

    /// Write the replay here instead of replays/<date>-watch-seed<S>.tsr.
    #[arg(long, value_name = "PATH", conflicts_with = "no_record")]
    pub record: Option<PathBuf>,

    /// Do not record a replay.
    #[arg(long)]
    pub no_record: bool,

    /// Debug aid: claim a protocol version this much newer (tests refusals).
    #[arg(long, value_name = "N", default_value_t = 0, hide = true)]
    pub debug_protocol_skew: u32,

    #[command(flatten)]
    pub chat: ChatArgs,

    #[command(flatten)]
    pub window: WindowArgs,
}

impl WatchArgs {
    /// The run flags a spectator shares with players (recording, window).
    pub fn run_args(&self) -> RunArgs {
        RunArgs {
            headless: self.headless,
            json: self.json,
            record: self.record.clone(),
            no_record: self.no_record,
            ..RunArgs::for_menu(self.window.clone())
        }
    }
}

/// Room chat, for players and spectators alike.
#[derive(Clone, Debug, Default, Args)]
pub struct ChatArgs {
    /// Send this chat line to the room once the match runs (repeatable, at
    /// most 5; each at most 120 printable characters).
    #[arg(long = "say", value_name = "TEXT", value_parser = parse_say)]
    pub say: Vec<String>,

    /// Do not show the room's chat lines, and do not open the chat prompt
    /// on Enter (lines are still counted and recorded) [default: the
    /// settings' chat, else on]
    #[arg(long)]
    pub no_chat: bool,

    /// Debug aid: send this many chat messages per second, most of them
    /// junk the receiver must drop.
    #[arg(long, value_name = "N", default_value_t = 0, hide = true)]
    pub debug_chat_flood: u32,

    /// Debug aid for tests: type TEXT (a line or a /command) once the
    /// match reaches FRAME (repeatable).
    #[arg(long, value_name = "FRAME:TEXT", value_parser = parse_say_at, hide = true)]
    pub debug_say_at: Vec<(u32, String)>,
}

impl ChatArgs {
    /// More `--say` lines than the chat's burst would be refused by its
    /// own rate limit: say so before connecting.
    pub fn check(&self) -> Result<(), String> {
        let most = ChatLine::BURST as usize;
        if self.say.len() > most {
            return Err(format!(
                "at most {most} --say lines (the chat's rate limit lets no more through at once)"
            ));
        }
        Ok(())
    }

    /// The lines to type, each with the frame it waits for: `--say` at
    /// the start, then `--debug-say-at`.
    pub fn lines(&self) -> Vec<(u32, String)> {
        let start = self.say.iter().map(|text| (0, text.clone()));
        start.chain(self.debug_say_at.iter().cloned()).collect()
    }

    /// Whether chat is shown, with the settings' choice.
    pub fn shown(&self, settings_chat: bool) -> bool {
        settings_chat && !self.no_chat
    }
}

#[derive(Clone, Debug, Default, Args)]
pub struct NetArgs {
    /// Signaling server [default: the settings' server, else
    /// ws://127.0.0.1:3536; host starts one there if none answers]
    #[arg(long, value_name = "URL", env = "TWINSTAR_SERVER")]
    pub server: Option<String>,

    /// Your display name: 1-16 letters, digits, spaces, '_' and '-' (shown
    /// in the server's room list; a name is not an identity)
    #[arg(long, value_name = "NAME", value_parser = parse_name)]
    pub name: Option<PlayerName>,

    /// Quick match: the level this ticket claims (the best wave reached
    /// online; the menu sends the settings' own) [default: none]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=10_000), hide = true)]
    pub level: Option<u32>,

    /// Host: list the room in the server's public room list (GET /rooms),
    /// with --name, so players without the code can find it
    #[arg(long, requires = "name")]
    pub public: bool,

    /// Play today's daily challenge (the UTC day's seed on the default
    /// preset, the same on every machine): host it, or, without a code,
    /// quick-match with another player who wants it. It ranks on the
    /// server's daily board
    #[arg(long)]
    pub daily: bool,

    /// Do not send the finished match's replay to the server to be ranked
    /// (the settings' `upload = false` turns it off for good)
    #[arg(long)]
    pub no_upload: bool,

    /// STUN server (repeatable); 'none' for host candidates only [default: public Google STUN]
    #[arg(long = "stun", value_name = "URL")]
    pub stun: Vec<String>,

    /// TURN relay for peers that cannot reach each other directly.
    #[arg(long, value_name = "URL", requires_all = ["turn_user", "turn_pass"])]
    pub turn: Option<String>,

    #[arg(long, value_name = "USER", requires = "turn")]
    pub turn_user: Option<String>,

    #[arg(long, value_name = "PASS", requires = "turn")]
    pub turn_pass: Option<String>,

    /// Frames of input delay: 'auto' (from the measured latency, retuned
    /// during the match), 'table' (the Fightcade/nullDC ping table, fixed
    /// for the match) or a fixed number from 0 to 8 [default: the
    /// settings' value, else auto]
    #[arg(long, value_name = "auto|table|N")]
    pub input_delay: Option<DelaySetting>,

    /// Give up when no match starts within this many seconds [default: host 600, join 20]
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=86400))]
    pub timeout: Option<u64>,

    /// Simulated bad link: extra delay on every packet this peer sends, in
    /// ms (one way: give both peers 40 for an 80 ms round trip).
    #[arg(long, value_name = "MS", default_value_t = 0.0)]
    pub sim_latency: f64,

    /// Simulated link: extra random delay per packet, uniform in 0..=MS.
    #[arg(long, value_name = "MS", default_value_t = 0.0)]
    pub sim_jitter: f64,

    /// Simulated link: percentage of this peer's packets lost.
    #[arg(long, value_name = "PCT", default_value_t = 0.0)]
    pub sim_loss: f64,

    /// Simulated link: mean length of a run of lost packets (1: each loss
    /// alone; 4: in bursts, as Wi-Fi loses), at the rate of --sim-loss.
    #[arg(long, value_name = "N", default_value_t = 1.0)]
    pub sim_loss_burst: f64,

    /// Simulated link: percentage of this peer's packets duplicated.
    #[arg(long, value_name = "PCT", default_value_t = 0.0)]
    pub sim_dup: f64,

    /// Simulated link: cut this peer's packets for LEN seconds, AT seconds
    /// after the match starts (AT:LEN, e.g. 8:3; give both peers the same
    /// to cut both directions).
    #[arg(long, value_name = "AT:LEN")]
    pub sim_outage: Option<Outage>,

    /// Simulated link from a trace (a --record-link file): delay, jitter
    /// and loss change every 100 ms as they were recorded, looping; the
    /// dice are seeded by the match's seed (docs/link-traces.md)
    #[arg(long, value_name = "FILE", conflicts_with_all = [
        "sim_latency", "sim_jitter", "sim_loss", "sim_loss_burst", "sim_dup", "sim_outage",
    ])]
    pub link_trace: Option<PathBuf>,

    /// Write the link as this peer saw it (round trip, jitter, loss every
    /// 100 ms, and the match's rollback figures) to FILE when the match
    /// ends: for --link-trace, or to attach to a bug report
    #[arg(long, value_name = "FILE")]
    pub record_link: Option<PathBuf>,

    /// When the other player's packets stop, try this many seconds to get
    /// them back (after 2 s of silence both sides reconnect through the
    /// server) before ending the match (0: end after 2 s, as a lost peer)
    /// [default: the settings' value, else 30]
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u32).range(0..=600))]
    pub reconnect_window: Option<u32>,

    #[command(flatten)]
    pub chat: ChatArgs,

    /// Debug aid: send this many garbage datagrams per second to the peer's
    /// GGRS channel.
    #[arg(long, value_name = "N", default_value_t = 0, hide = true)]
    pub debug_garbage: u32,

    /// Test hook: change one field of this peer's world (player 1's score)
    /// from frame F on, to see a desync found, reported and explained.
    /// Refused unless TWINSTAR_TEST_HOOKS=1, so no player reaches it.
    #[arg(long, value_name = "F", hide = true, value_parser = parse_test_hook_frame)]
    pub inject_desync: Option<u32>,

    /// Debug aid: claim a protocol version this much newer (tests refusals).
    #[arg(long, value_name = "N", default_value_t = 0, hide = true)]
    pub debug_protocol_skew: u32,
}

#[derive(Debug, Args)]
pub struct SynctestArgs {
    #[command(flatten)]
    pub run: RunArgs,

    /// Frames rolled back and re-simulated on every frame.
    #[arg(long, value_name = "D", default_value_t = 7, value_parser = parse_check_distance)]
    pub check_distance: usize,

    /// Test hook: make every simulation from frame F on non-deterministic,
    /// to see synctest catch it. Refused unless TWINSTAR_TEST_HOOKS=1.
    #[arg(long, value_name = "F", hide = true, value_parser = parse_test_hook_frame)]
    pub inject_desync: Option<u32>,
}

/// The environment variable that lets the test hooks (`--inject-desync`)
/// run: a player who finds a hidden flag still cannot break a match.
pub const TEST_HOOKS_ENV: &str = "TWINSTAR_TEST_HOOKS";

/// A frame for a test hook, refused outside tests.
fn parse_test_hook_frame(s: &str) -> Result<u32, String> {
    if std::env::var(TEST_HOOKS_ENV).as_deref() != Ok("1") {
        return Err(format!(
            "a test hook, refused unless the environment has {TEST_HOOKS_ENV}=1"
        ));
    }
    s.parse()
        .map_err(|_| format!("'{s}' is not a frame number (0 to {})", u32::MAX))
}

/// A `--debug-say-at` line: a frame, `:`, and a `--say` line.
fn parse_say_at(s: &str) -> Result<(u32, String), String> {
    let (frame, text) = s.split_once(':').ok_or("expected FRAME:TEXT")?;
    let frame = frame
        .trim()
        .parse()
        .map_err(|_| "FRAME is a frame number")?;
    Ok((frame, parse_say(text)?))
}

/// A `--say` line: the chat's own rules (`ChatLine::validate`), trimmed.
fn parse_say(s: &str) -> Result<String, String> {
    ChatLine::validate(s)
        .map(str::to_string)
        .map_err(|e| e.to_string())
}

fn parse_check_distance(s: &str) -> Result<usize, String> {
    let (lo, hi) = (CHECK_DISTANCES.start(), CHECK_DISTANCES.end());
    let d: usize = s
        .parse()
        .map_err(|_| format!("expected a whole number from {lo} to {hi}"))?;
    if CHECK_DISTANCES.contains(&d) {
        Ok(d)
    } else {
        Err(format!(
            "must be from {lo} to {hi} (GGRS compares nothing below 2 and needs it below its prediction window of {})",
            hi + 1
        ))
    }
}

/// `--name`, checked as the server checks it.
fn parse_name(text: &str) -> Result<PlayerName, String> {
    PlayerName::parse(text).map_err(|e| e.to_string())
}

/// clap's error as one line, like the rest of our errors (its first line
/// says it all), with the way to `program`'s help.
pub fn one_line_error(e: &clap::Error, program: &str) -> String {
    let rendered = e.render().to_string();
    let mut lines = rendered.lines().map(str::trim).filter(|l| !l.is_empty());
    let mut first = lines.next().unwrap_or("bad arguments").to_owned();
    // "the following required arguments were not provided:" names them on
    // the next line.
    if first.ends_with(':')
        && let Some(next) = lines.next()
    {
        first = format!("{first} {next}");
    }
    format!(
        "{} (see '{program} --help')",
        first.trim_start_matches("error: ")
    )
}

impl Cli {
    /// Parses a command line given as words (the browser's page link);
    /// `--help` comes back as an error holding the help text.
    pub fn try_parse_args(args: impl IntoIterator<Item = String>) -> Result<Cli, String> {
        Cli::try_parse_from(args).map_err(|e| {
            if e.use_stderr() {
                one_line_error(&e, "twinstar")
            } else {
                e.render().to_string()
            }
        })
    }

    /// Whether the summary is wanted as JSON.
    pub fn json(&self) -> bool {
        let Some(command) = &self.command else {
            return false;
        };
        match command {
            Command::Menu(_) => false,
            Command::Synctest(a) => a.run.json,
            Command::Local(a) | Command::Solo(a) => a.json,
            Command::Host(a) => a.run.json,
            Command::Join(a) => a.run.json,
            Command::Watch(a) => a.json,
            Command::Serve(_) => false,
            Command::Replay(a) => a.json,
            Command::ReplayDiff(a) => a.json,
            Command::Inspect(a) => a.json,
        }
    }
}
