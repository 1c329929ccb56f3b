use web_time::Duration;

use super::*;
use axum::http::StatusCode;
use tokio::sync::mpsc;
use twinstar_signaling_protocol::RoomCode;

type Inbox = mpsc::UnboundedReceiver<Result<Message, axum::Error>>;

fn peer(n: u128) -> PeerId {
    PeerId(uuid::Uuid::from_u128(n))
}

fn channel() -> (SignalingChannel, Inbox) {
    mpsc::unbounded_channel()
}

fn events(inbox: &mut Inbox) -> Vec<JsonPeerEvent> {
    let mut out = Vec::new();
    while let Ok(Ok(Message::Text(text))) = inbox.try_recv() {
        out.push(text.as_str().parse().unwrap());
    }
    out
}

/// Seats peer `n` in room `room`; returns its inbox.
fn seat(reg: &mut Registry, room: &str, n: u128, t: Instant) -> Inbox {
    let (tx, rx) = channel();
    reg.join(&code(room), peer(n), tx, t);
    rx
}

fn code(s: &str) -> RoomRequest {
    RoomRequest::Code(RoomCode::parse(s).unwrap())
}

fn name(s: &str) -> PlayerName {
    PlayerName::parse(s).unwrap()
}

fn version(s: &str) -> VersionTag {
    VersionTag::parse(s).unwrap()
}

fn listed(reg: &Registry, query: &RoomsQuery) -> Vec<(String, String, RoomStatus)> {
    reg.rooms(query)
        .rooms
        .into_iter()
        .map(|r| (r.code, r.host.to_string(), r.state))
        .collect()
}

#[test]
fn a_public_room_is_listed_while_it_has_a_player_and_a_private_one_never() {
    let mut reg = Registry::default();
    let t = Instant::now();
    let _host = seat(&mut reg, "K7Q2XM", 1, t);
    let _private = seat(&mut reg, "ABC234", 3, t);
    let all = RoomsQuery::default();
    assert!(reg.publish("K7Q2XM", peer(1), name("Ana"), version("6.3"), 100));
    assert_eq!(
        listed(&reg, &all),
        [("K7Q-2XM".into(), "Ana".into(), RoomStatus::Waiting)]
    );
    let _join = seat(&mut reg, "K7Q2XM", 2, t);
    assert_eq!(listed(&reg, &all)[0].2, RoomStatus::Playing);
    assert_eq!(reg.public_rooms(), 1);
    // The joiner cannot list the room under its name, nor anyone list
    // a room they are not alone in.
    assert!(!reg.publish("ABC234", peer(9), name("Bo"), version("6.3"), 100));
    let _second = seat(&mut reg, "ABC234", 4, t);
    assert!(!reg.publish("ABC234", peer(3), name("Cy"), version("6.3"), 100));
    assert_eq!(listed(&reg, &all).len(), 1, "private rooms never appear");
    // Once both have left, the room is gone from the list; a new host
    // there is not the old one.
    reg.leave(peer(1));
    assert_eq!(listed(&reg, &all).len(), 1, "a player is still in it");
    reg.leave(peer(2));
    assert!(listed(&reg, &all).is_empty());
    let _again = seat(&mut reg, "K7Q2XM", 5, t);
    assert!(
        listed(&reg, &all).is_empty(),
        "not listed unless asked again"
    );
}

#[test]
fn quick_match_rooms_are_never_listed() {
    let mut reg = Registry::default();
    let (tx, _rx) = channel();
    let key = reg
        .join(&RoomRequest::Quick, peer(1), tx, Instant::now())
        .unwrap();
    assert!(!reg.publish(&key, peer(1), name("Ana"), version("6.3"), 1));
    assert!(reg.rooms(&RoomsQuery::default()).rooms.is_empty());
}

#[test]
fn the_list_pages_newest_first_and_filters_by_version() {
    let mut reg = Registry::default();
    let t = Instant::now();
    let mut inboxes = Vec::new();
    for i in 0..250u128 {
        // Six symbols of the code alphabet, from i: distinct codes.
        let alphabet = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";
        let code: String = (0..6)
            .map(|d| alphabet[(i as usize / 31usize.pow(d)) % 31] as char)
            .collect();
        inboxes.push(seat(&mut reg, &code, 1000 + i, t));
        let v = if i % 5 == 0 { "6.2" } else { "6.3" };
        assert!(reg.publish(&code, peer(1000 + i), name("Ana"), version(v), i as u64));
    }
    let mut seen = Vec::new();
    let mut query = RoomsQuery::default();
    let mut pages = 0;
    loop {
        let page = reg.rooms(&query);
        pages += 1;
        assert!(page.rooms.len() <= twinstar_signaling_protocol::ROOMS_PAGE);
        seen.extend(page.rooms.iter().map(|r| r.created_s));
        match page.next {
            Some(next) => {
                query.cursor = RoomsQuery::parse(Some(&format!("cursor={next}")))
                    .unwrap()
                    .cursor
            }
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(
        seen,
        (0..250u64).rev().collect::<Vec<_>>(),
        "newest first, each once"
    );
    let older = RoomsQuery {
        version: Some(version("6.2")),
        cursor: None,
    };
    let page = reg.rooms(&older);
    assert_eq!(page.rooms.len(), 50);
    assert!(page.rooms.iter().all(|r| r.version.as_str() == "6.2"));
    assert_eq!(page.next, None);
}

#[test]
fn a_room_seats_two_and_refuses_the_third() {
    let mut reg = Registry::default();
    let t = Instant::now();
    let room = code("K7Q2XM");
    assert_eq!(reg.admit(&room, t), Ok(()));
    assert_eq!(reg.admit(&room, t), Ok(()));
    let refusal = reg.admit(&room, t).unwrap_err();
    assert_eq!(refusal.to_string(), "room K7Q-2XM is full");
    assert_eq!(
        crate::http::reply::refusal_status(&refusal),
        StatusCode::CONFLICT
    );

    let (a_tx, mut a_rx) = channel();
    let (b_tx, mut b_rx) = channel();
    assert_eq!(reg.join(&room, peer(1), a_tx, t).as_deref(), Some("K7Q2XM"));
    assert_eq!(reg.join(&room, peer(2), b_tx, t).as_deref(), Some("K7Q2XM"));
    // The first member is told about the second; the second about no one.
    assert_eq!(events(&mut a_rx), vec![JsonPeerEvent::NewPeer(peer(2))]);
    assert!(events(&mut b_rx).is_empty());
    assert!(reg.admit(&room, t).is_err(), "seated members fill the room");

    // When one leaves, the other hears it and the seat frees up.
    reg.leave(peer(1));
    assert_eq!(events(&mut b_rx), vec![JsonPeerEvent::PeerLeft(peer(1))]);
    assert_eq!(reg.admit(&room, t), Ok(()));
    reg.leave(peer(2));
    let (c_tx, _c_rx) = channel();
    reg.join(&room, peer(3), c_tx, t);
    reg.leave(peer(3));
    assert_eq!(reg.room_count(), 0, "empty rooms are forgotten");
    assert!(reg.is_empty());
}

/// Seats peer `n` in `room` with a seat token; returns its inbox.
fn seat_with(reg: &mut Registry, room: &str, token: SeatToken, n: u128, t: Instant) -> Inbox {
    let (tx, rx) = channel();
    assert_eq!(reg.admit_with(&code(room), Some(token), t), Ok(()));
    assert!(
        reg.join_with(&code(room), Some(token), peer(n), tx, t)
            .is_some()
    );
    rx
}

fn closed(inbox: &mut Inbox) -> Option<u16> {
    while let Ok(Ok(message)) = inbox.try_recv() {
        if let Message::Close(frame) = message {
            return frame.map(|f| f.code);
        }
    }
    None
}

#[test]
fn a_seat_token_takes_its_seat_back_from_a_stale_connection_at_once() {
    let mut reg = Registry::default();
    let t = Instant::now();
    let (host_token, join_token) = (SeatToken::random(), SeatToken::random());
    let mut host = seat_with(&mut reg, "K7Q2XM", host_token, 1, t);
    let mut stale = seat_with(&mut reg, "K7Q2XM", join_token, 2, t);
    let mut spectator = {
        let (tx, rx) = channel();
        reg.admit(&watch("K7Q2XM"), t).unwrap();
        reg.join(&watch("K7Q2XM"), peer(9), tx, t);
        rx
    };
    assert_eq!(
        events(&mut host),
        [
            JsonPeerEvent::NewPeer(peer(2)),
            JsonPeerEvent::NewPeer(peer(9))
        ]
    );
    assert!(reg.admit(&code("K7Q2XM"), t).is_err(), "the room is full");

    // The joiner's new connection takes its seat back: the stale one is
    // closed, the host meets the new one, the room stays two.
    assert!(reg.takes_back(&code("K7Q2XM"), Some(join_token)));
    let mut fresh = seat_with(&mut reg, "K7Q2XM", join_token, 3, t);
    assert_eq!(closed(&mut stale), Some(CLOSE_REPLACED));
    assert_eq!(
        events(&mut host),
        [
            JsonPeerEvent::PeerLeft(peer(2)),
            JsonPeerEvent::NewPeer(peer(3))
        ]
    );
    assert!(events(&mut fresh).is_empty());
    assert!(
        events(&mut spectator).is_empty(),
        "its player is still there"
    );
    assert_eq!(reg.members("K7Q2XM"), 2);
    // The stale connection's task leaves later and finds nothing.
    assert_eq!(reg.leave(peer(2)), None);
    assert_eq!(reg.members("K7Q2XM"), 2);
    assert!(
        reg.relay(peer(1), peer(3), serde_json::json!("offer"))
            .is_ok()
    );
    assert_eq!(events(&mut fresh).len(), 1, "the host's signal reached it");

    // The host takes its seat back too, and stays first: spectators
    // are introduced to the new connection.
    let mut host2 = seat_with(&mut reg, "K7Q2XM", host_token, 4, t);
    assert_eq!(closed(&mut host), Some(CLOSE_REPLACED));
    assert_eq!(
        events(&mut fresh),
        [
            JsonPeerEvent::PeerLeft(peer(1)),
            JsonPeerEvent::NewPeer(peer(4))
        ]
    );
    assert_eq!(events(&mut spectator), [JsonPeerEvent::PeerLeft(peer(1))]);
    assert_eq!(events(&mut host2), [JsonPeerEvent::NewPeer(peer(9))]);
    assert!(
        reg.relay(peer(4), peer(9), serde_json::json!("offer"))
            .is_ok()
    );
}

#[test]
fn a_token_that_holds_no_seat_in_the_room_takes_nothing() {
    let mut reg = Registry::default();
    let t = Instant::now();
    let (a, b) = (SeatToken::random(), SeatToken::random());
    let _host = seat_with(&mut reg, "K7Q2XM", a, 1, t);
    let _join = seat_with(&mut reg, "K7Q2XM", b, 2, t);
    let _other = seat_with(&mut reg, "ABC234", SeatToken::random(), 3, t);
    // A guessed token, and the other room's.
    let guessed = SeatToken::random();
    for token in [None, Some(guessed), reg.peers[&peer(3)].token] {
        assert!(!reg.takes_back(&code("K7Q2XM"), token));
        let refusal = reg.admit_with(&code("K7Q2XM"), token, t).unwrap_err();
        assert_eq!(
            refusal,
            Refusal::RoomFull(RoomCode::parse("K7Q2XM").unwrap())
        );
    }
    // A token whose seat was given up is stale.
    reg.leave(peer(2));
    assert!(!reg.takes_back(&code("K7Q2XM"), Some(b)));
    // A spectator cannot take a player's seat with its token.
    assert!(!reg.takes_back(&watch("K7Q2XM"), Some(a)));
    assert_eq!(reg.members("K7Q2XM"), 1);
}

#[test]
fn counts_and_lonely_players_for_metrics_and_draining() {
    let mut reg = Registry::default();
    let t = Instant::now();
    let _a = seat(&mut reg, "K7Q2XM", 1, t);
    let _b = seat(&mut reg, "K7Q2XM", 2, t);
    let mut c = seat(&mut reg, "XXXXXXX", 3, t);
    let (s_tx, _s_rx) = channel();
    reg.join(&watch("K7Q2XM"), peer(9), s_tx, t);
    assert_eq!(
        reg.counts(),
        RoomCounts {
            waiting: 1,
            full: 1,
            spectators: 1,
            public: 0,
        }
    );
    let alone = reg.waiting_alone();
    assert_eq!(alone.len(), 1, "only the player without a partner");
    try_send(&alone[0], Message::Text("bye".into())).unwrap();
    assert!(matches!(c.try_recv(), Ok(Ok(Message::Text(t))) if t.as_str() == "bye"));
    for n in [1, 2, 3, 9] {
        reg.leave(peer(n));
    }
    assert!(reg.is_empty());
    assert_eq!(reg.counts(), RoomCounts::default());
}

fn watch(s: &str) -> RoomRequest {
    RoomRequest::Watch(RoomCode::parse(s).unwrap())
}

#[test]
fn spectators_meet_only_the_first_player_once_both_are_in() {
    let mut reg = Registry::default();
    let t = Instant::now();
    let (room, watching) = (code("K7Q2XM"), watch("K7Q2XM"));
    // A spectator early: admitted, seated, introduced to no one yet.
    assert_eq!(reg.admit(&watching, t), Ok(()));
    let (s1_tx, mut s1_rx) = channel();
    assert_eq!(
        reg.join(&watching, peer(10), s1_tx, t).as_deref(),
        Some("K7Q2XM")
    );
    let mut a_rx = seat(&mut reg, "K7Q2XM", 1, t);
    assert!(events(&mut a_rx).is_empty(), "one player: nobody to stream");
    assert_eq!(reg.members("K7Q2XM"), 1);
    let mut b_rx = seat(&mut reg, "K7Q2XM", 2, t);
    // The second player arrives: the first hears of it, then of the
    // waiting spectator; the second player hears of no one.
    assert_eq!(
        events(&mut a_rx),
        vec![
            JsonPeerEvent::NewPeer(peer(2)),
            JsonPeerEvent::NewPeer(peer(10))
        ]
    );
    assert!(events(&mut b_rx).is_empty());
    // A later spectator is introduced at once, to the first player only.
    let (s2_tx, mut s2_rx) = channel();
    reg.admit(&watching, t).unwrap();
    reg.join(&watching, peer(11), s2_tx, t);
    assert_eq!(events(&mut a_rx), vec![JsonPeerEvent::NewPeer(peer(11))]);
    assert!(events(&mut b_rx).is_empty());
    assert!(events(&mut s1_rx).is_empty() && events(&mut s2_rx).is_empty());
    // Spectators do not take player seats.
    assert_eq!(reg.spectators("K7Q2XM"), 2);
    assert!(matches!(reg.admit(&room, t), Err(Refusal::RoomFull(_))));

    // Signals pass between a spectator and its player only.
    let data = serde_json::json!({"Answer": "sdp"});
    assert_eq!(reg.relay(peer(10), peer(1), data.clone()), Ok(()));
    assert_eq!(reg.relay(peer(1), peer(11), data.clone()), Ok(()));
    assert_eq!(
        reg.relay(peer(10), peer(2), data.clone()),
        Err(RelayError::NotIntroduced(peer(2)))
    );
    assert_eq!(
        reg.relay(peer(2), peer(10), data.clone()),
        Err(RelayError::NotIntroduced(peer(10)))
    );
    assert_eq!(
        reg.relay(peer(10), peer(11), data.clone()),
        Err(RelayError::NotIntroduced(peer(11)))
    );
    events(&mut a_rx);
    events(&mut s2_rx);

    // A spectator leaving is told to its player alone.
    reg.leave(peer(11));
    assert_eq!(events(&mut a_rx), vec![JsonPeerEvent::PeerLeft(peer(11))]);
    assert!(events(&mut b_rx).is_empty());
    // The streaming player leaving is told to its spectators.
    reg.leave(peer(1));
    assert_eq!(events(&mut b_rx), vec![JsonPeerEvent::PeerLeft(peer(1))]);
    assert_eq!(events(&mut s1_rx), vec![JsonPeerEvent::PeerLeft(peer(1))]);
    // A player back in the room: the spectator meets the new first one.
    let mut c_rx = seat(&mut reg, "K7Q2XM", 3, t);
    assert!(events(&mut c_rx).is_empty());
    assert_eq!(
        events(&mut b_rx),
        vec![
            JsonPeerEvent::NewPeer(peer(3)),
            JsonPeerEvent::NewPeer(peer(10))
        ]
    );
    for p in [2, 3, 10] {
        reg.leave(peer(p));
    }
    assert_eq!(reg.room_count(), 0, "empty rooms are forgotten");
}

#[test]
fn a_room_takes_eight_spectators_and_refuses_the_ninth() {
    let mut reg = Registry::default();
    let t = Instant::now();
    let watching = watch("ABCDEF");
    let mut inboxes = Vec::new();
    for n in 0..MAX_SPECTATORS as u128 {
        assert_eq!(reg.admit(&watching, t), Ok(()), "spectator {n}");
        let (tx, rx) = channel();
        inboxes.push(rx);
        reg.join(&watching, peer(100 + n), tx, t);
    }
    let refusal = reg.admit(&watching, t).unwrap_err();
    assert_eq!(refusal.to_string(), "room ABC-DEF already has 8 spectators");
    assert_eq!(
        crate::http::reply::refusal_status(&refusal),
        StatusCode::CONFLICT
    );
    // Players still get in, and the first hears of all eight.
    let mut a_rx = seat(&mut reg, "ABCDEF", 1, t);
    let _b_rx = seat(&mut reg, "ABCDEF", 2, t);
    assert_eq!(events(&mut a_rx).len(), 1 + MAX_SPECTATORS);
    // One leaves: a seat for the next; admissions reserve their seat.
    reg.leave(peer(100));
    assert_eq!(reg.admit(&watching, t), Ok(()));
    assert!(reg.admit(&watching, t).is_err());
    // Reservations that never upgrade expire.
    assert_eq!(reg.admit(&watching, t + RESERVATION_TTL), Ok(()));
}

#[test]
fn stale_reservations_expire() {
    let mut reg = Registry::default();
    let t = Instant::now();
    let room = code("ABCDEF");
    reg.admit(&room, t).unwrap();
    reg.admit(&room, t).unwrap();
    assert!(reg.admit(&room, t + Duration::from_secs(1)).is_err());
    // Neither upgrade completed: after the TTL the seats are free again.
    assert!(reg.admit(&room, t + RESERVATION_TTL).is_ok());
}

#[test]
fn signals_never_cross_rooms() {
    let mut reg = Registry::default();
    let t = Instant::now();
    let mut a_rx = seat(&mut reg, "AAAAAA", 1, t);
    let mut b_rx = seat(&mut reg, "AAAAAA", 2, t);
    let mut c_rx = seat(&mut reg, "BBBBBB", 3, t);
    let data = serde_json::json!({"Offer": "sdp"});
    assert!(reg.relay(peer(3), peer(1), data.clone()).is_err());
    assert!(reg.relay(peer(1), peer(3), data.clone()).is_err());
    assert!(reg.relay(peer(9), peer(1), data.clone()).is_err());
    assert!(events(&mut c_rx).is_empty());
    events(&mut a_rx);
    reg.relay(peer(2), peer(1), data.clone()).unwrap();
    assert_eq!(
        events(&mut a_rx),
        vec![JsonPeerEvent::Signal {
            sender: peer(2),
            data
        }]
    );
    assert!(events(&mut b_rx).is_empty());
}

#[test]
fn oversized_signals_and_floods_are_not_relayed() {
    let mut reg = Registry::default();
    let t = Instant::now();
    let mut a_rx = seat(&mut reg, "AAAAAA", 1, t);
    let mut b_rx = seat(&mut reg, "AAAAAA", 2, t);
    let big = serde_json::json!("x".repeat(MAX_SIGNAL_BYTES));
    assert!(matches!(
        reg.relay(peer(1), peer(2), big),
        Err(RelayError::TooLarge(_))
    ));
    assert!(events(&mut b_rx).is_empty());
    // 32 KiB signals (plus a small envelope) until the budget is spent.
    let chunk = serde_json::json!("y".repeat(MAX_SIGNAL_BYTES / 2));
    let mut relayed = 0;
    while reg.relay(peer(1), peer(2), chunk.clone()).is_ok() {
        relayed += 1;
        assert!(relayed < 100, "no budget");
    }
    assert_eq!(relayed, RELAY_BUDGET_BYTES / (MAX_SIGNAL_BYTES / 2) - 1);
    assert_eq!(
        reg.relay(peer(1), peer(2), chunk),
        Err(RelayError::BudgetExhausted)
    );
    assert_eq!(events(&mut b_rx).len(), relayed);
    // The other direction has its own budget.
    events(&mut a_rx);
    let answer = serde_json::json!({"Answer": "sdp"});
    assert_eq!(reg.relay(peer(2), peer(1), answer.clone()), Ok(()));
    assert_eq!(
        events(&mut a_rx),
        vec![JsonPeerEvent::Signal {
            sender: peer(2),
            data: answer
        }]
    );
}

#[test]
fn quick_match_pairs_clients_in_arrival_order() {
    let mut reg = Registry::default();
    let t = Instant::now();
    let quick = RoomRequest::Quick;
    let mut inboxes = Vec::new();
    let mut keys = Vec::new();
    for n in 1..=5 {
        assert_eq!(reg.admit(&quick, t), Ok(()));
        let (tx, rx) = channel();
        inboxes.push(rx);
        keys.push(reg.join(&quick, peer(n), tx, t).unwrap());
    }
    assert_eq!(keys[0], keys[1]);
    assert_eq!(keys[2], keys[3]);
    assert_ne!(keys[1], keys[2]);
    assert_ne!(keys[3], keys[4]);
    assert_eq!(reg.members(&keys[4]), 1);
    assert_eq!(
        events(&mut inboxes[2]),
        vec![JsonPeerEvent::NewPeer(peer(4))]
    );

    // The waiting one gives up: the next quick client starts afresh
    // instead of landing in a dead room.
    reg.leave(peer(5));
    let (tx, _rx) = channel();
    let key = reg.join(&quick, peer(6), tx, t).unwrap();
    assert_ne!(key, keys[4]);
    assert_eq!(reg.members(&key), 1);
}

/// A quick-match client with its ticket; its inbox.
fn quick(reg: &mut Registry, n: u128, level: u32, v: &str, rtt: u32, t: Instant) -> Inbox {
    let (tx, rx) = channel();
    let ticket = QuickTicket {
        version: Some(version(v)),
        level,
        rtt_ms: rtt,
        challenge: None,
    };
    reg.join_quick(peer(n), tx, ticket, t);
    rx
}

/// Who `n` was paired with, if anyone (the other member of its room).
fn partner_of(reg: &Registry, n: u128) -> Option<u128> {
    let key = &reg.peers.get(&peer(n))?.room;
    reg.rooms[key]
        .members
        .iter()
        .find(|m| **m != peer(n))
        .map(|m| m.0.as_u128())
}

#[test]
fn quick_match_prefers_close_levels_and_widens_with_the_wait() {
    let mut reg = Registry::default();
    let t = Instant::now();
    let _a = quick(&mut reg, 1, 1, "6.3", 0, t);
    let _b = quick(&mut reg, 2, 40, "6.3", 0, t);
    assert_eq!(
        reg.quick_waiting(),
        2,
        "levels 1 and 40 do not pair at once"
    );
    assert_eq!(
        reg.match_quick(t + Duration::from_secs(3)),
        0,
        "nor after 3 s"
    );
    let _c = quick(&mut reg, 3, 42, "6.3", 0, t + Duration::from_secs(4));
    assert_eq!(partner_of(&reg, 2), Some(3), "40 and 42 are close enough");
    assert_eq!(partner_of(&reg, 1), None);
    let _d = quick(&mut reg, 4, 90, "6.3", 0, t + Duration::from_secs(5));
    assert_eq!(reg.match_quick(t + Duration::from_millis(9_900)), 0);
    // Within 10 s, anyone of the same version.
    assert_eq!(reg.match_quick(t + QUICK_ANYONE_AFTER), 1);
    assert_eq!(partner_of(&reg, 1), Some(4));
    assert_eq!(reg.quick_waiting(), 0);
}

#[test]
fn quick_match_pairs_a_challenge_only_with_the_same_challenge() {
    let mut reg = Registry::default();
    let t = Instant::now();
    let join = |reg: &mut Registry, n: u128, challenge: Option<&str>| {
        let (tx, rx) = channel();
        let ticket = QuickTicket {
            version: Some(version("6.3")),
            challenge: challenge.map(version),
            ..QuickTicket::default()
        };
        reg.join_quick(peer(n), tx, ticket, t);
        rx
    };
    let _a = join(&mut reg, 1, Some("daily-2026-11-28"));
    let _b = join(&mut reg, 2, None);
    let _c = join(&mut reg, 3, Some("daily-2026-11-27"));
    // Long past the wait after which levels no longer matter.
    assert_eq!(reg.match_quick(t + QUICK_ANYONE_AFTER * 2), 0);
    assert_eq!(reg.quick_waiting(), 3);
    let _d = join(&mut reg, 4, Some("daily-2026-11-28"));
    assert_eq!(
        partner_of(&reg, 1),
        Some(4),
        "the same day's challenge pairs"
    );
    let _e = join(&mut reg, 5, None);
    assert_eq!(partner_of(&reg, 2), Some(5), "no challenge pairs with none");
    assert_eq!(partner_of(&reg, 3), None);
}

#[test]
fn quick_match_never_pairs_two_versions() {
    let mut reg = Registry::default();
    let t = Instant::now();
    let _a = quick(&mut reg, 1, 5, "6.3", 0, t);
    let _b = quick(&mut reg, 2, 5, "6.2", 0, t);
    let (tx, _old) = channel();
    reg.join(&RoomRequest::Quick, peer(3), tx, t);
    assert_eq!(reg.match_quick(t + Duration::from_secs(3600)), 0);
    assert_eq!(reg.quick_waiting(), 3);
    let _c = quick(&mut reg, 4, 90, "6.2", 0, t + Duration::from_secs(3600));
    assert_eq!(partner_of(&reg, 2), Some(4), "a long wait pairs any level");
    let (tx, _older) = channel();
    reg.join(&RoomRequest::Quick, peer(5), tx, t);
    assert_eq!(
        partner_of(&reg, 3),
        Some(5),
        "clients without a version pair together"
    );
}

#[test]
fn among_equally_close_levels_the_shortest_round_trips_pair() {
    let mut reg = Registry::default();
    let t = Instant::now();
    // Three at once, none close enough to pair yet (gaps 3, 3 and 6).
    let _b = quick(&mut reg, 1, 10, "6.3", 50, t);
    let _c = quick(&mut reg, 2, 13, "6.3", 300, t);
    let _a = quick(&mut reg, 3, 7, "6.3", 10, t);
    assert_eq!(reg.quick_waiting(), 3);
    // A second later a gap of 3 is allowed: the oldest, level 10, has
    // two partners 3 away and takes the one nearer the server.
    assert_eq!(reg.match_quick(t + Duration::from_secs(1)), 1);
    assert_eq!(partner_of(&reg, 1), Some(3));
    assert_eq!(partner_of(&reg, 2), None);
    // A client that leaves while waiting is forgotten.
    reg.leave(peer(2));
    assert_eq!(reg.quick_waiting(), 0);
}

#[test]
fn pairings_and_answers_are_observed_whoever_pairs_the_room() {
    let mut reg = Registry::default();
    let t = Instant::now();
    let secs = Duration::from_secs;
    let _a = seat(&mut reg, "K7Q2XM", 1, t);
    assert_eq!(reg.take_observed(), vec![]);
    let _b = seat(&mut reg, "K7Q2XM", 2, t + secs(3));
    let paired = Observed::Paired {
        waited: Some(secs(3)),
    };
    assert_eq!(reg.take_observed(), vec![paired]);
    reg.answered(peer(2), peer(1), t + Duration::from_millis(3_400));
    let took = Duration::from_millis(400);
    assert_eq!(reg.take_observed(), vec![Observed::Negotiated { took }]);
    // A quick match paired by the server's timer, not on arrival.
    let _c = quick(&mut reg, 3, 1, "6.3", 0, t);
    let _d = quick(&mut reg, 4, 40, "6.3", 0, t + secs(1));
    assert_eq!(reg.take_observed(), vec![]);
    assert_eq!(reg.match_quick(t + QUICK_ANYONE_AFTER), 1);
    let waited = Some(QUICK_ANYONE_AFTER);
    assert_eq!(reg.take_observed(), vec![Observed::Paired { waited }]);
    // A spectator's answer is not the players' negotiation.
    let (tx, _e) = channel();
    reg.admit(&watch("K7Q2XM"), t).unwrap();
    reg.join(&watch("K7Q2XM"), peer(5), tx, t);
    reg.answered(peer(5), peer(1), t + secs(5));
    assert_eq!(reg.take_observed(), vec![]);
}

#[test]
fn paired_rooms_are_remembered_as_hosted_matches_until_they_close() {
    let mut reg = Registry::default();
    let t = Instant::now();
    let secs = Duration::from_secs;
    let _a = seat(&mut reg, "K7Q2XM", 1, t);
    let id = |n: u128| peer(n).to_string();
    assert_eq!(
        reg.hosted_match(Some("K7Q2XM"), &[id(1)]),
        None,
        "not paired yet"
    );
    let _b = seat(&mut reg, "K7Q2XM", 2, t + secs(2));
    let hosted = reg.hosted_match(Some("K7Q2XM"), &[id(2), id(1)]).unwrap();
    assert_eq!(
        (hosted.room.as_str(), hosted.opened),
        ("K7Q2XM", t + secs(2))
    );
    assert_eq!(hosted.lifetime(t + secs(62)), secs(60), "open: until now");
    // Another room's code, a peer that was not in it, or no peer: none.
    assert_eq!(reg.hosted_match(Some("ABCDEF"), &[id(1)]), None);
    assert_eq!(reg.hosted_match(Some("K7Q2XM"), &[id(1), id(9)]), None);
    assert_eq!(reg.hosted_match(Some("K7Q2XM"), &[]), None);
    assert_eq!(
        reg.hosted_match(None, &[id(1)]),
        None,
        "a coded room needs its code"
    );
    // A player leaving closes it: its lifetime stops growing.
    reg.leave_at(peer(2), t + secs(32));
    let closed = reg.hosted_match(Some("K7Q2XM"), &[id(1)]).unwrap();
    assert_eq!(closed.lifetime(t + secs(999)), secs(30));
    // A quick match is named by its peers alone.
    let _c = quick(&mut reg, 3, 1, "6.3", 0, t);
    let _d = quick(&mut reg, 4, 1, "6.3", 0, t);
    let q = reg.hosted_match(None, &[id(3)]).unwrap();
    assert!(q.room.starts_with("quick-") && q.id != closed.id);
    assert_eq!(reg.hosted_count(), 2);
}
