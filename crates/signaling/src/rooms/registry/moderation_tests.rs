use tokio::sync::mpsc;

use super::*;
use twinstar_signaling_protocol::{PlayerName, RoomStatus, RoomsQuery, VersionTag};

type Outbox = mpsc::UnboundedReceiver<Result<axum::extract::ws::Message, axum::Error>>;

fn code() -> RoomCode {
    RoomCode::parse("K7Q-2XM").unwrap()
}

fn peer() -> PeerId {
    PeerId(uuid::Uuid::new_v4())
}

/// Seats a client of `request` with `token`; returns its id and outbox.
fn seat(
    registry: &mut Registry,
    request: &RoomRequest,
    token: SeatToken,
    address: &str,
    now: Instant,
) -> (PeerId, Outbox) {
    let (sender, outbox) = mpsc::unbounded_channel();
    let id = peer();
    registry.admit_with(request, Some(token), now).unwrap();
    registry
        .join_with(request, Some(token), id, sender, now)
        .unwrap();
    registry.set_address(id, address.parse().unwrap());
    (id, outbox)
}

/// A public room of two players and one spectator.
struct Room {
    registry: Registry,
    host: SeatToken,
    joiner: SeatToken,
    viewer: SeatToken,
    viewer_id: PeerId,
    viewer_outbox: Outbox,
    _outboxes: Vec<Outbox>,
    t0: Instant,
}

fn room() -> Room {
    let t0 = Instant::now();
    let mut registry = Registry::default();
    let [host, joiner, viewer] = [(); 3].map(|_| SeatToken::random());
    let play = RoomRequest::Code(code());
    let (host_id, a) = seat(&mut registry, &play, host, "192.0.2.1", t0);
    let name = PlayerName::parse("Ana").unwrap();
    let version = VersionTag::parse("7.3").unwrap();
    assert!(registry.publish(code().canonical(), host_id, name, version, 1));
    let (_, b) = seat(&mut registry, &play, joiner, "192.0.2.2", t0);
    let watch = RoomRequest::Watch(code());
    let (viewer_id, viewer_outbox) = seat(&mut registry, &watch, viewer, "198.51.100.7", t0);
    Room {
        registry,
        host,
        joiner,
        viewer,
        viewer_id,
        viewer_outbox,
        _outboxes: vec![a, b],
        t0,
    }
}

fn listing(registry: &Registry) -> twinstar_signaling_protocol::RoomListing {
    let page = registry.rooms(&RoomsQuery::default());
    assert_eq!(page.rooms.len(), 1);
    page.rooms[0].clone()
}

#[test]
fn the_host_alone_lists_figures_at_most_once_a_second() {
    let Room {
        mut registry,
        host,
        joiner,
        t0,
        ..
    } = room();
    let listed = listing(&registry);
    assert_eq!(listed.state, RoomStatus::Playing);
    assert_eq!((listed.wave, listed.spectators), (None, Some(1)));
    let figures = (3, 450, 61);
    assert_eq!(
        registry.host_figures(&code(), joiner, figures, t0),
        Err(ModerationError::NotHost(code()))
    );
    assert_eq!(
        registry.host_figures(&code(), SeatToken::random(), figures, t0),
        Err(ModerationError::NotSeated(code()))
    );
    registry.host_figures(&code(), host, figures, t0).unwrap();
    let listed = listing(&registry);
    assert_eq!(
        (listed.wave, listed.score, listed.elapsed_s),
        (Some(3), Some(450), Some(61))
    );
    let soon = t0 + Duration::from_millis(500);
    assert_eq!(
        registry.host_figures(&code(), host, (4, 0, 0), soon),
        Err(ModerationError::TooSoon(900))
    );
    let later = t0 + Duration::from_secs(1);
    registry
        .host_figures(&code(), host, (4, 500, 62), later)
        .unwrap();
    assert_eq!(listing(&registry).wave, Some(4));
    let other = RoomCode::parse("ABC-DEF").unwrap();
    assert_eq!(
        registry.host_figures(&other, host, figures, later),
        Err(ModerationError::NoRoom(other))
    );
}

#[test]
fn a_private_room_has_no_listing_to_update() {
    let t0 = Instant::now();
    let mut registry = Registry::default();
    let host = SeatToken::random();
    seat(
        &mut registry,
        &RoomRequest::Code(code()),
        host,
        "192.0.2.1",
        t0,
    );
    assert_eq!(
        registry.host_figures(&code(), host, (1, 1, 1), t0),
        Err(ModerationError::NotListed(code()))
    );
    assert!(registry.rooms(&RoomsQuery::default()).rooms.is_empty());
}

#[test]
fn a_kicked_spectator_is_closed_and_kept_out_for_five_minutes() {
    let Room {
        mut registry,
        host,
        joiner,
        viewer,
        viewer_id,
        mut viewer_outbox,
        t0,
        ..
    } = room();
    assert_eq!(
        registry.kick(&code(), joiner, viewer_id, t0),
        Err(ModerationError::NotHost(code()))
    );
    let stranger = peer();
    assert!(matches!(
        registry.kick(&code(), host, stranger, t0),
        Err(ModerationError::NoSpectator(..))
    ));
    registry.kick(&code(), host, viewer_id, t0).unwrap();
    assert_eq!(registry.spectators(code().canonical()), 0);
    let mut closed = None;
    while let Ok(Ok(message)) = viewer_outbox.try_recv() {
        if let axum::extract::ws::Message::Close(Some(frame)) = message {
            closed = Some(frame.code);
        }
    }
    assert_eq!(closed, Some(CLOSE_KICKED));
    // Kicked again: it is no longer there.
    assert!(registry.kick(&code(), host, viewer_id, t0).is_err());

    let watch = RoomRequest::Watch(code());
    let same_address = "198.51.100.7".parse().unwrap();
    let elsewhere = "203.0.113.9".parse().unwrap();
    let soon = t0 + Duration::from_secs(60);
    assert_eq!(
        registry.kicked(&watch, same_address, None, soon),
        Some(Duration::from_secs(240))
    );
    // Its token from another address, too; anyone else is welcome.
    assert!(
        registry
            .kicked(&watch, elsewhere, Some(viewer), soon)
            .is_some()
    );
    assert_eq!(registry.kicked(&watch, elsewhere, None, soon), None);
    let other_room = RoomRequest::Watch(RoomCode::parse("ABC-DEF").unwrap());
    assert_eq!(registry.kicked(&other_room, same_address, None, soon), None);
    // Players are not spectators: the ban is on watching.
    let play = RoomRequest::Code(code());
    assert_eq!(registry.kicked(&play, same_address, None, soon), None);
    let after = t0 + KICK_BAN;
    assert_eq!(
        registry.kicked(&watch, same_address, Some(viewer), after),
        None
    );
    assert!(registry.bans.is_empty(), "expired bans are forgotten");
}

#[test]
fn bans_are_bounded_and_the_oldest_goes_first() {
    let Room {
        mut registry,
        host,
        viewer_id,
        t0,
        ..
    } = room();
    for i in 0..MAX_BANS {
        registry.bans.push_back(Ban {
            room: format!("R{i}"),
            address: None,
            token: None,
            until: t0 + KICK_BAN,
        });
    }
    registry.kick(&code(), host, viewer_id, t0).unwrap();
    assert_eq!(registry.bans.len(), MAX_BANS);
    assert_eq!(registry.bans.front().unwrap().room, "R1");
    assert_eq!(registry.bans.back().unwrap().room, code().canonical());
}

#[test]
fn members_and_spectators_report_once_per_interval() {
    let Room {
        mut registry,
        host,
        joiner,
        viewer,
        t0,
        ..
    } = room();
    assert_eq!(
        registry.may_report(&code(), host, t0),
        Ok(Reporter::Player(1))
    );
    assert_eq!(
        registry.may_report(&code(), joiner, t0),
        Ok(Reporter::Player(2))
    );
    assert_eq!(
        registry.may_report(&code(), viewer, t0),
        Ok(Reporter::Spectator)
    );
    assert_eq!(
        registry.may_report(&code(), host, t0 + Duration::from_secs(5)),
        Err(ModerationError::TooSoon(10_000))
    );
    assert_eq!(
        registry.may_report(&code(), host, t0 + REPORT_INTERVAL),
        Ok(Reporter::Player(1))
    );
    assert_eq!(
        registry.may_report(&code(), SeatToken::random(), t0),
        Err(ModerationError::NotSeated(code()))
    );
    let other = RoomCode::parse("ABC-DEF").unwrap();
    assert_eq!(
        registry.may_report(&other, host, t0),
        Err(ModerationError::NoRoom(other))
    );
}
