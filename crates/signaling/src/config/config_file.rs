//! `--config FILE` (or `$TWINSTAR_SERVER_CONFIG`): the server's options in
//! a TOML file, for a service manager or a container that would rather
//! mount a file than grow a command line. Its keys are the flags' names
//! without the dashes in front (kebab-case, as the flags: `idle-timeout`,
//! `turn-secret-file`); its values are what the flags take, with TOML's
//! types (`idle-timeout = 30`, `trust-forwarded = true`, `turn = ["turn:...",
//! "turns:..."]`, `turn-ttl = "6h"`). A relative path in it is relative to
//! the file's own directory.
//!
//! Precedence: a flag wins over its environment variable (`--idle-timeout`
//! over `TWINSTAR_IDLE_TIMEOUT`), the variable over the file, the file over
//! the default. A repeatable flag (or its variable's comma-separated list)
//! replaces the file's whole list.
//!
//! An unknown key, a value of the wrong type or out of range stops the
//! server at start-up with one line that names the file, the line and the
//! key (exit 2); `twinstar-server check-config FILE` ([`check`]) lists
//! every problem the file has. Both use `config_check`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::config::config_check::{FileSettings, check_file};
pub use crate::config::config_check::{KEYS, Problem};
use crate::config::serve_args::{MetricsBind, ServeArgs, ServeError};
use crate::http::web::WEB_DIR_ENV;
use crate::ops::logs::LogFormat;

/// The options as the server runs with them: the command line (and the
/// environment) over the file over the defaults.
#[derive(Debug)]
pub struct Settings {
    pub bind: SocketAddr,
    /// `None`: neither `--web` nor the file's `web`; the server then looks
    /// where [`crate::WebClient::find_default`] does (`TWINSTAR_WEB` first).
    pub web: Option<PathBuf>,
    pub log_format: LogFormat,
    pub tls_cert: Option<PathBuf>,
    pub tls_key: Option<PathBuf>,
    pub stun: Vec<String>,
    pub turn: Vec<String>,
    pub turn_secret: Option<String>,
    pub turn_secret_file: Option<PathBuf>,
    pub turn_ttl: Duration,
    pub idle_timeout: u64,
    pub handshake_timeout: u64,
    pub max_per_address: u64,
    pub trust_forwarded: bool,
    pub directory: Option<String>,
    pub reports: Option<PathBuf>,
    pub reports_max_bytes: u64,
    pub data: Option<PathBuf>,
    /// `None`: the machine's cores.
    pub verifiers: Option<u64>,
    pub drain_timeout: u64,
    /// `None`: not said anywhere (the default listener, given up quietly
    /// if its port is taken).
    pub metrics_bind: Option<MetricsBind>,
    pub metrics_token_file: Option<PathBuf>,
}

/// `twinstar-server check-config FILE`: how many settings the file makes,
/// or every problem it has, one line each, in the file's order. The same
/// checks as [`resolve`]'s at start-up.
pub fn check(path: &Path) -> Result<usize, Vec<Problem>> {
    check_file(path).map(|checked| checked.count)
}

/// The settings from `args` and the config file it names, if any.
pub fn resolve(args: &ServeArgs) -> Result<Settings, ServeError> {
    let file = match &args.config {
        Some(path) => {
            check_file(path)
                .map_err(|problems| ServeError::BadInput(first_problem(path, &problems)))?
                .settings
        }
        None => FileSettings::default(),
    };
    let web_env = std::env::var_os(WEB_DIR_ENV).is_some_and(|dir| !dir.is_empty());
    let variable = |name| std::env::var_os(name).filter(|v| !v.is_empty());
    let secret = turn_secret_choice(
        args,
        TurnSecretChoice {
            secret: variable(TURN_SECRET_ENV).map(|v| v.to_string_lossy().into_owned()),
            file: variable(TURN_SECRET_FILE_ENV).map(PathBuf::from),
        },
        TurnSecretChoice {
            secret: file.turn_secret.clone(),
            file: file.turn_secret_file.clone(),
        },
    )
    .map_err(ServeError::BadInput)?;
    Ok(merge(args, file, web_env, secret))
}

/// The variables of `--turn-secret` and `--turn-secret-file`.
const TURN_SECRET_ENV: &str = "TWINSTAR_TURN_SECRET";
const TURN_SECRET_FILE_ENV: &str = "TWINSTAR_TURN_SECRET_FILE";

/// The TURN secret, or the file that holds it: one choice.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TurnSecretChoice {
    pub secret: Option<String>,
    pub file: Option<PathBuf>,
}

/// Where the TURN secret comes from: a flag (clap refuses both flags),
/// else a variable, else the file's key (the file refuses both keys);
/// both variables set is an error, as neither is the flag's.
fn turn_secret_choice(
    args: &ServeArgs,
    variables: TurnSecretChoice,
    file: TurnSecretChoice,
) -> Result<TurnSecretChoice, String> {
    if args.turn_secret.is_some() || args.turn_secret_file.is_some() {
        return Ok(TurnSecretChoice {
            secret: args.turn_secret.clone(),
            file: args.turn_secret_file.clone(),
        });
    }
    if variables.secret.is_some() && variables.file.is_some() {
        return Err(format!(
            "{TURN_SECRET_ENV} and {TURN_SECRET_FILE_ENV} are both set: set one"
        ));
    }
    if variables.secret.is_some() || variables.file.is_some() {
        return Ok(variables);
    }
    Ok(file)
}

/// The start-up's one line: the first problem, and how to see the rest.
fn first_problem(path: &Path, problems: &[Problem]) -> String {
    let first = problems
        .first()
        .map_or_else(|| "unreadable".to_owned(), Problem::to_string);
    let more = match problems.len() {
        0 | 1 => String::new(),
        n => format!(
            " (and {} more: twinstar-server check-config {} lists them all)",
            n - 1,
            path.display()
        ),
    };
    format!("config {}: {first}{more}", path.display())
}

/// The command line over `file` over the defaults. `web_env`: whether
/// `TWINSTAR_WEB` names a directory, which then wins over the file's `web`
/// (flag > environment > file, as for every option).
fn merge(
    args: &ServeArgs,
    file: FileSettings,
    web_env: bool,
    secret: TurnSecretChoice,
) -> Settings {
    let list = |flags: &Vec<String>, file: Option<Vec<String>>| {
        if flags.is_empty() {
            file.unwrap_or_default()
        } else {
            flags.clone()
        }
    };
    Settings {
        bind: args.bind.or(file.bind).unwrap_or(DEFAULT_BIND),
        web: args.web.clone().or(if web_env { None } else { file.web }),
        log_format: args.log_format.or(file.log_format).unwrap_or_default(),
        tls_cert: args.tls_cert.clone().or(file.tls_cert),
        tls_key: args.tls_key.clone().or(file.tls_key),
        stun: list(&args.stun, file.stun),
        turn: list(&args.turn, file.turn),
        turn_secret: secret.secret,
        turn_secret_file: secret.file,
        turn_ttl: args
            .turn_ttl
            .or(file.turn_ttl)
            .unwrap_or(crate::http::turn::DEFAULT_TURN_TTL),
        idle_timeout: (args.idle_timeout)
            .or(file.idle_timeout)
            .unwrap_or(crate::rooms::connection::DEFAULT_IDLE_TIMEOUT.as_secs()),
        handshake_timeout: (args.handshake_timeout)
            .or(file.handshake_timeout)
            .unwrap_or(crate::http::server::DEFAULT_HANDSHAKE_TIMEOUT.as_secs()),
        max_per_address: (args.max_per_address)
            .or(file.max_per_address)
            .unwrap_or(crate::rooms::limits::DEFAULT_MAX_PER_ADDRESS as u64),
        trust_forwarded: (args.trust_forwarded)
            .or(file.trust_forwarded)
            .unwrap_or(false),
        directory: args.directory.clone().or(file.directory),
        reports: args.reports.clone().or(file.reports),
        reports_max_bytes: (args.reports_max_bytes)
            .or(file.reports_max_bytes)
            .unwrap_or(crate::ops::reports::DEFAULT_REPORTS_MAX_BYTES),
        data: args.data.clone().or(file.data),
        verifiers: args.verifiers.or(file.verifiers),
        drain_timeout: (args.drain_timeout)
            .or(file.drain_timeout)
            .unwrap_or(crate::http::server::DEFAULT_DRAIN_TIMEOUT.as_secs()),
        metrics_bind: args.metrics_bind.or(file.metrics_bind),
        metrics_token_file: args.metrics_token_file.clone().or(file.metrics_token_file),
    }
}

/// Default `--bind`: every address, the game's port.
pub const DEFAULT_BIND: SocketAddr = SocketAddr::new(
    std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED),
    twinstar_signaling_protocol::DEFAULT_PORT,
);

#[cfg(test)]
#[path = "config_file_tests.rs"]
mod tests;
