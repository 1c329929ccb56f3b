//! Signaling under load: starts `twinstar serve` on loopback and connects
//! N concurrent raw websocket clients, two per room, speaking matchbox's
//! signaling protocol directly (no WebRTC): each learns its id, the first
//! of a room is told of the second (`NewPeer`) and sends it an "offer"
//! signal, the second answers. A client is paired when that exchange
//! completes with the peer that holds the other seat of its own room.
//!
//! Checks: every client is paired with its own room partner only (every
//! event and signal it receives names its partner and carries its room
//! code), none crosses rooms, and the server process is alive afterwards and
//! still pairs a fresh room. Reports the pairing time (from a client's
//! connect to its pairing) and the server's memory (VmRSS/VmHWM from
//! /proc/PID/status): idle, with every client connected, after they left.
//!
//! ```text
//! cargo run --release --example signaling_load -- [--clients 200] [--bin PATH] [--limit SECS]
//! ```
//!
//! `--bin` is the twinstar binary (default `$TWINSTAR_BIN`, else
//! target/release/twinstar). Last stdout line: one JSON object; exit 0 iff
//! `ok`. `tests/it/signaling.rs` runs a smaller version of the same code.

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc as std_mpsc;
use std::time::{Duration, Instant};

use futures::{SinkExt, StreamExt};
use matchbox_protocol::{JsonPeerEvent, JsonPeerRequest, PeerId};
use serde_json::json;
use tokio::sync::watch;
use tokio_tungstenite::tungstenite::Message;
use twinstar::net::RoomCode;

/// `twinstar serve` on a free loopback port, killed when dropped.
pub struct ServerProcess {
    pub child: Child,
    pub url: String,
}

impl ServerProcess {
    /// Starts `bin serve --bind 127.0.0.1:0` and waits (≤ 10 s) for the
    /// address it reports. Its stderr is drained on a thread.
    pub fn start(bin: &Path) -> Result<Self, String> {
        let mut child = Command::new(bin)
            // Every load client comes from 127.0.0.1: lift the per-address cap.
            .args([
                "serve",
                "--bind",
                "127.0.0.1:0",
                "--max-per-address",
                "1000000",
            ])
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
        let stderr = child.stderr.take().ok_or("no stderr pipe")?;
        let (tx, rx) = std_mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(at) = line.find("ws://") {
                    let url: String = line[at..]
                        .chars()
                        .take_while(|c| !c.is_whitespace() && *c != ')')
                        .collect();
                    let _ = tx.send(url);
                }
            }
        });
        match rx.recv_timeout(Duration::from_secs(10)) {
            Ok(url) => Ok(ServerProcess { child, url }),
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                Err("twinstar serve did not report its address within 10 s".into())
            }
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn is_alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// (VmRSS, VmHWM) in KiB, from /proc (Linux).
    pub fn memory_kib(&self) -> Option<(u64, u64)> {
        memory_kib(self.pid())
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Process `pid`'s (VmRSS, VmHWM) in KiB, from /proc/PID/status (Linux).
pub fn memory_kib(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// What one client saw.
#[derive(Debug, Default, Clone)]
pub struct ClientOutcome {
    pub id: Option<PeerId>,
    pub partner: Option<PeerId>,
    /// From the start of its connect to the completed offer/answer.
    pub paired_after: Option<Duration>,
    /// Anything that broke the protocol or the room isolation.
    pub errors: Vec<String>,
}

fn signal(to: PeerId, data: serde_json::Value) -> Message {
    let request = JsonPeerRequest::Signal { receiver: to, data };
    Message::text(request.to_string())
}

/// One client of room `room`: connects, pairs, then keeps reading until
/// `release` so that every client is connected at the same time and stray
/// messages from other rooms would still be seen. Adds one to `settled`
/// once paired, or when it ends without pairing.
pub async fn client(
    url: String,
    room: String,
    release: watch::Receiver<bool>,
    settled: Arc<AtomicUsize>,
    limit: Duration,
) -> ClientOutcome {
    let out = client_inner(url, room, release, &settled, limit).await;
    if out.paired_after.is_none() {
        settled.fetch_add(1, Ordering::Relaxed);
    }
    out
}

async fn client_inner(
    url: String,
    room: String,
    mut release: watch::Receiver<bool>,
    settled: &AtomicUsize,
    limit: Duration,
) -> ClientOutcome {
    let mut out = ClientOutcome::default();
    let started = Instant::now();
    let deadline = tokio::time::Instant::now() + limit;
    let ws = match tokio::time::timeout_at(
        deadline,
        tokio_tungstenite::connect_async(format!("{url}/{room}")),
    )
    .await
    {
        Ok(Ok((ws, _))) => ws,
        Ok(Err(e)) => {
            out.errors.push(format!("connect: {e}"));
            return out;
        }
        Err(_) => {
            out.errors.push("connect timed out".into());
            return out;
        }
    };
    let (mut tx, mut rx) = ws.split();
    let mut offered = false;
    loop {
        let message = tokio::select! {
            m = rx.next() => m,
            _ = release.wait_for(|r| *r) => break,
            _ = tokio::time::sleep_until(deadline) => {
                if out.paired_after.is_none() {
                    out.errors.push(format!("not paired after {limit:?}"));
                }
                break;
            }
        };
        let text = match message {
            Some(Ok(Message::Text(text))) => text,
            Some(Ok(Message::Close(_))) | None => {
                out.errors.push("the server closed the connection".into());
                break;
            }
            Some(Ok(_)) => continue,
            Some(Err(e)) => {
                out.errors.push(format!("websocket: {e}"));
                break;
            }
        };
        let event: JsonPeerEvent = match text.as_str().parse() {
            Ok(event) => event,
            Err(e) => {
                out.errors.push(format!("unreadable event {text}: {e}"));
                continue;
            }
        };
        let mut reply = None;
        match event {
            JsonPeerEvent::IdAssigned(id) if out.id.is_none() => out.id = Some(id),
            JsonPeerEvent::NewPeer(peer) if out.partner.is_none() && out.id.is_some() => {
                out.partner = Some(peer);
                offered = true;
                reply = Some(signal(peer, json!({"room": room, "kind": "offer"})));
            }
            JsonPeerEvent::Signal { sender, data } => {
                let from_room = data.get("room").and_then(|r| r.as_str()).unwrap_or("?");
                let kind = data.get("kind").and_then(|k| k.as_str()).unwrap_or("?");
                if from_room != room {
                    out.errors
                        .push(format!("crossed: a signal from room {from_room} in {room}"));
                } else if out.partner.is_some_and(|p| p != sender) {
                    out.errors
                        .push(format!("crossed: a signal from a third peer {sender}"));
                } else if kind == "offer" && !offered && out.paired_after.is_none() {
                    out.partner = Some(sender);
                    out.paired_after = Some(started.elapsed());
                    settled.fetch_add(1, Ordering::Relaxed);
                    reply = Some(signal(sender, json!({"room": room, "kind": "answer"})));
                } else if kind == "answer" && offered && out.paired_after.is_none() {
                    out.paired_after = Some(started.elapsed());
                    settled.fetch_add(1, Ordering::Relaxed);
                } else {
                    out.errors.push(format!("unexpected {kind} signal"));
                }
            }
            // Everyone leaves once released; only an early leave is wrong.
            JsonPeerEvent::PeerLeft(peer) if out.partner == Some(peer) && *release.borrow() => {
                break;
            }
            other => out.errors.push(format!("unexpected event {other:?}")),
        }
        if let Some(reply) = reply {
            if let Err(e) = tx.send(reply).await {
                out.errors.push(format!("send: {e}"));
                break;
            }
        }
    }
    let _ = tx.send(Message::Close(None)).await;
    out
}

/// `n` distinct room codes.
pub fn room_codes(n: usize) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut codes = Vec::with_capacity(n);
    while codes.len() < n {
        let code = RoomCode::generate().canonical().to_owned();
        if seen.insert(code.clone()) {
            codes.push(code);
        }
    }
    codes
}

#[derive(Debug)]
pub struct LoadReport {
    pub clients: usize,
    pub rooms: usize,
    pub paired: usize,
    pub partners_right: usize,
    pub errors: Vec<String>,
    /// Sorted pairing times of the paired clients.
    pub pairing: Vec<Duration>,
    pub elapsed: Duration,
}

impl LoadReport {
    /// The `q` quantile (0..=1) of the pairing times, nearest rank.
    pub fn quantile(&self, q: f64) -> Option<Duration> {
        if self.pairing.is_empty() {
            return None;
        }
        let rank = (q * self.pairing.len() as f64).ceil() as usize;
        Some(self.pairing[rank.clamp(1, self.pairing.len()) - 1])
    }

    pub fn all_paired_right(&self) -> bool {
        self.errors.is_empty() && self.paired == self.clients && self.partners_right == self.clients
    }
}

/// Runs `rooms` rooms of two concurrent clients against `url`. Before the
/// clients are released (disconnected), `loaded` runs with every one of
/// them still connected (for a memory reading).
pub async fn run_rooms(
    url: &str,
    rooms: usize,
    limit: Duration,
    loaded: impl FnOnce(),
) -> LoadReport {
    run_rooms_at(url, rooms, limit, None, loaded).await
}

/// [`run_rooms`] with clients arriving at most `rate` per second (`None`:
/// all at once).
pub async fn run_rooms_at(
    url: &str,
    rooms: usize,
    limit: Duration,
    rate: Option<u32>,
    loaded: impl FnOnce(),
) -> LoadReport {
    let started = Instant::now();
    let codes = room_codes(rooms);
    let gap = rate.map(|r| Duration::from_secs_f64(1.0 / f64::from(r.max(1))));
    let (release_tx, release_rx) = watch::channel(false);
    let settled = Arc::new(AtomicUsize::new(0));
    let mut tasks = Vec::with_capacity(rooms * 2);
    for code in &codes {
        for _ in 0..2 {
            if let Some(gap) = gap {
                // The arrival schedule, not the spawn speed, sets the rate.
                let due = started + gap * u32::try_from(tasks.len()).unwrap_or(u32::MAX);
                tokio::time::sleep_until(due.into()).await;
            }
            tasks.push(tokio::spawn(client(
                url.to_owned(),
                code.clone(),
                release_rx.clone(),
                settled.clone(),
                limit,
            )));
        }
    }
    // Wait until every client paired or gave up, then a little longer for
    // stray messages to arrive, with everyone still connected.
    let deadline = Instant::now() + limit;
    while settled.load(Ordering::Relaxed) < tasks.len() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    loaded();
    let _ = release_tx.send(true);
    let mut outcomes = Vec::with_capacity(tasks.len());
    for task in tasks {
        outcomes.push(task.await.unwrap_or_else(|e| ClientOutcome {
            errors: vec![format!("client task failed: {e}")],
            ..Default::default()
        }));
    }
    summarize(&codes, &outcomes, started.elapsed())
}

/// Checks every client's partner against the other seat of its room.
pub fn summarize(codes: &[String], outcomes: &[ClientOutcome], elapsed: Duration) -> LoadReport {
    let mut errors = Vec::new();
    let mut pairing = Vec::new();
    let mut partners_right = 0;
    for (i, out) in outcomes.iter().enumerate() {
        let room = &codes[i / 2];
        let other = &outcomes[i ^ 1];
        for e in &out.errors {
            errors.push(format!("client {i} (room {room}): {e}"));
        }
        if let Some(t) = out.paired_after {
            pairing.push(t);
        }
        if out.id.is_some() && out.partner.is_some() && out.partner == other.id {
            partners_right += 1;
        } else if out.paired_after.is_some() {
            errors.push(format!(
                "client {i} (room {room}) paired with {:?}, its room partner is {:?}",
                out.partner, other.id
            ));
        }
    }
    pairing.sort();
    LoadReport {
        clients: outcomes.len(),
        rooms: codes.len(),
        paired: outcomes.iter().filter(|o| o.paired_after.is_some()).count(),
        partners_right,
        errors,
        pairing,
        elapsed,
    }
}

fn ms(d: Option<Duration>) -> serde_json::Value {
    d.map_or(serde_json::Value::Null, |d| {
        json!((d.as_secs_f64() * 10_000.0).round() / 10.0)
    })
}

/// The whole measurement: server process, `rounds` rounds of the load
/// (clients arriving at `rate` per second, or all at once), memory, a fresh
/// pair after.
pub async fn measure(bin: &Path, clients: usize, limit: Duration) -> serde_json::Value {
    measure_rounds(bin, clients, limit, 1, None, None).await
}

pub async fn measure_rounds(
    bin: &Path,
    clients: usize,
    limit: Duration,
    rounds: usize,
    rate: Option<u32>,
    hold: Option<Duration>,
) -> serde_json::Value {
    let started = Instant::now();
    let mut server = match ServerProcess::start(bin) {
        Ok(server) => server,
        Err(e) => return json!({"ok": false, "error": e}),
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let idle = server.memory_kib();
    let mut reports = Vec::new();
    let mut loaded_kib = Vec::new();
    let mut after_kib = Vec::new();
    for _ in 0..rounds.max(1) {
        let mut under_load = None;
        let report = run_rooms_at(&server.url, clients / 2, limit, rate, || {
            under_load = server.memory_kib();
        })
        .await;
        // Give the server a moment to drop the closed connections.
        tokio::time::sleep(Duration::from_millis(1000)).await;
        loaded_kib.push(under_load.map(|m| m.0));
        after_kib.push(server.memory_kib().map(|m| m.0));
        reports.push(report);
    }
    let after = server.memory_kib();
    if let Some(hold) = hold {
        // For looking at the idle server from outside (gdb, /proc).
        eprintln!(
            "signaling_load: server pid {} idle for {} s",
            server.pid(),
            hold.as_secs()
        );
        tokio::time::sleep(hold).await;
    }
    let alive = server.is_alive();
    // A fresh room still pairs after the storm.
    let fresh = run_rooms(&server.url, 1, Duration::from_secs(10), || {}).await;
    let alive_after_fresh = server.is_alive();
    let all_right = reports.iter().all(LoadReport::all_paired_right);
    let ok = all_right && fresh.all_paired_right() && alive && alive_after_fresh;
    let kib = |m: Option<(u64, u64)>, i: usize| m.map(|m| if i == 0 { m.0 } else { m.1 });
    // Resident memory each idle connected client costs: the first round's
    // loaded reading over the idle server's, per client.
    let per_client = match (idle, loaded_kib.first().copied().flatten()) {
        (Some(idle), Some(loaded)) if clients > 0 => {
            json!((loaded.saturating_sub(idle.0) as f64 / clients as f64 * 10.0).round() / 10.0)
        }
        _ => serde_json::Value::Null,
    };
    let report = &reports[reports.len() - 1];
    let mut pairing: Vec<Duration> = reports
        .iter()
        .flat_map(|r| r.pairing.iter().copied())
        .collect();
    pairing.sort();
    let quantile = |q: f64| {
        (!pairing.is_empty()).then(|| pairing[((pairing.len() - 1) as f64 * q).round() as usize])
    };
    let errors: Vec<&String> = reports.iter().flat_map(|r| r.errors.iter()).collect();
    json!({
        "ok": ok,
        "clients": report.clients,
        "rooms": report.rooms,
        "rounds": reports.len(),
        "arrival_per_s": rate,
        "paired": reports.iter().map(|r| r.paired).min().unwrap_or(0),
        "partners_right": reports.iter().map(|r| r.partners_right).min().unwrap_or(0),
        "crossed": errors.iter().filter(|e| e.contains("crossed")).count(),
        "errors": errors.len(),
        "first_errors": errors.iter().take(5).collect::<Vec<_>>(),
        "pairing_ms": {
            "median": ms(quantile(0.5)),
            "p99": ms(quantile(0.99)),
            "max": ms(pairing.last().copied()),
        },
        "server": {
            "pid": server.pid(),
            "alive": alive && alive_after_fresh,
            "fresh_room_paired": fresh.all_paired_right(),
            "rss_kib_idle": kib(idle, 0),
            "rss_kib_loaded": loaded_kib.first().copied().flatten(),
            "rss_kib_after": kib(after, 0),
            "rss_kib_loaded_by_round": loaded_kib,
            "rss_kib_after_by_round": after_kib,
            "rss_kib_per_idle_client": per_client,
            "hwm_kib": kib(after, 1),
        },
        "elapsed_s": (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
    })
}

fn usage() -> ! {
    eprintln!(
        "usage: signaling_load [--clients EVEN_N] [--bin TWINSTAR] [--limit SECS] [--rounds N] [--rate CLIENTS_PER_S] [--hold SECS]"
    );
    std::process::exit(2);
}

fn main() {
    let mut clients = 200usize;
    let mut limit = 60u64;
    let mut rounds = 1usize;
    let mut rate: Option<u32> = None;
    let mut hold: Option<Duration> = None;
    let mut bin = std::env::var_os("TWINSTAR_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/release/twinstar"));
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage());
        match arg.as_str() {
            "--clients" => clients = value().parse().unwrap_or_else(|_| usage()),
            "--limit" => limit = value().parse().unwrap_or_else(|_| usage()),
            "--bin" => bin = PathBuf::from(value()),
            "--rounds" => rounds = value().parse().unwrap_or_else(|_| usage()),
            "--rate" => rate = Some(value().parse().unwrap_or_else(|_| usage())),
            "--hold" => {
                hold = Some(Duration::from_secs(
                    value().parse().unwrap_or_else(|_| usage()),
                ))
            }
            _ => usage(),
        }
    }
    if clients < 2
        || clients % 2 != 0
        || clients > 10_000
        || limit == 0
        || limit > 3600
        || !(1..=20).contains(&rounds)
        || rate == Some(0)
    {
        usage();
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("signaling_load: no tokio runtime: {e}");
            std::process::exit(1);
        }
    };
    let result = runtime.block_on(measure_rounds(
        &bin,
        clients,
        Duration::from_secs(limit),
        rounds,
        rate,
        hold,
    ));
    println!("{result}");
    std::process::exit(if result["ok"] == true { 0 } else { 1 });
}
