//! `serve`, `host` and `join`: argument checks (all before any connection),
//! the signaling server, connecting, and the online match.

use web_time::Duration;

use super::daily::{self, Day};
use super::lan;
use super::upload::Uploader;
use super::{
    Failure, Report, connect_failure, finish_window, match_options, random_seed, record_path,
};
use crate::cli::{NetArgs, RunArgs};
use crate::frontend::InputSource;
use crate::frontend::window::{
    self, ConnectOutcome, MatchEnd, MatchOptions, Screenshot, Share, Ui, Waiting,
};
use crate::game::{Connection, PlayerConnector};
use crate::input::KeyMap;
use crate::platform::NoLocalServer;
use crate::platform::lan::Announcement;
use crate::platform::net as platform;
use crate::platform::records::Store;
use twinstar_netcode::RoomCode;
use twinstar_netcode::connect::DelaySetting;
use twinstar_netcode::connect::IceServers;
use twinstar_netcode::connect::NetRuntime;
use twinstar_netcode::connect::Role;
use twinstar_netcode::connect::{ConnectError, ConnectOptions, Connector, Lobby, Seat};
use twinstar_netcode::connect::{LinkConfig, LinkTrace};
use twinstar_netcode::signaling::{VersionTag, browser_link, check_server_url};
use twinstar_netcode::{testing, tickets};

use crate::session::Driver;
use crate::session::Match;
use crate::settings::Settings;
use crate::sim::Frame;
use crate::sim::SimConfig;
use twinstar_netcode::session::OnlineOptions;
use twinstar_netcode::session::Pacing;

/// Frames a headless online match plays when `--frames` is not given.
const DEFAULT_ONLINE_FRAMES: u32 = 3600;

pub(super) fn runtime() -> Result<NetRuntime, Failure> {
    NetRuntime::new()
        .map_err(|e| Failure::Runtime(format!("cannot start the network runtime: {e}"), None))
}

/// Everything `host`/`join` need, checked before any network activity.
struct Plan {
    room: Option<RoomCode>,
    role: Role,
    ice: IceServers,
    link: LinkConfig,
    seed: u64,
    preset: String,
    timeout: Duration,
    /// A daily-challenge quick match: pair only with the same day's.
    challenge: Option<VersionTag>,
}

fn plan(role: Role, code: Option<&str>, net: &NetArgs, run: &RunArgs) -> Result<Plan, Failure> {
    if net.public && role != Role::Host {
        return Err(Failure::BadInput(
            "--public lists a host's room; it is for twinstar host".into(),
        ));
    }
    let parse = |s: &str| {
        RoomCode::parse(s).map_err(|e| Failure::BadInput(format!("invalid room code '{s}': {e}")))
    };
    let (room, role) = match (role, code) {
        (Role::Host, Some(code)) => (Some(parse(code)?), Role::Host),
        (Role::Host, None) => (Some(RoomCode::generate()), Role::Host),
        (_, Some(code)) => (Some(parse(code)?), Role::Join),
        (_, None) => (None, Role::Quick),
    };
    let ice = super::servers::ice_from_flags(
        &net.stun,
        net.turn.as_deref(),
        net.turn_user.as_deref(),
        net.turn_pass.as_deref(),
    )?;
    let link = LinkConfig {
        latency_ms: net.sim_latency,
        jitter_ms: net.sim_jitter,
        loss_pct: net.sim_loss,
        loss_burst: net.sim_loss_burst,
        dup_pct: net.sim_dup,
        outage: net.sim_outage,
        trace: net.link_trace.as_deref().map(read_link_trace).transpose()?,
    };
    link.validate()
        .map_err(|e| Failure::BadInput(format!("simulated link: {e}")))?;
    if let Some(path) = &net.record_link {
        // Refused now rather than after the match it was to record.
        std::fs::File::create(path)
            .map_err(|e| Failure::BadInput(format!("--record-link {}: {e}", path.display())))?;
    }
    net.chat.check().map_err(Failure::BadInput)?;
    SimConfig::from_preset_name(&run.preset).map_err(|e| Failure::BadInput(e.to_string()))?;
    if run.start_wave.is_some() {
        return Err(Failure::BadInput(
            "--start-wave is for local matches: online matches play a preset".into(),
        ));
    }
    let daily = daily_challenge(role, net, run)?;
    if let Some(server) = &net.server {
        check_server_url(server).map_err(|e| Failure::BadInput(e.to_string()))?;
    }
    if !run.headless {
        crate::frontend::require_display()?;
    }
    let default_timeout = if role == Role::Host { 600 } else { 20 };
    Ok(Plan {
        room,
        role,
        ice,
        link,
        seed: (daily.map(Day::seed).or(run.seed)).unwrap_or_else(random_seed),
        preset: run.preset.clone(),
        timeout: Duration::from_secs(net.timeout.unwrap_or(default_timeout)),
        challenge: daily.filter(|_| role == Role::Quick).map(Day::challenge),
    })
}

/// Largest `--link-trace` file read: ten hours of samples is ~8 MB.
const MAX_LINK_TRACE_BYTES: u64 = 16 << 20;

/// `--link-trace FILE`, read and checked (exit 2 with one line if not).
fn read_link_trace(path: &std::path::Path) -> Result<LinkTrace, Failure> {
    let bad = |why: String| Failure::BadInput(format!("--link-trace {}: {why}", path.display()));
    let file = std::fs::File::open(path).map_err(|e| bad(e.to_string()))?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, MAX_LINK_TRACE_BYTES + 1),
        &mut bytes,
    )
    .map_err(|e| bad(e.to_string()))?;
    if bytes.len() as u64 > MAX_LINK_TRACE_BYTES {
        return Err(bad(format!(
            "larger than {} MB: not a link trace",
            MAX_LINK_TRACE_BYTES >> 20
        )));
    }
    let text = String::from_utf8(bytes).map_err(|_| bad("not UTF-8 text".into()))?;
    LinkTrace::parse(&text).map_err(|e| bad(e.to_string()))
}

/// `--record-link FILE`: the link this peer saw, with the match's figures
/// in its header (what a replay of the trace is compared with).
fn write_link_trace(path: &std::path::Path, driver: &Driver, net: &NetArgs) {
    let Some(mut trace) = driver.link_trace() else {
        eprintln!(
            "twinstar: --record-link {}: nothing to record (the match never ran)",
            path.display()
        );
        return;
    };
    let summary = driver.match_summary();
    trace.set_meta("recorded_by", summary.mode.clone());
    trace.set_meta("twinstar", env!("CARGO_PKG_VERSION"));
    if let Some(sim) = sim_flags(net) {
        trace.set_meta("sim_flags", sim);
    }
    trace.set_meta("seed", summary.seed.to_string());
    // The ICE path the match took (host, srflx, relay...), as the summary's
    // `connection` says: loopback and a NATed path differ in what the
    // game loop adds to the round trip.
    trace.set_meta("connection", summary.connection.clone());
    if let Some(delay) = net.input_delay {
        trace.set_meta("input_delay_flag", delay.to_string());
    }
    trace.set_meta("frames", summary.frames.to_string());
    trace.set_meta("rollback_frames", summary.rollback_frames.to_string());
    let per_frame = summary.rollback_frames as f64 / f64::from(summary.frames.max(1));
    trace.set_meta("rollback_per_frame", format!("{per_frame:.3}"));
    if let Some(stalled) = summary.stalled_frames {
        trace.set_meta("stalled_frames", stalled.to_string());
    }
    if let Some(delay) = summary.mean_input_delay {
        trace.set_meta("mean_input_delay", format!("{delay:.2}"));
    }
    if let Some(loss) = summary.loss_pct {
        trace.set_meta("loss_pct", format!("{loss:.2}"));
    }
    match std::fs::write(path, trace.to_text()) {
        Ok(()) => eprintln!(
            "twinstar: link recorded to {} ({} samples of {} ms)",
            path.display(),
            trace.samples().len(),
            twinstar_netcode::connect::LINK_TRACE_SAMPLE_MS
        ),
        Err(e) => eprintln!("twinstar: --record-link {}: {e}", path.display()),
    }
}

/// The `--sim-*` flags this peer was given, as a command line's words.
fn sim_flags(net: &NetArgs) -> Option<String> {
    let mut words = Vec::new();
    for (flag, value, default) in [
        ("--sim-latency", net.sim_latency, 0.0),
        ("--sim-jitter", net.sim_jitter, 0.0),
        ("--sim-loss", net.sim_loss, 0.0),
        ("--sim-loss-burst", net.sim_loss_burst, 1.0),
        ("--sim-dup", net.sim_dup, 0.0),
    ] {
        if value != default {
            words.push(format!("{flag} {value}"));
        }
    }
    if let Some(o) = net.sim_outage {
        words.push(format!(
            "--sim-outage {}:{}",
            o.after.as_secs_f64(),
            o.length.as_secs_f64()
        ));
    }
    (!words.is_empty()).then(|| words.join(" "))
}

/// `--daily`: today's challenge, for a host or a quick match (in someone
/// else's room the host's match is played), on its own seed and preset.
fn daily_challenge(role: Role, net: &NetArgs, run: &RunArgs) -> Result<Option<Day>, Failure> {
    if !net.daily {
        return Ok(None);
    }
    let refuse = |why: &str| Err(Failure::BadInput(format!("--daily: {why}")));
    if role == Role::Join {
        return refuse(
            "a room's host picks its match; use it with twinstar host, or join without a code for a quick match",
        );
    }
    if run.seed.is_some() {
        return refuse("the challenge is the day's seed; leave out --seed");
    }
    if run.preset != daily::PRESET {
        return refuse(&format!(
            "the challenge plays the {} preset; leave out --preset",
            daily::PRESET
        ));
    }
    let today = Day::today();
    eprintln!("twinstar: today's daily challenge ({})", today.text());
    Ok(Some(today))
}

/// The signaling server to use: `--server`, else the one built in, else
/// the platform's local one (this machine's, started in-process for a
/// host when nothing answers there; the page's own in the browser); and
/// whether a browser can play there (false only for a server started here
/// without a web client; of another, we cannot know and assume it can).
fn signaling_server(
    role: Role,
    net: &NetArgs,
    runtime: &NetRuntime,
) -> Result<(String, bool), Failure> {
    if let Some(url) = &net.server {
        return Ok((url.trim_end_matches('/').to_string(), true));
    }
    if let Some(url) = super::servers::built_in_server()? {
        return Ok((url, true));
    }
    platform::local_server(role == Role::Host, runtime).map_err(|e| match e {
        NoLocalServer::Unnamed => {
            Failure::BadInput("this page has no server address; pass --server".into())
        }
        NoLocalServer::StartFailed(why) => Failure::Runtime(why, None),
    })
}

/// A connection on its way (its connector runs in the background) and
/// how the match will run once it is made.
pub(super) struct OnlineStart {
    pub connector: PlayerConnector,
    pub options: OnlineOptions,
    /// The match ends once this frame is confirmed on both sides.
    pub frames: Option<Frame>,
    pub hosting: bool,
    pub title: String,
    /// What to tell the other player.
    pub share: Share,
    /// Show the other player's chat lines and open the prompt on Enter
    /// (`--no-chat` and the settings' `chat` turn it off).
    pub chat: bool,
    /// A host's LAN announcement, withdrawn once the room is full.
    pub lan: Option<Announcement>,
    /// The server the replay is sent to be ranked at, when uploading is on
    /// (whether this side sends is decided once the seats are known).
    pub upload_to: Option<String>,
    /// `--record-link`: where the link's trace goes, and the flags it names.
    pub record_link: Option<(std::path::PathBuf, NetArgs)>,
}

/// Checks everything, picks (or starts) the signaling server and starts
/// connecting. Settings fill in what the flags leave out.
pub(super) fn start_online(
    role: Role,
    code: Option<&str>,
    net: &NetArgs,
    run: &RunArgs,
    settings: &Settings,
) -> Result<OnlineStart, Failure> {
    // Quick match prefers a public LAN game of this version.
    if role != Role::Host
        && code.is_none()
        && net.server.is_none()
        && let Ok(Some((server, room))) = lan::find(None, lan::QUICK_LOOKS_FOR)
    {
        eprintln!("twinstar: quick match found a LAN game: room {room} on {server}");
        let net = NetArgs {
            server: Some(server),
            ..net.clone()
        };
        return start_online(Role::Join, Some(&room.to_string()), &net, run, settings);
    }
    let plan = plan(role, code, net, run)?;
    let runtime = runtime()?;
    let (server, browsers) = match (&net.server, settings.server()) {
        (None, Some(saved)) => {
            check_server_url(saved).map_err(|e| Failure::BadInput(e.to_string()))?;
            (saved.trim_end_matches('/').to_string(), true)
        }
        _ => signaling_server(plan.role, net, &runtime)?,
    };
    let share_server = platform::shared_url(&server);
    let delay = match net.input_delay {
        Some(delay) => delay,
        None => settings.delay(),
    };
    // The room's link for a player with a browser (see browser_link).
    let share_link = browser_link(&share_server, plan.room.as_ref())
        .filter(|_| browsers && plan.role == Role::Host && plan.room.is_some());
    announce(&plan, &server, net.server.is_some(), share_link.as_deref());
    let lan = match (&plan.room, plan.role) {
        (Some(room), Role::Host) => announce_on_lan(&server, room, net),
        _ => None,
    };
    let role = plan.role;
    let upload_to = (settings.upload && !net.no_upload).then(|| server.clone());
    let options = connect_options(plan, net, &server, delay);
    // The settings file is not range-checked like the flag: clamp it here.
    let reconnect_window = net
        .reconnect_window
        .unwrap_or(settings.reconnect_window.min(600));
    let mut online_options = OnlineOptions::default();
    online_options.delay = delay;
    online_options.reconnect_window = Duration::from_secs(reconnect_window.into());
    online_options.say = net.chat.lines();
    online_options.record_link = net.record_link.is_some();
    // The hidden debug flags the tests drive.
    testing::send_garbage(&mut online_options, net.debug_garbage);
    testing::flood_chat(&mut online_options, net.chat.debug_chat_flood);
    if let Some(from) = net.inject_desync {
        testing::inject_desync_online(&mut online_options, from);
    }
    Ok(OnlineStart {
        share: Share {
            server: share_server,
            link: share_link,
        },
        connector: Connector::start(runtime, options),
        options: online_options,
        frames: run.frames.or(run.headless.then_some(DEFAULT_ONLINE_FRAMES)),
        hosting: role == Role::Host,
        chat: net.chat.shown(settings.chat),
        title: format!("twinstar - {}", role.name()),
        lan,
        upload_to,
        record_link: net.record_link.clone().map(|path| (path, net.clone())),
    })
}

/// A host on a server of this machine (its own LAN server) announces the
/// room on the LAN; one on another machine's server announces nothing.
fn announce_on_lan(server: &str, room: &RoomCode, net: &NetArgs) -> Option<Announcement> {
    let port: u16 = server.strip_prefix("ws://127.0.0.1:")?.parse().ok()?;
    let txt = lan::txt(net.name.as_ref(), room, net.public);
    match crate::platform::lan::announce(&txt, port) {
        Ok(Some(announcement)) => {
            eprintln!(
                "twinstar: announced on the LAN ({}); the other player picks it in Join, or runs: twinstar join{} --lan",
                if net.public {
                    "public"
                } else {
                    "private: without its code"
                },
                if net.public {
                    String::new()
                } else {
                    format!(" {room}")
                }
            );
            Some(announcement)
        }
        Ok(None) => None,
        Err(e) => {
            eprintln!("twinstar: not announced on the LAN: {e}");
            None
        }
    }
}

/// Tells the player where it connects: a host its room code and how the
/// other player gets in.
fn announce(plan: &Plan, server: &str, server_given: bool, share_link: Option<&str>) {
    match (&plan.room, plan.role) {
        (Some(room), Role::Host) => eprintln!(
            "twinstar: room code {room}; the other player runs: twinstar join {room}{}{}",
            if server_given {
                format!(" --server {server}")
            } else {
                String::new()
            },
            match share_link {
                Some(link) => format!(", or opens {link}"),
                None => String::new(),
            }
        ),
        (Some(room), _) => eprintln!("twinstar: joining room {room} on {server}"),
        (None, _) => eprintln!("twinstar: quick match on {server}: waiting for another player"),
    }
}

/// What the connector is started with. In a room, this machine's rejoin
/// tickets there give the claims and the seat token (a match it left
/// without ending it, a power loss); else the seat is a fresh one.
fn connect_options(plan: Plan, net: &NetArgs, server: &str, delay: DelaySetting) -> ConnectOptions {
    let mut options =
        ConnectOptions::new(crate::game::GAME, server, plan.room, plan.role, plan.seed);
    options.offer.preset = plan.preset;
    options.offer.delay = delay;
    options.lobby = Lobby {
        name: net.name.clone(),
        public: net.public,
        level: net.level,
        rtt_ms: quick_round_trip(plan.role, server),
        challenge: plan.challenge,
    };
    options.ice = super::servers::ice_servers(server, plan.ice, &net.stun, net.turn.as_deref());
    options.timeout = plan.timeout;
    options.link.config = plan.link;
    testing::skew_protocol(&mut options, net.debug_protocol_skew);
    options.rejoin_from(&Store);
    options
}

/// A quick-match ticket's round trip to the server, in ms (natively: the
/// fastest of a few `GET /healthz` on one connection; the browser sends
/// none). What the server compares it with is another client's own: see
/// the README's lobby section for why this is only a proxy.
fn quick_round_trip(role: Role, server: &str) -> Option<u32> {
    if role != Role::Quick {
        return None;
    }
    platform::round_trip_ms(server)
}

/// How an online match in a window ended.
pub(super) enum OnlineEnd {
    Played(Box<MatchEnd>),
    /// Esc on the waiting screen.
    Cancelled,
    Failed(Failure),
    /// `--screenshot` of the waiting screen.
    Captured(Result<(), String>),
}

/// The connection screen, then the match, inside an open window.
pub(super) async fn online_in_window(
    ui: &mut Ui,
    start: OnlineStart,
    run: &RunArgs,
    settings: &Settings,
    escape_does: &'static str,
) -> OnlineEnd {
    let OnlineStart {
        connector,
        options,
        frames,
        hosting,
        share,
        chat,
        lan,
        upload_to,
        record_link,
        ..
    } = start;
    let capture = run.window.screenshot.clone().map(|path| Screenshot {
        path,
        after_frames: run.frames.unwrap_or(1),
    });
    let title = match (hosting, connector.room()) {
        (true, _) => "HOSTING A MATCH",
        (false, Some(_)) => "JOINING A MATCH",
        (false, None) => "QUICK MATCH",
    };
    let waiting = Waiting {
        title,
        share: hosting.then_some(&share),
    };
    let connection = match wait_in_window(ui, connector, waiting, capture).await {
        Ok(connection) => connection,
        Err(end) => return end,
    };
    // The room is full: nobody else can join it.
    if let Some(announcement) = lan {
        announcement.withdraw();
    }
    let uploader = uploader_of(upload_to.as_deref(), hosting, &connection);
    match start_match(connection, &options, run, settings.keymaps()[0]) {
        Err(f) => OnlineEnd::Failed(f),
        Ok((driver, sources, _ticket)) => {
            let match_options = MatchOptions {
                chat,
                ..match_options(run, &driver, &sources, settings, escape_does)
            };
            let game = Match::new(driver, Pacing::RealTime, frames);
            let mut end = window::play_match(ui, game, sources, match_options).await;
            if let Some((path, net)) = &record_link {
                write_link_trace(path, &end.finished.driver, net);
            }
            if let Some(uploader) = uploader {
                end.upload = uploader.upload_in_window(ui, &end, frames.is_none()).await;
            }
            OnlineEnd::Played(Box::new(end))
        }
    }
}

pub fn online(
    role: Role,
    code: Option<&str>,
    net: &NetArgs,
    run: &RunArgs,
    lan: bool,
) -> Result<Report, Failure> {
    let settings = Settings::load_or_default();
    let (net, code) = if lan {
        let (server, room) = find_on_lan(code)?;
        let net = NetArgs {
            server: Some(server),
            ..net.clone()
        };
        (net, Some(room.to_string()))
    } else {
        (net.clone(), code.map(str::to_owned))
    };
    let (net, code) = (&net, code.as_deref());
    let start = start_online(role, code, net, run, &settings)?;
    if run.headless {
        return online_headless(start, run);
    }
    // Connecting goes on from here while the window opens.
    let title = start.title.clone();
    let run = run.clone();
    let volume = run.window.volume.unwrap_or(settings.volume);
    let music_volume = super::music_volume(run.window.volume, &settings);
    let open = move |start: OnlineStart| {
        super::windowed(
            &title,
            move |mut ui| async move {
                ui.audio.set_volume(volume);
                ui.audio.set_music_volume(music_volume);
                online_in_window(&mut ui, start, &run, &settings, "quit").await
            },
            window_report,
        )
    };
    // In the page the window opens once the connection is made (see
    // `page::open_when_connecting`); natively at once.
    let hosting = start.hosting;
    super::open_when_connecting(start, hosting, |s| &s.connector, open)
}

/// The waiting screen for any connector; the connection, or how the
/// window's flow ends instead (the same arms for players and spectators).
pub(super) async fn wait_in_window<S: Seat>(
    ui: &mut Ui,
    connecting: Connector<S>,
    waiting: Waiting<'_>,
    capture: Option<Screenshot>,
) -> Result<S::Connection, OnlineEnd> {
    match window::connect_screen(ui, connecting, waiting, capture).await {
        ConnectOutcome::Connected(c) => Ok(*c),
        ConnectOutcome::Cancelled => Err(OnlineEnd::Cancelled),
        ConnectOutcome::Failed(e) => Err(OnlineEnd::Failed(connect_failure(e))),
        ConnectOutcome::Captured(r) => Err(OnlineEnd::Captured(r)),
    }
}

/// What a command that connects and plays in a window reports, once the
/// window has closed.
pub(super) fn window_report(ended: Option<OnlineEnd>) -> Result<Report, Failure> {
    match ended {
        None => Err(Failure::Runtime(
            "the window closed unexpectedly".into(),
            None,
        )),
        Some(OnlineEnd::Failed(f)) => Err(f),
        Some(OnlineEnd::Cancelled) => Err(connect_failure(ConnectError::Cancelled)),
        Some(OnlineEnd::Captured(Ok(()))) => Ok(Report::Printed),
        Some(OnlineEnd::Captured(Err(e))) => Err(Failure::BadInput(e)),
        Some(OnlineEnd::Played(end)) => finish_window(*end).map(|s| Report::Summary(Box::new(s))),
    }
}

/// `join --lan`: the server, and the room when no code was given, from
/// the LAN's announcements. Lists every game heard on stderr; then with a
/// code joins that game, on a terminal asks which, else takes the first
/// public one.
fn find_on_lan(code: Option<&str>) -> Result<(String, RoomCode), Failure> {
    use std::io::IsTerminal;
    let code = code
        .map(|c| {
            RoomCode::parse(c)
                .map_err(|e| Failure::BadInput(format!("invalid room code '{c}': {e}")))
        })
        .transpose()?;
    let games = match lan::look(code.as_ref(), lan::JOIN_LOOKS_FOR, lan::LIST_SETTLES_FOR) {
        Ok(Some(games)) => games,
        Ok(None) => {
            return Err(Failure::BadInput(format!(
                "--lan: LAN discovery is off here ({}=off, or a browser)",
                crate::platform::lan::SWITCH
            )));
        }
        Err(why) => return Err(Failure::Runtime(format!("--lan: {why}"), None)),
    };
    for (i, game) in games.iter().enumerate() {
        eprintln!("twinstar: {}", game.list_line(i + 1));
    }
    let stdin = std::io::stdin();
    let chosen = if code.is_none() && !games.is_empty() && stdin.is_terminal() {
        lan::ask(&games, &mut stdin.lock(), &mut std::io::stderr())
    } else {
        lan::pick(&games, code.as_ref())
    };
    let (server, room) = chosen.map_err(|why| Failure::Runtime(format!("--lan: {why}"), None))?;
    eprintln!("twinstar: found a LAN game: room {room} on {server}");
    Ok((server, room))
}

/// An online match with no window: connects, then plays, blocking (the
/// page cannot block: `connect_blocking` refuses there).
fn online_headless(start: OnlineStart, run: &RunArgs) -> Result<Report, Failure> {
    let connection = super::connect_blocking(start.connector, "online play")?;
    // The room is full: nobody else can join it.
    if let Some(announcement) = start.lan {
        announcement.withdraw();
    }
    let uploader = uploader_of(start.upload_to.as_deref(), start.hosting, &connection);
    let (driver, mut sources, _ticket) =
        start_match(connection, &start.options, run, KeyMap::PLAYER_ONE)?;
    let game = Match::new(driver, Pacing::RealTime, start.frames);
    let finished = crate::frontend::headless::run(game, &mut sources);
    if let Some((path, net)) = &start.record_link {
        write_link_trace(path, &finished.driver, net);
    }
    let mut summary = super::finish(finished)?;
    if let Some(uploader) = uploader {
        uploader.upload_blocking(&mut summary);
    }
    Ok(Report::Summary(Box::new(summary)))
}

/// Who sends this match's replay (see [`Uploader::of_match`]).
fn uploader_of(
    upload_to: Option<&str>,
    hosting: bool,
    connection: &Connection,
) -> Option<Uploader> {
    Uploader::of_match(
        upload_to,
        hosting,
        connection.room(),
        connection.local_player(),
    )
}

/// The driver for an agreed match, recording if asked, and the input
/// sources: this machine's player from the keyboard (or its bot), the
/// other slot unused.
fn start_match(
    connection: Connection,
    options: &OnlineOptions,
    run: &RunArgs,
    keys: KeyMap,
) -> Result<(Driver, [InputSource; 2], Option<tickets::Held>), Failure> {
    let seed = connection.seed();
    let local = connection.local_player();
    let player = connection.local_player() + 1;
    if let (Some(code), Some(frames)) = (connection.room(), connection.catching_up()) {
        eprintln!(
            "twinstar: rejoined the match in room {code} as player {player}; catching up on {frames} frames"
        );
    }
    let ticket = connection.hold_ticket(std::sync::Arc::new(Store));
    let mut driver = Driver::online(connection, options.clone())
        .map_err(|e| Failure::Runtime(e.to_string(), None))?;
    let mode = driver.options().mode.name();
    if let Some(path) = record_path(run, mode, seed) {
        driver
            .record_to_file(&path)
            .map_err(|e| Failure::BadInput(format!("cannot record to {}: {e}", path.display())))?;
    }
    let bot = |player| InputSource::bot(run.bot_style, seed, player);
    let mut sources = [bot(0), bot(1)];
    if !run.headless && !run.bot && !run.bots {
        sources[local] = InputSource::Keys(keys);
    }
    Ok((driver, sources, ticket))
}
