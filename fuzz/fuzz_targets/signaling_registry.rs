//! The signaling server's rooms under hostile clients: `RoomRequest::from_path`
//! on each upgrade's path and `SeatToken::from_query` on its query,
//! `Registry::admit_with`/`join_with`/`leave`, and every websocket text
//! through matchbox's `parse_request` (what the room task calls on each
//! message) and `Registry::relay`, as `server.rs` does. The registry must
//! never seat a third player or a ninth spectator, relay between rooms,
//! leave a replaced connection seated, let one token hold two seats of a
//! room, or panic.
#![no_main]

use std::time::{Duration, Instant};

use arbitrary::{Arbitrary, Unstructured};
use axum::extract::ws::Message;
use libfuzzer_sys::fuzz_target;
use matchbox_protocol::{JsonPeerEvent, PeerId, PeerRequest};
use matchbox_signaling::common_logic::parse_request;
use tokio::sync::mpsc;
use twinstar_signaling_protocol::{MAX_SIGNAL_BYTES, MAX_SPECTATORS, RoomRequest, SeatToken};
use twinstar_signaling::Registry;

type Inbox = mpsc::UnboundedReceiver<Result<Message, axum::Error>>;

const PEERS: u128 = 12;
const PATHS: [&str; 6] = [
    "K7Q2XM",
    "k7q-2xm",
    "watch-K7Q2XM",
    "quick",
    "ABCDEF",
    "watch-abcdef",
];

/// A few tokens, so that clients present each other's and take seats back.
const TOKENS: [&str; 3] = [
    "0123456789abcdef0123456789abcdef",
    "ffffffffffffffffffffffffffffffff",
    "00000000000000000000000000000001",
];

fn peer(n: u128) -> PeerId {
    PeerId(uuid::Uuid::from_u128(n))
}

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});

fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let mut registry = Registry::default();
    let mut now = Instant::now();
    // Per peer once seated: its room key, its inbox and the token its seat
    // holds (players in a room by code only).
    let mut seats: Vec<Option<(String, Inbox, Option<SeatToken>)>> =
        (0..PEERS).map(|_| None).collect();
    for _ in 0..u.int_in_range(0..=48)? {
        now += Duration::from_millis(u.int_in_range(0..=12_000)?);
        let n = u.int_in_range(0..=PEERS - 1)?;
        match u.int_in_range(0..=4)? {
            0 => {
                // An upgrade: admission, then the room task's join.
                let path = if u.arbitrary()? {
                    u.choose(&PATHS)?.to_string()
                } else {
                    String::arbitrary(u)?
                };
                let Ok(request) = RoomRequest::from_path(Some(&path)) else {
                    continue;
                };
                // No token, one of a few shared ones, or the URL's query.
                let token = match u.int_in_range(0..=3)? {
                    0 => None,
                    1 => match SeatToken::from_query(Some(&String::arbitrary(u)?)) {
                        Ok(token) => token,
                        Err(_) => continue, // 400, as the server answers
                    },
                    _ => Some(SeatToken::parse(u.choose(&TOKENS)?).expect("a token")),
                };
                if seats[n as usize].is_some() || registry.admit_with(&request, token, now).is_err()
                {
                    continue;
                }
                let (tx, rx) = mpsc::unbounded_channel();
                if let Some(key) = registry.join_with(&request, token, peer(n), tx, now) {
                    let held = token.filter(|_| matches!(request, RoomRequest::Code(_)));
                    seats[n as usize] = Some((key, rx, held));
                }
            }
            1 => {
                if seats[n as usize].take().is_some() {
                    assert!(registry.leave(peer(n)).is_some());
                }
            }
            kind => {
                // A websocket text: a raw one, or a well-formed signal.
                let text = if kind == 2 {
                    String::arbitrary(u)?
                } else {
                    let receiver = peer(u.int_in_range(0..=PEERS - 1)?);
                    let data = match u.int_in_range(0..=2)? {
                        0 => serde_json::Value::String(String::arbitrary(u)?),
                        1 => serde_json::Value::String("x".repeat(u.int_in_range(0..=70_000)?)),
                        _ => serde_json::from_str(&String::arbitrary(u)?)
                            .unwrap_or(serde_json::Value::Null),
                    };
                    serde_json::to_string(&PeerRequest::Signal { receiver, data })
                        .expect("a signal serialises")
                };
                let Ok(request) = parse_request(Ok(Message::Text(text.into()))) else {
                    continue;
                };
                if let PeerRequest::Signal { receiver, data } = request
                    && seats[n as usize].is_some()
                {
                    let relayed = registry.relay(peer(n), receiver, data);
                    if relayed.is_ok() {
                        let to = receiver.0.as_u128() as usize;
                        let (from_room, to_room) = (&seats[n as usize], &seats[to]);
                        let same = matches!((from_room, to_room),
                            (Some((a, ..)), Some((b, ..))) if a == b);
                        assert!(same, "relayed across rooms");
                    }
                }
            }
        }
        // What a client is sent is always a peer event it can read, and
        // never more than the signal limit, or the close of a connection
        // whose seat was taken back: the registry has forgotten it.
        let mut replaced = Vec::new();
        for (i, seat) in seats.iter_mut().enumerate() {
            let Some((_, inbox, _)) = seat else { continue };
            while let Ok(message) = inbox.try_recv() {
                match message {
                    Ok(Message::Text(text)) => {
                        assert!(text.len() <= MAX_SIGNAL_BYTES);
                        assert!(text.as_str().parse::<JsonPeerEvent>().is_ok());
                    }
                    Ok(Message::Close(_)) => replaced.push(i),
                    other => panic!("a client was sent {other:?}"),
                }
            }
        }
        for i in replaced {
            seats[i] = None;
            assert!(
                registry.leave(peer(i as u128)).is_none(),
                "a replaced connection is still seated"
            );
        }
        for key in seats.iter().flatten().map(|(key, ..)| key.clone()) {
            assert!(registry.members(&key) <= 2);
            assert!(registry.spectators(&key) <= MAX_SPECTATORS);
        }
        let mut held: Vec<_> = (seats.iter().flatten())
            .filter_map(|(key, _, token)| Some((key.clone(), (*token)?)))
            .map(|(key, token)| format!("{key}/{token}"))
            .collect();
        let count = held.len();
        held.sort();
        held.dedup();
        assert_eq!(held.len(), count, "one token holds two seats of a room");
    }
    Ok(())
}
