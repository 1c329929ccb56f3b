//! The server's options as `twinstar-server` and `twinstar serve` take them
//! ([`ServeArgs`]), their ranges, and the error a start-up ends with. Below
//! both the command line (`cli`, which runs the server) and the config
//! file (`config_file`, which fills in what the command line left out).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use clap::Args;

use crate::ops::logs::LogFormat;

/// The server's options. Each may also be set by an environment variable
/// (`TWINSTAR_` and the flag's name, `--idle-timeout` →
/// `TWINSTAR_IDLE_TIMEOUT`; `--help` names each) and in the `--config`
/// file under the flag's name (`idle-timeout = 30`): a flag wins over its
/// variable (clap reads the variable only when the flag is absent), the
/// variable over the file, the file over the default. So every field is
/// an `Option` here: `None` is "said neither on the command line nor in
/// the environment", and [`crate::config_file::resolve`] fills in the file
/// and the defaults.
///
/// Two names are not derived: `--bind` reads `TWINSTAR_SERVER_BIND`
/// (`TWINSTAR_BIND` is HAProxy's listening line in deploy/haproxy.cfg and
/// deploy/compose.yaml, set beside the nodes), and `--config` reads
/// `TWINSTAR_SERVER_CONFIG` (`TWINSTAR_CONFIG` is the game's settings
/// file). `--web`'s `TWINSTAR_WEB` is read by [`crate::WebClient`] itself,
/// as it always was: a directory it names that holds no build is a
/// warning, not an error (the flag's is an error).
#[derive(Debug, Default, Args)]
pub struct ServeArgs {
    /// Read options from FILE (TOML, the flags' names as keys, e.g.
    /// `idle-timeout = 30`); flags given here win over it
    #[arg(long, value_name = "FILE", env = "TWINSTAR_SERVER_CONFIG")]
    pub config: Option<PathBuf>,

    /// Address and port to listen on [default: 0.0.0.0:3536]
    #[arg(long, value_name = "ADDR:PORT", env = "TWINSTAR_SERVER_BIND")]
    pub bind: Option<SocketAddr>,

    /// Serve the web client (bash scripts/build-web.sh builds it) from DIR
    /// [env: TWINSTAR_WEB (a directory without a build there only warns)]
    /// [default: the file's `web`, else the first that holds one of web/
    /// beside the executable (a release archive), ../web (target/web) and
    /// ../share/twinstar/web (the .deb)]
    #[arg(long, value_name = "DIR")]
    pub web: Option<PathBuf>,

    /// Log lines as text, or as one JSON object per line [default: text]
    #[arg(long, value_name = "FORMAT", env = "TWINSTAR_LOG_FORMAT")]
    pub log_format: Option<LogFormat>,

    /// TLS certificate chain (PEM): serve https and wss on the same port.
    /// Replaced files are picked up within 5 s, without a restart.
    #[arg(
        long,
        value_name = "FILE",
        env = "TWINSTAR_TLS_CERT",
        help_heading = "TLS"
    )]
    pub tls_cert: Option<PathBuf>,

    /// The certificate's private key (PEM).
    #[arg(
        long,
        value_name = "FILE",
        env = "TWINSTAR_TLS_KEY",
        help_heading = "TLS"
    )]
    pub tls_key: Option<PathBuf>,

    /// STUN server handed to every client (repeatable, or a comma-separated
    /// list), e.g. stun:turn.example.org:3478
    #[arg(
        long = "stun",
        value_name = "URL",
        env = "TWINSTAR_STUN",
        value_delimiter = ',',
        help_heading = "ICE servers for clients"
    )]
    pub stun: Vec<String>,

    /// TURN relay handed to every client (repeatable, or a comma-separated
    /// list), with a credential minted per client from --turn-secret
    /// (coturn's use-auth-secret); turn: or turns: (TLS, e.g.
    /// turns:turn.example.org:443?transport=tcp)
    #[arg(
        long = "turn",
        value_name = "URL",
        env = "TWINSTAR_TURN",
        value_delimiter = ',',
        help_heading = "ICE servers for clients"
    )]
    pub turn: Vec<String>,

    /// The secret shared with coturn (static-auth-secret). Prefer
    /// --turn-secret-file or the environment: a flag shows in `ps`.
    /// [env: TWINSTAR_TURN_SECRET]
    //
    // The secret and its file are one choice, so their variables are read
    // by `config_file` (not clap): either flag wins over both variables,
    // as a flag wins over its own variable everywhere else.
    #[arg(
        long,
        value_name = "SECRET",
        conflicts_with = "turn_secret_file",
        help_heading = "ICE servers for clients"
    )]
    pub turn_secret: Option<String>,

    /// Read the TURN secret from FILE (its first line).
    /// [env: TWINSTAR_TURN_SECRET_FILE]
    #[arg(long, value_name = "FILE", help_heading = "ICE servers for clients")]
    pub turn_secret_file: Option<PathBuf>,

    /// How long a minted TURN credential is valid, e.g. 6h, 90m [default: 6h]
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration, env = "TWINSTAR_TURN_TTL", help_heading = "ICE servers for clients")]
    pub turn_ttl: Option<std::time::Duration>,

    /// A client that sends nothing (not even a pong) for SECS loses its
    /// seat [default: 25]
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(IDLE_TIMEOUT_SECS), env = "TWINSTAR_IDLE_TIMEOUT", help_heading = "Limits")]
    pub idle_timeout: Option<u64>,

    /// The TLS handshake and the HTTP request must arrive within SECS
    /// [default: 10]
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(HANDSHAKE_TIMEOUT_SECS), env = "TWINSTAR_HANDSHAKE_TIMEOUT", help_heading = "Limits")]
    pub handshake_timeout: Option<u64>,

    /// Websockets one client address may hold at once [default: 32]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(MAX_PER_ADDRESS), env = "TWINSTAR_MAX_PER_ADDRESS", help_heading = "Limits")]
    pub max_per_address: Option<u64>,

    /// Count client addresses from X-Forwarded-For (set it only behind
    /// your own reverse proxy, which appends the real address).
    /// `--trust-forwarded=false` turns off the file's `true`.
    // An `Option`, not a plain switch, so that `false` from the flag or
    // the variable can win over the file's `true`.
    #[arg(
        long,
        value_name = "BOOL",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "true",
        value_parser = clap::builder::BoolishValueParser::new(),
        env = "TWINSTAR_TRUST_FORWARDED",
        help_heading = "Limits"
    )]
    pub trust_forwarded: Option<bool>,

    /// Share the public room list with the other nodes behind the same
    /// proxy through this Redis (redis://HOST:PORT); each node lists every
    /// node's public rooms. Without it, a node lists its own.
    #[arg(
        long,
        value_name = "URL",
        env = "TWINSTAR_DIRECTORY",
        help_heading = "Several nodes"
    )]
    pub directory: Option<String>,

    /// Append players' reports (chat's /report) to FILE, one JSON object
    /// per line; without it the server takes no reports.
    #[arg(
        long,
        value_name = "FILE",
        env = "TWINSTAR_REPORTS",
        help_heading = "Moderation"
    )]
    pub reports: Option<PathBuf>,

    /// Rotate the reports file to FILE.1 once it would pass BYTES
    /// [default: 16777216]
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(REPORTS_MAX_BYTES), env = "TWINSTAR_REPORTS_MAX_BYTES", help_heading = "Moderation")]
    pub reports_max_bytes: Option<u64>,

    /// Keep ranked replays and their boards in DIR (SQLite, DIR/replays.sqlite;
    /// made if missing); without it they live in memory until the server
    /// stops.
    #[arg(
        long,
        value_name = "DIR",
        env = "TWINSTAR_DATA",
        help_heading = "Ranked replays"
    )]
    pub data: Option<PathBuf>,

    /// Re-simulate at most N uploaded replays at once (a worker each,
    /// beside the websockets' threads) [default: the machine's cores]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(VERIFIERS), env = "TWINSTAR_VERIFIERS", help_heading = "Ranked replays")]
    pub verifiers: Option<u64>,

    /// On SIGTERM: stop admitting, then exit once the rooms are empty or
    /// after SECS [default: 120]
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(DRAIN_TIMEOUT_SECS), env = "TWINSTAR_DRAIN_TIMEOUT", help_heading = "Limits")]
    pub drain_timeout: Option<u64>,

    /// Serve /metrics (plain HTTP, nothing else) on ADDR:PORT, or `off`.
    /// The public port answers /metrics with 404 unless
    /// --metrics-token-file is given [default: 127.0.0.1:9536; when that
    /// port is taken, e.g. by a second server on the machine, the server
    /// says so and runs without it]
    #[arg(long, value_name = "ADDR:PORT|off", value_parser = parse_metrics_bind, env = "TWINSTAR_METRICS_BIND", help_heading = "Metrics")]
    pub metrics_bind: Option<MetricsBind>,

    /// Also serve /metrics on the public port, to requests that carry
    /// `Authorization: Bearer TOKEN`, TOKEN being FILE's first line (at
    /// least 16 characters); the metrics listener then asks for it too.
    #[arg(
        long,
        value_name = "FILE",
        env = "TWINSTAR_METRICS_TOKEN_FILE",
        help_heading = "Metrics"
    )]
    pub metrics_token_file: Option<PathBuf>,
}

/// The ranges the numeric options accept, on the command line and in the
/// config file alike.
pub(crate) const IDLE_TIMEOUT_SECS: std::ops::RangeInclusive<u64> = 3..=300;
pub(crate) const HANDSHAKE_TIMEOUT_SECS: std::ops::RangeInclusive<u64> = 1..=120;
pub(crate) const MAX_PER_ADDRESS: std::ops::RangeInclusive<u64> = 1..=1_000_000;
pub(crate) const REPORTS_MAX_BYTES: std::ops::RangeInclusive<u64> = 4096..=u64::MAX;
pub(crate) const DRAIN_TIMEOUT_SECS: std::ops::RangeInclusive<u64> = 0..=86400;
/// `--verifiers`: one worker at least, and no more than a big machine's cores.
pub(crate) const VERIFIERS: std::ops::RangeInclusive<u64> = 1..=256;

/// `--metrics-bind`: an address, or none at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetricsBind {
    At(SocketAddr),
    Off,
}

/// The metrics listener when nothing is said: loopback, so only this
/// machine (a Prometheus or an agent beside the server) reads it.
pub const DEFAULT_METRICS_BIND: SocketAddr = SocketAddr::new(
    IpAddr::V4(Ipv4Addr::LOCALHOST),
    crate::ops::metrics_access::DEFAULT_METRICS_PORT,
);

pub(crate) fn parse_metrics_bind(text: &str) -> Result<MetricsBind, String> {
    if text.eq_ignore_ascii_case("off") {
        return Ok(MetricsBind::Off);
    }
    text.parse()
        .map(MetricsBind::At)
        .map_err(|_| format!("'{text}' is neither ADDR:PORT (e.g. 127.0.0.1:9536) nor off"))
}

/// Why the server did not start or stopped: bad options (exit 2) or a
/// failure while serving (exit 1), as every twinstar command.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("{0}")]
    BadInput(String),
    #[error("{0}")]
    Runtime(String),
}

impl ServeError {
    /// The exit status: 2 bad input, 1 runtime failure.
    pub fn code(&self) -> u8 {
        match self {
            ServeError::BadInput(_) => 2,
            ServeError::Runtime(_) => 1,
        }
    }
}
