//! `watch`: a spectator of the match in a room. Checks, connecting as a
//! spectator (`net::watch`), then the match through the same `Match` and
//! frontends as a player's, under the spectator backend.

#[cfg(not(target_arch = "wasm32"))]
use std::task::Poll;
use web_time::Duration;

use super::online::{connect_failure, runtime};
use super::{Failure, Report, record_path};
use crate::cli::{RunArgs, WatchArgs};
use crate::frontend::InputSource;
use crate::net::ice::IceServers;
use crate::net::room_code::RoomCode;
use crate::net::signaling::{DEFAULT_PORT, check_server_url};
use crate::net::watch::{WatchConnection, WatchConnector, WatchOptions};
use crate::replay::{Header, Writer};
use crate::session::{Driver, Match, Pacing};
use crate::settings::Settings;

/// A spectator's connection on its way, and how its match is recorded.
pub(super) struct WatchStart {
    pub connector: WatchConnector,
    pub run: RunArgs,
}

/// Checks the arguments (before any network activity) and starts
/// connecting.
pub(super) fn start_watch(args: &WatchArgs, settings: &Settings) -> Result<WatchStart, Failure> {
    let room = RoomCode::parse(&args.code)
        .map_err(|e| Failure::BadInput(format!("invalid room code '{}': {e}", args.code)))?;
    let ice = IceServers::from_flags(
        &args.stun,
        args.turn.as_deref(),
        args.turn_user.as_deref(),
        args.turn_pass.as_deref(),
    )
    .map_err(|e| Failure::BadInput(e.to_string()))?;
    let server = match (args.server.as_deref(), settings.server()) {
        (Some(url), _) | (None, Some(url)) => {
            check_server_url(url).map_err(|e| Failure::BadInput(e.to_string()))?
        }
        (None, None) => default_server()?,
    };
    let run = args.run_args();
    if !run.headless {
        crate::frontend::require_display()?;
    }
    eprintln!("twinstar: watching room {room} on {server}");
    let options = WatchOptions {
        server,
        room,
        ice,
        timeout: Duration::from_secs(args.timeout),
    };
    Ok(WatchStart {
        connector: WatchConnector::start(runtime()?, options),
        run,
    })
}

/// Natively the signaling server on this machine; the page's own server
/// in the browser.
fn default_server() -> Result<String, Failure> {
    #[cfg(target_arch = "wasm32")]
    {
        crate::web::page::page_server().ok_or_else(|| {
            Failure::BadInput("this page has no server address; pass --server".into())
        })
    }
    #[cfg(not(target_arch = "wasm32"))]
    Ok(format!("ws://127.0.0.1:{DEFAULT_PORT}"))
}

/// The driver of the watched match, recording if asked.
pub(super) fn start_driver(connection: WatchConnection, run: &RunArgs) -> Result<Driver, Failure> {
    let room = connection.room.to_string();
    let peer = connection.peer.to_string();
    let (seed, config) = (connection.seed, connection.config);
    let mut driver =
        Driver::watch(connection).map_err(|e| Failure::Runtime(e.to_string(), None))?;
    if let Some(path) = record_path(run, "watch", seed) {
        let mut header = Header::new("watch", seed, &config);
        header.room = Some(room);
        header.peers = vec![peer];
        let writer = Writer::create(&path, &header)
            .map_err(|e| Failure::BadInput(format!("cannot record to {}: {e}", path.display())))?;
        driver.record_to(writer);
    }
    Ok(driver)
}

/// The inputs a spectator's frontend hands in: ignored by its backend.
pub(super) fn idle_sources(run: &RunArgs) -> [InputSource; 2] {
    [0, 1].map(|player| InputSource::bot(run.bot_style, 0, player))
}

pub fn watch(args: &WatchArgs) -> Result<Report, Failure> {
    let settings = Settings::load_or_default();
    let start = start_watch(args, &settings)?;
    if start.run.headless {
        return watch_headless(start);
    }
    Err(Failure::BadInput(
        "watching in a window is not built yet; pass --headless".into(),
    ))
}

#[cfg(not(target_arch = "wasm32"))]
fn watch_headless(start: WatchStart) -> Result<Report, Failure> {
    let WatchStart { mut connector, run } = start;
    let mut last_stage = None;
    let connection = loop {
        if last_stage != Some(connector.stage()) {
            last_stage = Some(connector.stage());
            tracing::info!("{}", connector.stage());
        }
        match connector.poll() {
            Poll::Ready(result) => break result.map_err(connect_failure)?,
            Poll::Pending => std::thread::sleep(Duration::from_millis(2)),
        }
    };
    let driver = start_driver(connection, &run)?;
    let mut sources = idle_sources(&run);
    let game = Match::new(driver, Pacing::RealTime, None);
    let finished = crate::frontend::headless::run(game, &mut sources);
    super::finish(finished).map(|s| Report::Summary(Box::new(s)))
}

/// The browser cannot block: its event loop delivers the network.
#[cfg(target_arch = "wasm32")]
fn watch_headless(_start: WatchStart) -> Result<Report, Failure> {
    Err(Failure::BadInput(
        "watching in the browser needs its window; leave out --headless".into(),
    ))
}
