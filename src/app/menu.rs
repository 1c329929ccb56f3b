//! The main menu: one window from which a player hosts, joins, plays
//! locally, runs synctest, sees their records, watches replays and edits
//! settings. Every flow comes back here; errors are shown in words, with
//! the way back.

use std::path::{Path, PathBuf};

use super::join::JoinPick;
use super::online::{OnlineEnd, online_in_window, start_online};
use super::rooms::RoomPick;
use super::watch::{start_watch, watch_in_window};
use super::{Failure, Report, finish, local_sources, match_options, prepare_local};
use crate::cli::{ChatArgs, MenuArgs, NetArgs, RunArgs, WatchArgs, WindowArgs};
use crate::frontend::menu::{Picked, choose, message, settings_screen, text_prompt};
use crate::frontend::replay_view;
use crate::frontend::window::{self, MatchEnd, Screenshot, Ui};
use crate::platform::downloads;
use crate::replay::DEFAULT_DIR as REPLAY_DIR;
use crate::session::Match;
use crate::settings::Settings;
use crate::sim::FPS;
use twinstar_netcode::RoomCode;
use twinstar_netcode::connect::Role;
use twinstar_netcode::session::{Mode, Pacing};

/// The main menu: playing first, the online ways grouped, developer tools
/// only with `--dev`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item {
    Play,
    Local,
    Online,
    Daily,
    Leaderboard,
    Records,
    Replays,
    HowToPlay,
    Settings,
    Synctest,
    Quit,
}

impl Item {
    fn label(self) -> &'static str {
        match self {
            Item::Play => "Play",
            Item::Local => "Local co-op",
            Item::Online => "Online",
            Item::Daily => "Daily challenge",
            Item::Leaderboard => "Leaderboard",
            Item::Records => "Records",
            Item::Replays => "Replays",
            Item::HowToPlay => "How to play",
            Item::Settings => "Settings",
            Item::Synctest => "Synctest (developer)",
            Item::Quit => "Quit",
        }
    }
}

/// The main menu's items, in order (`dev`: with the developer tools).
fn items(dev: bool) -> Vec<Item> {
    use Item::*;
    let mut items = vec![
        Play,
        Local,
        Online,
        Daily,
        Leaderboard,
        Records,
        Replays,
        HowToPlay,
        Settings,
    ];
    if dev {
        items.push(Synctest);
    }
    items.push(Quit);
    items
}

/// The main menu's labels, in order, as it draws them (`dev`: with the
/// developer tools); docs/screenshots/menu.items is checked against them.
pub fn labels(dev: bool) -> Vec<String> {
    items(dev).iter().map(|i| i.label().to_string()).collect()
}

/// The Online submenu, in order.
const ONLINE: [&str; 5] = ["Host", "Join", "Quick match", "Rooms", "Watch a match"];

/// Replays listed, newest first.
const REPLAYS_LISTED: usize = 40;

pub fn menu(args: &MenuArgs) -> Result<Report, Failure> {
    let settings = Settings::load_or_default();
    let window_args = args.window.clone();
    let args = MenuArgs {
        window: args.window.clone(),
        dev: args.dev,
    };
    let capture = window_args.screenshot.clone().map(|path| Screenshot {
        path,
        after_frames: 2,
    });
    // Matches started here get --overlay; the screenshot is the menu's own.
    let for_matches = WindowArgs {
        overlay: window_args.overlay,
        ..WindowArgs::default()
    };
    super::windowed(
        "twinstar",
        move |mut ui| async move {
            ui.audio
                .set_volume(window_args.volume.unwrap_or(settings.volume));
            ui.audio
                .set_music_volume(super::music_volume(window_args.volume, &settings));
            shell(&mut ui, settings, capture, for_matches, args.dev).await
        },
        |ended| match ended {
            Some(Some(Err(e))) => Err(Failure::BadInput(e)),
            _ => Ok(Report::Printed),
        },
    )
}

/// The menu loop. Returns the screenshot's outcome when one was asked for.
async fn shell(
    ui: &mut Ui,
    mut settings: Settings,
    capture: Option<Screenshot>,
    for_matches: WindowArgs,
    dev: bool,
) -> Option<Result<(), String>> {
    let menu = items(dev);
    let labels = labels(dev);
    let mut selected = 0;
    tracing::info!("main menu: {}", labels.join(" | "));
    loop {
        let mut details = vec![
            "a co-op arena shooter with rollback netcode".to_string(),
            format!("twinstar {}", env!("CARGO_PKG_VERSION")),
        ];
        details.extend(records_lines(&crate::records::load()));
        let run = RunArgs::for_menu(for_matches.clone());
        let picked = choose(
            ui,
            "TWINSTAR",
            &details,
            &labels,
            selected,
            capture.as_ref(),
        )
        .await;
        let i = match picked {
            Picked::Captured(result) => return Some(result),
            Picked::Back => return None,
            // Nothing on the main menu has values to step through.
            Picked::Adjust(i, _) => {
                selected = i;
                continue;
            }
            Picked::Item(i) => i,
        };
        selected = i;
        match menu.get(i).copied().unwrap_or(Item::Quit) {
            Item::Play => play_solo(ui, &run, &settings).await,
            Item::Local => play_local(ui, Mode::Local, &run, &settings).await,
            Item::Online => online(ui, &run, &mut settings, &for_matches).await,
            Item::Daily => daily(ui, &run, &mut settings).await,
            Item::Leaderboard => {
                let server = rooms_server(&settings);
                super::leaderboard::leaderboard_screen(ui, &server).await
            }
            Item::Records => {
                tracing::info!("records");
                let records = crate::records::load();
                crate::frontend::records_screen::show(ui, &records, None).await;
            }
            Item::Replays => replays(ui).await,
            Item::HowToPlay => {
                tracing::info!("how to play");
                let lines = how_to_play(&settings);
                message(ui, "HOW TO PLAY", &lines, None).await;
            }
            Item::Settings => {
                if let Some(edited) = settings_screen(ui, &settings).await {
                    save_settings(ui, &edited).await;
                    crate::frontend::pads::configure(&edited);
                    crate::frontend::look::set((&edited).into());
                    settings = edited;
                    ui.audio.set_volume(settings.volume);
                    ui.audio.set_music_volume(settings.music_volume);
                }
            }
            Item::Synctest => {
                play_local(ui, Mode::SyncTest { check_distance: 7 }, &run, &settings).await
            }
            Item::Quit => return None,
        }
    }
}

/// The main menu's lines about this device's records: the default
/// preset's bests and the last run.
fn records_lines(records: &crate::records::Records) -> Vec<String> {
    let bests: Vec<String> = ["solo", "co-op", "online"]
        .into_iter()
        .filter_map(|mode| {
            let b = records.best(mode, "default")?;
            Some(format!("{mode} {} (wave {})", b.team_score, b.wave))
        })
        .collect();
    let mut out = Vec::new();
    if !bests.is_empty() {
        out.push(format!("your best: {}", bests.join(", ")));
    }
    if let Some(r) = records.runs.first() {
        out.push(format!(
            "last run: {} {} points, wave {}",
            r.mode, r.team_score, r.wave
        ));
    }
    out
}

/// The How to play screen's lines: the goal, each device's controls (the
/// controls card's words), and the rules two players need.
fn how_to_play(settings: &Settings) -> Vec<String> {
    use crate::frontend::controls_card::{Device, RULES, lines};
    let mut out = vec!["two ships, one team: survive the waves; a boss every fifth".to_string()];
    let [p1, _] = settings.keymaps();
    let devices = [
        ("KEYBOARD", Device::Keys(p1)),
        ("GAMEPAD", Device::Pad(settings.pad.map())),
        ("TOUCH", Device::Touch),
    ];
    for (name, device) in devices {
        let parts: Vec<String> = lines(device)
            .into_iter()
            .map(|(action, how)| {
                let how = how.split(" - ").next().unwrap_or_default().to_string();
                format!("{} {how}", action.to_lowercase())
            })
            .collect();
        out.push(format!("{name}: {}", parts.join(", ")));
    }
    out.extend(RULES.iter().map(|r| r.to_string()));
    out
}

/// The Online submenu: host, join, quick match, rooms, watch.
async fn online(ui: &mut Ui, run: &RunArgs, settings: &mut Settings, for_matches: &WindowArgs) {
    let labels: Vec<String> = ONLINE.iter().map(|s| s.to_string()).collect();
    let details = ["play with a friend by room code, or anyone".to_string()];
    tracing::info!("online menu");
    let Picked::Item(i) = choose(ui, "ONLINE", &details, &labels, 0, None).await else {
        return;
    };
    match i {
        0 => host(ui, run, settings).await,
        1 => join(ui, run, settings).await,
        2 => play_online(ui, Role::Quick, None, run, settings).await,
        3 => {
            let server = rooms_server(settings);
            match super::rooms::rooms_screen(ui, &server).await {
                RoomPick::Join(code) => {
                    play_online(ui, Role::Join, Some(&code), run, settings).await
                }
                RoomPick::Watch(code) => watch(ui, &code, for_matches, settings).await,
                RoomPick::Host => host(ui, run, settings).await,
                RoomPick::Quick => play_online(ui, Role::Quick, None, run, settings).await,
                RoomPick::Back => {}
            }
        }
        _ => {
            let check = |t: &str| RoomCode::parse(t).map(|_| ()).map_err(|e| e.to_string());
            let hint = "the room's code, e.g. K7Q-2XM: watch its match as a spectator";
            if let Some(code) = text_prompt(ui, "WATCH", hint, "", check).await {
                watch(ui, &code, for_matches, settings).await;
            }
        }
    }
}

/// The server whose rooms the Rooms screen lists (and whose boards the
/// Leaderboard screen shows): the settings', else the
/// one built in, else the page's own (browser) or this machine's.
fn rooms_server(settings: &Settings) -> String {
    if let Some(server) = settings.server() {
        return server.trim_end_matches('/').to_owned();
    }
    super::servers::built_in_server()
        .ok()
        .flatten()
        .or_else(crate::platform::net::default_server)
        .unwrap_or_else(|| {
            format!(
                "ws://127.0.0.1:{}",
                twinstar_netcode::signaling::DEFAULT_PORT
            )
        })
}

async fn save_settings(ui: &mut Ui, settings: &Settings) {
    if let Err(e) = settings.keep() {
        message(ui, "NOT SAVED", &[e], None).await;
    }
}

/// Join: a LAN game picked (a private one's code asked for), or a code
/// typed for the usual server.
async fn join(ui: &mut Ui, run: &RunArgs, settings: &mut Settings) {
    let check = |t: &str| RoomCode::parse(t).map(|_| ()).map_err(|e| e.to_string());
    let hint = "the code the host sees, e.g. K7Q-2XM (case and dashes do not matter)";
    let (server, code) = match super::join::join_screen(ui).await {
        JoinPick::Back => return,
        JoinPick::Code => match text_prompt(ui, "JOIN", hint, "", check).await {
            Some(code) => (None, code),
            None => return,
        },
        JoinPick::Lan(game) => match game.room {
            Some(room) => (Some(game.server), room.to_string()),
            None => match text_prompt(ui, "JOIN", hint, "", check).await {
                Some(code) => (Some(game.server), code),
                None => return,
            },
        },
    };
    let net = NetArgs {
        server,
        name: settings.name(),
        ..NetArgs::default()
    };
    play_online_with(ui, Role::Join, Some(&code), &net, run, settings).await;
}

/// Shows a failure to the player and returns to the menu.
async fn show_failure(ui: &mut Ui, title: &str, failure: &Failure) {
    let text = match failure {
        Failure::BadInput(m) | Failure::Runtime(m, _) => m.clone(),
    };
    tracing::warn!("{title}: {text}");
    message(ui, title, &[text], None).await;
}

/// Play: a local match with the human-like bot as player 2.
async fn play_solo(ui: &mut Ui, run: &RunArgs, settings: &Settings) {
    let run = RunArgs {
        bot: true,
        bot_style: crate::input::BotStyle::Human,
        ..run.clone()
    };
    play_local(ui, Mode::Local, &run, settings).await;
}

async fn play_local(ui: &mut Ui, mode: Mode, run: &RunArgs, settings: &Settings) {
    let driver = match prepare_local(run, mode, None) {
        Ok(d) => d,
        Err(f) => return show_failure(ui, "CANNOT START", &f).await,
    };
    let sources = local_sources(run, mode, driver.options().seed, settings.keymaps());
    let options = match_options(run, &driver, &sources, settings, "back to the menu");
    let game = Match::new(driver, Pacing::RealTime, run.frames);
    let end = window::play_match(ui, game, sources, options).await;
    // A local match is no online level.
    let _ = after_match(ui, end).await;
}

/// Hosting from the menu: a private room (share the code) or a public one
/// (listed in Rooms, under the player's name: asked for the first time and
/// kept in the settings).
async fn host(ui: &mut Ui, run: &RunArgs, settings: &mut Settings) {
    let kinds = [
        "Private room: share the code".to_string(),
        "Public room: listed in Rooms".to_string(),
    ];
    let details = ["who can join?".to_string()];
    let public = match choose(ui, "HOST", &details, &kinds, 0, None).await {
        Picked::Item(0) => false,
        Picked::Item(_) => true,
        _ => return,
    };
    let mut net = NetArgs::default();
    if public {
        let name = match settings.name() {
            Some(name) => name,
            None => {
                let Some(name) = crate::frontend::menu::name_prompt(ui, "").await else {
                    return;
                };
                settings.name = name.to_string();
                save_settings(ui, settings).await;
                name
            }
        };
        net.name = Some(name);
        net.public = true;
    }
    play_online_with(ui, Role::Host, None, &net, run, settings).await;
}

/// Today's daily challenge: host it, or quick-match with another player
/// who wants it (`--daily`).
async fn daily(ui: &mut Ui, run: &RunArgs, settings: &mut Settings) {
    let day = super::daily::Day::today();
    let kinds = [
        "Host today's challenge: share the code".to_string(),
        "Quick match with another player on it".to_string(),
    ];
    let details = [
        format!("{} (UTC): the same seed for every player today", day.text()),
        "ranked on the server's daily board".to_string(),
    ];
    let role = match choose(ui, "DAILY CHALLENGE", &details, &kinds, 0, None).await {
        Picked::Item(0) => Role::Host,
        Picked::Item(_) => Role::Quick,
        _ => return,
    };
    let net = NetArgs {
        name: settings.name(),
        daily: true,
        ..NetArgs::default()
    };
    play_online_with(ui, role, None, &net, run, settings).await;
}

async fn play_online(
    ui: &mut Ui,
    role: Role,
    code: Option<&str>,
    run: &RunArgs,
    settings: &mut Settings,
) {
    let net = NetArgs {
        name: settings.name(),
        ..NetArgs::default()
    };
    play_online_with(ui, role, code, &net, run, settings).await;
}

async fn play_online_with(
    ui: &mut Ui,
    role: Role,
    code: Option<&str>,
    net: &NetArgs,
    run: &RunArgs,
    settings: &mut Settings,
) {
    let net = NetArgs {
        level: Some(settings.best_wave),
        ..net.clone()
    };
    let start = match start_online(role, code, &net, run, settings) {
        Ok(s) => s,
        Err(f) => return show_failure(ui, "CANNOT CONNECT", &f).await,
    };
    match online_in_window(ui, start, run, settings, "back to the menu").await {
        OnlineEnd::Played(end) => {
            if let Some(wave) = after_match(ui, *end).await
                && wave > settings.best_wave
            {
                // The level of this player's next quick-match tickets.
                settings.best_wave = wave;
                save_settings(ui, settings).await;
            }
        }
        // Esc on the waiting screen: straight back, no error box.
        OnlineEnd::Cancelled | OnlineEnd::Captured(_) => {}
        OnlineEnd::Failed(f) => show_failure(ui, "COULD NOT CONNECT", &f).await,
    }
}

/// Watches the match in room `code` (the server from the settings).
async fn watch(ui: &mut Ui, code: &str, window: &WindowArgs, settings: &Settings) {
    let args = WatchArgs {
        code: code.to_string(),
        server: None,
        stun: Vec::new(),
        turn: None,
        turn_user: None,
        turn_pass: None,
        name: settings.name(),
        timeout: 120,
        headless: false,
        json: false,
        record: None,
        no_record: false,
        debug_protocol_skew: 0,
        chat: ChatArgs::default(),
        window: window.clone(),
    };
    let start = match start_watch(&args, settings) {
        Ok(s) => s,
        Err(f) => return show_failure(ui, "CANNOT WATCH", &f).await,
    };
    match watch_in_window(ui, start, settings, "back to the menu").await {
        OnlineEnd::Played(end) => {
            let _ = after_match(ui, *end).await;
        }
        OnlineEnd::Cancelled | OnlineEnd::Captured(_) => {}
        OnlineEnd::Failed(f) => show_failure(ui, "COULD NOT WATCH", &f).await,
    }
}

/// Says how the match ended when it was not the player's own choice.
/// Says how a match ended; the wave it reached, if it was played out.
async fn after_match(ui: &mut Ui, end: MatchEnd) -> Option<u32> {
    let result = finish(end.finished);
    match result {
        Ok(summary) => {
            tracing::info!(
                "match over: {} frames, team score {}, replay {:?}",
                summary.frames,
                summary.shared_score,
                summary.replay
            );
            // Where the replay sent to be ranked ranked, and its link,
            // were on the result panel (`upload::Uploader::upload_in_window`).
            if let Some(report) = &end.upload {
                tracing::info!("upload: {}", report.lines().join("; "));
            }
            Some(summary.wave)
        }
        Err(failure) => {
            let (text, summary) = match &failure {
                Failure::BadInput(m) => (m.clone(), None),
                Failure::Runtime(m, summary) => (m.clone(), summary.as_deref()),
            };
            let mut lines = vec![text];
            if let Some(s) = summary {
                // A desync explains itself: the first fields that differed.
                if let Some(fields) = s.desync_fields.as_ref().filter(|f| !f.is_empty()) {
                    lines.push(format!("differs: {}", fields.join(", ")));
                }
                lines.extend(s.desync_report.as_ref().map(|p| format!("report: {p}")));
                lines.extend(s.replay.as_ref().map(|p| format!("replay saved as {p}")));
            }
            message(ui, "MATCH ENDED", &lines, None).await;
            None
        }
    }
}

/// A replay file in the list.
struct Entry {
    path: PathBuf,
    label: String,
}

fn list_replays(dir: &Path) -> Vec<Entry> {
    crate::platform::files::newest_first(dir, "tsr")
        .into_iter()
        .take(REPLAYS_LISTED)
        .map(|path| {
            let label = match crate::replay::read(&path) {
                Ok(r) => {
                    let secs = r.frames() / FPS;
                    let started = humantime::format_rfc3339_seconds(
                        std::time::UNIX_EPOCH
                            + web_time::Duration::from_millis(r.header.start_unix_ms),
                    )
                    .to_string()
                    .replace('T', " ")
                    .trim_end_matches('Z')
                    .to_string();
                    format!(
                        "{started}  {:<8} {:>3}:{:02}",
                        r.header.mode,
                        secs / 60,
                        secs % 60
                    )
                }
                Err(_) => format!(
                    "{}  (unreadable)",
                    path.file_name().unwrap_or_default().to_string_lossy()
                ),
            };
            Entry { path, label }
        })
        .collect()
}

async fn replays(ui: &mut Ui) {
    let mut selected = 0;
    // In the browser: "Open a .tsr file..." first; replays are kept for
    // as long as the page is open, and the arrow keys download one.
    loop {
        let entries = list_replays(Path::new(REPLAY_DIR));
        let open_file: &[&str] = if downloads::IN_PAGE {
            &["Open a .tsr file..."]
        } else {
            &[]
        };
        let labels: Vec<String> = (open_file.iter().map(|s| s.to_string()))
            .chain(entries.iter().map(|e| e.label.clone()))
            .collect();
        let details = if downloads::IN_PAGE {
            vec![format!(
                "{} kept while this page is open, newest first; Enter watches, Right downloads",
                entries.len()
            )]
        } else {
            vec![format!(
                "{} in {REPLAY_DIR}/, newest first (date UTC, mode, length)",
                entries.len()
            )]
        };
        let first = open_file.len();
        match choose(ui, "REPLAYS", &details, &labels, selected, None).await {
            Picked::Item(0) if downloads::IN_PAGE => {
                downloads::pick_file(Path::new(REPLAY_DIR), ".tsr");
            }
            Picked::Adjust(i, _) if downloads::IN_PAGE && i >= first => {
                selected = i;
                if let Err(e) = downloads::download(&entries[i - first].path) {
                    show_failure(ui, "CANNOT DOWNLOAD", &Failure::Runtime(e, None)).await;
                }
            }
            Picked::Item(i) => {
                selected = i;
                let path = &entries[i - first].path;
                match crate::replay::read(path) {
                    Ok(replay) => {
                        let name = path
                            .file_name()
                            .unwrap_or_default()
                            .to_string_lossy()
                            .to_string();
                        replay_view::view(ui, replay, &name, None).await;
                    }
                    Err(e) => {
                        let f = Failure::BadInput(format!("{}: {e}", path.display()));
                        show_failure(ui, "CANNOT PLAY THIS REPLAY", &f).await;
                    }
                }
            }
            Picked::Adjust(i, _) => selected = i,
            Picked::Back | Picked::Captured(_) => return,
        }
    }
}
