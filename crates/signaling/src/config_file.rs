//! `--config FILE` (or `$TWINSTAR_SERVER_CONFIG`): the server's options in
//! a TOML file, for a service manager or a container that would rather
//! mount a file than grow a command line. Its keys are the flags' names
//! without the dashes in front (kebab-case, as the flags: `idle-timeout`,
//! `turn-secret-file`); its values are what the flags take, with TOML's
//! types (`idle-timeout = 30`, `trust-forwarded = true`, `turn = ["turn:...",
//! "turns:..."]`, `turn-ttl = "6h"`). A relative path in it is relative to
//! the file's own directory.
//!
//! Precedence: a flag, or an option's environment variable
//! (`TWINSTAR_TURN_SECRET`), wins over the file; the file wins over the
//! default. A repeatable flag given once replaces the file's whole list.
//! `--trust-forwarded` can only be turned on by the flag (a file's `true`
//! stays true).
//!
//! An unknown key, a value of the wrong type or out of range is an error
//! in one line that names the file, the line and the key (exit 2): a typo
//! in a key must not silently leave an option at its default.

use std::net::SocketAddr;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::logs::LogFormat;
use crate::serve_args::{
    DRAIN_TIMEOUT_SECS, HANDSHAKE_TIMEOUT_SECS, IDLE_TIMEOUT_SECS, MAX_PER_ADDRESS, MetricsBind,
    REPORTS_MAX_BYTES, ServeArgs, ServeError, parse_metrics_bind,
};

/// The largest config file read: a few hundred bytes in practice.
const MAX_FILE_BYTES: u64 = 64 * 1024;

/// The options as the server runs with them: the command line over the
/// file over the defaults.
#[derive(Debug)]
pub struct Settings {
    pub bind: SocketAddr,
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
    pub drain_timeout: u64,
    /// `None`: not said anywhere (the default listener, given up quietly
    /// if its port is taken).
    pub metrics_bind: Option<MetricsBind>,
    pub metrics_token_file: Option<PathBuf>,
}

/// The file as written: every key optional, no other key allowed.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct FileSettings {
    bind: Option<String>,
    web: Option<PathBuf>,
    log_format: Option<LogFormat>,
    tls_cert: Option<PathBuf>,
    tls_key: Option<PathBuf>,
    stun: Option<Vec<String>>,
    turn: Option<Vec<String>>,
    turn_secret: Option<String>,
    turn_secret_file: Option<PathBuf>,
    turn_ttl: Option<String>,
    idle_timeout: Option<u64>,
    handshake_timeout: Option<u64>,
    max_per_address: Option<u64>,
    trust_forwarded: Option<bool>,
    directory: Option<String>,
    reports: Option<PathBuf>,
    reports_max_bytes: Option<u64>,
    drain_timeout: Option<u64>,
    metrics_bind: Option<String>,
    metrics_token_file: Option<PathBuf>,
}

/// The settings from `args` and the config file it names, if any.
pub fn resolve(args: &ServeArgs) -> Result<Settings, ServeError> {
    let file = match &args.config {
        Some(path) => load(path).map_err(ServeError::BadInput)?,
        None => FileSettings::default(),
    };
    let name = args.config.as_deref().unwrap_or(Path::new("-"));
    merge(args, file, name).map_err(ServeError::BadInput)
}

/// Reads and checks the file's syntax and keys.
fn load(path: &Path) -> Result<FileSettings, String> {
    let shown = path.display();
    let bytes = twinstar_files::read_limited(path, MAX_FILE_BYTES)
        .map_err(|e| format!("cannot read the config file {shown}: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| format!("config {shown}: not UTF-8 text"))?;
    let mut file: FileSettings = toml::from_str(&text).map_err(|e| {
        let message = e.message().replace('\n', " ");
        let Some(span) = e.span() else {
            return format!("config {shown}: {message}");
        };
        let before = &text[..span.start.min(text.len())];
        let line = before.matches('\n').count() + 1;
        // The key of that line, which TOML's type errors do not name.
        let key = (text.lines().nth(line - 1))
            .and_then(|l| l.split_once('='))
            .map(|(key, _)| key.trim())
            .filter(|key| !key.is_empty() && !key.starts_with('['));
        match key {
            Some(key) => format!("config {shown} line {line} ({key}): {message}"),
            None => format!("config {shown} line {line}: {message}"),
        }
    })?;
    // Paths in the file are the file's: relative to its directory.
    let dir = path.parent().unwrap_or(Path::new("."));
    for p in [
        &mut file.web,
        &mut file.tls_cert,
        &mut file.tls_key,
        &mut file.turn_secret_file,
        &mut file.reports,
        &mut file.metrics_token_file,
    ]
    .into_iter()
    .flatten()
    {
        if p.is_relative() {
            *p = dir.join(&*p);
        }
    }
    Ok(file)
}

/// The command line over `file` over the defaults; the file's values
/// checked as the flags' are.
fn merge(args: &ServeArgs, file: FileSettings, path: &Path) -> Result<Settings, String> {
    let bad = |key: &str, why: String| format!("config {}: {key}: {why}", path.display());
    let ranged = |key: &str, value: Option<u64>, range: RangeInclusive<u64>| match value {
        Some(v) if !range.contains(&v) => Err(bad(
            key,
            format!("{v} is not in {}..={}", range.start(), range.end()),
        )),
        v => Ok(v),
    };
    let file_bind = match file.bind {
        Some(text) => Some(
            text.parse::<SocketAddr>()
                .map_err(|_| bad("bind", format!("'{text}' is not ADDR:PORT")))?,
        ),
        None => None,
    };
    let file_ttl = match file.turn_ttl {
        Some(text) => Some(
            humantime::parse_duration(&text)
                .map_err(|e| bad("turn-ttl", format!("'{text}': {e}")))?,
        ),
        None => None,
    };
    let file_metrics_bind = match file.metrics_bind {
        Some(text) => Some(parse_metrics_bind(&text).map_err(|e| bad("metrics-bind", e))?),
        None => None,
    };
    // The secret and its file are one choice: whichever the command line
    // (or TWINSTAR_TURN_SECRET) makes replaces the file's.
    let (turn_secret, turn_secret_file) =
        if args.turn_secret.is_some() || args.turn_secret_file.is_some() {
            (args.turn_secret.clone(), args.turn_secret_file.clone())
        } else if file.turn_secret.is_some() && file.turn_secret_file.is_some() {
            return Err(bad(
                "turn-secret",
                "give turn-secret or turn-secret-file, not both".into(),
            ));
        } else {
            (file.turn_secret, file.turn_secret_file)
        };
    let list = |flags: &Vec<String>, file: Option<Vec<String>>| {
        if flags.is_empty() {
            file.unwrap_or_default()
        } else {
            flags.clone()
        }
    };
    Ok(Settings {
        bind: args.bind.or(file_bind).unwrap_or(DEFAULT_BIND),
        web: args.web.clone().or(file.web),
        log_format: args.log_format.or(file.log_format).unwrap_or_default(),
        tls_cert: args.tls_cert.clone().or(file.tls_cert),
        tls_key: args.tls_key.clone().or(file.tls_key),
        stun: list(&args.stun, file.stun),
        turn: list(&args.turn, file.turn),
        turn_secret,
        turn_secret_file,
        turn_ttl: args
            .turn_ttl
            .or(file_ttl)
            .unwrap_or(crate::turn::DEFAULT_TURN_TTL),
        idle_timeout: (args.idle_timeout)
            .or(ranged(
                "idle-timeout",
                file.idle_timeout,
                IDLE_TIMEOUT_SECS,
            )?)
            .unwrap_or(crate::DEFAULT_IDLE_TIMEOUT.as_secs()),
        handshake_timeout: (args.handshake_timeout)
            .or(ranged(
                "handshake-timeout",
                file.handshake_timeout,
                HANDSHAKE_TIMEOUT_SECS,
            )?)
            .unwrap_or(crate::DEFAULT_HANDSHAKE_TIMEOUT.as_secs()),
        max_per_address: (args.max_per_address)
            .or(ranged(
                "max-per-address",
                file.max_per_address,
                MAX_PER_ADDRESS,
            )?)
            .unwrap_or(crate::DEFAULT_MAX_PER_ADDRESS as u64),
        trust_forwarded: args.trust_forwarded || file.trust_forwarded.unwrap_or(false),
        directory: args.directory.clone().or(file.directory),
        reports: args.reports.clone().or(file.reports),
        reports_max_bytes: (args.reports_max_bytes)
            .or(ranged(
                "reports-max-bytes",
                file.reports_max_bytes,
                REPORTS_MAX_BYTES,
            )?)
            .unwrap_or(crate::reports::DEFAULT_REPORTS_MAX_BYTES),
        drain_timeout: (args.drain_timeout)
            .or(ranged(
                "drain-timeout",
                file.drain_timeout,
                DRAIN_TIMEOUT_SECS,
            )?)
            .unwrap_or(crate::DEFAULT_DRAIN_TIMEOUT.as_secs()),
        metrics_bind: args.metrics_bind.or(file_metrics_bind),
        metrics_token_file: args.metrics_token_file.clone().or(file.metrics_token_file),
    })
}

/// Default `--bind`: every address, the game's port.
pub const DEFAULT_BIND: SocketAddr = SocketAddr::new(
    std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED),
    crate::DEFAULT_PORT,
);

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    fn dir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("twinstar-config-{}", rand::random::<u64>()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The settings from `flags` and a config file holding `toml`.
    fn settings(toml: &str, flags: &[&str]) -> Result<Settings, String> {
        let dir = dir();
        let path = dir.join("server.toml");
        std::fs::write(&path, toml).unwrap();
        let mut argv = vec!["serve", "--config", path.to_str().unwrap()];
        argv.extend_from_slice(flags);
        let cli = Cli::try_parse_from(argv).map_err(|e| e.to_string())?;
        let result = resolve(&cli.serve).map_err(|e| e.to_string());
        std::fs::remove_dir_all(dir).unwrap();
        result
    }

    #[test]
    fn the_file_sets_what_the_flags_do_not_and_the_flags_win() {
        let file = r#"
            bind = "127.0.0.1:4000"
            idle-timeout = 40
            drain-timeout = 5
            stun = ["stun:a.example:3478"]
            turn = ["turn:a.example:3478", "turns:a.example:443?transport=tcp"]
            turn-secret-file = "secret"
            trust-forwarded = true
            log-format = "json"
            metrics-bind = "off"
        "#;
        let s = settings(file, &[]).unwrap();
        assert_eq!(s.bind, "127.0.0.1:4000".parse().unwrap());
        assert_eq!((s.idle_timeout, s.drain_timeout), (40, 5));
        assert_eq!(s.turn.len(), 2);
        assert!(s.trust_forwarded);
        assert_eq!(s.log_format, LogFormat::Json);
        assert_eq!(s.metrics_bind, Some(MetricsBind::Off));
        // Relative to the file's directory.
        let secret = s.turn_secret_file.unwrap();
        assert!(
            secret.is_absolute() && secret.ends_with("secret"),
            "{secret:?}"
        );
        // Untouched options keep their defaults.
        assert_eq!(s.handshake_timeout, 10);
        assert_eq!(s.max_per_address, 32);

        let s = settings(
            file,
            &[
                "--idle-timeout",
                "60",
                "--turn",
                "turn:b.example:3478",
                "--log-format",
                "text",
                "--turn-secret",
                "from-the-flag",
            ],
        )
        .unwrap();
        assert_eq!(s.idle_timeout, 60, "the flag wins");
        assert_eq!(s.drain_timeout, 5, "the file still sets the rest");
        assert_eq!(
            s.turn,
            vec!["turn:b.example:3478".to_owned()],
            "a list is replaced"
        );
        assert_eq!(s.log_format, LogFormat::Text);
        // The flag's secret replaces the file's secret file.
        assert_eq!(
            (s.turn_secret.as_deref(), s.turn_secret_file),
            (Some("from-the-flag"), None)
        );
    }

    #[test]
    fn a_bad_file_is_one_line_naming_the_line_and_key() {
        let cases = [
            (
                "idle-timout = 30\n",
                "line 1",
                "unknown field `idle-timout`",
            ),
            (
                "bind = \"127.0.0.1:4000\"\nidle-timeout = \"soon\"\n",
                "line 2",
                "idle-timeout",
            ),
            ("idle-timeout = 1\n", "idle-timeout", "not in 3..=300"),
            ("bind = \"nowhere\"\n", "bind", "not ADDR:PORT"),
            ("turn-ttl = \"forever\"\n", "turn-ttl", "forever"),
            ("metrics-bind = \"everywhere\"\n", "metrics-bind", "nor off"),
            ("log-format = \"xml\"\n", "line 1", "xml"),
            ("max-per-address = -1\n", "line 1", "max-per-address"),
            (
                "turn-secret = \"a\"\nturn-secret-file = \"b\"\n",
                "turn-secret",
                "not both",
            ),
            ("[serve]\nbind = 1\n", "line 1", "serve"),
            ("bind = \n", "line 1", ""),
        ];
        for (toml, at, says) in cases {
            let e = settings(toml, &[]).unwrap_err();
            assert_eq!(e.lines().count(), 1, "{toml:?}: {e}");
            assert!(e.contains("server.toml"), "{toml:?}: {e}");
            assert!(e.contains(at) && e.contains(says), "{toml:?}: {e}");
        }
    }

    #[test]
    fn a_missing_file_is_an_error_and_no_file_is_the_defaults() {
        let missing = ServeArgs {
            config: Some("/nonexistent/twinstar.toml".into()),
            ..ServeArgs::default()
        };
        let e = resolve(&missing).unwrap_err().to_string();
        assert!(e.contains("/nonexistent/twinstar.toml"), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        let none = resolve(&ServeArgs::default()).unwrap();
        assert_eq!(none.bind, DEFAULT_BIND);
        assert_eq!(none.metrics_bind, None);
        assert_eq!(none.turn_ttl, Duration::from_secs(6 * 3600));
    }

    #[test]
    fn the_shipped_example_file_is_valid() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/twinstar-server.toml");
        if !path.exists() {
            // A packaged crate has no deploy/; the repository always does.
            eprintln!("skipped: {} is not here", path.display());
            return;
        }
        let args = ServeArgs {
            config: Some(path),
            ..ServeArgs::default()
        };
        let s = resolve(&args).unwrap();
        assert_eq!(s.bind.port(), 443);
        assert_eq!(s.log_format, LogFormat::Json);
        assert!(s.turn.iter().any(|t| t.starts_with("turns:")));
        assert_eq!(
            s.metrics_bind,
            Some(MetricsBind::At("127.0.0.1:9536".parse().unwrap()))
        );
    }
}
