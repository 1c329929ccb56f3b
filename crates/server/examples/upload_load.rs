//! Ranked-replay uploads under load (DESIGN.md decision 8), a benchmark,
//! not a test: one server in process (the library with twinstar's
//! verifier, as `twinstar-server` runs it, on a 2-thread runtime), fed
//! ten-minute replays at a fixed rate while rooms keep pairing beside them.
//!
//! ```text
//! cargo run --release -p twinstar-server --example upload_load -- \
//!     [--rates 1,2,3,4] [--seconds 20] [--verifiers 2] [--pair-rate 10] [--minutes 10] \
//!     [--preset default|stress]
//! ```
//!
//! For each rate R: R x seconds rooms are paired through the websocket
//! (two raw players each; the server's ledger then knows the matches),
//! a replay of `--minutes` of play is recorded for each (the verifier's
//! sample match: two scripted players, `twinstar_verify::sample`; recorded
//! before the clock starts), then the replays are uploaded open loop, one
//! every 1/R s, each from an address of its own (`X-Forwarded-For`, the
//! server trusting it: the per-address limit is not what is measured),
//! while a room is paired every 1/pair-rate s. Reported per rate:
//! uploads ranked (201) and refused (503 = verifier queue full), upload ->
//! ranked p50/p99 (from the upload's scheduled start), and the pairing
//! p50/p99 (second player's connect -> the first told of it), beside the
//! pairing figures of a run without uploads. Sustained: every upload ranked
//! and its p99 under `--max-p99-ms` (default 2000).
//!
//! The replays last ten minutes but their rooms were paired a moment before
//! the upload: the server would refuse them as longer than their room was
//! open, so this benchmark sets `ServeOptions::replay_lifetime_slack`, a
//! library field no flag, variable or config key of the shipped server
//! sets. Last stdout line: one JSON object.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::Parser;
use twinstar_signaling::{ServeOptions, VerifierPool, bind_with};
use twinstar_verify::TwinstarVerifier;
use twinstar_verify::sample::SampleMatch;

#[derive(Parser)]
struct Args {
    /// Upload rates to try, per second.
    #[arg(long, value_delimiter = ',', default_value = "1,2,3,4")]
    rates: Vec<f64>,
    /// How long each rate runs.
    #[arg(long, default_value_t = 20)]
    seconds: u64,
    /// Verifier workers (`--verifiers`; the server's default is the cores).
    #[arg(long, default_value_t = 2)]
    verifiers: usize,
    /// Rooms paired a second beside the uploads (and without them).
    #[arg(long, default_value_t = 10.0)]
    pair_rate: f64,
    /// Minutes of play in each replay.
    #[arg(long, default_value_t = 10)]
    minutes: u32,
    /// The replays' preset: `default` (the sample's two scripted players
    /// lose their lives within two minutes; the rest is an empty arena,
    /// cheap to re-simulate) or `stress` (immortal players, 288 enemies and
    /// 2,000+ bullets every frame: the costliest replay there is).
    #[arg(long, default_value = "default", value_parser = ["default", "stress"])]
    preset: String,
    /// The upload p99 a sustained rate stays under.
    #[arg(long, default_value_t = 2000)]
    max_p99_ms: u64,
}

/// A fresh room code (7 symbols of the room alphabet).
fn room() -> String {
    static MADE: AtomicU64 = AtomicU64::new(0);
    const ALPHABET: &[u8] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";
    let mut x = MADE.fetch_add(1, Ordering::Relaxed) + 31u64.pow(6);
    (0..7)
        .map(|_| {
            let c = ALPHABET[(x % 31) as usize] as char;
            x /= 31;
            c
        })
        .collect()
}

/// A player seated in room `code` (the upgrade by hand), its stream and
/// peer id.
fn player(addr: SocketAddr, code: &str) -> std::io::Result<(TcpStream, String)> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(
        stream,
        "GET /{code} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )?;
    let mut head = Vec::new();
    let mut byte = [0u8];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte)?;
        head.push(byte[0]);
    }
    if !head.starts_with(b"HTTP/1.1 101") {
        return Err(std::io::Error::other("no websocket upgrade"));
    }
    let message = frame(&mut stream)?;
    let id = message["IdAssigned"]
        .as_str()
        .ok_or_else(|| std::io::Error::other(format!("not an IdAssigned: {message}")))?;
    Ok((stream, id.to_owned()))
}

/// The server's next text frame (unmasked), as JSON; other frames (the
/// server's pings) are skipped.
fn frame(stream: &mut TcpStream) -> std::io::Result<serde_json::Value> {
    loop {
        let mut head = [0u8; 2];
        stream.read_exact(&mut head)?;
        let len = match head[1] & 0x7F {
            126 => {
                let mut n = [0u8; 2];
                stream.read_exact(&mut n)?;
                usize::from(u16::from_be_bytes(n))
            }
            127 => return Err(std::io::Error::other("an oversized frame")),
            n => usize::from(n),
        };
        let mut payload = vec![0u8; len];
        stream.read_exact(&mut payload)?;
        if head[0] & 0x0F == 1 {
            return serde_json::from_slice(&payload).map_err(std::io::Error::other);
        }
    }
}

/// A room paired: both players' streams, the second's id, and how long
/// from the second's connect until the first was told of it.
fn pair(addr: SocketAddr, code: &str) -> std::io::Result<(TcpStream, TcpStream, String, Duration)> {
    let (mut first, _) = player(addr, code)?;
    let started = Instant::now();
    let (second, id) = player(addr, code)?;
    let told = frame(&mut first)?;
    if told.get("NewPeer").is_none() {
        return Err(std::io::Error::other(format!("not a NewPeer: {told}")));
    }
    Ok((first, second, id, started.elapsed()))
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i].as_secs_f64() * 1000.0
}

/// Pairs a room every `1 / rate` s until `until`: the pairing times.
fn pair_at(addr: SocketAddr, rate: f64, until: Instant) -> Vec<Duration> {
    let mut times = Vec::new();
    let start = Instant::now();
    let mut k = 0u32;
    while Instant::now() < until {
        let due = start + Duration::from_secs_f64(f64::from(k) / rate);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        k += 1;
        match pair(addr, &room()) {
            // The players leave at once: the room closes, as a short match.
            Ok((_, _, _, took)) => times.push(took),
            Err(e) => eprintln!("upload_load: a pairing failed: {e}"),
        }
    }
    times.sort();
    times
}

/// One upload: its status and the time from `due` to its answer.
fn upload(addr: SocketAddr, n: usize, bytes: &[u8], score: u64) -> (u16, Instant) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .into();
    // An address of its own per upload (10.x.y.z).
    let from = format!("10.{}.{}.{}", (n >> 16) & 255, (n >> 8) & 255, n & 255);
    let status = agent
        .post(&format!("http://{addr}/replays?score={score}"))
        .header("Content-Type", "application/octet-stream")
        .header("X-Forwarded-For", &from)
        .send(bytes)
        .map_or(0, |r| r.status().as_u16());
    (status, Instant::now())
}

/// One server with the verifier pool on its own runtime (2 workers, as
/// the machine's cores), in this process: its address.
fn start_server(verifiers: usize) -> SocketAddr {
    let mut options = ServeOptions::new(None);
    options.metrics.bind = None;
    options.max_per_address = usize::MAX;
    options.trust_forwarded = true;
    options.replays = Some(VerifierPool::new(Arc::new(TwinstarVerifier), verifiers));
    options.replay_lifetime_slack = Duration::from_secs(24 * 3600);
    let server = match bind_with("127.0.0.1:0".parse().expect("an address"), options) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("upload_load: {e}");
            std::process::exit(1);
        }
    };
    let addr = server.local_addr();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(server.serve(std::future::pending::<()>()))
    });
    addr
}

/// `n` matches paired by the server (players gone), each with a sample
/// replay of `frames` frames recorded on two threads: bytes and score.
fn recorded_matches(
    addr: SocketAddr,
    n: usize,
    frames: u32,
    preset: &'static str,
) -> Vec<(Vec<u8>, u64)> {
    let matches: Vec<(String, String)> = (0..n)
        .map(|_| {
            let code = room();
            let (_, _, id, _) = pair(addr, &code).expect("a room pairs");
            (code, id)
        })
        .collect();
    std::thread::scope(|s| {
        let halves: Vec<_> = matches
            .chunks(n.div_ceil(2))
            .map(|chunk| {
                s.spawn(move || {
                    (chunk.iter().enumerate())
                        .map(|(i, (code, id))| {
                            let mut m = SampleMatch::new(7, frames, code, id);
                            m.turn_frames = 30 + i as u32 % 40;
                            m.preset = preset;
                            m.record().expect("a sample replay records")
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        halves
            .into_iter()
            .flat_map(|h| h.join().expect("recording"))
            .collect()
    })
}

/// Uploads `replays` open loop at `rate` a second while rooms pair at
/// `pair_rate` for `seconds`: each upload's status and time from when it
/// was due to its answer, and the pairing times.
fn uploads_beside_pairing(
    addr: SocketAddr,
    replays: &[(Vec<u8>, u64)],
    rate: f64,
    pair_rate: f64,
    seconds: Duration,
) -> (Vec<(u16, Duration)>, Vec<Duration>) {
    let start = Instant::now() + Duration::from_millis(200);
    std::thread::scope(|s| {
        let pairing = s.spawn(|| pair_at(addr, pair_rate, start + seconds));
        let uploads: Vec<_> = (replays.iter().enumerate())
            .map(|(k, (bytes, score))| {
                let due = start + Duration::from_secs_f64(k as f64 / rate);
                if let Some(wait) = due.checked_duration_since(Instant::now()) {
                    std::thread::sleep(wait);
                }
                s.spawn(move || {
                    let (status, done) = upload(addr, k, bytes, *score);
                    (status, done.saturating_duration_since(due))
                })
            })
            .collect();
        let answers = uploads
            .into_iter()
            .map(|u| u.join().expect("an upload"))
            .collect();
        (answers, pairing.join().expect("pairing"))
    })
}

fn main() {
    let args = Args::parse();
    let addr = start_server(args.verifiers);
    let frames = args.minutes * 60 * 60;
    let preset: &'static str = if args.preset == "stress" {
        "stress"
    } else {
        "default"
    };
    let seconds = Duration::from_secs(args.seconds);

    let alone = pair_at(addr, args.pair_rate, Instant::now() + seconds);
    let (alone_p50, alone_p99) = (percentile(&alone, 0.5), percentile(&alone, 0.99));
    println!(
        "pairing without uploads: {} rooms at {}/s, p50 {alone_p50:.1} ms, p99 {alone_p99:.1} ms",
        alone.len(),
        args.pair_rate
    );

    let mut results = Vec::new();
    let mut best: Option<(f64, f64, f64)> = None;
    for &rate in &args.rates {
        let n = (rate * seconds.as_secs_f64()).round().max(1.0) as usize;
        let recording = Instant::now();
        let replays = recorded_matches(addr, n, frames, preset);
        let kb = replays.iter().map(|(b, _)| b.len()).sum::<usize>() / n / 1024;
        eprintln!(
            "rate {rate}/s: {n} replays of {} min ({kb} KiB each) recorded in {:.1} s",
            args.minutes,
            recording.elapsed().as_secs_f64()
        );
        let (answers, pairings) =
            uploads_beside_pairing(addr, &replays, rate, args.pair_rate, seconds);
        let ranked = answers.iter().filter(|(s, _)| *s == 201).count();
        let busy = answers.iter().filter(|(s, _)| *s == 503).count();
        let other = n - ranked - busy;
        let mut took: Vec<Duration> = answers
            .iter()
            .filter(|(s, _)| *s == 201)
            .map(|(_, t)| *t)
            .collect();
        took.sort();
        let (p50, p99) = (percentile(&took, 0.5), percentile(&took, 0.99));
        let (pair50, pair99) = (percentile(&pairings, 0.5), percentile(&pairings, 0.99));
        let sustained = ranked == n && p99 <= args.max_p99_ms as f64;
        println!(
            "rate {rate}/s: {ranked}/{n} ranked, {busy} busy (503), {other} other; upload->ranked \
             p50 {p50:.0} ms p99 {p99:.0} ms; pairing p50 {pair50:.1} ms p99 {pair99:.1} ms \
             ({} rooms); {}",
            pairings.len(),
            if sustained {
                "sustained"
            } else {
                "NOT sustained"
            }
        );
        if sustained && best.is_none_or(|(r, _, _)| rate > r) {
            best = Some((rate, p99, pair99));
        }
        results.push(serde_json::json!({
            "rate": rate, "uploads": n, "ranked": ranked, "busy": busy, "other": other,
            "upload_p50_ms": p50, "upload_p99_ms": p99,
            "pairing_p50_ms": pair50, "pairing_p99_ms": pair99, "sustained": sustained,
        }));
    }
    println!(
        "{}",
        serde_json::json!({
            "verifiers": args.verifiers,
            "preset": preset,
            "replay_minutes": args.minutes,
            "pairing_alone_p50_ms": alone_p50,
            "pairing_alone_p99_ms": alone_p99,
            "best_sustained_rate": best.map(|b| b.0),
            "upload_p99_ms_at_best": best.map(|b| b.1),
            "pairing_p99_ms_at_best": best.map(|b| b.2),
            "rates": results,
        })
    );
}
