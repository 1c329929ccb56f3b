//! Ranked replays through a real server (in process, on loopback, with
//! twinstar's verifier, as `twinstar-server` runs it): two matches paired
//! by the server uploaded and ranked in score order, each on its boards;
//! the refusals an uploader can cause at the HTTP level (an edited score
//! claim, a match the server did not host, a second upload of one match,
//! an oversized body, bytes that are no replay), each with its status and
//! reason. The verifier's own forgeries (edited inputs and checksums,
//! another version, truncated) are crates/verify/tests/forgeries.rs.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use twinstar_signaling::boards::utc_date;
use twinstar_signaling::{MAX_UPLOAD_BYTES, ServeOptions, VerifierPool, bind_with};
use twinstar_verify::TwinstarVerifier;
use twinstar_verify::sample::SampleMatch;

/// A server with the verifier on a free port, served by a runtime of its
/// own on a background thread (for the test's life).
fn start() -> SocketAddr {
    start_with(None)
}

/// [`start`], keeping ranked replays in `data` (`--data DIR`) if given.
fn start_with(data: Option<std::path::PathBuf>) -> SocketAddr {
    start_and(|options| options.data = data)
}

/// [`start`], with `edit` applied to its options first.
fn start_and(edit: impl FnOnce(&mut ServeOptions)) -> SocketAddr {
    let mut options = ServeOptions::new(None);
    options.metrics.bind = None;
    options.replays = Some(VerifierPool::new(Arc::new(TwinstarVerifier), 2));
    edit(&mut options);
    let server = bind_with("127.0.0.1:0".parse().unwrap(), options).unwrap();
    let addr = server.local_addr();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(server.serve(std::future::pending::<()>()))
    });
    addr
}

/// A player seated in room `code`: the websocket upgrade by hand, then the
/// server's first message (matchbox's `IdAssigned`) read off the socket.
/// The stream (kept open: a player in a match) and the peer id.
fn player(addr: SocketAddr, code: &str) -> (TcpStream, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    write!(
        stream,
        "GET /{code} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    assert!(
        head.starts_with(b"HTTP/1.1 101"),
        "{}",
        String::from_utf8_lossy(&head)
    );
    // A server's text frame: FIN+text, then a 7-bit length (short here).
    let mut frame = [0u8; 2];
    stream.read_exact(&mut frame).unwrap();
    assert_eq!(frame[0], 0x81);
    let mut payload = vec![0u8; usize::from(frame[1] & 0x7F)];
    stream.read_exact(&mut payload).unwrap();
    let message: Value = serde_json::from_slice(&payload).unwrap();
    let id = message["IdAssigned"]
        .as_str()
        .expect("IdAssigned")
        .to_owned();
    (stream, id)
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(20)))
        .build()
        .into()
}

/// `POST /replays?query` with `body`: the status and the JSON answer.
fn upload(addr: SocketAddr, query: &str, body: &[u8]) -> (u16, Value) {
    let mut r = agent()
        .post(&format!("http://{addr}/replays{query}"))
        .header("Content-Type", "application/octet-stream")
        .send(body)
        .unwrap();
    let status = r.status().as_u16();
    let text = r.body_mut().read_to_string().unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

fn get(addr: SocketAddr, path: &str) -> (u16, Vec<u8>) {
    let mut r = agent().get(&format!("http://{addr}{path}")).call().unwrap();
    let status = r.status().as_u16();
    (status, r.body_mut().read_to_vec().unwrap())
}

fn reason(answer: &Value) -> &str {
    answer["reason"].as_str().unwrap_or_default()
}

/// Today's daily challenge seed (UTC).
fn todays_daily_seed() -> u64 {
    let today = utc_date(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64,
    );
    twinstar_sim::daily_seed(
        today.year(),
        u32::from(u8::from(today.month())),
        u32::from(today.day()),
    )
}

/// The ids on `board`, best first, and the board as the server sent it.
fn board_ids(addr: SocketAddr, board: &str) -> (Vec<String>, Value) {
    let (status, body) = get(addr, &format!("/leaderboard?board={board}"));
    assert_eq!(status, 200);
    let board: Value = serde_json::from_slice(&body).unwrap();
    let ids = (board["entries"].as_array().unwrap().iter())
        .map(|e| e["id"].as_str().unwrap().to_owned())
        .collect();
    (ids, board)
}

/// A match this server did not host: a room it never paired, or a peer
/// that never sat in the room.
fn forgeries_are_refused(addr: SocketAddr, player_id: &str) {
    let (forged, _) = SampleMatch::new(5, 120, "CCC-CCC", player_id)
        .record()
        .unwrap();
    let (status, answer) = upload(addr, "", &forged);
    assert_eq!(status, 400);
    assert!(
        reason(&answer).starts_with("not a match this server hosted"),
        "{answer}"
    );
    let stranger = "00000000-0000-0000-0000-0000000000ff";
    let (forged, _) = SampleMatch::new(5, 120, "AAA-AAA", stranger)
        .record()
        .unwrap();
    assert_eq!(upload(addr, "", &forged).0, 400);
}

/// Oversized and not a replay; then the address's upload limit.
fn bad_uploads_are_refused(addr: SocketAddr) {
    let (status, answer) = upload(addr, "", &vec![0u8; MAX_UPLOAD_BYTES + 1]);
    assert_eq!(status, 413, "{answer}");
    assert!(reason(&answer).contains("limit"), "{answer}");
    let (status, answer) = upload(addr, "", b"hello");
    assert_eq!(status, 400);
    assert!(reason(&answer).starts_with("not a replay"), "{answer}");

    // Ten uploads a minute from one address (eight so far); the
    // eleventh is refused before it is read.
    let statuses: Vec<u16> = (0..3).map(|_| upload(addr, "", b"hello").0).collect();
    assert_eq!(statuses, [400, 400, 429]);
}

#[test]
fn hosted_matches_are_ranked_in_score_order_and_forgeries_refused() {
    let addr = start();
    // Two rooms, each paired by the server.
    let (_a1, _a1_id) = player(addr, "AAA-AAA");
    let (_a2, a2_id) = player(addr, "AAA-AAA");
    let (_b1, _b1_id) = player(addr, "BBB-BBB");
    let (_b2, b2_id) = player(addr, "BBB-BBB");

    // Room A played today's daily challenge, room B another seed; both
    // short enough to fit in the rooms' lifetimes (just opened).
    let a = SampleMatch::new(todays_daily_seed(), 270, "AAA-AAA", &a2_id);
    let (a_bytes, a_score) = a.record().unwrap();
    // Another match with another score (the daily seed changes each day).
    let (b_bytes, b_score) = (20..60)
        .map(|turn| {
            let mut b = SampleMatch::new(3, 270, "BBB-BBB", &b2_id);
            b.turn_frames = turn;
            b.record().unwrap()
        })
        .find(|(_, score)| *score != a_score)
        .expect("some sample match scores differently");

    // A claim that is not what the replay re-simulates to: refused, not ranked.
    let (status, answer) = upload(addr, &format!("?score={}", b_score + 100), &b_bytes);
    assert_eq!(status, 400, "{answer}");
    assert!(reason(&answer).starts_with("score mismatch"), "{answer}");

    let (status, answer) = upload(addr, &format!("?score={a_score}"), &a_bytes);
    assert_eq!(status, 201, "{answer}");
    assert_eq!(answer["score"].as_u64(), Some(a_score));
    assert_eq!(answer["board"], "default");
    assert_eq!(answer["ranks"]["daily"], 1, "{answer}");
    let a_id = answer["id"].as_str().unwrap().to_owned();
    let (status, answer) = upload(addr, "", &b_bytes);
    assert_eq!(status, 201, "{answer}");
    assert_eq!(answer["ranks"]["daily"], Value::Null, "not the daily seed");
    let b_id = answer["id"].as_str().unwrap().to_owned();
    assert!(b_id.bytes().all(|c| c.is_ascii_alphanumeric()) && b_id != a_id);

    // Both on the all-time board, higher score first; the daily board has
    // room A's alone.
    let (ids, board) = board_ids(addr, "all");
    let expected = if a_score > b_score {
        [a_id.clone(), b_id.clone()]
    } else {
        [b_id.clone(), a_id.clone()]
    };
    assert_eq!(ids, expected, "{board}");
    assert_eq!(board["entries"][0]["rank"], 1);
    assert_eq!(
        board["entries"][0]["names"],
        serde_json::json!(["P1", "P2"])
    );
    assert_eq!(board["next"], Value::Null);
    assert_eq!(board_ids(addr, "daily").0, std::slice::from_ref(&a_id));
    assert_eq!(get(addr, "/leaderboard?board=month").0, 400);

    // The stored replay is the uploaded bytes.
    assert_eq!(
        get(addr, &format!("/replays/{a_id}")),
        (200, a_bytes.clone())
    );
    assert_eq!(get(addr, "/replays/nosuchreplay").0, 404);

    // One ranked upload per match.
    let (status, answer) = upload(addr, "", &a_bytes);
    assert_eq!(status, 409, "{answer}");
    assert!(reason(&answer).contains("ranked already"), "{answer}");

    forgeries_are_refused(addr, &a2_id);
    bad_uploads_are_refused(addr);
}

/// `--data DIR`: a server started later on the same directory lists what
/// an earlier one ranked and serves its bytes.
#[test]
fn a_data_directory_keeps_the_boards_for_the_next_server() {
    let dir = std::env::temp_dir().join(format!("twinstar-server-data-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let first = start_with(Some(dir.clone()));
    let (_a, _) = player(first, "DDD-DDD");
    let (_b, b_id) = player(first, "DDD-DDD");
    let (bytes, score) = SampleMatch::new(9, 200, "DDD-DDD", &b_id).record().unwrap();
    let (status, answer) = upload(first, "", &bytes);
    assert_eq!(status, 201, "{answer}");
    let id = answer["id"].as_str().unwrap().to_owned();
    assert!(dir.join("replays.sqlite").is_file());

    let second = start_with(Some(dir.clone()));
    let (status, body) = get(second, "/leaderboard?board=all");
    assert_eq!(status, 200);
    let board: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(board["entries"][0]["id"], id.as_str(), "{board}");
    assert_eq!(board["entries"][0]["score"].as_u64(), Some(score));
    assert_eq!(get(second, &format!("/replays/{id}")), (200, bytes));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Several nodes' boards live in their Redis (`--directory`): one that
/// does not answer makes an upload of a match this server paired, a
/// replay link and a board each a 503 with the reason in one line, not a
/// panic or a hang; rooms still pair. And `--data` beside `--directory`
/// is refused at start (two places for the same replays).
#[test]
fn a_shared_store_that_does_not_answer_is_a_503_with_its_reason() {
    // A port nothing listens on: Redis is gone.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let redis = format!("redis://127.0.0.1:{port}");
    let addr = start_and(|options| options.directory = Some(redis.clone()));
    let (_a1, _) = player(addr, "CCC-CCC");
    let (_a2, a2_id) = player(addr, "CCC-CCC");
    let (bytes, score) = SampleMatch::new(3, 270, "CCC-CCC", &a2_id)
        .record()
        .unwrap();
    let (status, answer) = upload(addr, &format!("?score={score}"), &bytes);
    assert_eq!(status, 503, "{answer}");
    let why = reason(&answer);
    assert!(
        why.contains("(Redis) did not answer") && !why.contains('\n'),
        "{why}"
    );
    for path in ["/leaderboard?board=all", "/replays/abcdefghijkm"] {
        let (status, body) = get(addr, path);
        let answer: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(status, 503, "{path}: {answer}");
        assert!(reason(&answer).contains("Redis"), "{path}: {answer}");
    }
    let (_b1, b1_id) = player(addr, "DDD-DDD");
    assert!(!b1_id.is_empty());

    let mut options = ServeOptions::new(None);
    options.metrics.bind = None;
    options.replays = Some(VerifierPool::new(Arc::new(TwinstarVerifier), 1));
    options.directory = Some(redis);
    options.data = Some(std::env::temp_dir().join("twinstar-unused-data"));
    let error = bind_with("127.0.0.1:0".parse().unwrap(), options)
        .err()
        .expect("--data with --directory is refused")
        .to_string();
    assert!(
        error.contains("--data") && error.contains("--directory"),
        "{error}"
    );
}
