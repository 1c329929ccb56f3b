//! A network probe for the NAT testbed (`scripts/nat-testbed.sh --probe`).
//!
//! Tests the network half of an online match on its own: our signaling
//! server, WebRTC/ICE through (simulated) NATs, STUN and TURN, without the
//! game on top.
//!
//! ```text
//! nat_probe serve --bind 198.51.100.1:3536
//! nat_probe peer --server ws://198.51.100.1:3536 --room K7Q-2XM \
//!     --stun stun:198.51.100.1:3478 \
//!     --turn turn:198.51.100.1:3478 --turn-user u --turn-pass p --timeout 15
//! ```
//!
//! `peer` joins the room, waits for the other peer's WebRTC connection,
//! exchanges ping/pong datagrams over one unreliable channel and prints one
//! JSON line: `{"ok":true,"connect_ms":..,"connection":"host|srflx|prflx|relay",
//! "local":..,"remote":..,"rtt_ms":..}` (exit 0), or `{"ok":false,"error":..}`
//! (exit 1) no later than `--timeout` seconds after it started. Logs go to
//! stderr (`RUST_LOG=webrtc_ice=debug,webrtc=info` for ICE details).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand};
use matchbox_socket::{
    CandidatePair, CandidateType, MessageLoopFuture, PeerId, PeerState, RtcIceServerConfig,
    WebRtcSocket,
};
use serde_json::json;
use tokio::time::sleep;
use twinstar_netcode::RoomCode;
use twinstar_netcode::testing::signaling::{classify_socket_error, client_builder};
use twinstar_signaling::bind;
use twinstar_signaling_protocol::room_url;

#[derive(Parser)]
#[command(about = "Signaling server and WebRTC peer probe for the NAT testbed")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the twinstar signaling server until killed (SIGINT/SIGTERM).
    Serve {
        #[arg(long, default_value = "0.0.0.0:3536")]
        bind: SocketAddr,
    },
    /// Join a room, connect to the other peer, ping it, print one JSON line.
    Peer(PeerArgs),
}

#[derive(Args)]
struct PeerArgs {
    /// Signaling server, `ws://IP:PORT`.
    #[arg(long)]
    server: String,
    /// Room code (any spelling the game accepts).
    #[arg(long)]
    room: String,
    /// STUN server URL, e.g. `stun:198.51.100.1:3478` (repeatable).
    #[arg(long)]
    stun: Vec<String>,
    /// TURN server URL, e.g. `turn:198.51.100.1:3478?transport=udp` (repeatable).
    #[arg(long)]
    turn: Vec<String>,
    #[arg(long)]
    turn_user: Option<String>,
    #[arg(long)]
    turn_pass: Option<String>,
    /// Give up (exit 1) after this many seconds.
    #[arg(long, default_value_t = 15.0)]
    timeout: f64,
    /// Ping/pong round trips to complete before reporting success.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pings: u32,
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("nat_probe: cannot start tokio: {e}");
            return ExitCode::from(1);
        }
    };
    match cli.command {
        Command::Serve { bind: addr } => runtime.block_on(serve(addr)),
        Command::Peer(args) => {
            let (value, code) = runtime.block_on(peer(args));
            println!("{value}");
            // The WebRTC driver runs on smol threads of its own; do not wait
            // for them to wind down.
            std::process::exit(code);
        }
    }
}

async fn serve(addr: SocketAddr) -> ExitCode {
    let server = match bind(addr, None) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("nat_probe serve: {e}");
            return ExitCode::from(1);
        }
    };
    eprintln!("nat_probe serve: listening on ws://{}", server.local_addr());
    let shutdown = async {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("SIGTERM handler");
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    };
    match server.serve(shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("nat_probe serve: {e}");
            ExitCode::from(1)
        }
    }
}

fn type_name(t: CandidateType) -> &'static str {
    match t {
        CandidateType::Host => "host",
        CandidateType::ServerReflexive => "srflx",
        CandidateType::PeerReflexive => "prflx",
        CandidateType::Relay => "relay",
    }
}

/// The one word for how the peer is reached: `relay` if either end is a
/// TURN relay, otherwise the type of the peer's end.
fn connection_name(pair: &CandidatePair) -> &'static str {
    if pair.is_relayed() {
        "relay"
    } else {
        type_name(pair.remote)
    }
}

fn fail(error: impl Into<String>) -> (serde_json::Value, i32) {
    (json!({"ok": false, "error": error.into()}), 1)
}

const PING: u8 = b'P';
const PONG: u8 = b'Q';
const DONE: u8 = b'D';

async fn peer(args: PeerArgs) -> (serde_json::Value, i32) {
    let started = Instant::now();
    if !(args.timeout > 0.0 && args.timeout < 86_400.0) {
        return (json!({"ok": false, "error": "--timeout must be > 0"}), 2);
    }
    let deadline = started + Duration::from_secs_f64(args.timeout);
    let room = match RoomCode::parse(&args.room) {
        Ok(r) => r,
        Err(e) => {
            return (
                json!({"ok": false, "error": format!("bad room code: {e}")}),
                2,
            );
        }
    };
    let url = room_url(&args.server, Some(&room));
    let mut urls = args.stun.clone();
    urls.extend(args.turn.iter().cloned());
    // The game's ICE pacing (twinstar_netcode::testing::signaling::to_matchbox), these servers.
    let ice = RtcIceServerConfig {
        urls,
        username: args.turn_user.clone(),
        credential: args.turn_pass.clone(),
        ..twinstar_netcode::testing::signaling::to_matchbox(&Default::default())
    };
    eprintln!(
        "nat_probe peer: {url}, ice urls {:?}, user {:?}",
        ice.urls, ice.username
    );
    let (mut socket, message_loop): (WebRtcSocket, MessageLoopFuture) =
        client_builder(&url, ice).add_unreliable_channel().build();
    let mut loop_task = tokio::spawn(message_loop);

    // Phase 1: wait for the peer.
    let mut partner: Option<PeerId> = None;
    let mut signaled = false;
    while partner.is_none() {
        match socket.try_update_peers() {
            Ok(changes) => {
                for (p, state) in changes {
                    eprintln!(
                        "nat_probe peer: {p} {state:?} after {:?}",
                        started.elapsed()
                    );
                    if state == PeerState::Connected {
                        partner = Some(p);
                    }
                }
            }
            Err(_) => return loop_ended(&mut loop_task, &room).await,
        }
        if !signaled && socket.id().is_some() {
            signaled = true;
            eprintln!(
                "nat_probe peer: signaling server gave us id {:?} after {:?}",
                socket.id(),
                started.elapsed()
            );
        }
        if partner.is_some() {
            break;
        }
        if loop_task.is_finished() {
            return loop_ended(&mut loop_task, &room).await;
        }
        if Instant::now() >= deadline {
            return fail(if signaled {
                format!(
                    "no WebRTC connection to the other peer within {}s (signaling worked; \
                     ICE found no working candidate pair: symmetric NAT without a TURN relay?)",
                    args.timeout
                )
            } else {
                format!(
                    "could not get into room {room} on {} within {}s",
                    args.server, args.timeout
                )
            });
        }
        sleep(Duration::from_millis(10)).await;
    }
    let partner = partner.expect("loop exits with a partner");
    let connect_ms = started.elapsed().as_millis() as u64;

    // Phase 2: ping/pong until enough round trips, answer the peer's pings,
    // and look for the candidate pair (reported about 1 s after connecting).
    let pair_deadline = Instant::now() + Duration::from_secs(3);
    let mut pair: Option<CandidatePair> = None;
    let mut sent: u32 = 0;
    let mut rtts: Vec<f64> = Vec::new();
    let mut peer_done = false;
    let mut done_at: Option<Instant> = None;
    let mut last_ping: Option<Instant> = None;
    let mut last_done: Option<Instant> = None;
    let epoch = Instant::now();
    loop {
        match socket.try_update_peers() {
            Ok(changes) => {
                for (p, state) in changes {
                    if p == partner && state == PeerState::Disconnected && done_at.is_none() {
                        return fail(format!(
                            "peer disconnected after {} of {} pongs",
                            rtts.len(),
                            args.pings
                        ));
                    }
                }
            }
            Err(_) => {
                if done_at.is_none() {
                    return loop_ended(&mut loop_task, &room).await;
                }
            }
        }
        if pair.is_none() {
            pair = socket.candidate_pair(partner);
        }
        let channel = match socket.get_channel_mut(0) {
            Ok(c) => c,
            Err(e) => return fail(format!("channel 0: {e}")),
        };
        for (from, packet) in channel.receive() {
            if from != partner || packet.is_empty() {
                continue;
            }
            match packet[0] {
                PING => {
                    let mut reply = packet.to_vec();
                    reply[0] = PONG;
                    let _ = channel.try_send(reply.into(), partner);
                }
                PONG if packet.len() >= 9 => {
                    let micros = u64::from_le_bytes(packet[1..9].try_into().unwrap());
                    let now = epoch.elapsed().as_micros() as u64;
                    rtts.push(now.saturating_sub(micros) as f64 / 1000.0);
                }
                DONE => peer_done = true,
                _ => {}
            }
        }
        let now = Instant::now();
        let have_enough = rtts.len() as u32 >= args.pings;
        if !have_enough && last_ping.is_none_or(|t| now - t >= Duration::from_millis(20)) {
            last_ping = Some(now);
            sent += 1;
            let mut ping = vec![PING];
            ping.extend_from_slice(&(epoch.elapsed().as_micros() as u64).to_le_bytes());
            ping.extend_from_slice(&sent.to_le_bytes());
            let _ = channel.try_send(ping.into(), partner);
        }
        if have_enough {
            done_at.get_or_insert(now);
            if last_done.is_none_or(|t| now - t >= Duration::from_millis(100)) {
                last_done = Some(now);
                let _ = channel.try_send(vec![DONE].into(), partner);
            }
        }
        let pair_settled = pair.is_some() || now >= pair_deadline;
        // Linger after our own pings so the peer can finish its own; the DONE
        // marker may be lost (unreliable channel), hence the 2 s bound.
        let peer_settled = peer_done || done_at.is_some_and(|t| now - t >= Duration::from_secs(2));
        if have_enough && pair_settled && peer_settled {
            break;
        }
        if now >= deadline {
            return fail(format!(
                "connected after {connect_ms} ms but only {} of {} pongs ({} pings sent) within {}s",
                rtts.len(),
                args.pings,
                sent,
                args.timeout
            ));
        }
        sleep(Duration::from_millis(2)).await;
    }
    // Give the last DONE a chance to leave before the process exits.
    if let Ok(channel) = socket.get_channel_mut(0) {
        let _ = channel.try_send(vec![DONE].into(), partner);
    }
    sleep(Duration::from_millis(100)).await;

    rtts.sort_by(f64::total_cmp);
    let median = rtts[rtts.len() / 2];
    let (connection, local, remote) = match &pair {
        Some(p) => (connection_name(p), type_name(p.local), type_name(p.remote)),
        None => ("unknown", "unknown", "unknown"),
    };
    (
        json!({
            "ok": true,
            "connect_ms": connect_ms,
            "connection": connection,
            "local": local,
            "remote": remote,
            "rtt_ms": (median * 100.0).round() / 100.0,
            "pings_sent": sent,
            "pongs": rtts.len(),
        }),
        0,
    )
}

/// The message loop ended before we were done: explain why.
async fn loop_ended(
    task: &mut tokio::task::JoinHandle<Result<(), matchbox_socket::Error>>,
    room: &RoomCode,
) -> (serde_json::Value, i32) {
    match tokio::time::timeout(Duration::from_secs(1), task).await {
        Ok(Ok(Err(e))) => fail(classify_socket_error(&e, Some(room)).to_string()),
        Ok(Ok(Ok(()))) => fail("the signaling server closed the connection"),
        Ok(Err(e)) => fail(format!("message loop crashed: {e}")),
        Err(_) => fail("message loop ended"),
    }
}
