//! `pong`: Pong on twinstar's netcode, headless. Its command line mirrors
//! twinstar's, so the same tools test both; everything online (room codes,
//! rollback, reconnects, spectators, replays) is the netcode's.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};
use pong::{Pong, bot};
use twinstar_netcode::RoomCode;
use twinstar_netcode::connect::{
    ConnectOptions, Connector, IceServers, LinkConfig, NetRuntime, Outage, PlayerSeat, Role,
    SpectatorSeat, WatchOptions, ice_servers_of,
};
use twinstar_netcode::replay;
use twinstar_netcode::session::{
    Driver, Finished, Match, MatchSummary, Mode, Next, OnlineOptions, Outcome, Pacing,
    SpectatorOptions,
};
use twinstar_netcode::tickets::{DirRecords, Records};
use twinstar_netcode::{Game, hex_checksum};

mod window;

/// Pong on twinstar's rollback netcode.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Rolls back and re-simulates every frame, checking each checksum.
    Synctest {
        #[command(flatten)]
        run: RunArgs,
        /// Frames rolled back on every frame (2 to 7).
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(2..=7))]
        check_distance: u8,
    },
    /// Two bots on this machine.
    Local(RunArgs),
    /// Hosts a match in a room.
    Host(NetArgs),
    /// Joins the match in a room.
    Join(NetArgs),
    /// Watches the match in a room.
    Watch(WatchArgs),
    /// Re-simulates a replay and checks every recorded checksum.
    Replay {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
struct RunArgs {
    /// Stop after this many frames.
    #[arg(long)]
    frames: Option<u32>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print a JSON summary as the last line.
    #[arg(long)]
    json: bool,
    /// Record the match's inputs to this file.
    #[arg(long)]
    record: Option<PathBuf>,
    /// No window: bots play, as fast as the mode allows.
    #[arg(long)]
    headless: bool,
    /// Let a bot play this machine's player in the window too.
    #[arg(long)]
    bot: bool,
}

#[derive(Args)]
struct NetArgs {
    #[command(flatten)]
    run: RunArgs,
    /// The room code (host: made up if left out).
    #[arg(long)]
    room: Option<RoomCode>,
    /// The signaling server, `ws://host:port` (e.g. `twinstar serve`).
    #[arg(long)]
    server: String,
    /// Say this in the room's chat when the match starts (repeatable).
    #[arg(long, value_name = "TEXT")]
    say: Vec<String>,
    /// Simulated cut of this peer's packets: AT:LEN seconds.
    #[arg(long, value_name = "AT:LEN")]
    sim_outage: Option<Outage>,
    /// Seconds to get a lost peer back before the match ends.
    #[arg(long, default_value_t = 30)]
    reconnect_window: u64,
    /// Where rejoin tickets are kept (a game that crashed rejoins its
    /// match from them) [default: pong-data in the temporary directory].
    #[arg(long)]
    data_dir: Option<PathBuf>,
}

#[derive(Args)]
struct WatchArgs {
    #[arg(long)]
    room: RoomCode,
    #[arg(long)]
    server: String,
    #[arg(long)]
    json: bool,
    #[arg(long)]
    record: Option<PathBuf>,
    /// No window.
    #[arg(long)]
    headless: bool,
}

/// Why a run failed: bad input (exit 2) or at run time (exit 1).
enum Failure {
    Input(String),
    Run(String),
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Synctest {
            run,
            check_distance,
        } => {
            let mode = Mode::SyncTest {
                check_distance: check_distance.into(),
            };
            local(run, mode)
        }
        Command::Local(run) => local(run, Mode::Local),
        Command::Host(net) => online(net, Role::Host),
        Command::Join(net) => online(net, Role::Join),
        Command::Watch(args) => watch(args),
        Command::Replay { file, json } => verify(&file).map(|s| (s, json)),
    };
    match result {
        Ok((summary, json)) => {
            if json {
                println!("{}", serde_json::to_string(&summary).unwrap_or_default());
            }
            ExitCode::SUCCESS
        }
        Err(Failure::Input(why)) => {
            eprintln!("pong: {why}");
            ExitCode::from(2)
        }
        Err(Failure::Run(why)) => {
            eprintln!("pong: {why}");
            ExitCode::from(1)
        }
    }
}

/// The summary line: the netcode's figures and Pong's score beside them.
#[derive(serde::Serialize)]
struct Summary {
    #[serde(flatten)]
    netcode: MatchSummary,
    score: [u32; 2],
    games: u32,
}

type Report = (Summary, bool);

fn local(run: RunArgs, mode: Mode) -> Result<Report, Failure> {
    let rules = Pong::preset("default").ok_or_else(|| Failure::Run("no default preset".into()))?;
    let driver = match mode {
        Mode::SyncTest { check_distance } => {
            Driver::<Pong, 2>::synctest(run.seed, rules, check_distance)
        }
        _ => Driver::local(run.seed, rules),
    };
    let mut driver = driver.map_err(|e| Failure::Run(e.to_string()))?;
    record(&mut driver, &run)?;
    let game = Match::new(driver, Pacing::Unpaced, Some(run.frames.unwrap_or(3_600)));
    finish(play(game, Seat::Both, &run)?, run.json)
}

fn online(net: NetArgs, role: Role) -> Result<Report, Failure> {
    let room = match (role, net.room) {
        (_, Some(room)) => room,
        (Role::Host, None) => RoomCode::generate(),
        _ => return Err(Failure::Input("join needs --room".into())),
    };
    eprintln!("pong: room {room} on {}", net.server);
    let data_dir = (net.data_dir).unwrap_or_else(|| std::env::temp_dir().join("pong-data"));
    let store: Arc<dyn Records> = Arc::new(DirRecords(data_dir));
    let (server, seed) = (net.server.as_str(), net.run.seed);
    let mut options = ConnectOptions::new(Pong::INFO, server, Some(room.clone()), role, seed);
    options.ice = ice_servers(server);
    options.link.config = LinkConfig {
        outage: net.sim_outage,
        ..LinkConfig::default()
    };
    // A ticket left by a game of ours that crashed: rejoin its match.
    options.rejoin_from(&*store);
    let runtime = NetRuntime::new().map_err(|e| Failure::Run(e.to_string()))?;
    let connection = Connector::<PlayerSeat<u8, 2>>::start(runtime, options)
        .wait()
        .map_err(|e| {
            if e.is_bad_input() {
                Failure::Input(e.to_string())
            } else {
                Failure::Run(e.to_string())
            }
        })?;
    if let Some(frames) = connection.catching_up() {
        eprintln!("pong: rejoined room {room}; catching up on {frames} frames");
    }
    let local = connection.local_player();
    let _ticket = connection.hold_ticket(store);
    let mut online = OnlineOptions::default();
    online.reconnect_window = std::time::Duration::from_secs(net.reconnect_window);
    online.say = net.say.into_iter().map(|line| (0, line)).collect();
    let mut driver =
        Driver::<Pong, 2>::online(connection, online).map_err(|e| Failure::Run(e.to_string()))?;
    record(&mut driver, &net.run)?;
    let game = Match::new(driver, Pacing::RealTime, net.run.frames);
    finish(play(game, Seat::Player(local), &net.run)?, net.run.json)
}

fn watch(args: WatchArgs) -> Result<Report, Failure> {
    let mut options = WatchOptions::new(Pong::INFO, &args.server, args.room);
    options.ice = ice_servers(&args.server);
    let runtime = NetRuntime::new().map_err(|e| Failure::Run(e.to_string()))?;
    let connection = Connector::<SpectatorSeat<u8, 2>>::start(runtime, options)
        .wait()
        .map_err(|e| Failure::Run(e.to_string()))?;
    let seed = connection.seed();
    let mut driver = Driver::<Pong, 2>::watch(connection, SpectatorOptions::default())
        .map_err(|e| Failure::Run(e.to_string()))?;
    let run = RunArgs {
        frames: None,
        seed,
        json: args.json,
        record: args.record,
        headless: args.headless,
        bot: false,
    };
    record(&mut driver, &run)?;
    finish(
        play(
            Match::new(driver, Pacing::RealTime, None),
            Seat::Spectator,
            &run,
        )?,
        args.json,
    )
}

/// The STUN and TURN servers `server` offers (none on a LAN server: host
/// candidates, enough there); a server that cannot say is not fatal here,
/// its websocket will tell whether it is there.
fn ice_servers(server: &str) -> IceServers {
    match ice_servers_of(server) {
        Ok(offered) => offered.unwrap_or_default(),
        Err(e) => {
            eprintln!("pong: no ICE servers from {server} ({e}); host candidates only");
            IceServers::default()
        }
    }
}

/// Records the match to `--record`, if given, under the seed and rules
/// the driver plays.
fn record(driver: &mut Driver<Pong, 2>, run: &RunArgs) -> Result<(), Failure> {
    let Some(path) = &run.record else {
        return Ok(());
    };
    driver
        .record_to_file(path)
        .map_err(|e| Failure::Input(format!("cannot record to {}: {e}", path.display())))
}

/// Whose inputs this machine gives: both players', one, or none.
#[derive(Clone, Copy)]
enum Seat {
    Both,
    Player(usize),
    Spectator,
}

/// Plays `game` to its end: headless with bots, or in a window with the
/// keyboard for this machine's (first) player unless `--bot`.
fn play(game: Match<Pong, 2>, seat: Seat, run: &RunArgs) -> Result<Finished<Pong, 2>, Failure> {
    if run.headless {
        return Ok(headless(game, seat));
    }
    if !window::display_available() {
        return Err(Failure::Input(
            "no display for a window (DISPLAY is not set); use --headless".into(),
        ));
    }
    let (keys, bots) = match seat {
        Seat::Both if run.bot => (None, [true, true]),
        Seat::Both => (Some(0), [false, true]),
        Seat::Player(local) if run.bot => (None, [local == 0, local == 1]),
        Seat::Player(local) => (Some(local), [false, false]),
        Seat::Spectator => (None, [false, false]),
    };
    window::play(game, keys, bots).ok_or_else(|| Failure::Run("the window closed".into()))
}

/// The match with bots in this machine's slots, and no display.
fn headless(mut game: Match<Pong, 2>, seat: Seat) -> Finished<Pong, 2> {
    loop {
        match game.next(std::time::Instant::now()) {
            Next::Frame => {
                let state = game.driver().world();
                let mut inputs = [bot(state, 0), bot(state, 1)];
                match seat {
                    Seat::Both => {}
                    Seat::Player(local) => inputs[1 - local] = 0,
                    Seat::Spectator => inputs = [0, 0],
                }
                game.advance(inputs);
            }
            Next::Wait(until) => {
                std::thread::sleep(until.saturating_duration_since(std::time::Instant::now()))
            }
            Next::Over => return game.finish(),
        }
    }
}

fn finish(finished: Finished<Pong, 2>, json: bool) -> Result<Report, Failure> {
    let state = *finished.driver.world();
    let summary = Summary {
        netcode: finished.driver.match_summary(),
        score: state.score,
        games: state.games,
    };
    match finished.outcome {
        Outcome::Completed | Outcome::Left => Ok((summary, json)),
        Outcome::Failed(e) => {
            if json {
                println!("{}", serde_json::to_string(&summary).unwrap_or_default());
            }
            Err(Failure::Run(e.to_string()))
        }
    }
}

fn verify(file: &std::path::Path) -> Result<Summary, Failure> {
    let replay = replay::read::<Pong, 2>(file)
        .map_err(|e| Failure::Input(format!("{}: {e}", file.display())))?;
    let verified = replay::verify::<Pong, 2>(&replay)
        .ok_or_else(|| Failure::Input(format!("{}: unreadable rules", file.display())))?;
    let summary = Summary {
        netcode: MatchSummary::of_replay::<Pong, 2>(
            &file.display().to_string(),
            &replay,
            &verified,
        ),
        score: verified.state.score,
        games: verified.state.games,
    };
    match verified.first_mismatch {
        None => {
            eprintln!(
                "pong: verified {} frames, {} checksums match",
                verified.frames, verified.checked
            );
            Ok(summary)
        }
        Some((frame, recorded, ours)) => Err(Failure::Run(format!(
            "checksum mismatch at frame {frame}: recorded {}, re-simulated {}",
            hex_checksum(recorded),
            hex_checksum(ours)
        ))),
    }
}
