//! The signaling server's rooms under hostile clients: `RoomRequest::from_path`
//! on each upgrade's path, `Registry::admit`/`join`/`leave`, and every
//! websocket text through matchbox's `parse_request` (what the room task
//! calls on each message) and `Registry::relay`, as `server.rs` does. The
//! registry must never seat a third player or a ninth spectator, relay
//! between rooms, or panic.
#![no_main]

use std::time::{Duration, Instant};

use arbitrary::{Arbitrary, Unstructured};
use axum::extract::ws::Message;
use libfuzzer_sys::fuzz_target;
use matchbox_protocol::{JsonPeerEvent, PeerId, PeerRequest};
use matchbox_signaling::common_logic::parse_request;
use tokio::sync::mpsc;
use twinstar::net::signaling::{MAX_SIGNAL_BYTES, MAX_SPECTATORS, Registry, RoomRequest};

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

fn peer(n: u128) -> PeerId {
    PeerId(uuid::Uuid::from_u128(n))
}

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});

fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let mut registry = Registry::default();
    let mut now = Instant::now();
    // Per peer: its room key and inbox once seated.
    let mut seats: Vec<Option<(String, Inbox)>> = (0..PEERS).map(|_| None).collect();
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
                if seats[n as usize].is_some() || registry.admit(&request, now).is_err() {
                    continue;
                }
                let (tx, rx) = mpsc::unbounded_channel();
                if let Some(key) = registry.join(&request, peer(n), tx, now) {
                    seats[n as usize] = Some((key, rx));
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
                            (Some((a, _)), Some((b, _))) if a == b);
                        assert!(same, "relayed across rooms");
                    }
                }
            }
        }
        for key in seats.iter().flatten().map(|(key, _)| key.clone()) {
            assert!(registry.members(&key) <= 2);
            assert!(registry.spectators(&key) <= MAX_SPECTATORS);
        }
        // What a client is sent is always a peer event it can read, and
        // never more than the signal limit.
        for (_, inbox) in seats.iter_mut().flatten() {
            while let Ok(Ok(Message::Text(text))) = inbox.try_recv() {
                assert!(text.len() <= MAX_SIGNAL_BYTES);
                assert!(text.as_str().parse::<JsonPeerEvent>().is_ok());
            }
        }
    }
    Ok(())
}
