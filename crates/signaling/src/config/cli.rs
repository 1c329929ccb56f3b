//! The server's command line: `twinstar-server` and the game's `twinstar
//! serve` take exactly these options ([`ServeArgs`]) and run [`serve`]. The
//! options are checked and turned into the server's, the start-up lines an
//! operator reads are printed, and SIGTERM/Ctrl-C handled: the first drains
//! (no new clients, exit when the rooms are empty or after
//! `--drain-timeout`), a second exits at once.

use std::net::{IpAddr, Ipv4Addr, SocketAddr, UdpSocket};

use web_time::Duration;

use crate::config::config_file::Settings;
pub use crate::config::serve_args::{DEFAULT_METRICS_BIND, MetricsBind, ServeArgs, ServeError};
use crate::http::server::{ServeOptions, ServerError};
use crate::http::tls::TlsFiles;
use crate::http::turn::{IcePolicy, TurnSecret};
use crate::http::web::WebClient;
use crate::ops::logs::LogFormat;
use crate::ops::metrics_access::{MetricsAccess, MetricsToken};
use crate::ops::reports::ReportsFile;
use twinstar_signaling_protocol::browser_link;

/// The name the server's lines start with (`twinstar: ...` from the game
/// too: operators' log filters match it).
const PROGRAM: &str = "twinstar";

/// Runs the server until SIGTERM or Ctrl-C (and the drain after it).
/// It ranks no replays (see [`serve_with`]).
pub fn serve(args: &ServeArgs) -> Result<(), ServeError> {
    serve_with(args, None)
}

/// [`serve`], ranking uploaded replays with `verifier` (a game's: the
/// `twinstar-server` binary and the game's `twinstar serve` pass
/// twinstar's) in a pool of [`crate::replays::default_verifiers`] workers.
pub fn serve_with(
    args: &ServeArgs,
    verifier: Option<std::sync::Arc<dyn crate::ranking::replays::ReplayVerifier>>,
) -> Result<(), ServeError> {
    let settings = crate::config::config_file::resolve(args)?;
    let log = settings.log_format;
    // The log format as the default of this thread and of the runtime's
    // (see `logs`: the game may have installed a global one already).
    let dispatch = log.dispatch();
    let _this_thread = tracing::dispatcher::set_default(&dispatch);
    let mut options = options(&settings)?;
    options.replays = verifier.map(|v| {
        crate::ranking::replays::VerifierPool::new(v, crate::ranking::replays::default_verifiers())
    });
    let has_web = options.web.is_some();
    let ice = options.ice.describe();
    let token = options.metrics.token.is_some();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .on_thread_start(move || {
            // Kept for the thread's life, which the runtime owns.
            std::mem::forget(tracing::dispatcher::set_default(&dispatch));
        })
        .build()
        .map_err(|e| ServeError::Runtime(format!("cannot start the network runtime: {e}")))?;
    let say = |text: &str| log.say(PROGRAM, "INFO", text);
    runtime.block_on(async {
        let bound = match crate::http::server::bind_with(settings.bind, options.clone()) {
            // Only the default's port: a second server on the machine runs
            // without metrics rather than not at all; an address the
            // operator chose is theirs to fix.
            Err(ServerError::MetricsBind { addr, error }) if settings.metrics_bind.is_none() => {
                log.say(PROGRAM, "WARN", &format!(
                    "no metrics listener: cannot bind {addr} ({error}); choose one with --metrics-bind ADDR:PORT, or --metrics-bind off"
                ));
                options.metrics.bind = None;
                crate::http::server::bind_with(settings.bind, options)
            }
            bound => bound,
        };
        let server = bound.map_err(|e| match e {
            ServerError::Tls(e) => ServeError::BadInput(e.to_string()),
            e @ ServerError::Data(_) => ServeError::BadInput(e.to_string()),
            e @ ServerError::MetricsBind { .. } => ServeError::BadInput(e.to_string()),
            e => ServeError::BadInput(format!("{e} (address {})", settings.bind)),
        })?;
        let addr = server.local_addr();
        let shown = if addr.ip().is_unspecified() {
            SocketAddr::new(lan_address(), addr.port())
        } else {
            addr
        };
        let url = format!("{}://{shown}", server.scheme());
        say(&format!("signaling server on {url} (players pass --server {url}); Ctrl-C or SIGTERM drains and stops it"));
        say(&ice);
        say(&describe_metrics(server.metrics_addr(), token));
        match browser_link(&url, None) {
            Some(page) if has_web => {
                say(&format!("web client at {page} (a room's link: {page}#K7Q-2XM)"))
            }
            _ => say("no web client here (bash scripts/build-web.sh builds one)"),
        }
        server
            .serve(shutdown_signal(log))
            .await
            .map_err(|e| ServeError::Runtime(e.to_string()))
    })
}

/// Where the operator reads the metrics, in a start-up line.
fn describe_metrics(at: Option<SocketAddr>, token: bool) -> String {
    let public = if token {
        "; also on the public port with the bearer token"
    } else {
        "; not on the public port"
    };
    match at {
        Some(at) if token => format!("metrics on http://{at}/metrics (bearer token){public}"),
        Some(at) => format!("metrics on http://{at}/metrics{public}"),
        None if token => "metrics on the public port's /metrics, with the bearer token".into(),
        None => "metrics served nowhere (--metrics-bind off)".into(),
    }
}

/// This machine's address on its LAN, for the URL the other player types.
/// Connecting a UDP socket sends nothing; it only picks the outgoing route.
pub fn lan_address() -> IpAddr {
    UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0))
        .and_then(|s| {
            s.connect((Ipv4Addr::new(192, 0, 2, 1), 9))?;
            s.local_addr()
        })
        .map(|a| a.ip())
        .ok()
        .filter(|ip| !ip.is_unspecified())
        .unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST))
}

/// A clap error in one line, pointing at `--help` (every twinstar program
/// reports bad arguments this way: one line, exit 2).
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

/// The server's options from the flags; every check before binding, in
/// the order that decides which problem is reported first (the reports
/// file, created when it opens, last).
fn options(args: &Settings) -> Result<ServeOptions, ServeError> {
    let bad = ServeError::BadInput;
    let web = match &args.web {
        Some(dir) => Some(WebClient::load(dir).map_err(|e| bad(e.to_string()))?),
        None => WebClient::find_default(),
    };
    let ice = ice_policy(args)?;
    let tls = tls_files(args)?;
    let metrics = metrics_access(args)?;
    Ok(ServeOptions {
        replays: None,
        data: args.data.clone(),
        // The benchmarks' switch is never read from the command line.
        replay_lifetime_slack: crate::ranking::replay_state::LIFETIME_SLACK,
        metrics,
        web,
        tls,
        ice,
        idle_timeout: Duration::from_secs(args.idle_timeout),
        handshake_timeout: Duration::from_secs(args.handshake_timeout),
        max_per_address: usize::try_from(args.max_per_address).unwrap_or(usize::MAX),
        drain_timeout: Duration::from_secs(args.drain_timeout),
        trust_forwarded: args.trust_forwarded,
        directory: match &args.directory {
            Some(url) => {
                crate::rooms::directory::Directory::new(url).map_err(|e| bad(e.to_string()))?;
                Some(url.clone())
            }
            None => None,
        },
        reports: match &args.reports {
            Some(path) => Some(
                ReportsFile::open(path, args.reports_max_bytes).map_err(|e| {
                    bad(format!(
                        "cannot write the reports file {}: {e}",
                        path.display()
                    ))
                })?,
            ),
            None => None,
        },
    })
}

/// The STUN and TURN servers handed to clients, with the TURN secret from
/// the flag or the first line of its file.
fn ice_policy(args: &Settings) -> Result<IcePolicy, ServeError> {
    let bad = ServeError::BadInput;
    let secret_text = match (&args.turn_secret, &args.turn_secret_file) {
        (Some(secret), _) => Some(secret.clone()),
        (None, Some(path)) => Some(
            read_secret(path, "TURN secret")?
                .lines()
                .next()
                .unwrap_or_default()
                .to_owned(),
        ),
        (None, None) => None,
    };
    let secret = match secret_text {
        Some(text) => {
            Some(TurnSecret::new(&text).ok_or_else(|| bad("the TURN secret is empty".into()))?)
        }
        None => None,
    };
    IcePolicy::new(args.stun.clone(), args.turn.clone(), secret, args.turn_ttl)
        .map_err(|e| bad(e.to_string()))
}

/// The TLS pair, both files or neither.
fn tls_files(args: &Settings) -> Result<Option<TlsFiles>, ServeError> {
    let bad = ServeError::BadInput;
    match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Ok(Some(TlsFiles {
            cert: cert.clone(),
            key: key.clone(),
        })),
        (None, None) => Ok(None),
        // Checked here, not by clap: one may come from the config file.
        (Some(_), None) => Err(bad("--tls-cert needs --tls-key".into())),
        (None, Some(_)) => Err(bad("--tls-key needs --tls-cert".into())),
    }
}

/// Where `/metrics` is served (by default on [`DEFAULT_METRICS_BIND`]) and
/// the token it asks for, if any.
fn metrics_access(args: &Settings) -> Result<MetricsAccess, ServeError> {
    Ok(MetricsAccess {
        bind: match args.metrics_bind {
            None => Some(DEFAULT_METRICS_BIND),
            Some(MetricsBind::At(at)) => Some(at),
            Some(MetricsBind::Off) => None,
        },
        token: match &args.metrics_token_file {
            Some(path) => Some(
                MetricsToken::new(&read_secret(path, "metrics token")?)
                    .map_err(ServeError::BadInput)?,
            ),
            None => None,
        },
    })
}

/// A secret's file (`what`: "TURN secret", "metrics token"), small and
/// text, whole.
fn read_secret(path: &std::path::Path, what: &str) -> Result<String, ServeError> {
    let bad = ServeError::BadInput;
    let bytes = twinstar_files::read_limited(path, 4096)
        .map_err(|e| bad(format!("cannot read the {what}: {e}")))?;
    String::from_utf8(bytes)
        .map_err(|_| bad(format!("the {what} file {} is not text", path.display())))
}

/// Resolves at the first SIGTERM or Ctrl-C; a second one exits at once.
async fn shutdown_signal(log: LogFormat) {
    one_signal().await;
    log.say(
        PROGRAM,
        "INFO",
        "draining (a second Ctrl-C or SIGTERM exits at once)",
    );
    tokio::spawn(async move {
        one_signal().await;
        log.say(PROGRAM, "WARN", "stopped without draining");
        std::process::exit(130);
    });
}

async fn one_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The settings of `twinstar serve` with these TURN URLs and a secret.
    fn with_turn(turn: &[&str]) -> Result<ServeOptions, ServeError> {
        let args = ServeArgs {
            turn: turn.iter().map(|t| t.to_string()).collect(),
            turn_secret: Some("north".into()),
            ..ServeArgs::default()
        };
        options(&crate::config::config_file::resolve(&args)?)
    }

    #[test]
    fn turns_urls_on_443_and_5349_are_handed_out_beside_turn() {
        let options = with_turn(&[
            "turn:play.example.org:3478?transport=udp",
            "turns:play.example.org:443?transport=tcp",
            "turns:play.example.org:5349",
        ])
        .unwrap();
        let offer = options.ice.offer(1_700_000_000, "n");
        assert_eq!(offer.turn.len(), 3, "{offer:?}");
        assert!(offer.turn.iter().any(|u| u.starts_with("turns:")));
        assert!(offer.credential.is_some());
        let e = with_turn(&["turnz:play.example.org:443"]).unwrap_err();
        assert_eq!(e.code(), 2);
    }
}
