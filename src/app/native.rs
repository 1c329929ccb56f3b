//! The native side of `app`: the process around a command, and the calls
//! that block (the window's loop, a headless connect). The page's side is
//! `page.rs`, with the same `main`, `windowed`, `connect_blocking` and
//! `open_when_connecting`.

use std::task::Poll;

use web_time::Duration;

/// `twinstar inspect`: natively only (see `app/mod.rs`).
pub(super) use super::inspect::inspect;
use super::{Failure, Report, conclusion, connect_failure};
use crate::frontend::window;
use twinstar_netcode::connect::{Connector, Seat};

/// The game's `main`: the command line's command run, its status returned.
pub fn main() -> std::process::ExitCode {
    main_of::<crate::cli::Cli>("twinstar", std::env::args_os(), |cli| {
        let json = cli.json();
        (super::run(cli), json)
    })
}

/// The process around a command:
/// the arguments parsed (`--help` and `--version` printed, a bad one told
/// in one line with exit 2), logs to stderr (`RUST_LOG`, default
/// `twinstar=info`), the command run, its lines printed and its status
/// returned. `run` gives the result and whether `--json` was asked for.
fn main_of<C: clap::Parser>(
    program: &str,
    args: impl IntoIterator<Item = std::ffi::OsString>,
    run: impl FnOnce(C) -> (Result<Report, Failure>, bool),
) -> std::process::ExitCode {
    use std::io::IsTerminal;
    use std::process::ExitCode;

    use crate::platform::native::console;

    // Windows, double-clicked: nowhere to print, so errors and panics are
    // shown in a message box (platform::native::console).
    let printable = console::prepare();
    if !printable {
        let program = program.to_owned();
        let default_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            default_hook(info);
            console::alert(&program, &format!("{program} stopped: {info}"));
        }));
    }
    let command = match C::try_parse_from(args) {
        Ok(command) => command,
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let text = format!("{program}: {}", crate::cli::one_line_error(&e, program));
            eprintln!("{text}");
            if !printable {
                console::alert(program, &text);
            }
            return ExitCode::from(2);
        }
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "twinstar=info".into()),
        )
        .init();
    let (result, json) = run(command);
    let (lines, code) = conclusion(&result, json);
    for line in &lines {
        if line.to_stderr {
            eprintln!("{}", line.text);
        } else {
            println!("{}", line.text);
        }
    }
    if !printable && code != 0 {
        let said: Vec<&str> = lines
            .iter()
            .filter(|l| l.to_stderr)
            .map(|l| l.text.as_str())
            .collect();
        console::alert(program, &said.join("\n"));
    }
    ExitCode::from(code)
}

/// Runs `body` in a window, then `then` on what it returned (`None`: the
/// player closed the window early). Natively the window loop blocks and
/// `then`'s report is returned (in the page, see `page.rs`).
pub(super) fn windowed<T, Fut>(
    title: &str,
    body: impl FnOnce(window::Ui) -> Fut + 'static,
    then: impl FnOnce(Option<T>) -> Result<Report, Failure> + 'static,
) -> Result<Report, Failure>
where
    T: 'static,
    Fut: std::future::Future<Output = T> + 'static,
{
    then(window::open(title, body)?)
}

/// Waits for any connector's outcome, telling the player of each player
/// who came without a path meanwhile (the connector logs its stages).
/// (`what` is the page's: it names what cannot block there.)
pub(super) fn connect_blocking<S: Seat>(
    connector: Connector<S>,
    _what: &str,
) -> Result<S::Connection, Failure> {
    let mut attempts_told = 0;
    loop {
        let status = connector.status();
        // The host keeps waiting; the player should know someone tried.
        if let Some(attempt) = status.failed_attempt
            && attempt.count != attempts_told
        {
            attempts_told = attempt.count;
            eprintln!("twinstar: {attempt}");
        }
        match connector.poll() {
            Poll::Ready(result) => return result.map_err(connect_failure),
            Poll::Pending => std::thread::sleep(Duration::from_millis(2)),
        }
    }
}

/// Opens the window of a match still connecting: natively at once (the
/// connection runs on its own threads while the window opens).
pub(super) fn open_when_connecting<T, S: Seat>(
    start: T,
    _hosting: bool,
    _connector: fn(&T) -> &Connector<S>,
    open: impl FnOnce(T) -> Result<Report, Failure> + 'static,
) -> Result<Report, Failure> {
    open(start)
}
