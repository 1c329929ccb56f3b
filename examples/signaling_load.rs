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
//!
//! The lobby (issue 34), two more modes, each adding one JSON field:
//!
//! - `--public`: each room's first client connects with
//!   `?public=1&name=Host-<n>&version=6.3` (its partner only once the host
//!   has its id, so the host is seated first and its room gets listed).
//!   With every client connected, `GET /rooms` is fetched
//!   (`--lobby-fetches`, default 20, times: the first page, and every page
//!   by the cursor) and checked: the first page is full, all pages together
//!   list each room exactly once, with its host, version and `playing`.
//!   Then `--compare-runs` (default 3) pairs of fresh servers, one private
//!   and one public run of the same size each, give the resident memory a
//!   public room costs. Field `lobby`.
//! - `--quick-levels SPREAD[,SPREAD...]`: clients connect to
//!   `/quick?version=V&level=L&rtt=R` instead, versions taken in turn from
//!   `--versions` (default `6.3,6.2`), levels uniform in 0..=SPREAD, rtt
//!   5..=200 ms; one run (`--rounds` runs) per spread. Checks every client
//!   pairs, mutually, and never across versions; reports pairing and
//!   connect times per spread and by the pair's level gap (the gap a pair
//!   may have widens with the wait). Field `quick`.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc as std_mpsc;
use std::time::{Duration, Instant};

use futures::{SinkExt, StreamExt};
use matchbox_protocol::{JsonPeerEvent, JsonPeerRequest, PeerId};
use serde_json::json;
use tokio::sync::{oneshot, watch};
use tokio_tungstenite::tungstenite::Message;
use twinstar_netcode::RoomCode;
use twinstar_signaling_protocol::{ROOMS_PAGE, RoomStatus, RoomsPage};

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
    /// From the start of its connect to the open websocket.
    pub connected_after: Option<Duration>,
    /// The `ticket` its partner's signal carried (quick match).
    pub partner_ticket: Option<usize>,
}

fn signal(to: PeerId, data: serde_json::Value) -> Message {
    let request = JsonPeerRequest::Signal { receiver: to, data };
    Message::text(request.to_string())
}

/// How one client connects and what its signals carry.
#[derive(Debug, Clone)]
pub struct ClientSpec {
    /// After the server URL's `/`: a room code or `quick`, with its query.
    pub path: String,
    /// Carried in every signal and checked on receipt: the room code, or
    /// for quick match the version (a pair must never cross it).
    pub room: String,
    /// Carried in signals as `ticket`, so the partner knows who it met.
    pub ticket: Option<usize>,
}

impl ClientSpec {
    /// A plain client of room `code`.
    pub fn room(code: &str) -> Self {
        ClientSpec {
            path: code.to_owned(),
            room: code.to_owned(),
            ticket: None,
        }
    }

    fn data(&self, kind: &str) -> serde_json::Value {
        let mut data = json!({"room": self.room, "kind": kind});
        if let Some(ticket) = self.ticket {
            data["ticket"] = json!(ticket);
        }
        data
    }
}

/// Orders a room's two clients: `seated` is told when the host has its
/// id (it is seated by then), `after` holds the joiner until then.
#[derive(Debug, Default)]
pub struct Gate {
    pub seated: Option<oneshot::Sender<()>>,
    pub after: Option<oneshot::Receiver<()>>,
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
    let spec = ClientSpec::room(&room);
    client_with(url, spec, Gate::default(), release, settled, limit).await
}

/// [`client`] connecting as `spec` says, ordered by `gate`.
pub async fn client_with(
    url: String,
    spec: ClientSpec,
    gate: Gate,
    release: watch::Receiver<bool>,
    settled: Arc<AtomicUsize>,
    limit: Duration,
) -> ClientOutcome {
    let out = client_inner(url, spec, gate, release, &settled, limit).await;
    if out.paired_after.is_none() {
        settled.fetch_add(1, Ordering::Relaxed);
    }
    out
}

async fn client_inner(
    url: String,
    spec: ClientSpec,
    gate: Gate,
    mut release: watch::Receiver<bool>,
    settled: &AtomicUsize,
    limit: Duration,
) -> ClientOutcome {
    let mut out = ClientOutcome::default();
    let Gate { mut seated, after } = gate;
    let deadline = tokio::time::Instant::now() + limit;
    if let Some(after) = after {
        // The host first: a joiner seated before it would keep it unlisted.
        let _ = tokio::time::timeout_at(deadline, after).await;
    }
    let room = &spec.room;
    let started = Instant::now();
    let ws = match tokio::time::timeout_at(
        deadline,
        tokio_tungstenite::connect_async(format!("{url}/{}", spec.path)),
    )
    .await
    {
        Ok(Ok((ws, _))) => {
            out.connected_after = Some(started.elapsed());
            ws
        }
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
            JsonPeerEvent::IdAssigned(id) if out.id.is_none() => {
                out.id = Some(id);
                if let Some(seated) = seated.take() {
                    let _ = seated.send(());
                }
            }
            JsonPeerEvent::NewPeer(peer) if out.partner.is_none() && out.id.is_some() => {
                out.partner = Some(peer);
                offered = true;
                reply = Some(signal(peer, spec.data("offer")));
            }
            JsonPeerEvent::Signal { sender, data } => {
                let from_room = data.get("room").and_then(|r| r.as_str()).unwrap_or("?");
                let kind = data.get("kind").and_then(|k| k.as_str()).unwrap_or("?");
                if let Some(ticket) = data.get("ticket").and_then(|t| t.as_u64()) {
                    out.partner_ticket = usize::try_from(ticket).ok();
                }
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
                    reply = Some(signal(sender, spec.data("answer")));
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
        if let Some(reply) = reply
            && let Err(e) = tx.send(reply).await
        {
            out.errors.push(format!("send: {e}"));
            break;
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
    let specs = codes
        .iter()
        .flat_map(|code| [ClientSpec::room(code), ClientSpec::room(code)])
        .collect();
    let (outcomes, _) = run_clients(url, specs, false, limit, rate, async move || loaded()).await;
    summarize(&codes, &outcomes, started.elapsed())
}

/// Runs one client per spec against `url`, arriving at most `rate` per
/// second (`None`: all at once). With `host_first`, clients 2k+1 connect
/// only once client 2k has its id. Once every client paired or gave up (and
/// half a second more, for stray messages), `loaded` runs with every one of
/// them still connected; then they are released. Returns the outcomes, in
/// `specs`' order, and the time it all took.
pub async fn run_clients(
    url: &str,
    specs: Vec<ClientSpec>,
    host_first: bool,
    limit: Duration,
    rate: Option<u32>,
    loaded: impl AsyncFnOnce(),
) -> (Vec<ClientOutcome>, Duration) {
    let started = Instant::now();
    let gap = rate.map(|r| Duration::from_secs_f64(1.0 / f64::from(r.max(1))));
    let (release_tx, release_rx) = watch::channel(false);
    let settled = Arc::new(AtomicUsize::new(0));
    let mut tasks = Vec::with_capacity(specs.len());
    let mut host_seated = None;
    for (i, spec) in specs.into_iter().enumerate() {
        if let Some(gap) = gap {
            // The arrival schedule, not the spawn speed, sets the rate.
            let due = started + gap * u32::try_from(tasks.len()).unwrap_or(u32::MAX);
            tokio::time::sleep_until(due.into()).await;
        }
        let mut gate = Gate::default();
        if host_first && i % 2 == 0 {
            let (tx, rx) = oneshot::channel();
            gate.seated = Some(tx);
            host_seated = Some(rx);
        } else if host_first {
            gate.after = host_seated.take();
        }
        tasks.push(tokio::spawn(client_with(
            url.to_owned(),
            spec,
            gate,
            release_rx.clone(),
            settled.clone(),
            limit,
        )));
    }
    // Wait until every client paired or gave up, then a little longer for
    // stray messages to arrive, with everyone still connected.
    let deadline = Instant::now() + limit;
    while settled.load(Ordering::Relaxed) < tasks.len() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    loaded().await;
    let _ = release_tx.send(true);
    let mut outcomes = Vec::with_capacity(tasks.len());
    for task in tasks {
        outcomes.push(task.await.unwrap_or_else(|e| ClientOutcome {
            errors: vec![format!("client task failed: {e}")],
            ..Default::default()
        }));
    }
    (outcomes, started.elapsed())
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

/// Durations' median, p99 and max, in ms (nearest rank, as `pairing_ms`).
fn spread_ms(mut times: Vec<Duration>) -> serde_json::Value {
    times.sort();
    let quantile = |q: f64| {
        (!times.is_empty()).then(|| times[((times.len() - 1) as f64 * q).round() as usize])
    };
    json!({
        "median": ms(quantile(0.5)),
        "p99": ms(quantile(0.99)),
        "max": ms(times.last().copied()),
    })
}

/// The version public hosts list their rooms with.
pub const PUBLIC_VERSION: &str = "6.3";

/// Two clients per room of `codes`; with `public`, each room's first asks
/// for it to be listed, as host `Host-<n>` (n from 1).
pub fn room_specs(codes: &[String], public: bool) -> Vec<ClientSpec> {
    codes
        .iter()
        .enumerate()
        .flat_map(|(n, code)| {
            let mut host = ClientSpec::room(code);
            if public {
                host.path = format!(
                    "{code}?public=1&name=Host-{}&version={PUBLIC_VERSION}",
                    n + 1
                );
            }
            [host, ClientSpec::room(code)]
        })
        .collect()
}

/// A plain HTTP/1.1 GET on a fresh connection: (status, body).
pub fn http_get(addr: &str, path: &str) -> Result<(u16, Vec<u8>), String> {
    let mut stream = std::net::TcpStream::connect(addr).map_err(|e| format!("connect: {e}"))?;
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let _ = stream.set_nodelay(true);
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| format!("send: {e}"))?;
    let mut raw = Vec::new();
    stream
        .read_to_end(&mut raw)
        .map_err(|e| format!("read: {e}"))?;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("no end of headers")?;
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or("no status")?;
    let mut body = raw[split + 4..].to_vec();
    if head.contains("transfer-encoding: chunked") {
        let mut plain = Vec::new();
        let mut rest = &body[..];
        loop {
            let end = rest
                .windows(2)
                .position(|w| w == b"\r\n")
                .ok_or("bad chunk")?;
            let size = usize::from_str_radix(String::from_utf8_lossy(&rest[..end]).trim(), 16)
                .map_err(|_| "bad chunk size")?;
            if size == 0 {
                break;
            }
            let chunk = rest.get(end + 2..end + 2 + size).ok_or("short chunk")?;
            plain.extend_from_slice(chunk);
            rest = rest.get(end + 4 + size..).ok_or("short chunk")?;
        }
        body = plain;
    }
    Ok((status, body))
}

/// `GET path` as a [`RoomsPage`]: the page and its size in bytes.
fn rooms_page(addr: &str, path: &str) -> Result<(RoomsPage, usize), String> {
    let (status, body) = http_get(addr, path)?;
    if status != 200 {
        return Err(format!(
            "GET {path}: {status} {}",
            String::from_utf8_lossy(&body).trim()
        ));
    }
    let page = serde_json::from_slice(&body).map_err(|e| format!("GET {path}: {e}"))?;
    Ok((page, body.len()))
}

/// With every client of `codes`' rooms connected (room n hosted by
/// `Host-<n+1>`): `fetches` times the first page of `GET /rooms`, and
/// `fetches` times every page by the cursor; checks the listing.
pub fn check_lobby(addr: &str, codes: &[String], fetches: usize) -> serde_json::Value {
    let expected: HashMap<&str, String> = codes
        .iter()
        .enumerate()
        .map(|(n, code)| (code.as_str(), format!("Host-{}", n + 1)))
        .collect();
    let full_page = codes.len().min(ROOMS_PAGE);
    let mut problems: Vec<String> = Vec::new();
    let mut first_page = Vec::new();
    let mut first_counts = HashSet::new();
    let mut first_bytes = 0;
    for _ in 0..fetches {
        let t = Instant::now();
        match rooms_page(addr, "/rooms") {
            Ok((page, bytes)) => {
                first_page.push(t.elapsed());
                first_counts.insert(page.rooms.len());
                first_bytes = bytes;
            }
            Err(e) => problems.push(e),
        }
    }
    let mut all_pages = Vec::new();
    let mut each_page = Vec::new();
    let mut walks = Vec::new();
    // A walk longer than this loops.
    let max_pages = codes.len() / ROOMS_PAGE.max(1) + 2;
    for _ in 0..fetches {
        let t = Instant::now();
        let mut seen: HashMap<String, usize> = HashMap::new();
        let (mut listed, mut pages, mut wrong, mut unknown, mut waiting) = (0, 0, 0, 0, 0);
        let mut cursor: Option<String> = None;
        loop {
            let path = match &cursor {
                Some(c) => format!("/rooms?cursor={c}"),
                None => "/rooms".to_owned(),
            };
            let p = Instant::now();
            let page = match rooms_page(addr, &path) {
                Ok((page, _)) => page,
                Err(e) => {
                    problems.push(e);
                    break;
                }
            };
            each_page.push(p.elapsed());
            pages += 1;
            for room in &page.rooms {
                listed += 1;
                let code = RoomCode::parse(&room.code)
                    .map(|c| c.canonical().to_owned())
                    .unwrap_or_else(|_| room.code.clone());
                match expected.get(code.as_str()) {
                    None => unknown += 1,
                    Some(host) if *host != room.host.as_str() => wrong += 1,
                    Some(_) if room.version.as_str() != PUBLIC_VERSION => wrong += 1,
                    Some(_) => {}
                }
                if room.state != RoomStatus::Playing {
                    waiting += 1;
                }
                *seen.entry(code).or_default() += 1;
            }
            match page.next {
                Some(next) if pages < max_pages => cursor = Some(next),
                Some(_) => {
                    problems.push(format!("more than {max_pages} pages"));
                    break;
                }
                None => break,
            }
        }
        all_pages.push(t.elapsed());
        let duplicated = seen.values().filter(|n| **n > 1).count();
        let missing = expected.keys().filter(|c| !seen.contains_key(**c)).count();
        walks.push(json!({
            "pages": pages,
            "listed": listed,
            "unique": seen.len(),
            "missing": missing,
            "duplicated": duplicated,
            "unknown": unknown,
            "wrong_host_or_version": wrong,
            "not_playing": waiting,
        }));
    }
    // The version filter: all of them for 6.3, none for another.
    let filtered = rooms_page(addr, &format!("/rooms?version={PUBLIC_VERSION}"))
        .map(|(p, _)| p.rooms.len())
        .map_err(|e| problems.push(e))
        .ok();
    let other = rooms_page(addr, "/rooms?version=0.0-none")
        .map(|(p, _)| p.rooms.len())
        .map_err(|e| problems.push(e))
        .ok();
    let walks_differ = walks.windows(2).any(|w| w[0] != w[1]);
    let walk = walks.first().cloned().unwrap_or(json!(null));
    let walk_right = walk["listed"] == codes.len()
        && walk["unique"] == codes.len()
        && walk["missing"] == 0
        && walk["duplicated"] == 0
        && walk["unknown"] == 0
        && walk["wrong_host_or_version"] == 0
        && walk["not_playing"] == 0;
    let ok = problems.is_empty()
        && first_counts.len() == 1
        && first_counts.contains(&full_page)
        && walk_right
        && !walks_differ
        && filtered == Some(full_page)
        && other == Some(0);
    json!({
        "ok": ok,
        "rooms": codes.len(),
        "fetches": fetches,
        "first_page_rooms": first_counts.into_iter().collect::<Vec<_>>(),
        "first_page_bytes": first_bytes,
        "first_page_ms": spread_ms(first_page),
        "all_pages_ms": spread_ms(all_pages),
        "each_page_ms": spread_ms(each_page),
        "walk": walk,
        "walks_differ": walks_differ,
        "version_filter_rooms": filtered,
        "other_version_rooms": other,
        "problems": problems.iter().take(5).collect::<Vec<_>>(),
    })
}

/// One fresh server, `rooms` rooms (public or not) all connected, host
/// first: the server's (idle, loaded) VmRSS in KiB.
async fn rss_sample(
    bin: &Path,
    rooms: usize,
    public: bool,
    limit: Duration,
) -> Result<(u64, u64), String> {
    let server = ServerProcess::start(bin)?;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let idle = server.memory_kib().ok_or("no /proc")?.0;
    let codes = room_codes(rooms);
    let mut loaded = None;
    let specs = room_specs(&codes, public);
    let (outcomes, elapsed) = run_clients(&server.url, specs, true, limit, None, async || {
        loaded = server.memory_kib();
    })
    .await;
    let report = summarize(&codes, &outcomes, elapsed);
    if !report.all_paired_right() {
        return Err(format!(
            "{} of {} paired right, {} errors",
            report.partners_right,
            report.clients,
            report.errors.len()
        ));
    }
    Ok((idle, loaded.ok_or("no /proc")?.0))
}

/// `runs` pairs of fresh servers, private then public, of `rooms` rooms:
/// what a public room costs in resident memory.
async fn public_room_cost(
    bin: &Path,
    rooms: usize,
    runs: usize,
    limit: Duration,
) -> serde_json::Value {
    let mut private = Vec::new();
    let mut public = Vec::new();
    let mut problems = Vec::new();
    for _ in 0..runs {
        for (listed, into) in [(false, &mut private), (true, &mut public)] {
            match rss_sample(bin, rooms, listed, limit).await {
                Ok((idle, loaded)) => into.push((idle, loaded)),
                Err(e) => problems.push(e),
            }
        }
    }
    let median = |v: &[(u64, u64)]| {
        let mut grown: Vec<i64> = v.iter().map(|(i, l)| *l as i64 - *i as i64).collect();
        grown.sort();
        grown.get(grown.len().saturating_sub(1) / 2).copied()
    };
    let per_room = match (median(&private), median(&public)) {
        (Some(a), Some(b)) if rooms > 0 => {
            json!(((b - a) as f64 / rooms as f64 * 100.0).round() / 100.0)
        }
        _ => serde_json::Value::Null,
    };
    let pairs = |v: &[(u64, u64)]| v.iter().map(|(i, l)| json!([i, l])).collect::<Vec<_>>();
    json!({
        "ok": problems.is_empty(),
        "runs": runs,
        "rooms": rooms,
        "private_rss_kib_idle_loaded": pairs(&private),
        "public_rss_kib_idle_loaded": pairs(&public),
        "private_growth_kib_median": median(&private),
        "public_growth_kib_median": median(&public),
        "kib_per_public_room": per_room,
        "problems": problems.iter().take(5).collect::<Vec<_>>(),
    })
}

/// splitmix64: reproducible levels without a generator crate.
fn next_random(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// What one quick-match client claimed.
#[derive(Debug, Clone)]
pub struct QuickClaim {
    pub version: usize,
    pub level: u32,
    pub rtt_ms: u32,
}

/// `clients` quick-match clients, versions in turn, levels uniform in
/// 0..=`spread`, round trips 5..=200 ms.
pub fn quick_specs(
    clients: usize,
    versions: &[String],
    spread: u32,
    seed: u64,
) -> (Vec<ClientSpec>, Vec<QuickClaim>) {
    let mut state = seed;
    (0..clients)
        .map(|i| {
            let claim = QuickClaim {
                version: i % versions.len().max(1),
                level: (next_random(&mut state) % (u64::from(spread) + 1)) as u32,
                rtt_ms: 5 + (next_random(&mut state) % 196) as u32,
            };
            let v = &versions[claim.version];
            let spec = ClientSpec {
                path: format!(
                    "quick?version={v}&level={}&rtt={}",
                    claim.level, claim.rtt_ms
                ),
                room: format!("quick-v{v}"),
                ticket: Some(i),
            };
            (spec, claim)
        })
        .unzip()
}

/// The server's widening level gap (its registry's `quick_gap`): 2 levels
/// at once, 4 more each whole second waited, anyone after 10 s.
const QUICK_GAP_START: u32 = 2;
const QUICK_GAP_PER_S: u32 = 4;
const QUICK_ANYONE_AFTER_S: u32 = 10;

/// Level-gap buckets by the wait that allows them: (lowest gap, highest
/// gap, whole seconds a pair of that gap waits at least).
fn gap_buckets() -> Vec<(u32, u32, u32)> {
    let mut buckets = vec![(0, QUICK_GAP_START, 0)];
    for s in 1..QUICK_ANYONE_AFTER_S {
        let hi = QUICK_GAP_START + QUICK_GAP_PER_S * s;
        buckets.push((hi - QUICK_GAP_PER_S + 1, hi, s));
    }
    let last = QUICK_GAP_START + QUICK_GAP_PER_S * (QUICK_ANYONE_AFTER_S - 1);
    buckets.push((last + 1, u32::MAX, QUICK_ANYONE_AFTER_S));
    buckets
}

/// Checks quick-match outcomes: everyone paired, mutually, within its
/// version. The report and the figures by level gap.
pub fn summarize_quick(
    claims: &[QuickClaim],
    versions: &[String],
    spread: u32,
    outcomes: &[ClientOutcome],
    elapsed: Duration,
) -> (LoadReport, serde_json::Value) {
    let ids: HashMap<PeerId, usize> = outcomes
        .iter()
        .enumerate()
        .filter_map(|(i, o)| Some((o.id?, i)))
        .collect();
    let mut errors = Vec::new();
    let mut pairing = Vec::new();
    let mut partners_right = 0;
    let mut crossed_versions = 0;
    let mut gaps = Vec::new();
    let buckets = gap_buckets();
    let mut by_gap: Vec<Vec<Duration>> = vec![Vec::new(); buckets.len()];
    for (i, out) in outcomes.iter().enumerate() {
        let me = &claims[i];
        let who = format!(
            "client {i} (quick, {} level {})",
            versions[me.version], me.level
        );
        for e in &out.errors {
            errors.push(format!("{who}: {e}"));
        }
        if let Some(t) = out.paired_after {
            pairing.push(t);
        }
        let Some(j) = out.partner.and_then(|p| ids.get(&p).copied()) else {
            if out.paired_after.is_some() {
                errors.push(format!("{who} paired with an unknown peer"));
            }
            continue;
        };
        let them = &claims[j];
        if them.version != me.version {
            crossed_versions += 1;
            errors.push(format!(
                "crossed: {who} paired with client {j} of version {}",
                versions[them.version]
            ));
        } else if outcomes[j].partner != out.id || out.partner_ticket.is_some_and(|t| t != j) {
            errors.push(format!(
                "{who} paired with client {j}, which did not pair back"
            ));
        } else if out.paired_after.is_some() {
            partners_right += 1;
            let gap = me.level.abs_diff(them.level);
            if i < j {
                gaps.push(gap);
            }
            if let (Some(bucket), Some(t)) = (
                buckets
                    .iter()
                    .position(|(lo, hi, _)| (*lo..=*hi).contains(&gap)),
                out.paired_after,
            ) {
                by_gap[bucket].push(t);
            }
        }
    }
    pairing.sort();
    gaps.sort();
    let paired = outcomes.iter().filter(|o| o.paired_after.is_some()).count();
    let connect: Vec<Duration> = outcomes.iter().filter_map(|o| o.connected_after).collect();
    let per_version: Vec<usize> = (0..versions.len())
        .map(|v| claims.iter().filter(|c| c.version == v).count())
        .collect();
    let extra = json!({
        "spread": spread,
        "clients": outcomes.len(),
        "clients_per_version": per_version,
        "paired": paired,
        "partners_right": partners_right,
        "crossed_versions": crossed_versions,
        "errors": errors.len(),
        "pairing_ms": spread_ms(pairing.clone()),
        "connect_ms": spread_ms(connect),
        "pair_level_gap": {
            "median": gaps.get(gaps.len().saturating_sub(1) / 2),
            "max": gaps.last(),
            "mean": (!gaps.is_empty()).then(|| {
                (gaps.iter().map(|g| f64::from(*g)).sum::<f64>() / gaps.len() as f64 * 100.0)
                    .round() / 100.0
            }),
        },
        "by_gap": buckets.iter().zip(by_gap).filter(|(_, times)| !times.is_empty()).map(|((lo, hi, from_s), times)| json!({
            "gap": if *hi == u32::MAX { format!("{lo}+") } else { format!("{lo}-{hi}") },
            "waits_at_least_s": from_s,
            "clients": times.len(),
            "pairing_ms": spread_ms(times),
        })).collect::<Vec<_>>(),
        "elapsed_s": (elapsed.as_secs_f64() * 10.0).round() / 10.0,
    });
    let report = LoadReport {
        clients: outcomes.len(),
        rooms: outcomes.len() / 2,
        paired,
        partners_right,
        errors,
        pairing,
        elapsed,
    };
    (report, extra)
}

/// What the load's clients do.
#[derive(Debug, Clone)]
pub enum Mode {
    /// Two clients per room; with `public`, the host lists it and the lobby
    /// is checked (`fetches` times) and costed (`compare_runs` pairs).
    Rooms {
        public: bool,
        fetches: usize,
        compare_runs: usize,
    },
    /// Quick-match tickets, one run per level spread.
    Quick {
        spreads: Vec<u32>,
        versions: Vec<String>,
    },
}

impl Mode {
    pub const PRIVATE: Mode = Mode::Rooms {
        public: false,
        fetches: 0,
        compare_runs: 0,
    };
}

/// The whole measurement: server process, `rounds` rounds of the load
/// (clients arriving at `rate` per second, or all at once), memory, a fresh
/// pair after.
pub async fn measure(bin: &Path, clients: usize, limit: Duration) -> serde_json::Value {
    measure_rounds(bin, clients, limit, 1, None, None).await
}

/// [`measure_with`] of private rooms.
pub async fn measure_rounds(
    bin: &Path,
    clients: usize,
    limit: Duration,
    rounds: usize,
    rate: Option<u32>,
    hold: Option<Duration>,
) -> serde_json::Value {
    measure_with(bin, clients, limit, rounds, rate, hold, &Mode::PRIVATE).await
}

/// The whole measurement in `mode`: the fields of [`measure_rounds`], and
/// `lobby` (public rooms) or `quick` (quick match). In quick mode a round
/// is one run per spread, `rounds` each.
pub async fn measure_with(
    bin: &Path,
    clients: usize,
    limit: Duration,
    rounds: usize,
    rate: Option<u32>,
    hold: Option<Duration>,
    mode: &Mode,
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
    let jobs: Vec<Option<u32>> = match mode {
        Mode::Rooms { .. } => vec![None; rounds.max(1)],
        Mode::Quick { spreads, .. } => spreads
            .iter()
            .flat_map(|s| std::iter::repeat_n(Some(*s), rounds.max(1)))
            .collect(),
    };
    let addr = server.url.trim_start_matches("ws://").to_owned();
    let mut lobby = Vec::new();
    let mut quick = Vec::new();
    for (round, job) in jobs.iter().enumerate() {
        let mut under_load = None;
        let report = match (mode, job) {
            (
                Mode::Rooms {
                    public: true,
                    fetches,
                    ..
                },
                _,
            ) => {
                let codes = room_codes(clients / 2);
                let specs = room_specs(&codes, true);
                let mut listing = serde_json::Value::Null;
                let (outcomes, elapsed) =
                    run_clients(&server.url, specs, true, limit, rate, async || {
                        // Memory first: the fetches below allocate too.
                        under_load = server.memory_kib();
                        let (addr, codes, fetches) = (addr.clone(), codes.clone(), *fetches);
                        listing = tokio::task::spawn_blocking(move || {
                            check_lobby(&addr, &codes, fetches)
                        })
                        .await
                        .unwrap_or_else(|e| json!({"ok": false, "problems": [e.to_string()]}));
                    })
                    .await;
                lobby.push(listing);
                summarize(&codes, &outcomes, elapsed)
            }
            (Mode::Quick { versions, .. }, Some(spread)) => {
                let seed = 0x5eed_u64 ^ (u64::from(*spread) << 16) ^ round as u64;
                let (specs, claims) = quick_specs(clients, versions, *spread, seed);
                let (outcomes, elapsed) =
                    run_clients(&server.url, specs, false, limit, rate, async || {
                        under_load = server.memory_kib();
                    })
                    .await;
                let (report, extra) =
                    summarize_quick(&claims, versions, *spread, &outcomes, elapsed);
                quick.push(extra);
                report
            }
            _ => {
                run_rooms_at(&server.url, clients / 2, limit, rate, || {
                    under_load = server.memory_kib();
                })
                .await
            }
        };
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
    let mut ok = all_right && fresh.all_paired_right() && alive && alive_after_fresh;
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
    let mut result = json!({
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
    });
    match mode {
        Mode::Rooms {
            public: true,
            fetches,
            compare_runs,
        } => {
            drop(server);
            let cost = if *compare_runs > 0 {
                public_room_cost(bin, clients / 2, *compare_runs, limit).await
            } else {
                serde_json::Value::Null
            };
            ok = ok
                && lobby.iter().all(|l| l["ok"] == true)
                && (cost.is_null() || cost["ok"] == true);
            result["lobby"] = json!({
                "version": PUBLIC_VERSION,
                "fetches": fetches,
                "by_round": lobby,
                "memory": cost,
            });
        }
        Mode::Quick { spreads, versions } => {
            ok = ok && quick.iter().all(|q| q["crossed_versions"] == 0);
            result["quick"] = json!({
                "versions": versions,
                "spreads": spreads,
                "runs": quick,
            });
        }
        Mode::Rooms { .. } => {}
    }
    result["ok"] = json!(ok);
    result["elapsed_s"] = json!((started.elapsed().as_secs_f64() * 10.0).round() / 10.0);
    result
}

fn usage() -> ! {
    eprintln!(
        "usage: signaling_load [--clients EVEN_N] [--bin TWINSTAR] [--limit SECS] [--rounds N] [--rate CLIENTS_PER_S] [--hold SECS]\n\
         \x20      [--public [--lobby-fetches N] [--compare-runs N]]\n\
         \x20      [--quick-levels SPREAD[,SPREAD...] [--versions V[,V...]]]"
    );
    std::process::exit(2);
}

fn main() {
    let mut clients = 200usize;
    let mut limit = 60u64;
    let mut rounds = 1usize;
    let mut rate: Option<u32> = None;
    let mut hold: Option<Duration> = None;
    let mut public = false;
    let mut fetches = 20usize;
    let mut compare_runs = 3usize;
    let mut spreads: Option<Vec<u32>> = None;
    let mut versions: Vec<String> = vec!["6.3".into(), "6.2".into()];
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
            "--public" => public = true,
            "--lobby-fetches" => fetches = value().parse().unwrap_or_else(|_| usage()),
            "--compare-runs" => compare_runs = value().parse().unwrap_or_else(|_| usage()),
            "--quick-levels" => {
                let list: Result<Vec<u32>, _> = value().split(',').map(str::parse).collect();
                spreads = Some(list.unwrap_or_else(|_| usage()));
            }
            "--versions" => versions = value().split(',').map(str::to_owned).collect(),
            _ => usage(),
        }
    }
    let mode = match spreads {
        Some(spreads) => {
            let bad_spread = spreads.is_empty()
                || spreads.len() > 10
                || spreads
                    .iter()
                    .any(|s| *s > twinstar_signaling_protocol::MAX_LEVEL);
            let bad_version = versions.is_empty()
                || versions
                    .iter()
                    .any(|v| twinstar_signaling_protocol::VersionTag::parse(v).is_err());
            if public || bad_spread || bad_version || !clients.is_multiple_of(2 * versions.len()) {
                usage();
            }
            Mode::Quick { spreads, versions }
        }
        None => Mode::Rooms {
            public,
            fetches,
            compare_runs,
        },
    };
    if !(1..=1000).contains(&fetches) || compare_runs > 20 {
        usage();
    }
    if clients < 2
        || !clients.is_multiple_of(2)
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
    let result = runtime.block_on(measure_with(
        &bin,
        clients,
        Duration::from_secs(limit),
        rounds,
        rate,
        hold,
        &mode,
    ));
    println!("{result}");
    std::process::exit(if result["ok"] == true { 0 } else { 1 });
}
