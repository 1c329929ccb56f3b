//! `twinstar-server`: the signaling server alone, with exactly the options
//! of `twinstar serve` (`twinstar-server serve ...` is also accepted, so a
//! command line from the docs works with either binary), ranking uploaded
//! replays with twinstar's verifier (`twinstar-verify`: the simulation, no
//! netcode) as `twinstar serve` does. Its own package, because the server
//! library never depends on a game. For operators: it
//! leaves out the game's window, sound and gamepads, so it links none of
//! the desktop libraries (no ALSA, udev, X11 or GL; checked by
//! tests/it/server_binary.rs) and runs on a headless server as it is.
//!
//! `twinstar-server health [--port P] [--ready]` is a container's probe
//! (deploy/Containerfile): `GET /livez` (or `/readyz` with `--ready`) on
//! 127.0.0.1, exit 0 when it answers 200.
//!
//! `twinstar-server check-config FILE` checks a config file as the server
//! would at start-up: every problem on a line of its own (exit 2), or
//! `FILE: ok (N settings)` (exit 0).

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;
use twinstar_signaling::cli::{ServeArgs, one_line_error, serve_with};

/// The twinstar signaling server: pairs players by room code, serves
/// the web client, hands out ICE servers; /livez, /readyz and /metrics.
#[derive(Parser)]
#[command(name = "twinstar-server", version)]
struct ServerCli {
    #[command(flatten)]
    serve: ServeArgs,
}

fn main() -> ExitCode {
    let mut args: Vec<OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|first| first == "health") {
        return health::run(args.split_off(2));
    }
    if args.get(1).is_some_and(|first| first == "check-config") {
        return check_config::run(args.split_off(2));
    }
    if args.get(1).is_some_and(|first| first == "serve") {
        args.remove(1);
    }
    let cli = match ServerCli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let mut line = one_line_error(&e, "twinstar-server");
            if let Some(name) = blamed_variable(&e, &args) {
                line = format!("{line} (the value is ${name}'s)");
            }
            eprintln!("twinstar-server: {line}");
            return ExitCode::from(2);
        }
    };
    // serve() installs the logger of --log-format itself (the game's
    // `twinstar serve` goes through it too).
    match serve_with(
        &cli.serve,
        Some(std::sync::Arc::new(twinstar_verify::TwinstarVerifier)),
    ) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("twinstar-server: {e}");
            ExitCode::from(e.code())
        }
    }
}

/// A subcommand's arguments parsed as `program ARGS...`: `--help` printed
/// (exit 0), a bad one told in one line (exit 2).
fn parse_subcommand<C: Parser>(program: &str, args: Vec<OsString>) -> Result<C, ExitCode> {
    match C::try_parse_from(std::iter::once(OsString::from(program)).chain(args)) {
        Ok(cli) => Ok(cli),
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            Err(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("twinstar-server: {}", one_line_error(&e, program));
            Err(ExitCode::from(2))
        }
    }
}

/// The environment variable a bad value came from, when the flag it
/// stands for is not on the command line: clap's message names only the
/// flag, which the operator may never have typed.
fn blamed_variable(e: &clap::Error, args: &[OsString]) -> Option<String> {
    use clap::CommandFactory;
    use clap::error::{ContextKind, ContextValue};
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else {
        return None;
    };
    // "--idle-timeout <SECS>", "--trust-forwarded[=<BOOL>]".
    let flag = arg.split([' ', '[', '=']).next()?;
    let typed = args.iter().any(|a| {
        let a = a.to_string_lossy();
        a == flag || a.starts_with(&format!("{flag}="))
    });
    if typed {
        return None;
    }
    let command = ServerCli::command();
    let long = flag.strip_prefix("--")?;
    let found = command
        .get_arguments()
        .find(|a| a.get_long() == Some(long))?;
    let name = found.get_env()?.to_string_lossy().into_owned();
    std::env::var_os(&name).is_some().then_some(name)
}

mod check_config {
    use std::ffi::OsString;
    use std::path::PathBuf;
    use std::process::ExitCode;

    use clap::Parser;

    /// Checks a config file (--config FILE's) without starting a server:
    /// every problem on a line of its own, exit 2 if there is any.
    #[derive(Parser)]
    #[command(name = "twinstar-server check-config")]
    struct CheckCli {
        /// The TOML file, as --config or TWINSTAR_SERVER_CONFIG would name it.
        file: PathBuf,
    }

    pub fn run(args: Vec<OsString>) -> ExitCode {
        let cli: CheckCli = match super::parse_subcommand("twinstar-server check-config", args) {
            Ok(cli) => cli,
            Err(code) => return code,
        };
        let shown = cli.file.display();
        match twinstar_signaling::config_file::check(&cli.file) {
            Ok(n) => {
                let settings = if n == 1 { "setting" } else { "settings" };
                println!("{shown}: ok ({n} {settings})");
                ExitCode::SUCCESS
            }
            Err(problems) => {
                for problem in problems {
                    eprintln!("{shown}: {problem}");
                }
                ExitCode::from(2)
            }
        }
    }
}

mod health {
    use std::ffi::OsString;
    use std::process::ExitCode;
    use std::time::Duration;

    use clap::Parser;

    /// Asks the server on this machine whether it is up: GET /livez
    /// (serving, draining included), or with --ready GET /readyz
    /// (admitting players: 503 while draining).
    #[derive(Parser)]
    #[command(name = "twinstar-server health")]
    struct HealthCli {
        /// The port the server listens on (inside a container: 3536).
        #[arg(long, default_value_t = twinstar_signaling::DEFAULT_PORT)]
        port: u16,
        /// Ask whether it admits new players (/readyz) rather than whether
        /// it serves (/livez).
        #[arg(long)]
        ready: bool,
    }

    /// Plain HTTP first; a server given --tls-cert speaks TLS on the same
    /// port, so then HTTPS, without checking the certificate: it is the
    /// server's own, reached on loopback, and only liveness is asked.
    pub fn run(args: Vec<OsString>) -> ExitCode {
        let cli: HealthCli = match super::parse_subcommand("twinstar-server health", args) {
            Ok(cli) => cli,
            Err(code) => return code,
        };
        let tls = ureq::tls::TlsConfig::builder()
            .disable_verification(true)
            .build();
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(3)))
            .http_status_as_error(false)
            .tls_config(tls)
            .build()
            .into();
        let path = if cli.ready { "/readyz" } else { "/livez" };
        let mut failures = Vec::new();
        for scheme in ["http", "https"] {
            let url = format!("{scheme}://127.0.0.1:{}{path}", cli.port);
            match agent.get(&url).call() {
                Ok(response) if response.status() == 200 => {
                    println!("twinstar-server: {url}: ok");
                    return ExitCode::SUCCESS;
                }
                Ok(response) => {
                    // Draining (503) or not ours: the answer is final.
                    eprintln!("twinstar-server: {url}: HTTP {}", response.status());
                    return ExitCode::from(1);
                }
                Err(e) => failures.push(format!("{url}: {e}")),
            }
        }
        eprintln!("twinstar-server: not healthy: {}", failures.join("; "));
        ExitCode::from(1)
    }
}
