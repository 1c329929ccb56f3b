//! `watch`: a spectator of the match in a room. Checks, connecting as a
//! spectator (`net::watch`), then the match through the same `Match` and
//! frontends as a player's, under the spectator backend.

use web_time::Duration;

use super::online::{OnlineEnd, runtime, wait_in_window, window_report};
use super::{Failure, Report, match_options, record_path};
use crate::cli::{RunArgs, WatchArgs};
use crate::frontend::InputSource;
use crate::frontend::hud::MatchInfo;
use crate::frontend::window::{self, MatchOptions, Ui, Waiting};
use crate::game::{SpectatorConnector, WatchConnection};
use twinstar_netcode::RoomCode;
use twinstar_netcode::connect::Connector;
use twinstar_netcode::connect::WatchOptions;
use twinstar_netcode::signaling::check_server_url;

use crate::session::{Driver, Match};
use crate::settings::Settings;
use twinstar_netcode::session::{Pacing, SpectatorOptions};

/// A spectator's connection on its way, how its match is recorded, and
/// its part in the chat.
pub(super) struct WatchStart {
    pub connector: SpectatorConnector,
    pub run: RunArgs,
    pub spectator: SpectatorOptions,
    /// Room chat shown, and Enter opens the prompt.
    pub chat: bool,
}

/// What the spectator says, and the chat flood its tests may ask for.
fn spectator_options(args: &WatchArgs) -> SpectatorOptions {
    let mut options = SpectatorOptions::default();
    options.say = args.chat.lines();
    twinstar_netcode::testing::flood_chat(&mut options, args.chat.debug_chat_flood);
    options
}

/// Checks the arguments (before any network activity) and starts
/// connecting.
pub(super) fn start_watch(args: &WatchArgs, settings: &Settings) -> Result<WatchStart, Failure> {
    let room = RoomCode::parse(&args.code)
        .map_err(|e| Failure::BadInput(format!("invalid room code '{}': {e}", args.code)))?;
    let ice = super::servers::ice_from_flags(
        &args.stun,
        args.turn.as_deref(),
        args.turn_user.as_deref(),
        args.turn_pass.as_deref(),
    )?;
    let server = match (args.server.as_deref(), settings.server()) {
        (Some(url), _) | (None, Some(url)) => {
            check_server_url(url).map_err(|e| Failure::BadInput(e.to_string()))?
        }
        (None, None) => default_server()?,
    };
    args.chat.check().map_err(Failure::BadInput)?;
    let run = args.run_args();
    if !run.headless {
        crate::frontend::require_display()?;
    }
    eprintln!("twinstar: watching room {room} on {server}");
    let ice = super::servers::ice_servers(&server, ice, &args.stun, args.turn.as_deref());
    let mut options = WatchOptions::new(crate::game::GAME, &server, room);
    options.ice = ice;
    options.timeout = Duration::from_secs(args.timeout);
    options.name = args.name.clone();
    twinstar_netcode::testing::skew_protocol(&mut options, args.debug_protocol_skew);
    Ok(WatchStart {
        connector: Connector::start(runtime()?, options),
        run,
        spectator: spectator_options(args),
        chat: args.chat.shown(settings.chat),
    })
}

/// The server this binary was built for, else the platform's default (this
/// machine natively, the page's own server in the browser; only a page
/// that does not say has none).
fn default_server() -> Result<String, Failure> {
    super::servers::built_in_server()?
        .or_else(crate::platform::net::default_server)
        .ok_or_else(|| Failure::BadInput("this page has no server address; pass --server".into()))
}

/// The driver of the watched match, recording if asked.
pub(super) fn start_driver(
    connection: WatchConnection,
    run: &RunArgs,
    spectator: SpectatorOptions,
) -> Result<Driver, Failure> {
    let seed = connection.seed();
    let mut driver =
        Driver::watch(connection, spectator).map_err(|e| Failure::Runtime(e.to_string(), None))?;
    if let Some(path) = record_path(run, "watch", seed) {
        driver
            .record_to_file(&path)
            .map_err(|e| Failure::BadInput(format!("cannot record to {}: {e}", path.display())))?;
    }
    Ok(driver)
}

/// The inputs a spectator's frontend hands in: ignored by its backend.
pub(super) fn idle_sources(run: &RunArgs) -> [InputSource; 2] {
    [0, 1].map(|player| InputSource::bot(run.bot_style, 0, player))
}

/// The waiting screen, then the match, inside an open window.
pub(super) async fn watch_in_window(
    ui: &mut Ui,
    start: WatchStart,
    settings: &Settings,
    escape_does: &'static str,
) -> OnlineEnd {
    let WatchStart {
        connector,
        run,
        spectator,
        chat,
    } = start;
    let waiting = Waiting {
        title: "WATCHING A MATCH",
        share: None,
    };
    let connection = match wait_in_window(ui, connector, waiting, None).await {
        Ok(connection) => connection,
        Err(end) => return end,
    };
    match start_driver(connection, &run, spectator) {
        Err(f) => OnlineEnd::Failed(f),
        Ok(driver) => {
            let sources = idle_sources(&run);
            let options = match_options(&run, &driver, &sources, settings, escape_does);
            let options = MatchOptions {
                // A spectator holds no start key.
                info: MatchInfo {
                    start_keys: [None, None],
                    ..options.info
                },
                chat,
                // Nothing to control while watching.
                first_match: false,
                ..options
            };
            let game = Match::new(driver, Pacing::RealTime, None);
            OnlineEnd::Played(Box::new(
                window::play_match(ui, game, sources, options).await,
            ))
        }
    }
}

pub fn watch(args: &WatchArgs) -> Result<Report, Failure> {
    let settings = Settings::load_or_default();
    let start = start_watch(args, &settings)?;
    if start.run.headless {
        return watch_headless(start);
    }
    let volume = args.window.volume.unwrap_or(settings.volume);
    let music_volume = super::music_volume(args.window.volume, &settings);
    super::windowed(
        "twinstar - watch",
        move |mut ui| async move {
            ui.audio.set_volume(volume);
            ui.audio.set_music_volume(music_volume);
            watch_in_window(&mut ui, start, &settings, "quit").await
        },
        window_report,
    )
}

/// A match watched with no window, blocking (the page cannot block:
/// `connect_blocking` refuses there).
fn watch_headless(start: WatchStart) -> Result<Report, Failure> {
    let WatchStart {
        connector,
        run,
        spectator,
        ..
    } = start;
    let connection = super::connect_blocking(connector, "watching")?;
    let driver = start_driver(connection, &run, spectator)?;
    let mut sources = idle_sources(&run);
    let game = Match::new(driver, Pacing::RealTime, None);
    let finished = crate::frontend::headless::run(game, &mut sources);
    super::finish(finished).map(|s| Report::Summary(Box::new(s)))
}
