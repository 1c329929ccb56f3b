//! `twinstar-server` as an operator runs it: `twinstar serve`'s options
//! with or without the word `serve`, bad options in one line (exit 2), and
//! the health probe a container runs. (The game's tests play two games
//! through this binary and check that it links no desktop library.)

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_twinstar-server");

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {BIN}: {e}"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A server on a free loopback port (killed when dropped) and its port,
/// read from its start-up line.
struct Running {
    child: Child,
    port: u16,
    /// Its stderr, line by line, past the start-up line with the port.
    lines: std::sync::mpsc::Receiver<String>,
    /// The lines up to that one.
    before: Vec<String>,
}

impl Running {
    /// With its metrics on a free loopback port: the default's port is
    /// the machine's, and tests run side by side.
    fn start() -> Running {
        Running::start_with(&["--metrics-bind", "127.0.0.1:0"])
    }

    fn start_with(args: &[&str]) -> Running {
        let child = Command::new(BIN)
            .args(["--bind", "127.0.0.1:0"])
            .args(args)
            .env("RUST_LOG", "off")
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {BIN}: {e}"));
        // Owned at once, so a failed start below still kills and reaps it.
        let (tx, rx) = std::sync::mpsc::channel();
        let mut running = Running {
            child,
            port: 0,
            lines: rx,
            before: Vec::new(),
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
                return running;
            }
            running.before.push(line);
        }
    }
}

impl Running {
    /// The first line that contains `needle`, from the start-up on.
    fn line_with(&self, needle: &str) -> String {
        if let Some(line) = self.before.iter().find(|l| l.contains(needle)) {
            return line.clone();
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.contains(needle) => return line,
                Ok(_) => {}
                Err(_) => panic!("no line with {needle:?} within 10 s"),
            }
        }
    }
}

/// The `ADDR:PORT` right after `prefix` in `line`.
fn addr_after(line: &str, prefix: &str) -> std::net::SocketAddr {
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
fn get(addr: std::net::SocketAddr, path: &str) -> (u16, String) {
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

#[test]
fn takes_serve_options_with_or_without_serve() {
    for args in [&["--help"][..], &["serve", "--help"]] {
        let out = run(args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        assert!(
            text(&out.stdout).contains("--turn-secret"),
            "{args:?}: {}",
            text(&out.stdout)
        );
    }
}

#[test]
fn a_bad_option_is_one_line_and_exit_2() {
    let out = run(&["serve", "--bind", "nowhere"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("twinstar-server --help"), "{stderr}");
}

#[test]
fn the_health_probe_says_whether_the_server_answers() {
    let server = Running::start();
    let port = server.port.to_string();
    let up = run(&["health", "--port", &port]);
    assert_eq!(up.status.code(), Some(0), "{}", text(&up.stderr));
    assert!(
        text(&up.stdout).contains("/livez: ok"),
        "{}",
        text(&up.stdout)
    );
    let ready = run(&["health", "--port", &port, "--ready"]);
    assert_eq!(ready.status.code(), Some(0), "{}", text(&ready.stderr));
    assert!(
        text(&ready.stdout).contains("/readyz: ok"),
        "{}",
        text(&ready.stdout)
    );
    drop(server);
    // Nothing listens there any more: unhealthy, in one line.
    let down = run(&["health", "--port", &port]);
    let stderr = text(&down.stderr);
    assert_eq!(down.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
}

#[test]
fn metrics_are_on_the_metrics_listener_it_names_not_on_the_public_port() {
    let server = Running::start();
    let line = server.line_with("metrics on");
    let metrics = addr_after(&line, "http://");
    assert_ne!(metrics.port(), server.port, "{line}");
    assert!(line.contains("not on the public port"), "{line}");
    let (status, text) = get(metrics, "/metrics");
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("# TYPE twinstar_clients gauge"), "{text}");
    let public = std::net::SocketAddr::from(([127, 0, 0, 1], server.port));
    assert_eq!(get(public, "/metrics").0, 404);
}

#[test]
fn a_metrics_address_that_is_taken_is_one_line_and_exit_2() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let at = taken.local_addr().unwrap().to_string();
    let out = run(&["--bind", "127.0.0.1:0", "--metrics-bind", &at]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("metrics listener") && stderr.contains(&at),
        "{stderr}"
    );
    let out = run(&["--bind", "127.0.0.1:0", "--metrics-bind", "everywhere"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

#[test]
fn the_default_metrics_port_taken_costs_the_metrics_not_the_server() {
    // Held here if free; if something else holds it, it is taken anyway.
    let _held =
        std::net::TcpListener::bind(("127.0.0.1", twinstar_signaling::DEFAULT_METRICS_PORT));
    let server = Running::start_with(&[]);
    let line = server.line_with("metrics listener");
    assert!(
        line.contains("127.0.0.1:9536") && line.contains("--metrics-bind"),
        "{line}"
    );
    let public = std::net::SocketAddr::from(([127, 0, 0, 1], server.port));
    assert_eq!(get(public, "/livez").0, 200);
}
