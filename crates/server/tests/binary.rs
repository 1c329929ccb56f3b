//! `twinstar-server` as an operator runs it: `twinstar serve`'s options
//! with or without the word `serve`, bad options in one line (exit 2), and
//! the health probe a container runs. (The game's tests play two games
//! through this binary and check that it links no desktop library.)

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{BIN, Running, addr_after, get, run, text};

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
    let mut server = Running::start();
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
    // One error line, the last; before it at most the start-up's log lines
    // (the web client found, when target/web holds one).
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("twinstar-server:"))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert_eq!(stderr.trim().lines().last(), Some(errors[0]), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        errors[0].contains("metrics listener") && errors[0].contains(&at),
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
    let mut server = Running::start_with(&[]);
    let line = server.line_with("metrics listener");
    assert!(
        line.contains("127.0.0.1:9536") && line.contains("--metrics-bind"),
        "{line}"
    );
    let public = std::net::SocketAddr::from(([127, 0, 0, 1], server.port));
    assert_eq!(get(public, "/livez").0, 200);
}

#[test]
fn json_logs_are_one_object_per_line_from_start_to_exit() {
    let mut child = Command::new(BIN)
        .args(["--bind", "127.0.0.1:0", "--metrics-bind", "127.0.0.1:0"])
        .args(["--log-format", "json", "--drain-timeout", "5"])
        .env("RUST_LOG", "twinstar=debug")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let out = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap());
    let mut server = Running::attach(child);
    let public = std::net::SocketAddr::from(([127, 0, 0, 1], server.port));
    // A player in a room (a log event with its room and peer), then one
    // refused, then SIGTERM: the drain's lines and the exit.
    let mut ws = std::net::TcpStream::connect(public).unwrap();
    use std::io::{Read, Write};
    write!(
        ws,
        "GET /K7Q2XM HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    .unwrap();
    let mut head = [0u8; 12];
    ws.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 101");
    server.line_with("joined (1/2)");
    assert_eq!(get(public, "/readyz").0, 200);
    let killed = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    server.line_with("draining");
    let status = server.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    // Everything it wrote, read to its end.
    let mut all: Vec<String> = std::mem::take(&mut server.seen);
    let deadline = Instant::now() + Duration::from_secs(5);
    while let Ok(line) =
        (server.lines).recv_timeout(deadline.saturating_duration_since(Instant::now()))
    {
        all.push(line);
    }
    let stdout = out.join().unwrap();
    all.extend(stdout.lines().map(str::to_owned));
    assert!(all.len() >= 6, "{all:#?}");
    let events: Vec<serde_json::Value> = all
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    for e in &events {
        assert!(e["timestamp"].is_string() && e["level"].is_string(), "{e}");
        assert!(e["message"].is_string(), "{e}");
    }
    let said = |needle: &str| {
        events
            .iter()
            .find(|e| e["message"].as_str().unwrap().contains(needle))
    };
    assert!(
        said("signaling server on ws://127.0.0.1:").is_some(),
        "{all:#?}"
    );
    let joined = said("joined (1/2)").expect("the join");
    assert_eq!(joined["room"], "K7Q2XM", "{joined}");
    assert!(joined["peer"].is_string(), "{joined}");
    assert!(said("drain").is_some(), "{all:#?}");
}
