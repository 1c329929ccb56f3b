//! `twinstar serve`: the options checked and turned into the server's, the
//! start-up lines an operator reads, and SIGTERM/Ctrl-C: the first drains
//! (no new clients, exit when the rooms are empty or after
//! `--drain-timeout`), a second exits at once.

use super::{Failure, Report};
use crate::cli::ServeArgs;

#[cfg(target_arch = "wasm32")]
pub fn serve(_args: &ServeArgs) -> Result<Report, Failure> {
    Err(Failure::BadInput(
        "a browser cannot run the signaling server; run twinstar serve on a computer".into(),
    ))
}

#[cfg(not(target_arch = "wasm32"))]
pub fn serve(args: &ServeArgs) -> Result<Report, Failure> {
    use std::net::SocketAddr;

    use crate::net::signaling::{self, browser_link};

    let options = options(args)?;
    let has_web = options.web.is_some();
    let ice = options.ice.describe();
    let runtime = super::online::runtime()?;
    runtime.tokio().block_on(async {
        let server = signaling::bind_with(args.bind, options).map_err(|e| match e {
            signaling::ServerError::Tls(e) => Failure::BadInput(e.to_string()),
            e => Failure::BadInput(format!("{e} (address {})", args.bind)),
        })?;
        let addr = server.local_addr();
        let shown = if addr.ip().is_unspecified() {
            SocketAddr::new(super::online::lan_address(), addr.port())
        } else {
            addr
        };
        let url = format!("{}://{shown}", server.scheme());
        eprintln!("twinstar: signaling server on {url} (players pass --server {url}); Ctrl-C or SIGTERM drains and stops it");
        eprintln!("twinstar: {ice}");
        match browser_link(&url, None) {
            Some(page) if has_web => {
                eprintln!("twinstar: web client at {page} (a room's link: {page}#K7Q-2XM)")
            }
            _ => eprintln!("twinstar: no web client here (bash scripts/build-web.sh builds one)"),
        }
        server
            .serve(shutdown_signal())
            .await
            .map_err(|e| Failure::Runtime(e.to_string(), None))
    })?;
    Ok(Report::Printed)
}

/// The server's options from the flags; every check before binding.
#[cfg(not(target_arch = "wasm32"))]
fn options(args: &ServeArgs) -> Result<crate::net::signaling::ServeOptions, Failure> {
    use web_time::Duration;

    use crate::net::signaling::tls::TlsFiles;
    use crate::net::signaling::turn::{IcePolicy, TurnSecret};
    use crate::net::signaling::{ServeOptions, WebClient};

    let bad = |e: String| Failure::BadInput(e);
    let web = match &args.web {
        Some(dir) => Some(WebClient::load(dir).map_err(|e| bad(e.to_string()))?),
        None => WebClient::find_default(),
    };
    let secret_text = match (&args.turn_secret, &args.turn_secret_file) {
        (Some(secret), _) => Some(secret.clone()),
        (None, Some(path)) => {
            let bytes = crate::platform::files::read_limited(path, 4096)
                .map_err(|e| bad(format!("cannot read the TURN secret: {e}")))?;
            let text = String::from_utf8(bytes).map_err(|_| {
                bad(format!(
                    "the TURN secret file {} is not text",
                    path.display()
                ))
            })?;
            Some(text.lines().next().unwrap_or_default().to_owned())
        }
        (None, None) => None,
    };
    let secret = match secret_text {
        Some(text) => {
            Some(TurnSecret::new(&text).ok_or_else(|| bad("the TURN secret is empty".into()))?)
        }
        None => None,
    };
    let ice = IcePolicy::new(args.stun.clone(), args.turn.clone(), secret, args.turn_ttl)
        .map_err(|e| bad(e.to_string()))?;
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(TlsFiles {
            cert: cert.clone(),
            key: key.clone(),
        }),
        _ => None,
    };
    Ok(ServeOptions {
        web,
        tls,
        ice,
        idle_timeout: Duration::from_secs(args.idle_timeout),
        handshake_timeout: Duration::from_secs(args.handshake_timeout),
        max_per_address: usize::try_from(args.max_per_address).unwrap_or(usize::MAX),
        drain_timeout: Duration::from_secs(args.drain_timeout),
        trust_forwarded: args.trust_forwarded,
    })
}

/// Resolves at the first SIGTERM or Ctrl-C; a second one exits at once.
#[cfg(not(target_arch = "wasm32"))]
async fn shutdown_signal() {
    one_signal().await;
    eprintln!("twinstar: draining (a second Ctrl-C or SIGTERM exits at once)");
    tokio::spawn(async {
        one_signal().await;
        eprintln!("twinstar: stopped without draining");
        std::process::exit(130);
    });
}

#[cfg(not(target_arch = "wasm32"))]
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
