//! Faults around a match, with every party a real process: the signaling
//! server (`twinstar serve`) dies while two `twinstar` peers play, or while
//! a host still waits in its room. Every wait is bounded.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_twinstar");

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("twinstar-faults-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn command(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.current_dir(dir)
        .args(args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("RUST_LOG", "twinstar=info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Collects a pipe's text on a thread, readable while the process runs.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<String>>);

impl Captured {
    fn read_from(pipe: impl Read + Send + 'static) -> (Self, std::thread::JoinHandle<()>) {
        let captured = Captured::default();
        let sink = captured.clone();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                let mut text = sink.0.lock().unwrap();
                text.push_str(&line);
                text.push('\n');
            }
        });
        (captured, reader)
    }

    fn text(&self) -> String {
        self.0.lock().unwrap().clone()
    }

    fn contains(&self, needle: &str) -> bool {
        self.0.lock().unwrap().contains(needle)
    }
}

/// A running process whose stdout and stderr are being collected.
struct Running {
    child: Child,
    stdout: Captured,
    stderr: Captured,
    readers: Vec<std::thread::JoinHandle<()>>,
    started: Instant,
}

fn spawn(dir: &Path, args: &[&str]) -> Running {
    let mut child = command(dir, args).spawn().expect("binary runs");
    let (stdout, out_reader) = Captured::read_from(child.stdout.take().unwrap());
    let (stderr, err_reader) = Captured::read_from(child.stderr.take().unwrap());
    Running {
        child,
        stdout,
        stderr,
        readers: vec![out_reader, err_reader],
        started: Instant::now(),
    }
}

struct Finished {
    status: ExitStatus,
    stdout: String,
    stderr: String,
    took: Duration,
}

impl Finished {
    fn summary(&self) -> serde_json::Value {
        let last = self
            .stdout
            .lines()
            .last()
            .unwrap_or_else(|| panic!("no summary; stderr:\n{}", self.stderr));
        serde_json::from_str(last).unwrap_or_else(|e| panic!("not JSON ({e}): {last}"))
    }
}

impl Running {
    /// Waits for the process, killing it (and failing) after `limit`.
    fn finish(mut self, limit: Duration) -> Finished {
        let deadline = Instant::now() + limit;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!(
                    "process still running after {limit:?}; stderr:\n{}",
                    self.stderr.text()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        for reader in self.readers.drain(..) {
            let _ = reader.join();
        }
        Finished {
            status,
            stdout: self.stdout.text(),
            stderr: self.stderr.text(),
            took: self.started.elapsed(),
        }
    }

    /// Waits until stderr contains `needle`; false after `limit` or if the
    /// process ended first.
    fn wait_for(&mut self, needle: &str, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if self.stderr.contains(needle) {
                return true;
            }
            if self.child.try_wait().unwrap().is_some() {
                return self.stderr.contains(needle);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    fn is_running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // A failed assertion must not leave processes behind.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `twinstar serve` on a free loopback port, and its URL.
struct ServeProcess {
    child: Child,
    url: String,
}

fn serve_process() -> ServeProcess {
    let dir = std::env::temp_dir();
    let mut child = command(&dir, &["serve", "--bind", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .spawn()
        .expect("binary runs");
    let stderr: ChildStderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
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
            // Keep draining so the server never blocks on a full pipe.
        }
    });
    let url = match rx.recv_timeout(Duration::from_secs(10)) {
        Ok(url) => url,
        Err(_) => {
            let _ = child.kill();
            panic!("twinstar serve did not report its address within 10 s");
        }
    };
    ServeProcess { child, url }
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn peer(dir: &Path, role: &str, code: &str, server: &str, frames: &str, extra: &[&str]) -> Running {
    let mut args = vec![role];
    if role == "host" {
        args.extend(["--room", code]);
    } else {
        args.push(code);
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
    spawn(dir, &args)
}

fn verify_replay(dir: &Path, file: &str, frames: u64) {
    let out = Command::new(BIN)
        .current_dir(dir)
        .args(["replay", file, "--headless", "--verify", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{file} does not verify: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let s: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(s["frames"], frames, "{s}");
}

/// The peers talk directly once WebRTC is up: losing the signaling server
/// mid-match must cost nothing.
#[test]
fn the_match_plays_on_when_the_signaling_server_is_killed() {
    let mut server = serve_process();
    let dir = scratch("server-killed");
    let frames = "900";
    let mut host = peer(
        &dir,
        "host",
        "KXM-7ED",
        &server.url,
        frames,
        &["--record", "host.tsr"],
    );
    std::thread::sleep(Duration::from_millis(200));
    let mut join = peer(
        &dir,
        "join",
        "kxm 7ed",
        &server.url,
        frames,
        &["--record", "join.tsr"],
    );
    for (name, side) in [("host", &mut host), ("join", &mut join)] {
        assert!(
            side.wait_for("synchronized with the peer", Duration::from_secs(20)),
            "{name} never started the match:\n{}",
            side.stderr.text()
        );
    }
    // One second into the match: SIGKILL, no goodbye to anyone.
    std::thread::sleep(Duration::from_secs(1));
    server.child.kill().unwrap();
    let status = server.child.wait().unwrap();
    assert!(!status.success(), "the server was not killed: {status}");
    assert!(
        host.is_running() && join.is_running(),
        "a peer ended before the server was killed"
    );

    let (host, join) = (
        host.finish(Duration::from_secs(60)),
        join.finish(Duration::from_secs(60)),
    );
    assert_eq!(host.status.code(), Some(0), "host:\n{}", host.stderr);
    assert_eq!(join.status.code(), Some(0), "join:\n{}", join.stderr);
    let (h, j) = (host.summary(), join.summary());
    assert_eq!(h["checksum_frame"], 900, "{h}");
    assert_eq!(j["checksum_frame"], 900, "{j}");
    assert_eq!(h["checksum"], j["checksum"], "host {h}\njoin {j}");
    assert_eq!((&h["desyncs"], &j["desyncs"]), (&0.into(), &0.into()));
    verify_replay(&dir, "host.tsr", 900);
    verify_replay(&dir, "join.tsr", 900);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A host alone in its room has nothing but the server: when it dies the
/// host says so at once instead of waiting out its timeout.
#[test]
fn a_waiting_host_learns_at_once_that_the_server_died() {
    let mut server = serve_process();
    let dir = scratch("server-killed-waiting");
    let mut host = peer(
        &dir,
        "host",
        "WA7-TNG",
        &server.url,
        "60",
        &["--no-record", "--timeout", "30"],
    );
    assert!(
        host.wait_for("waiting for the other player", Duration::from_secs(10)),
        "{}",
        host.stderr.text()
    );
    std::thread::sleep(Duration::from_millis(300));
    server.child.kill().unwrap();
    let _ = server.child.wait();
    let killed = Instant::now();
    let host = host.finish(Duration::from_secs(40));
    assert_eq!(host.status.code(), Some(1), "{}", host.stderr);
    assert!(
        killed.elapsed() < Duration::from_secs(5),
        "took {:?} after the kill (the run took {:?})",
        killed.elapsed(),
        host.took
    );
    assert!(
        host.stderr.contains("signaling server"),
        "no clear message:\n{}",
        host.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}
