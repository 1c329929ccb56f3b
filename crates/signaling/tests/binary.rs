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
}

impl Running {
    fn start() -> Running {
        let child = Command::new(BIN)
            .args(["--bind", "127.0.0.1:0"])
            .env("RUST_LOG", "off")
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {BIN}: {e}"));
        // Owned at once, so a failed start below still kills and reaps it.
        let mut running = Running { child, port: 0 };
        let stderr = running.child.stderr.take().expect("piped");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = rx
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
        }
    }
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
