//! What players are told when they reach a room but cannot play there:
//!
//! - a third player let into a running match's room by a signaling server
//!   without room caps (matchbox's stock full mesh) is told a match is
//!   running (exit 2) and the two players are not disturbed;
//! - a host whose visitor came and went without a network path opening says
//!   so, and keeps waiting for a joiner that can connect.
//!
//! Real `twinstar` processes on loopback; every wait is bounded.

use crate::common;

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use common::{Finished, Twinstar, host_then_join, peer_args, scratch};
use futures::StreamExt;
use matchbox_protocol::JsonPeerEvent;
use tokio::runtime::Runtime;
use tokio_tungstenite::tungstenite::Message;

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

/// The peer options of this suite beyond [`peer_args`]: no recording, and
/// give up after `timeout` seconds without a partner.
fn extra(timeout: &str) -> [&str; 3] {
    ["--no-record", "--timeout", timeout]
}

/// A bot peer in `dir` (see [`peer_args`]) that gives up after `timeout`.
fn spawn(
    dir: &Path,
    role: &str,
    room: &str,
    server: &str,
    frames: &str,
    timeout: &str,
) -> Twinstar {
    Twinstar::spawn(
        dir,
        &peer_args(role, Some(room), server, frames, &extra(timeout)),
    )
}

/// Waits for `peer` to end; kills it and fails `limit` after `started`.
fn finish(peer: Twinstar, started: Instant, limit: Duration) -> Finished {
    peer.finish(limit.saturating_sub(started.elapsed()))
}

/// The first whole stderr line of `peer` containing `needle`, waiting up to
/// `limit` for it.
fn wait_for_line(peer: &mut Twinstar, needle: &str, limit: Duration) -> Option<String> {
    let until = Instant::now() + limit;
    while peer.wait_for(needle, until.saturating_duration_since(Instant::now())) {
        let stderr = peer.stderr();
        let line = stderr
            .split_inclusive('\n')
            .find(|l| l.ends_with('\n') && l.contains(needle));
        if let Some(line) = line {
            return Some(line.trim_end().to_string());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

fn assert_played_in_sync(host: &Finished, join: &Finished, frames: u32) {
    let both = host.report("host", 60) + &join.report("join", 60);
    assert_eq!(host.code(), Some(0), "{both}");
    assert_eq!(join.code(), Some(0), "{both}");
    let (h, j) = (host.summary(), join.summary());
    assert_eq!(h["checksum_frame"], frames, "{h}");
    assert_eq!(h["checksum"], j["checksum"], "host {h}\njoin {j}");
    assert_eq!(h["desyncs"], 0, "{h}");
    assert_eq!(j["desyncs"], 0, "{j}");
}

#[test]
fn a_third_player_on_a_stock_server_is_told_a_match_is_running() {
    let runtime = runtime();
    let server = stock_server(&runtime);
    let dir = scratch("third_player");
    let started = Instant::now();
    let (host, join) = host_then_join(
        &dir,
        &server,
        (ROOM, "K7Q2XM"),
        "600",
        &extra("20"),
        &extra("20"),
    );
    // host_then_join starts the joiner 200 ms after the host.
    let join_started = started + Duration::from_millis(200);
    std::thread::sleep(Duration::from_millis(800));
    // The stock server introduces it to both players; both refuse it.
    let third =
        spawn(&dir, "join", "k7q-2xm", &server, "600", "20").finish(Duration::from_secs(15));
    eprintln!("third player refused after {:?}", third.took);
    assert_eq!(third.code(), Some(2), "stderr:\n{}", third.stderr);
    assert!(third.took < Duration::from_secs(10), "{:?}", third.took);
    let said = third.stderr.lines().last().unwrap_or_default();
    assert!(
        said.contains("a match is already running in room K7Q-2XM"),
        "last stderr line: {said}\n{}",
        third.stderr
    );
    let join = finish(join, join_started, LIMIT);
    let host = finish(host, started, LIMIT);
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
        twinstar_signaling::bind(SocketAddr::from(([127, 0, 0, 1], 0)), None).unwrap()
    };
    let server = format!("ws://{}", bound.local_addr());
    let rooms = bound.state();
    runtime.spawn(bound.serve(std::future::pending()));
    let code = twinstar_netcode::RoomCode::parse(ROOM).unwrap();

    let dir = scratch("came_without_a_path");
    let started = Instant::now();
    let mut host = spawn(&dir, "host", ROOM, &server, "300", "60");
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
    let notice = wait_for_line(
        &mut host,
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
    assert!(host.is_running(), "the host gave up:\n{}", host.stderr());

    // The room is still open: a joiner that can connect plays.
    let join = spawn(&dir, "join", "K7Q2XM", &server, "300", "20").finish(LIMIT);
    let host = finish(host, started, LIMIT);
    assert_played_in_sync(&host, &join, 300);
}
