//! The page's side of `app` (browser only): the page's entry (the command
//! its link asks for), how a command ended, on the page's console (the
//! same lines as the native game, then one line for machines), and what
//! the page does where the native game blocks. The native side is
//! `native.rs`, with the same `main`, `windowed`, `connect_blocking` and
//! `open_when_connecting`.

use std::io::Write;
use std::process::ExitCode;

use web_time::Duration;

use super::{Failure, Report, conclusion};
use crate::cli::{Cli, Command};
use crate::frontend::window;
use crate::platform::browser::log;
use crate::web::link::args_from_fragment;
use crate::web::replay_link::{self, ReplayLink};
use twinstar_netcode::connect::{Connector, Seat, Stage};

/// How long the browser connects before it opens the window anyway (see
/// [`open_when_connecting`]): a host, who waits for someone to come, only
/// until the signaling server has let it in (a server a continent away
/// answers well within this; one that does not is reported on the waiting
/// screen)...
const HOST_CONNECTS_FIRST: Duration = Duration::from_millis(500);
/// ...a joiner until the connection is made (about 0.3 s on loopback
/// with the page's thread free), or for this long.
const JOINER_CONNECTS_FIRST: Duration = Duration::from_millis(1500);

/// Prefix of the one console line that says how a command ended (tests
/// read it): `TWINSTAR-RESULT {"exit":0,"summary":{...}}`.
pub const RESULT_PREFIX: &str = "TWINSTAR-RESULT ";

/// Prints how a command ended: the same lines as the native game, then one
/// machine-readable line.
pub fn conclude_in_page(result: Result<Report, Failure>) {
    let (lines, exit) = conclusion(&result, true);
    for line in lines {
        log(&line.text);
    }
    let summary = match &result {
        Ok(Report::Summary(s)) | Err(Failure::Runtime(_, Some(s))) => serde_json::to_value(s).ok(),
        _ => None,
    };
    let error = result.as_ref().err().map(|f| f.message().to_string());
    let line = serde_json::json!({ "exit": exit, "summary": summary, "error": error });
    log(&format!("{RESULT_PREFIX}{line}"));
}

/// Runs `body` in a window, then `then` on what it returned. The page's
/// event loop runs the window after this returns, so `then` runs at the
/// end of `body` inside it and its report goes to the console; this
/// returns `Running`.
pub(super) fn windowed<T, Fut>(
    title: &str,
    body: impl FnOnce(window::Ui) -> Fut + 'static,
    then: impl FnOnce(Option<T>) -> Result<Report, Failure> + 'static,
) -> Result<Report, Failure>
where
    T: 'static,
    Fut: std::future::Future<Output = T> + 'static,
{
    window::open(title, move |ui| async move {
        let ended = body(ui).await;
        conclude_in_page(then(Some(ended)));
    })?;
    Ok(Report::Running)
}

/// `inspect` is not the game page's: the report's code is left out of its
/// download; the inspector is a page of its own (/inspect, its own wasm).
pub(super) fn inspect(_args: &crate::cli::InspectArgs) -> Result<Report, Failure> {
    Err(Failure::BadInput(
        "inspect is a page of its own here, /inspect (or on a computer: `twinstar inspect A.tsr B.tsr --html report.html`)".into(),
    ))
}

/// The browser cannot block: its event loop delivers the network. So
/// `what` (online play, watching) needs its window.
pub(super) fn connect_blocking<S: Seat>(
    _connector: Connector<S>,
    what: &str,
) -> Result<S::Connection, Failure> {
    Err(Failure::BadInput(format!(
        "{what} in the browser needs its window; leave out --headless"
    )))
}

/// Opens the window of a match still connecting, once the connection is
/// made or has gone far enough. The window's GL setup holds the page's
/// one thread for a few hundred ms (~300 in headless Chromium), and then
/// every drawn frame does for ~20 ms; the connection's messages (the
/// WebRTC offer, the data channel opening, the latency probes) waited
/// behind them, so a joining page took 1.2-1.4 s. The window opens once
/// the connection is made instead (a host's: once it is in the room; see
/// the limits above), and the match starts at its first frame.
pub(super) fn open_when_connecting<T: 'static, S: Seat + 'static>(
    start: T,
    hosting: bool,
    connector: fn(&T) -> &Connector<S>,
    open: impl FnOnce(T) -> Result<Report, Failure> + 'static,
) -> Result<Report, Failure> {
    wasm_bindgen_futures::spawn_local(async move {
        let waited = web_time::Instant::now();
        let (limit, until) = if hosting {
            (HOST_CONNECTS_FIRST, Stage::Connecting)
        } else {
            (JOINER_CONNECTS_FIRST, Stage::CatchingUp)
        };
        while !connector(&start).ended() && waited.elapsed() < limit {
            let status = connector(&start).status();
            if !connecting_before(status.stage, until) || status.failed_attempt.is_some() {
                break;
            }
            gloo_timers::future::sleep(Duration::from_millis(1)).await;
        }
        if let Err(failure) = open(start) {
            conclude_in_page(Err(failure));
        }
    });
    Ok(Report::Running)
}

/// Whether a player's connect is at a stage before `until` (the stages in
/// their order: signaling, in the room, measuring, catching up).
fn connecting_before(stage: Stage, until: Stage) -> bool {
    let order = |s| match s {
        Stage::Signaling => 0,
        Stage::Connecting => 1,
        Stage::Measuring => 2,
        _ => 3,
    };
    order(stage) < order(until)
}

/// The browser build's `main`: the command the page's link asks for,
/// run with log lines on the console; its end reported by
/// [`conclude_in_page`] (now, or when its window closes).
pub fn main() -> ExitCode {
    console_error_panic_hook::set_once();
    {
        use tracing_subscriber::{Layer, layer::SubscriberExt, util::SubscriberInitExt};
        // A fixed filter: the page has no RUST_LOG to read.
        let only_ours = tracing_subscriber::filter::Targets::new()
            .with_target("twinstar", tracing::Level::INFO);
        let console = tracing_subscriber::fmt::layer()
            .with_writer(|| ConsoleLine(Vec::new()))
            .with_ansi(false)
            // The default timer reads std's clock, which panics here.
            .without_time()
            .with_filter(only_ours);
        tracing_subscriber::registry().with(console).init();
    }
    let location = crate::platform::browser::window().map(|w| w.location());
    let fragment = (location.as_ref())
        .and_then(|l| l.hash().ok())
        .unwrap_or_default();
    // A replay's link (`#replay=ID`, a board's link) is the page's own
    // address: `replay` downloads it from the server beside the page.
    let replay_link = fragment
        .strip_prefix('#')
        .is_some_and(|f| f.starts_with(replay_link::FRAGMENT_KEY));
    let args = match location.and_then(|l| l.href().ok()) {
        Some(href) if replay_link => vec!["replay".to_string(), href],
        _ => match args_from_fragment(&fragment) {
            Ok(args) => args,
            Err(e) => {
                conclude_in_page(Err(Failure::BadInput(e.to_string())));
                return ExitCode::SUCCESS;
            }
        },
    };
    tracing::info!(
        "twinstar {} in the browser: {args:?}",
        env!("CARGO_PKG_VERSION")
    );
    let cli = match Cli::try_parse_args(std::iter::once("twinstar".to_string()).chain(args)) {
        Ok(cli) => cli,
        Err(message) => {
            conclude_in_page(Err(Failure::BadInput(message)));
            return ExitCode::SUCCESS;
        }
    };
    let link = match &cli.command {
        Some(Command::Replay(args)) => {
            let file = args.file.to_string_lossy();
            replay_link::is_web_address(&file).then(|| replay_link::parse(&file))
        }
        _ => None,
    };
    match link {
        Some(Ok(link)) => wasm_bindgen_futures::spawn_local(run_downloaded(cli, link)),
        Some(Err(e)) => refuse(&e.to_string()),
        None => run_in_page(cli),
    }
    // The page's exit is its result line; the process goes on (the
    // page's event loop runs the window).
    ExitCode::SUCCESS
}

fn run_in_page(cli: Cli) {
    match super::run(cli) {
        // The window runs on the page's event loop and reports by itself.
        Ok(Report::Running) => {}
        // Refused before any window opened (an old replay, a bad file):
        // the player reads why over the page, not only in the console.
        Err(failure) if failure.code() == 2 => refuse(failure.message()),
        result => conclude_in_page(result),
    }
}

/// A command the page cannot run, said over the page and in its result.
fn refuse(why: &str) {
    crate::platform::browser::say(&format!("twinstar: {why}"));
    conclude_in_page(Err(Failure::BadInput(why.to_owned())));
}

/// `replay LINK` in the page: its thread cannot wait for the download, so
/// the replay is fetched first, kept in the page's file store as
/// `replays/ID.tsr`, and the command then runs on that file.
async fn run_downloaded(mut cli: Cli, link: ReplayLink) {
    let bytes = match crate::platform::browser::boards::fetch_replay(&link.url).await {
        Ok(bytes) => bytes,
        Err(e) if e.unreachable => {
            crate::platform::browser::say(&format!("twinstar: {}", e.why));
            conclude_in_page(Err(Failure::Runtime(e.why, None)));
            return;
        }
        Err(e) => return refuse(&e.why),
    };
    tracing::info!("downloaded {} ({} bytes)", link.url, bytes.len());
    let path = std::path::Path::new(crate::replay::DEFAULT_DIR).join(format!("{}.tsr", link.id));
    crate::platform::files::memory::insert(&path, bytes);
    if let Some(Command::Replay(args)) = &mut cli.command {
        args.file = path;
    }
    run_in_page(cli);
}

/// A tracing event, buffered and logged as one console line when dropped.
struct ConsoleLine(Vec<u8>);

impl Write for ConsoleLine {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for ConsoleLine {
    fn drop(&mut self) {
        let text = String::from_utf8_lossy(&self.0);
        let text = text.trim_end();
        if !text.is_empty() {
            crate::platform::browser::log(text);
        }
    }
}
