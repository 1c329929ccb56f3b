//! What the fuzzers found, kept (issue 27, "Hostile bytes"; `fuzz/`,
//! `docs/fuzzing.md`): every file under `fuzz/regressions/<target>/` goes
//! through the same function the game calls on outside bytes and must give
//! `Ok` or `Err`, never a panic; the findings get a specific assertion too.
//! And every committed seed under `fuzz/seeds/<target>/` must still be
//! accepted: a valid input the decoders start refusing fails here.
//!
//! Seeds are written by this file (`TWINSTAR_BLESS_FUZZ_SEEDS=1 cargo test
//! --test fuzz_regressions`), so they follow the formats when they change.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use twinstar::replay;
use twinstar_netcode::RoomCode;
use twinstar_netcode::connect::{DelaySetting, HandshakeError, MAX_INPUT_DELAY, Role};
use twinstar_netcode::replay::EventKind;
use twinstar_netcode::testing::chat::{Chat, Command};
use twinstar_netcode::testing::handshake::{Agreement, Handshake};
use twinstar_netcode::testing::protocol::{Claim, Hello, Message, PROTOCOL_VERSION};
use twinstar_netcode::testing::rejoin::{Ticket, encode_catch_up};
use twinstar_netcode::testing::socket;
use twinstar_signaling_protocol::{
    ClientQuery, HostStats, KickRequest, ReportRequest, RoomAction, RoomRequest, RoomsQuery,
    SeatToken, decode_room_request,
};

/// A catch-up receiver of twinstar's inputs.
type CatchUpReceiver = twinstar_netcode::testing::rejoin::CatchUpReceiver<Input, PLAYERS>;
use twinstar::settings::Settings;
use twinstar::sim::{Input, PLAYERS, SIM_VERSION, SimConfig, World};
use twinstar::web::link::args_from_fragment;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// The files of `fuzz/<kind>/<target>/` with their names, sorted; the
/// directory must exist and hold at least one.
fn files(kind: &str, target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = fuzz_dir().join(kind).join(target);
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.expect("directory entry").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, bytes)
        })
        .collect();
    out.sort();
    assert!(!out.is_empty(), "{} is empty", dir.display());
    out
}

/// A payload kept as base64 text (one per line) in a regression file.
fn unbase64(line: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(line.trim())
        .expect("base64")
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).expect("a text regression file")
}

/// Runs a handshake against a transcript of what the peer sent: one
/// message per line in its JSON form (blank lines skipped), 10 ms apart,
/// each put in its envelope and decoded by `Message::decode` as the control
/// channel does (a line that does not decode is what the connector would
/// reject; it is skipped here so later lines still run). Our side is a host with automatic delay. `{PROTOCOL}`
/// and `{SIM}` stand for this build's versions, so a transcript outlives
/// version bumps.
fn run_handshake(transcript: &str) -> Option<Result<Agreement, HandshakeError>> {
    let ours = Hello::new(&twinstar::game::GAME, Role::Host, 7, "default");
    let mut handshake = Handshake::new(&twinstar::game::GAME, ours, DelaySetting::Auto);
    let mut now = Instant::now();
    let transcript = transcript
        .replace("{PROTOCOL}", &PROTOCOL_VERSION.to_string())
        .replace("{SIM}", &SIM_VERSION.to_string());
    for line in transcript.lines().filter(|l| !l.trim().is_empty()) {
        let _ = handshake.poll(now);
        let received =
            (serde_json::from_str::<Message>(line).ok()).map(|m| Message::decode(&m.encode()));
        if let Some(Ok(message)) = received {
            let _ = handshake.receive(now, message);
        }
        let _ = handshake.poll(now);
        now += Duration::from_millis(10);
    }
    handshake.outcome().cloned()
}

/// Every regression file through the decoder its target calls. Raw crash
/// inputs of structure-aware targets (`crash-*`, read through `arbitrary`
/// by the fuzz target) are replayed by `scripts/fuzz.sh`; here their
/// readable transcripts run (`.jsonl` messages, `.txt` payloads).
#[test]
fn regressions_return_instead_of_panicking() {
    let root = fuzz_dir().join("regressions");
    let mut seen = 0;
    for entry in std::fs::read_dir(&root).expect("fuzz/regressions") {
        let target = entry.unwrap().file_name().to_string_lossy().into_owned();
        for (name, bytes) in files("regressions", &target) {
            seen += 1;
            match target.as_str() {
                "replay_bytes" | "replay_records" => {
                    if let Ok(replay) = replay::read_bytes(&bytes) {
                        replay::verify(&replay).unwrap_or_else(|| panic!("{name}: config"));
                    }
                }
                "message" | "message_arbitrary" => {
                    let _ = Message::decode(&bytes);
                }
                "handshake" if name.ends_with(".jsonl") => {
                    let _ = run_handshake(text(&bytes));
                }
                "catch_up" if name.ends_with(".txt") => {
                    let mut receiver = CatchUpReceiver::default();
                    for line in text(&bytes).lines() {
                        let _ = receiver.add(&unbase64(line));
                    }
                }
                t if STRUCTURED.contains(&t) && name.starts_with("crash-") => {}
                "ggrs_datagram" => {
                    let _ = socket::decode(&bytes);
                }
                "settings" => {
                    let _ = Settings::from_bytes(bytes);
                }
                "ticket" => {
                    if let Ok(text) = std::str::from_utf8(&bytes) {
                        let _ = Ticket::parse(text);
                    }
                }
                "link" => {
                    let _ = args_from_fragment(text(&bytes));
                }
                "socket_refusal" => {
                    if let Some(message) = explain_refusal(&bytes) {
                        assert!(!message.contains(char::is_control), "{name}: {message:?}");
                    }
                }
                _ => panic!("no runner here for fuzz/regressions/{target}/{name}"),
            }
        }
    }
    assert!(seen > 0);
}

/// The error a client shows for a `socket_refusal` input (status, flags,
/// body: see that fuzz target), or `None` for a status that is not one.
fn explain_refusal(input: &[u8]) -> Option<String> {
    use matchbox_socket::{Error, SignalingError};
    use tungstenite::http;
    let [lo, hi, flags, body @ ..] = input else {
        return None;
    };
    let status = http::StatusCode::from_u16(u16::from_le_bytes([*lo, *hi])).ok()?;
    let room = (flags & 1 == 1).then(|| RoomCode::parse("K7Q2XM").unwrap());
    let error = if flags & 2 == 0 {
        let mut response = http::Response::new((flags & 4 == 0).then(|| body.to_vec()));
        *response.status_mut() = status;
        Error::ConnectionFailed(SignalingError::WebSocket(tungstenite::Error::Http(
            Box::new(response),
        )))
    } else {
        Error::Disconnected(SignalingError::UserImplementationError(format!(
            "{} (closed by the server)",
            String::from_utf8_lossy(body)
        )))
    };
    Some(
        twinstar_netcode::testing::signaling::classify_socket_error(&error, room.as_ref())
            .to_string(),
    )
}

/// A proxy's error page in front of the server (nginx's 502, CRLF lines)
/// was quoted whole, newlines and all, in what should be a one-line error;
/// now it is one line, and our own server's refusal still reads as before.
#[test]
fn a_proxys_error_page_is_explained_on_one_line() {
    let mut nginx = vec![0xf6, 0x01, 0]; // 502
    nginx
        .extend_from_slice(b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n</html>\r\n");
    assert_eq!(
        explain_refusal(&nginx).unwrap(),
        "the signaling server refused the room (502): <html> <head><title>502 Bad Gateway</title></head> </html>"
    );
    for (name, bytes) in files("regressions", "socket_refusal") {
        let message = explain_refusal(&bytes).expect("a status");
        assert!(!message.contains(char::is_control), "{name}: {message:?}");
    }
    let mut full = vec![0x99, 0x01, 1];
    full.extend_from_slice(b"room K7Q2XM is full");
    assert_eq!(explain_refusal(&full).unwrap(), "room K7Q-2XM is full");
}

/// A `Hello` claiming a player other than 1 or 2 (the handshake fuzzer's
/// first crash: `Claim::partner` computed `3 - player` and underflowed) is
/// refused when it is decoded: the regression files (readable JSON) do not
/// parse, and each, put on the wire as it claims, does not decode.
#[test]
fn a_claim_of_player_0_or_3_is_malformed() {
    for (name, bytes) in files("regressions", "message") {
        if name.starts_with("hello-claim-player") {
            assert!(serde_json::from_slice::<Message>(&bytes).is_err(), "{name}");
            let claimed: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
            let hello = &claimed["hello"];
            let claim = |c: &serde_json::Value| Claim {
                match_id: c["match_id"].as_u64().expect("a match"),
                player: c["player"].as_u64().expect("a player") as u8,
            };
            let mut ours = Hello::new(&twinstar::game::GAME, Role::Join, 5, "default");
            ours.rejoin = (hello["rejoin"].as_array().expect("claims").iter())
                .map(claim)
                .collect();
            ours.resume = Some(&hello["resume"]).filter(|r| !r.is_null()).map(claim);
            let wire = Message::Hello(ours).encode();
            assert!(
                matches!(
                    Message::decode(&wire),
                    Err(HandshakeError::Malformed { .. })
                ),
                "{name}"
            );
        }
    }
    let transcript = files("regressions", "handshake")
        .into_iter()
        .find(|(name, _)| name == "resume-player-200.jsonl")
        .expect("the transcript");
    // The peer's Hello is refused, so nothing else is agreed.
    assert_eq!(run_handshake(text(&transcript.1)), None);
}

/// A peer that measured an absurd round trip (`u64::MAX` microseconds)
/// made `agree` overflow adding the two RTTs; now it gets the largest
/// input delay.
#[test]
fn an_absurd_measured_rtt_gives_the_largest_delay() {
    let transcript = files("regressions", "handshake")
        .into_iter()
        .find(|(name, _)| name == "measured-u64-max.jsonl")
        .expect("the transcript");
    let agreement = run_handshake(text(&transcript.1))
        .expect("the handshake ends")
        .expect("and agrees");
    assert_eq!(agreement.input_delay, MAX_INPUT_DELAY);
}

/// GGRS datagrams that bincode accepts as GGRS messages but GGRS 0.13
/// would not survive (a cut varint or a run of 2^40 bytes in an input
/// message's bytes, frames at the ends of the i32 range): the
/// `ggrs_session` fuzzer's finding. The socket drops them.
#[test]
fn ggrs_messages_ggrs_cannot_take_are_dropped_by_the_socket() {
    for (name, bytes) in files("regressions", "ggrs_datagram") {
        let config = bincode::config::standard();
        let as_ggrs = bincode::serde::decode_from_slice::<ggrs::Message, _>(&bytes, config);
        assert!(
            matches!(as_ggrs, Ok((_, used)) if used == bytes.len()),
            "{name}: a well-formed GGRS message"
        );
        assert_eq!(socket::decode(&bytes), None, "{name}");
    }
}

/// A replay whose header carries rules the simulation overflows on (here
/// a speed near `Fx::MAX`; the replay fuzzers' finding: `replay --verify`
/// panicked in a debug build and wrapped positions in a release one) is
/// refused by the reader, saying why.
///
/// The fuzzers' files are of the first simulation version, which today's
/// reader refuses before it looks at the rules; the same finding is made
/// again here in today's format.
#[test]
fn a_replay_with_unsound_rules_is_refused_when_read() {
    let mut seen = 0;
    for (name, bytes) in files("regressions", "replay_bytes") {
        let error = replay::read_bytes(&bytes).expect_err(&name).to_string();
        assert!(
            error.contains("cannot be simulated") || error.contains("simulation version 1"),
            "{name}: {error}"
        );
        seen += 1;
    }
    assert!(seen > 0);
    let unsound = SimConfig {
        player_speed: twinstar::sim::Fx::MAX,
        ..SimConfig::DEFAULT
    };
    let header = replay::header("local", 1, &unsound);
    let dir = std::env::temp_dir().join(format!("twinstar-unsound-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("unsound.tsr");
    let mut writer = replay::create(&path, &header).expect("create");
    writer.frame([Input(0); PLAYERS], || 0).unwrap();
    drop(writer);
    let bytes = std::fs::read(&path).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let error = replay::read_bytes(&bytes)
        .expect_err("unsound rules")
        .to_string();
    assert!(error.contains("cannot be simulated"), "{error}");
}

/// A peer's catch-up claiming more than four hours was refused, then
/// underflowed when the receiver was called once more. The file holds
/// protocol-4 payloads (replay chunks), which no longer decode: each is
/// refused, again and again, without a panic. The same case in today's
/// chunks is `net::rejoin`'s
/// `a_match_longer_than_four_hours_is_refused_and_stays_refused`.
#[test]
fn a_catch_up_refused_as_too_long_stays_refused() {
    let (_, bytes) = files("regressions", "catch_up")
        .into_iter()
        .find(|(name, _)| name == "too-long-then-more.txt")
        .expect("the payloads");
    let mut receiver = CatchUpReceiver::default();
    let results: Vec<_> = (text(&bytes).lines())
        .map(|l| receiver.add(&unbase64(l)))
        .collect();
    assert!(results.len() >= 2);
    assert!(results.iter().all(Result::is_err), "{results:?}");
    assert_eq!(receiver.frames(), 0);
}

/// Every committed seed is still accepted by the decoder its target calls.
#[test]
fn seeds_are_accepted() {
    if std::env::var_os("TWINSTAR_BLESS_FUZZ_SEEDS").is_some() {
        return; // being rewritten by seeds_are_current; checked next run
    }
    for (name, bytes) in files("seeds", "replay_bytes") {
        let replay = replay::read_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let verification = replay::verify(&replay).expect("config");
        assert_eq!(verification.first_mismatch, None, "{name}");
        assert!(verification.checked > 0, "{name}");
    }
    for (name, bytes) in files("seeds", "message") {
        let message = Message::decode(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(message.encode(), bytes, "{name}");
    }
    for (name, bytes) in files("seeds", "ggrs_datagram") {
        let message = socket::decode(&bytes).unwrap_or_else(|| panic!("{name}"));
        assert_eq!(socket::encode(&message), Some(bytes), "{name}");
    }
    for (name, bytes) in files("seeds", "room_code") {
        RoomCode::parse(text(&bytes)).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    // A room path, or a room URL's query with a seat token.
    for (name, bytes) in files("seeds", "signaling_path") {
        let path = text(&bytes);
        let token = SeatToken::from_query(Some(path)).ok().flatten();
        let lobby = ClientQuery::parse(Some(path)).is_ok_and(|q| q.name.is_some())
            || RoomsQuery::parse(Some(path)).is_ok_and(|q| q.cursor.is_some());
        assert!(
            RoomRequest::from_path(Some(path)).is_ok() || token.is_some() || lobby,
            "{name}"
        );
    }
    // A room request's body, path or typed command, after the byte that
    // picks which (see fuzz/fuzz_targets/room_request.rs).
    for (name, bytes) in files("seeds", "room_request") {
        let (which, body) = bytes
            .split_first()
            .unwrap_or_else(|| panic!("{name}: empty"));
        let accepted = match which % 5 {
            0 => decode_room_request::<HostStats>(body).is_ok(),
            1 => decode_room_request::<KickRequest>(body).is_ok(),
            2 => decode_room_request::<ReportRequest>(body).is_ok(),
            3 => RoomAction::parse_path(text(body)).is_some(),
            _ => matches!(
                Chat::new("P1".into(), "P2".into()).command(1, text(body)),
                Command::Act(_)
            ),
        };
        assert!(accepted, "{name}");
    }
    for (name, bytes) in files("seeds", "link") {
        args_from_fragment(text(&bytes)).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    for (name, bytes) in files("seeds", "settings") {
        Settings::from_bytes(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    for (name, bytes) in files("seeds", "ticket") {
        Ticket::parse(text(&bytes)).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    for (name, bytes) in files("seeds", "socket_refusal") {
        explain_refusal(&bytes).unwrap_or_else(|| panic!("{name}: not a status"));
    }
    for (name, bytes) in files("seeds", "ice_offer") {
        let offer = twinstar_netcode::signaling::IceOffer::parse(text(&bytes))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        offer
            .into_servers()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    // Structure-aware targets take any bytes: their seeds only need to be there.
    for target in STRUCTURED {
        files("seeds", target);
    }
}

/// Targets whose input is the fuzzer's bytes read through `arbitrary`.
const STRUCTURED: [&str; 7] = [
    "replay_records",
    "ggrs_session",
    "message_arbitrary",
    "handshake",
    "catch_up",
    "signaling_registry",
    "web_request",
];

/// Writes the seeds (`TWINSTAR_BLESS_FUZZ_SEEDS=1`); otherwise checks that
/// what would be written is what is committed, apart from replays, whose
/// headers carry the game's version (`seeds_are_accepted` checks those).
#[test]
fn seeds_are_current() {
    let bless = std::env::var_os("TWINSTAR_BLESS_FUZZ_SEEDS").is_some();
    for (target, name, bytes) in seeds() {
        let path = fuzz_dir().join("seeds").join(target).join(&name);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &bytes).unwrap();
        } else if target != "replay_bytes" {
            let committed = std::fs::read(&path).unwrap_or_default();
            assert!(
                committed == bytes,
                "{} is stale: run TWINSTAR_BLESS_FUZZ_SEEDS=1 cargo test --test it fuzz_regressions::",
                path.display()
            );
        }
    }
}

/// A replay recorded as the game records one: real checksums from the
/// simulation, a few events, finished or cut.
fn recorded_replay(preset: &str, seed: u64, frames: u32, finish: bool) -> Vec<u8> {
    let config = SimConfig::from_preset_name(preset).expect("preset");
    let mut header = replay::header("local", seed, &config);
    header.start_unix_ms = 0;
    let dir = std::env::temp_dir().join(format!("twinstar-fuzz-seeds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{preset}-{seed}.tsr"));
    let mut writer = replay::create(&path, &header).expect("create");
    let mut world = World::new(seed, config);
    for f in 0..frames {
        if f == 30 {
            writer.event(EventKind::Chat, "P1: hello").unwrap();
        }
        if f == 70 {
            writer
                .event(EventKind::InputDelay, "2 -> 3 frames at frame 70")
                .unwrap();
        }
        let inputs: [Input; PLAYERS] =
            [Input((f / 9) as u16 & 0x3f), Input((f / 23) as u16 & 0x1f)];
        world.step(inputs, &mut ());
        writer.frame(inputs, || world.checksum()).unwrap();
    }
    let bytes = if finish {
        let path = writer.finish(world.checksum(), "frames").unwrap();
        std::fs::read(path).unwrap()
    } else {
        drop(writer);
        std::fs::read(&path).unwrap()
    };
    let _ = std::fs::remove_dir_all(&dir);
    bytes
}

/// Bytes that look like nothing in particular (a fixed LCG), for targets
/// that read their input through `arbitrary`.
fn blob(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as u8
        })
        .collect()
}

fn seeds() -> Vec<(&'static str, String, Vec<u8>)> {
    let mut out = Vec::new();
    out.push((
        "replay_bytes",
        "default-150-finished.tsr".into(),
        recorded_replay("default", 3, 150, true),
    ));
    out.push((
        "replay_bytes",
        "stress-121-cut.tsr".into(),
        recorded_replay("stress", 9, 121, false),
    ));
    let mut hello = Hello::new(&twinstar::game::GAME, Role::Join, 11, "default");
    hello.nonce = 42;
    hello.rejoin = vec![Claim {
        match_id: 5,
        player: 2,
    }];
    let catch_up = encode_catch_up(
        &(0..130u32)
            .map(|f| [Input((f / 7) as u16), Input(3)])
            .collect::<Vec<_>>(),
        &[1, 2],
        3,
    );
    let mut messages = vec![
        Message::Hello(hello),
        Message::Ping { seq: 3 },
        Message::Pong { seq: 3 },
        Message::Measured {
            rtt_us: 41_000,
            jitter_us: 900,
        },
        Message::Done {
            frame: 600,
            checksum: 0x0123_4567_89ab_cdef_0123_4567_89ab_cdef,
        },
        Message::Bye {
            reason: "left".into(),
        },
        Message::Desync {
            frame: 60,
            sender: 1,
            receiver: 2,
        },
        Message::Busy,
        Message::Chat {
            text: "hi \u{e9}".into(),
        },
        Message::Watch(twinstar_netcode::testing::protocol::Watch::this_build(
            &twinstar::game::GAME,
        )),
        Message::WatchRefused {
            reason: "version".into(),
        },
        Message::Streaming {
            seed: 1,
            preset: "stress".into(),
            frame: 120,
            name: "S1".into(),
            players: vec!["P1".into(), "P2".into()],
        },
        Message::Relayed {
            from: "S1".into(),
            frame: 7,
            text: "gg".into(),
        },
        Message::Away,
        Message::DesyncState(twinstar_netcode::testing::protocol::DesyncState {
            frame: 130,
            checksum: 0xfeed,
            world: vec![120, 156, 3, 0, 0, 0, 0, 1],
            inputs_from: 10,
            inputs: vec![1, 2, 3, 4],
        }),
    ];
    messages.extend(catch_up);
    for (i, message) in messages.iter().enumerate() {
        // The variant's name, from the JSON form: "busy" or {"hello":...}.
        let kind = match serde_json::to_value(message).expect("JSON") {
            serde_json::Value::String(kind) => kind,
            serde_json::Value::Object(map) => map.keys().next().expect("a variant").clone(),
            other => panic!("{other}"),
        };
        out.push(("message", format!("{i:02}-{kind}.bin"), message.encode()));
    }
    for (i, json) in [
        r#"{"header":{"magic":4660},"body":{"SyncRequest":{"random_request":3735928559}}}"#,
        r#"{"header":{"magic":4660},"body":{"SyncReply":{"random_reply":3735928559}}}"#,
        r#"{"header":{"magic":1},"body":"KeepAlive"}"#,
        r#"{"header":{"magic":65535},"body":{"Input":{"peer_connect_status":
            [{"disconnected":false,"last_frame":41},{"disconnected":true,"last_frame":-1}],
            "disconnect_requested":false,"start_frame":40,"ack_frame":39,
            "bytes":[6,1,0,5]}}}"#,
        r#"{"header":{"magic":4660},"body":{"InputAck":{"ack_frame":41}}}"#,
        r#"{"header":{"magic":7},"body":{"QualityReport":{"frame_advantage":-3,"ping":1234567890123}}}"#,
        r#"{"header":{"magic":7},"body":{"QualityReply":{"pong":99999999999999}}}"#,
        r#"{"header":{"magic":7},"body":{"ChecksumReport":{"checksum":123456789,"frame":600}}}"#,
    ]
    .iter()
    .enumerate()
    {
        let message: ggrs::Message = serde_json::from_str(json).expect("a GGRS message");
        out.push(("ggrs_datagram", format!("{i:02}.bin"), socket::encode(&message).unwrap()));
    }
    for (i, code) in ["K7Q-2XM", "k7q2xm", "ABCD-EFGH", " 23 456 7 "]
        .iter()
        .enumerate()
    {
        out.push(("room_code", format!("{i:02}.txt"), code.as_bytes().to_vec()));
    }
    for (i, path) in ["K7Q2XM", "watch-K7Q2XM", "quick", "world", "WATCH-k7q-2xm"]
        .iter()
        .enumerate()
    {
        out.push((
            "signaling_path",
            format!("{i:02}.txt"),
            path.as_bytes().to_vec(),
        ));
    }
    // 05.txt is a seat token; then the lobby's queries (issue 34).
    for (name, query) in [
        (
            "06.txt",
            "public=1&name=Ana%20Mar%C3%ADa&version=6.3&level=12&rtt=40",
        ),
        ("07.txt", "version=6.3&cursor=42.K7Q-2XM"),
    ] {
        out.push(("signaling_path", name.into(), query.as_bytes().to_vec()));
    }
    let seat = "0123456789abcdef0123456789abcdef";
    for (name, which, body) in [
        (
            "stats.txt",
            0u8,
            format!(r#"{{"seat":"{seat}","wave":7,"score":1200,"elapsed_s":95}}"#),
        ),
        (
            "kick.txt",
            1,
            format!(r#"{{"seat":"{seat}","spectator":"3f2504e0-4f89-11d3-9a0c-0305e82c3301"}}"#),
        ),
        (
            "report.txt",
            2,
            format!(
                r#"{{"seat":"{seat}","name":"S1","reason":"spam","lines":["S1: buy gold","P1: stop"]}}"#
            ),
        ),
        ("path.txt", 3, "/rooms/K7Q2XM/report".into()),
        ("command.txt", 4, "/report P2 selling gold".into()),
        ("kick-command.txt", 4, "/kick s1".into()),
    ] {
        let mut bytes = vec![which];
        bytes.extend_from_slice(body.as_bytes());
        out.push(("room_request", name.into(), bytes));
    }
    for (i, link) in [
        "#K7Q-2XM",
        "#watch/K7Q-2XM",
        "#!synctest%20--headless --frames 600",
        "#%20k7q2xm",
        "#",
    ]
    .iter()
    .enumerate()
    {
        out.push(("link", format!("{i:02}.txt"), link.as_bytes().to_vec()));
    }
    let ticket = Ticket {
        server: "ws://127.0.0.1:3536".into(),
        match_id: 0x0123_4567_89ab_cdef,
        player: 2,
        version: "0.1.0".into(),
        saved_at: 1_800_000_000,
        seat: Some("0123456789abcdef0123456789abcdef".into()),
    };
    out.push((
        "ticket",
        "player-2.json".into(),
        ticket.to_text().into_bytes(),
    ));
    out.push((
        "settings",
        "default.toml".into(),
        Settings::default().to_text().into_bytes(),
    ));
    out.push((
        "settings",
        "custom.toml".into(),
        b"server = \"ws://example.org:3536\"\ninput_delay = 3\nvolume = 40\nchat = false\n"
            .to_vec(),
    ));
    let mut custom = Settings {
        server: "ws://example.org:3536".into(),
        input_delay: DelaySetting::Table,
        volume: 70,
        ..Settings::default()
    };
    custom.player_one.fire = custom.player_two.fire;
    out.push((
        "settings",
        "full.toml".into(),
        custom.to_text().into_bytes(),
    ));
    // Refusals as our server and others send them (status, flags, body).
    for (name, status, flags, body) in [
        ("room-full.bin", 409u16, 0u8, &b"room K7Q2XM is full"[..]),
        ("spectators.bin", 409, 1, b"room K7Q2XM already has 8 spectators"),
        ("bad-seat.bin", 400, 1, b"invalid seat token: expected 32 hexadecimal digits"),
        ("too-many.bin", 429, 0, b"too many connections from your address"),
        ("no-body.bin", 503, 4, b""),
        ("restarting.bin", 200, 2, b"restarting"),
        ("nginx-502.bin", 502, 0, b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"),
    ] {
        let mut bytes = status.to_le_bytes().to_vec();
        bytes.push(flags);
        bytes.extend_from_slice(body);
        out.push(("socket_refusal", name.into(), bytes));
    }
    for (n, target) in STRUCTURED.iter().enumerate() {
        for (i, len) in [16usize, 64, 256, 1024].iter().enumerate() {
            out.push((
                target,
                format!("{i:02}.bin"),
                blob((n * 10 + i) as u64, *len),
            ));
        }
    }
    out
}
