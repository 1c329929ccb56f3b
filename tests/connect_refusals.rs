//! What players are told when they reach a room but cannot play there:
//!
//! - a third player let into a running match's room by a signaling server
//!   without room caps (matchbox's stock full mesh) is told a match is
//!   running (exit 2) and the two players are not disturbed;
//! - a host whose visitor came and went without a network path opening says
//!   so, and keeps waiting for a joiner that can connect.
//!
//! Real `twinstar` processes on loopback; every wait is bounded.

use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use matchbox_protocol::JsonPeerEvent;
use tokio::runtime::Runtime;
use tokio_tungstenite::tungstenite::Message;

const BIN: &str = env!("CARGO_BIN_EXE_twinstar");
const LIMIT: Duration = Duration::from_secs(60);
const ROOM: &str = "K7Q-2XM";

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

/// matchbox's own full-mesh server, as `examples/stock_signaling.rs` runs it.
fn stock_server(runtime: &Runtime) -> String {
    let _guard = runtime.enter();
    let mut server = matchbox_signaling::SignalingServer::full_mesh_builder(SocketAddr::from((
        [127, 0, 0, 1],
        0,
    )))
    .build();
    let addr = server.bind().unwrap();
    runtime.spawn(server.serve());
    format!("ws://{addr}")
}

/// A twinstar process whose stderr is collected line by line as it comes.
struct Peer {
    child: Child,
    stderr: Arc<Mutex<Vec<String>>>,
    started: Instant,
}

fn spawn(command: &str, room: &str, server: &str, frames: &str, timeout: &str) -> Peer {
    let mut args = vec![command];
    if command == "host" {
        args.push("--room");
    }
    args.extend([
        room,
        "--server",
        server,
        "--stun",
        "none",
        "--headless",
        "--bot",
        "--frames",
        frames,
        "--json",
        "--no-record",
        "--timeout",
        timeout,
    ]);
    let mut child = Command::new(BIN)
        .args(&args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("RUST_LOG", "twinstar=info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    let stderr = Arc::new(Mutex::new(Vec::new()));
    let lines = stderr.clone();
    let pipe = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            lines.lock().unwrap().push(line);
        }
    });
    Peer {
        child,
        stderr,
        started: Instant::now(),
    }
}

struct Finished {
    status: ExitStatus,
    summary: Option<serde_json::Value>,
    stderr: String,
    took: Duration,
}

impl Peer {
    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().join("\n")
    }

    /// Waits up to `limit` for a stderr line containing `needle`.
    fn wait_for_line(&self, needle: &str, limit: Duration) -> Option<String> {
        let until = Instant::now() + limit;
        while Instant::now() < until {
            if let Some(line) = self
                .stderr
                .lock()
                .unwrap()
                .iter()
                .find(|l| l.contains(needle))
            {
                return Some(line.clone());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    fn running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// Waits for the exit, killing the process after `limit`.
    fn finish(mut self, limit: Duration) -> Finished {
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if self.started.elapsed() > limit {
                let _ = self.child.kill();
                panic!("still running after {limit:?}; stderr:\n{}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let took = self.started.elapsed();
        let mut stdout = String::new();
        let _ = self
            .child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut stdout);
        // The reader thread ends with the pipe; give it a moment to flush.
        std::thread::sleep(Duration::from_millis(50));
        Finished {
            status,
            summary: stdout
                .lines()
                .last()
                .and_then(|l| serde_json::from_str(l).ok()),
            stderr: self.stderr(),
            took,
        }
    }
}

fn assert_played_in_sync(host: &Finished, join: &Finished, frames: u32) {
    assert_eq!(host.status.code(), Some(0), "host failed:\n{}", host.stderr);
    assert_eq!(join.status.code(), Some(0), "join failed:\n{}", join.stderr);
    let (h, j) = (
        host.summary.as_ref().unwrap(),
        join.summary.as_ref().unwrap(),
    );
    assert_eq!(h["checksum_frame"], frames, "{h}");
    assert_eq!(h["checksum"], j["checksum"], "host {h}\njoin {j}");
    assert_eq!(h["desyncs"], 0, "{h}");
    assert_eq!(j["desyncs"], 0, "{j}");
}

#[test]
fn a_third_player_on_a_stock_server_is_told_a_match_is_running() {
    let runtime = runtime();
    let server = stock_server(&runtime);
    let host = spawn("host", ROOM, &server, "600", "20");
    std::thread::sleep(Duration::from_millis(200));
    let join = spawn("join", "K7Q2XM", &server, "600", "20");
    std::thread::sleep(Duration::from_millis(800));
    // The stock server introduces it to both players; both refuse it.
    let third = spawn("join", "k7q-2xm", &server, "600", "20").finish(Duration::from_secs(15));
    eprintln!("third player refused after {:?}", third.took);
    assert_eq!(third.status.code(), Some(2), "stderr:\n{}", third.stderr);
    assert!(third.took < Duration::from_secs(10), "{:?}", third.took);
    let said = third.stderr.lines().last().unwrap_or_default();
    assert!(
        said.contains("a match is already running in room K7Q-2XM"),
        "last stderr line: {said}\n{}",
        third.stderr
    );
    let join = join.finish(LIMIT);
    let host = host.finish(LIMIT);
    assert_played_in_sync(&host, &join, 600);
}

/// A visitor that enters the room over raw signaling, takes the host's
/// WebRTC offer and never answers: to the host, exactly a joiner behind a
/// NAT no path gets through. It leaves after `stay`.
async fn visit_without_a_path(url: String, stay: Duration) {
    let connect = tokio_tungstenite::connect_async(url.as_str());
    let (mut ws, _) = tokio::time::timeout(Duration::from_secs(10), connect)
        .await
        .expect("connect timed out")
        .expect("visitor connects");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let mut offered = false;
    while !offered {
        let next = tokio::time::timeout_at(deadline, ws.next()).await;
        match next.expect("no offer from the host within 10 s") {
            Some(Ok(Message::Text(text))) => {
                let event: JsonPeerEvent = text.as_str().parse().expect("server speaks JSON");
                offered = matches!(event, JsonPeerEvent::Signal { .. });
            }
            Some(Ok(_)) => {}
            other => panic!("signaling ended before the offer: {other:?}"),
        }
    }
    tokio::time::sleep(stay).await;
    let _ = ws.close(None).await;
}

#[test]
fn the_host_says_when_a_player_came_without_a_path_and_waits_for_the_next() {
    let runtime = runtime();
    let bound = {
        let _guard = runtime.enter();
        twinstar::net::signaling::bind(SocketAddr::from(([127, 0, 0, 1], 0))).unwrap()
    };
    let server = format!("ws://{}", bound.local_addr());
    let rooms = bound.state();
    runtime.spawn(bound.serve(std::future::pending()));
    let code = twinstar::net::RoomCode::parse(ROOM).unwrap();

    let mut host = spawn("host", ROOM, &server, "300", "60");
    let until = Instant::now() + Duration::from_secs(10);
    while rooms.members_of(&code) == 0 {
        assert!(Instant::now() < until, "host never entered the room");
        std::thread::sleep(Duration::from_millis(20));
    }
    runtime.block_on(visit_without_a_path(
        format!("{server}/K7Q2XM"),
        Duration::from_secs(1),
    ));
    let left = Instant::now();
    let notice = host
        .wait_for_line(
            "no direct network path could be opened",
            Duration::from_secs(5),
        )
        .unwrap_or_else(|| panic!("the host said nothing; stderr:\n{}", host.stderr()));
    eprintln!(
        "host notice {:?} after the visitor left: {notice}",
        left.elapsed()
    );
    assert!(notice.contains("reached room K7Q-2XM"), "{notice}");
    assert!(
        notice.contains("--turn") && notice.contains("still waiting"),
        "{notice}"
    );
    assert!(host.running(), "the host gave up:\n{}", host.stderr());

    // The room is still open: a joiner that can connect plays.
    let join = spawn("join", "K7Q2XM", &server, "300", "20").finish(LIMIT);
    let host = host.finish(LIMIT);
    assert_played_in_sync(&host, &join, 300);
}
