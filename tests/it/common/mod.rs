//! What the suites in tests/it share: the `twinstar` binary as a process that
//! is killed and reaped when dropped ([`Twinstar`], [`run`]), scratch
//! directories, the `--json` summary, replay verification, a `twinstar
//! serve` signaling server ([`Server`]) and the arguments of a bot peer.
//!
//! A suite uses it with `use crate::common;` (tests/it/main.rs declares it).

// Helpers kept for the suites' next needs and for by-hand debugging are
// not dead code.
#![allow(dead_code)]

pub mod browser;
mod certs;
mod display;
mod in_process;
pub mod picture;
mod process;
mod server;
mod summary;
pub mod ws;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

// Unused re-exports warn as imports, not as dead code: same reason.
#[allow(unused_imports)]
pub use certs::certificate;
pub use display::Display;
#[allow(unused_imports)]
pub use in_process::InProcessServer;
#[allow(unused_imports)]
pub use process::{Finished, Twinstar};
#[allow(unused_imports)]
pub use server::Server;
#[allow(unused_imports)]
pub use summary::Summary;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_twinstar");
/// The signaling server alone, `twinstar-server` (crates/server): another
/// package's binary, so cargo names no path for it here; it is built into
/// the same folder as [`BIN`] when `cargo test` runs the workspace (the
/// crate has integration tests of its own, which need it built).
pub fn server_bin() -> &'static str {
    static PATH: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        let path = Path::new(BIN)
            .with_file_name(format!("twinstar-server{}", std::env::consts::EXE_SUFFIX));
        assert!(
            path.is_file(),
            "{} is missing: run the whole workspace's tests (cargo test), or build it with cargo build -p twinstar-server",
            path.display()
        );
        path.display().to_string()
    });
    &PATH
}

/// The bound for a run whose test sets none of its own: far above what any
/// such run takes in a debug build, so it only turns a hang into a failure.
pub const LIMIT: Duration = Duration::from_secs(120);

/// An empty directory for one test: `NAME` under this suite's folder of the
/// target directory's scratch space (the suite is the calling file: two
/// suites of the one test binary may both name a test's folder "window").
/// Emptied here, at the start, and left after the test so a failure's
/// files can be read.
#[track_caller]
pub fn scratch(name: &str) -> PathBuf {
    let caller = Path::new(std::panic::Location::caller().file());
    let suite = caller.file_stem().unwrap_or(caller.as_os_str());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(env!("CARGO_CRATE_NAME"))
        .join(suite)
        .join(name);
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => panic!("cannot empty {}: {e}", dir.display()),
    }
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

/// `twinstar ARGS` in `dir` (also its data folder, for rejoin tickets), with stdin closed, `RUST_LOG=twinstar=info`
/// (the binary's own default, pinned against the caller's environment;
/// `TWINSTAR_TEST_LOG` overrides it) and
/// no display, so a run that forgot `--headless` fails instead of opening a
/// window.
pub fn command(dir: &Path, args: &[&str]) -> Command {
    command_of(BIN, dir, args)
}

/// [`command`] for another binary ([`server_bin`]).
pub fn command_of(bin: &str, dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(bin);
    cmd.current_dir(dir)
        .args(args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        // Rejoin tickets stay in the test's folder (a test that kills a
        // peer may leave one behind).
        .env("TWINSTAR_DATA_DIR", dir)
        // `--inject-desync` and the other test hooks run only with this.
        .env("TWINSTAR_TEST_HOOKS", "1")
        // Multicast never leaves the machine from a test (DESIGN.md,
        // decision 9): no LAN announcements, no browsing.
        .env("TWINSTAR_LAN_DISCOVERY", "off")
        .env(
            "RUST_LOG",
            // TWINSTAR_TEST_LOG=twinstar=trace,... to debug a failing test.
            std::env::var("TWINSTAR_TEST_LOG").unwrap_or_else(|_| "twinstar=info".into()),
        )
        .stdin(Stdio::null());
    cmd
}

/// Runs `twinstar ARGS` in `dir` to its end; kills it and fails, with its
/// stderr, if it runs longer than `limit`.
pub fn run(dir: &Path, args: &[&str], limit: Duration) -> Finished {
    Twinstar::spawn(dir, args).finish(limit)
}

/// [`run`] for another binary ([`server_bin`]).
pub fn run_of(bin: &str, dir: &Path, args: &[&str], limit: Duration) -> Finished {
    Twinstar::spawn_command(command_of(bin, dir, args)).finish(limit)
}

/// The `--json` summary: the last line of `stdout`. Panics with the whole
/// stdout when that line is missing or not JSON.
pub fn summary(stdout: &str) -> Summary {
    parse_summary(stdout).unwrap_or_else(|e| panic!("{e}; the whole stdout:\n{stdout}"))
}

fn parse_summary(stdout: &str) -> Result<Summary, String> {
    Summary::parse(last_line(stdout)?)
}

/// The last stdout line as JSON, for the commands whose `--json` output
/// is not a summary (`replay-diff`, `replay --dump`).
pub fn last_json(stdout: &str) -> serde_json::Value {
    last_line(stdout)
        .and_then(|last| {
            serde_json::from_str(last)
                .map_err(|e| format!("the last stdout line is not JSON ({e}): {last}"))
        })
        .unwrap_or_else(|e| panic!("{e}; the whole stdout:\n{stdout}"))
}

fn last_line(stdout: &str) -> Result<&str, String> {
    stdout
        .lines()
        .last()
        .ok_or_else(|| "no --json output: stdout is empty".to_string())
}

/// The number after the first `prefix` in `text` ("paused at frame 123"
/// in a log gives 123).
pub fn frame_after(text: &str, prefix: &str) -> Option<u32> {
    let at = text.find(prefix)? + prefix.len();
    text[at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

pub fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.len().saturating_sub(n);
    let skipped = if start > 0 {
        format!("[{start} earlier lines]\n")
    } else {
        String::new()
    };
    skipped + &lines[start..].join("\n")
}

/// The chat events of a replay: (frame, detail), in the file's order.
pub fn chat_events(path: &Path) -> Vec<(u32, String)> {
    let replay = twinstar::replay::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    replay
        .events
        .into_iter()
        .filter(|e| e.kind == twinstar_netcode::replay::EventKind::Chat)
        .map(|e| (e.frame, e.detail))
        .collect()
}

/// Replays and re-checks a recording: `twinstar replay FILE --headless
/// --verify --json` (run in the file's folder) must exit 0 with no
/// mismatch, over `expected_frames` frames when given. Returns its summary.
pub fn verify_replay(path: &Path, expected_frames: Option<u32>) -> Summary {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_else(|| panic!("not a UTF-8 file name: {}", path.display()));
    let out = run(
        dir,
        &["replay", name, "--headless", "--verify", "--json"],
        LIMIT,
    );
    assert_eq!(
        out.code(),
        Some(0),
        "{} does not verify:\n{}",
        path.display(),
        tail(&out.stderr, 40)
    );
    let s = out.summary();
    assert_eq!(s["mismatches"], 0, "{}: {s}", path.display());
    if let Some(frames) = expected_frames {
        assert_eq!(s["frames"], frames, "{}: {s}", path.display());
    }
    s
}

/// The arguments of a bot peer: `host --room CODE` or `join [CODE]`, on
/// signaling `server` without STUN, headless, for `frames` frames, with a
/// `--json` summary; then `extra`.
pub fn peer_args<'a>(
    role: &'a str,
    code: Option<&'a str>,
    server: &'a str,
    frames: &'a str,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![role];
    match (role, code) {
        ("host", Some(code)) => args.extend(["--room", code]),
        (_, Some(code)) => args.push(code),
        _ => {}
    }
    args.extend([
        "--server",
        server,
        "--stun",
        "none",
        "--headless",
        "--bot",
        "--frames",
        frames,
        "--json",
    ]);
    args.extend_from_slice(extra);
    args
}

/// [`host_then_join`], then waits up to 20 s for the joiner to say the
/// match started (failing with its log if it does not).
pub fn started_match(
    dir: &Path,
    server: &str,
    codes: (&str, &str),
    frames: &str,
    host_extra: &[&str],
    join_extra: &[&str],
) -> (Twinstar, Twinstar) {
    let (host, mut join) = host_then_join(dir, server, codes, frames, host_extra, join_extra);
    assert!(
        join.wait_for("synchronized with the peer", Duration::from_secs(20)),
        "the match never started\n{}",
        join.stderr()
    );
    (host, join)
}

/// `twinstar watch CODE` on `server` without STUN, headless, with a
/// `--json` summary; then `extra`.
pub fn spectator(dir: &Path, server: &str, code: &str, extra: &[&str]) -> Twinstar {
    let mut args = vec![
        "watch",
        code,
        "--server",
        server,
        "--stun",
        "none",
        "--headless",
        "--json",
    ];
    args.extend_from_slice(extra);
    Twinstar::spawn(dir, &args)
}

/// A bot match's two peers on `server` (see [`peer_args`]): the host of
/// room `codes.0` first, then, once the host is in the room (or 20 s
/// on), a joiner giving `codes.1` (the same room, perhaps spelled another
/// way). Waiting for the room, not a fixed time: the room's first player
/// is the one a spectator is sent to, and under load a host took 920 ms
/// to reach the server, after a joiner started 200 ms later.
pub fn host_then_join(
    dir: &Path,
    server: &str,
    codes: (&str, &str),
    frames: &str,
    host_extra: &[&str],
    join_extra: &[&str],
) -> (Twinstar, Twinstar) {
    let mut host = Twinstar::spawn(
        dir,
        &peer_args("host", Some(codes.0), server, frames, host_extra),
    );
    // The connector's stage once the server gave the host its seat.
    host.wait_for("waiting for the other player", Duration::from_secs(20));
    let join = Twinstar::spawn(
        dir,
        &peer_args("join", Some(codes.1), server, frames, join_extra),
    );
    (host, join)
}

/// A plain HTTP GET of `path` on `addr`: status and body (`None` when
/// nothing answers in time). Raw TCP, so a test needs no HTTP client.
pub fn http_get(addr: std::net::SocketAddr, path: &str) -> Option<(u16, String)> {
    http_request(addr, "GET", path, "")
}

/// [`http_get`] with another method and a (JSON) body.
pub fn http_request(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    body: &str,
) -> Option<(u16, String)> {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    let status = text.split_whitespace().nth(1)?.parse().ok()?;
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_owned();
    Some((status, body))
}

/// A loopback port nothing listens on: bound and released, for a server
/// that takes its port on the command line (HAProxy, nginx, Redis) and
/// binds it a moment later.
pub fn free_loopback_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap_or_else(|e| panic!("no free loopback port: {e}"))
        .port()
}

/// A helper process (HAProxy, nginx, Redis) killed and reaped when dropped.
pub struct Reaped(pub std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
