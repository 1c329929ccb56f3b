//! What the tests of `twinstar-server` share: running it, once (`run`) or
//! as a server on a free loopback port (`Running`), and asking it over
//! HTTP.

#![allow(dead_code)] // Each test file uses its own part of it.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_twinstar-server");

pub fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {BIN}: {e}"))
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A server on a free loopback port (killed when dropped) and its port,
/// read from its start-up line.
pub struct Running {
    pub child: Child,
    pub port: u16,
    /// Its stderr, line by line, past the start-up line with the port.
    pub lines: std::sync::mpsc::Receiver<String>,
    /// The lines read so far.
    pub seen: Vec<String>,
}

impl Running {
    /// Its public address.
    pub fn addr(&self) -> std::net::SocketAddr {
        std::net::SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// With its metrics on a free loopback port: the default's port is
    /// the machine's, and tests run side by side.
    pub fn start() -> Running {
        Running::start_with(&["--metrics-bind", "127.0.0.1:0"])
    }

    pub fn start_with(args: &[&str]) -> Running {
        Running::start_env(args, &[])
    }

    /// With these environment variables too.
    pub fn start_env(args: &[&str], envs: &[(&str, &str)]) -> Running {
        let child = Command::new(BIN)
            .args(["--bind", "127.0.0.1:0"])
            .args(args)
            .envs(envs.iter().copied())
            .env("RUST_LOG", "off")
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {BIN}: {e}"));
        Running::attach(child)
    }

    /// Takes a started server (stderr piped) and reads its port.
    pub fn attach(child: Child) -> Running {
        // Owned at once, so a failed start below still kills and reaps it.
        let (tx, rx) = std::sync::mpsc::channel();
        let mut running = Running {
            child,
            port: 0,
            lines: rx,
            seen: Vec::new(),
        };
        let stderr = running.child.stderr.take().expect("piped");
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = (running.lines)
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("the server reported no address within 10 s"));
            // "twinstar: signaling server on ws://127.0.0.1:PORT (players ...)"
            if let Some(at) = line.find("ws://127.0.0.1:") {
                let port: String = line[at + "ws://127.0.0.1:".len()..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                running.port = port
                    .parse()
                    .unwrap_or_else(|_| panic!("no port in: {line}"));
                running.seen.push(line);
                return running;
            }
            running.seen.push(line);
        }
    }
}

impl Running {
    /// The first line that contains `needle`, from the start-up on.
    pub fn line_with(&mut self, needle: &str) -> String {
        if let Some(line) = self.seen.iter().find(|l| l.contains(needle)) {
            return line.clone();
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.contains(needle) {
                        return line;
                    }
                }
                Err(_) => panic!("no line with {needle:?} within 10 s"),
            }
        }
    }
}

/// The `ADDR:PORT` right after `prefix` in `line`.
pub fn addr_after(line: &str, prefix: &str) -> std::net::SocketAddr {
    let at = line
        .find(prefix)
        .unwrap_or_else(|| panic!("no {prefix} in {line}"));
    let addr: String = line[at + prefix.len()..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ':')
        .collect();
    addr.parse()
        .unwrap_or_else(|_| panic!("no address in {line}"))
}

/// `GET path` on `addr`: (status, body).
pub fn get(addr: std::net::SocketAddr, path: &str) -> (u16, String) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(5)))
        .build()
        .into();
    let mut r = agent
        .get(format!("http://{addr}{path}"))
        .call()
        .unwrap_or_else(|e| panic!("GET {path}: {e}"));
    (r.status().as_u16(), r.body_mut().read_to_string().unwrap())
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A scratch directory of its own.
pub fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("twinstar-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
