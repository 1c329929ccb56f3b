//! The signaling server as a real process (`twinstar serve`) against raw
//! websocket and TCP clients: hostile input must not stop it serving other
//! rooms, and a crowd of rooms must pair each client with its own partner.
//! The client code is examples/signaling_load.rs (its full run, 200 clients,
//! is scripts/signaling-load.sh). Every wait is bounded.

use crate::common;

#[allow(dead_code)]
#[path = "../../examples/signaling_load.rs"]
mod load;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::Duration;

use common::{BIN, Server};
use futures::{SinkExt, StreamExt};
use matchbox_protocol::{JsonPeerEvent, PeerId};
use rand::{Rng, SeedableRng};
use tokio::time::timeout;
use tokio_tungstenite::tungstenite::Message;

const LIMIT: Duration = Duration::from_secs(60);

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn connect(url: &str) -> (Ws, PeerId) {
    let (mut ws, _) = timeout(
        Duration::from_secs(10),
        tokio_tungstenite::connect_async(url),
    )
    .await
    .expect("connect timed out")
    .unwrap_or_else(|e| panic!("connect to {url}: {e}"));
    match next_event(&mut ws, Duration::from_secs(10)).await {
        Some(JsonPeerEvent::IdAssigned(id)) => (ws, id),
        other => panic!("expected IdAssigned, got {other:?}"),
    }
}

/// The next event, `None` on timeout, close or a non-text message.
async fn next_event(ws: &mut Ws, wait: Duration) -> Option<JsonPeerEvent> {
    loop {
        match timeout(wait, ws.next()).await {
            Ok(Some(Ok(Message::Text(text)))) => {
                return Some(text.as_str().parse().expect("server sent unreadable JSON"));
            }
            Ok(Some(Ok(Message::Ping(_) | Message::Pong(_)))) => continue,
            _ => return None,
        }
    }
}

/// Sends a message; a refusal by the server (it may close on oversized
/// input) is fine, what matters is that it keeps serving others.
async fn send(ws: &mut Ws, message: Message) {
    let _ = timeout(Duration::from_secs(10), ws.send(message)).await;
}

/// Raw TCP: writes `request`, returns what came back (up to 64 KiB) before
/// the server closed or 3 s passed.
fn raw_exchange(addr: &str, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(addr).expect("server accepts TCP");
    stream
        .set_read_timeout(Some(Duration::from_secs(3)))
        .unwrap();
    stream
        .set_write_timeout(Some(Duration::from_secs(3)))
        .unwrap();
    let _ = stream.write_all(request);
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    while answer.len() < 65536 {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&answer).into_owned()
}

fn status_line(answer: &str) -> &str {
    answer.lines().next().unwrap_or("")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_clients_do_not_stop_the_server_pairing_other_rooms() {
    let mut server = Server::start();
    let url = server.url.clone();
    let addr = url.trim_start_matches("ws://").to_owned();
    timeout(LIMIT, async {
        // A legitimate pair, seated before the attack and kept open.
        let (mut a, a_id) = connect(&format!("{url}/AAAAAA")).await;
        let (mut b, b_id) = connect(&format!("{url}/AAAAAA")).await;
        assert_eq!(
            next_event(&mut a, Duration::from_secs(5)).await,
            Some(JsonPeerEvent::NewPeer(b_id))
        );

        // ---- over websockets, seated in other rooms ----
        let (mut h, _) = connect(&format!("{url}/HHHHHH")).await;
        let mut rng = rand::rngs::StdRng::seed_from_u64(6);
        for text in [
            "",
            "hello",
            "{",
            "null",
            "[]",
            "\"KeepAlive\"",
            "KeepAlive",
            "\u{0}\u{1}\u{fffd}",
            "{\"Signal\":{}}",
            "{\"Signal\":{\"receiver\":\"not-a-uuid\",\"data\":1}}",
            "{\"Signal\":{\"receiver\":\"00000000-0000-0000-0000-000000000000\",\"data\":1}}",
            "{\"IdAssigned\":\"00000000-0000-0000-0000-000000000001\"}",
            "{\"NewPeer\":\"00000000-0000-0000-0000-000000000001\"}",
            "{\"Signal\":{\"receiver\":1e999,\"data\":[1,2]}}",
        ] {
            send(&mut h, Message::text(text)).await;
        }
        // Signals across rooms, to both members of the pair, by their ids.
        for to in [a_id, b_id] {
            let signal = format!(r#"{{"Signal":{{"receiver":"{to}","data":{{"Offer":"x"}}}}}}"#);
            send(&mut h, Message::text(signal)).await;
        }
        // Deep nesting: serde_json's recursion limit, not a stack overflow.
        send(&mut h, Message::text("[".repeat(100_000))).await;
        // Random binary frames, an empty one, a 1 MiB one, random text.
        for _ in 0..50 {
            let len = rng.gen_range(0..2048);
            let bytes: Vec<u8> = (0..len).map(|_| rng.r#gen()).collect();
            send(&mut h, Message::binary(bytes)).await;
        }
        send(&mut h, Message::binary(Vec::new())).await;
        // 100 KiB of invalid JSON and a 100 KiB signal to no one: under the
        // 128 KiB message limit, read and ignored.
        send(&mut h, Message::text("x".repeat(100 << 10))).await;
        let big = format!(
            r#"{{"Signal":{{"receiver":"{}","data":"{}"}}}}"#,
            PeerId(uuid::Uuid::from_u128(7)),
            "y".repeat(100 << 10)
        );
        send(&mut h, Message::text(big)).await;
        // A flood of small garbage.
        for i in 0..5_000 {
            send(&mut h, Message::text(format!("garbage {i}"))).await;
        }
        // Still connected and served: its ping is answered, and no event
        // ever reached it (its room is empty).
        // (The server's own liveness pings may come first.)
        send(&mut h, Message::Ping(vec![1, 2, 3].into())).await;
        loop {
            match timeout(Duration::from_secs(10), h.next()).await {
                Ok(Some(Ok(Message::Pong(payload)))) => {
                    assert_eq!(&payload[..], &[1, 2, 3]);
                    break;
                }
                Ok(Some(Ok(Message::Ping(_)))) => continue,
                other => panic!("the hostile client got {other:?} instead of a pong"),
            }
        }
        drop(h);

        // 1 MiB messages: no signal is that large (the limit is 128 KiB), so
        // the server closes that client instead of buffering them.
        let (mut over, _) = connect(&format!("{url}/KKKKKK")).await;
        let _ = over.send(Message::binary(vec![0xA5u8; 1 << 20])).await;
        let _ = over.send(Message::text("x".repeat(1 << 20))).await;
        let closed = timeout(Duration::from_secs(10), async {
            loop {
                match over.next().await {
                    Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break true,
                    Some(Ok(_)) => continue,
                }
            }
        })
        .await;
        assert_eq!(closed, Ok(true), "an over-long message did not end its connection");

        // A hostile client in a quick match, then gone without a close.
        let (mut q, _) = connect(&format!("{url}/quick")).await;
        send(&mut q, Message::binary(vec![0u8; 4096])).await;
        drop(q);

        // A 20 MiB message: over any sane limit; the server may drop this
        // client, nothing more.
        let (mut big_client, _) = connect(&format!("{url}/BBBBBB")).await;
        send(&mut big_client, Message::text("z".repeat(20 << 20))).await;
        drop(big_client);

        // ---- raw TCP, no websocket at all ----
        // A plain GET / is the web client's page when one is built (404
        // when not): answered either way, never an error or a hang.
        let get = raw_exchange(&addr, b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        let status = status_line(&get);
        assert!(
            status.starts_with("HTTP/1.1 200") || status.starts_with("HTTP/1.1 404"),
            "{status}"
        );
        let get_room = raw_exchange(&addr, b"GET /AAAAAA HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assert!(
            status_line(&get_room).starts_with("HTTP/1.1 4"),
            "{get_room}"
        );
        let post = raw_exchange(
            &addr,
            b"POST /AAAAAA HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello",
        );
        assert!(status_line(&post).starts_with("HTTP/1.1 4"), "{post}");
        let bad_version = raw_exchange(
            &addr,
            b"GET /CCCCCC HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
              Sec-WebSocket-Version: 99\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
        );
        assert!(
            status_line(&bad_version).starts_with("HTTP/1.1 4"),
            "{bad_version}"
        );
        let mut huge_header = b"GET /AAAAAA HTTP/1.1\r\nX-Junk: ".to_vec();
        huge_header.extend(std::iter::repeat_n(b'j', 200_000));
        huge_header.extend_from_slice(b"\r\n\r\n");
        let answer = raw_exchange(&addr, &huge_header);
        assert!(
            answer.is_empty() || status_line(&answer).starts_with("HTTP/1.1 4"),
            "{answer}"
        );
        let noise: Vec<u8> = (0..4096).map(|_| rng.r#gen()).collect();
        let _ = raw_exchange(&addr, &noise);
        let _ = raw_exchange(&addr, b"\r\n\r\n\r\n");
        // A half-sent request left open while the others pair below.
        let mut slow = TcpStream::connect(&addr).unwrap();
        slow.write_all(b"GET /DDDDDD HTTP/1.1\r\nHost: ").unwrap();

        // ---- the server still does its job ----
        assert!(server.is_alive(), "the server died");
        // The pair heard nothing from the hostile room, and still relays.
        assert!(
            next_event(&mut b, Duration::from_millis(200))
                .await
                .is_none(),
            "a signal crossed rooms"
        );
        assert!(
            next_event(&mut a, Duration::from_millis(200))
                .await
                .is_none(),
            "a signal crossed rooms"
        );
        let hello = format!(r#"{{"Signal":{{"receiver":"{b_id}","data":{{"Offer":"sdp"}}}}}}"#);
        send(&mut a, Message::text(hello)).await;
        match next_event(&mut b, Duration::from_secs(5)).await {
            Some(JsonPeerEvent::Signal { sender, data }) => {
                assert_eq!(sender, a_id);
                assert_eq!(data, serde_json::json!({"Offer": "sdp"}));
            }
            other => panic!("the pair's signal was not relayed: {other:?}"),
        }
        // Fresh rooms pair as usual.
        let report = load::run_rooms(&url, 5, Duration::from_secs(20), || {}).await;
        assert!(
            report.all_paired_right(),
            "{:?}",
            (report.paired, &report.errors)
        );
        drop(slow);
        assert!(server.is_alive(), "the server died");
    })
    .await
    .expect("test timed out");
}

/// Matchbox queues messages to a client without bound: a client that
/// floods its room partner, who never reads, must not be able to grow the
/// server's memory without bound.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_towards_a_partner_that_never_reads_is_bounded() {
    let mut server = Server::start();
    let url = server.url.clone();
    timeout(LIMIT, async {
        let (mut x, _) = connect(&format!("{url}/FFFFFF")).await;
        let (_y, y_id) = connect(&format!("{url}/FFFFFF")).await;
        assert_eq!(
            next_event(&mut x, Duration::from_secs(5)).await,
            Some(JsonPeerEvent::NewPeer(y_id))
        );
        let (rss_before, _) = load::memory_kib(server.pid()).expect("/proc readable");
        // 3000 signals of 60 KiB: 180 MiB towards y, which reads nothing.
        let signal = format!(
            r#"{{"Signal":{{"receiver":"{y_id}","data":"{}"}}}}"#,
            "f".repeat(60 * 1024)
        );
        for _ in 0..3000 {
            send(&mut x, Message::text(signal.clone())).await;
        }
        // The server has read all of it once it answers a ping after it.
        send(&mut x, Message::Ping(vec![9].into())).await;
        loop {
            match timeout(Duration::from_secs(20), x.next()).await {
                Ok(Some(Ok(Message::Pong(_)))) => break,
                Ok(Some(Ok(_))) => continue,
                other => panic!("no pong after the flood: {other:?}"),
            }
        }
        let (rss_after, _) = load::memory_kib(server.pid()).expect("/proc readable");
        let grown_mib = rss_after.saturating_sub(rss_before) / 1024;
        assert!(
            grown_mib < 48,
            "the server grew by {grown_mib} MiB queueing signals"
        );
        assert!(server.is_alive());
        let report = load::run_rooms(&url, 2, Duration::from_secs(20), || {}).await;
        assert!(report.all_paired_right(), "{:?}", report.errors);
    })
    .await
    .expect("test timed out");
}

/// The CI-sized version of scripts/signaling-load.sh: 40 concurrent clients
/// in 20 rooms against a `twinstar serve` process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forty_clients_in_twenty_rooms_each_pair_with_their_own_partner() {
    let result = load::measure(Path::new(BIN), 40, Duration::from_secs(30)).await;
    eprintln!("{result}");
    assert_eq!(result["ok"], true, "{result}");
    assert_eq!(result["paired"], 40, "{result}");
    assert_eq!(result["crossed"], 0, "{result}");
    assert_eq!(result["server"]["alive"], true, "{result}");
    assert!(result["server"]["rss_kib_loaded"].as_u64().unwrap() > 0);
    assert!(result["pairing_ms"]["p99"].as_f64().unwrap() < 10_000.0);
}
