//! A room's requests about itself (`twinstar_signaling_protocol`'s
//! `moderation`), on the registry: the host's match figures for its
//! listing, a spectator the host removes and keeps out for [`KICK_BAN`],
//! and who may file a report. Each request proves its seat with the seat
//! token its client joined with; the clock is passed in, like everywhere
//! in the registry.

use std::net::IpAddr;

use matchbox_protocol::PeerId;
use matchbox_signaling::common_logic::try_send;
use web_time::{Duration, Instant};

use super::Registry;
use crate::rooms::close::{CLOSE_KICKED, close};
use twinstar_signaling_protocol::{RoomCode, RoomRequest, SeatToken};

/// How long a removed spectator may not watch its room again, from the
/// address it watched from or with the seat token it watched with.
pub const KICK_BAN: Duration = Duration::from_secs(5 * 60);
/// One report per member per this long: a report is a person's act, and a
/// script filing them cannot fill the reports file faster.
pub const REPORT_INTERVAL: Duration = Duration::from_secs(10);
/// A host's figures are taken at most this often. The client sends them
/// once a second; the slack keeps a late tick from being refused.
pub const FIGURES_INTERVAL: Duration = Duration::from_millis(900);
/// Bans kept at once, all rooms together; past it the oldest goes first,
/// so a host kicking in a loop costs bounded memory.
pub const MAX_BANS: usize = 10_000;

/// A playing room's figures, as its host last reported them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Figures {
    pub wave: u32,
    pub score: u64,
    pub elapsed_s: u32,
}

/// A spectator kept out of one room until `until`.
#[derive(Debug)]
pub(super) struct Ban {
    room: String,
    address: Option<IpAddr>,
    token: Option<SeatToken>,
    until: Instant,
}

/// Why a room request was refused, in one line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ModerationError {
    #[error("room {0} has nobody in it")]
    NoRoom(RoomCode),
    #[error("this seat token holds no seat in room {0}")]
    NotSeated(RoomCode),
    #[error("only the host of room {0} may do that")]
    NotHost(RoomCode),
    #[error("room {0} is not listed (only a public room has figures to show)")]
    NotListed(RoomCode),
    #[error("too soon: at most one every {0} ms")]
    TooSoon(u128),
    #[error("room {0} has no spectator {1}")]
    NoSpectator(RoomCode, String),
    #[error("room {0} has no match yet (its second player has not come)")]
    NotPaired(RoomCode),
    #[error("this player has reported this match's connect already")]
    AlreadyReported,
}

impl ModerationError {
    /// The HTTP status the server answers with.
    pub fn status(&self) -> u16 {
        match self {
            ModerationError::NoRoom(_) | ModerationError::NoSpectator(..) => 404,
            ModerationError::NotSeated(_) | ModerationError::NotHost(_) => 403,
            ModerationError::NotListed(_)
            | ModerationError::NotPaired(_)
            | ModerationError::AlreadyReported => 409,
            ModerationError::TooSoon(_) => 429,
        }
    }
}

/// Who filed a report, as the reports file names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reporter {
    /// Player 1 (the host) or 2.
    Player(usize),
    Spectator,
}

impl Registry {
    /// Notes where `peer` connects from (a kick bans the address).
    pub fn set_address(&mut self, peer: PeerId, address: IpAddr) {
        if let Some(seat) = self.peers.get_mut(&peer) {
            seat.address = Some(address);
        }
    }

    /// The room's host, if `token` is its seat.
    fn host(&self, code: &RoomCode, token: SeatToken) -> Result<PeerId, ModerationError> {
        let room = (self.rooms.get(code.canonical()))
            .filter(|r| !r.members.is_empty())
            .ok_or_else(|| ModerationError::NoRoom(code.clone()))?;
        let holds = |peer: &PeerId| self.peers.get(peer).is_some_and(|s| s.token == Some(token));
        match room.members.iter().position(holds) {
            Some(0) => Ok(room.members[0]),
            Some(_) => Err(ModerationError::NotHost(code.clone())),
            None => Err(ModerationError::NotSeated(code.clone())),
        }
    }

    /// The host's latest figures for its public room's listing, taken at
    /// most once per `FIGURES_INTERVAL` (900 ms; checked for range before).
    pub fn host_figures(
        &mut self,
        code: &RoomCode,
        token: SeatToken,
        (wave, score, elapsed_s): (u32, u64, u32),
        now: Instant,
    ) -> Result<(), ModerationError> {
        self.host(code, token)?;
        let listing = (self.rooms.get_mut(code.canonical()))
            .and_then(|r| r.listing.as_mut())
            .ok_or_else(|| ModerationError::NotListed(code.clone()))?;
        if let Some((_, at)) = &listing.figures
            && now.saturating_duration_since(*at) < FIGURES_INTERVAL
        {
            return Err(ModerationError::TooSoon(FIGURES_INTERVAL.as_millis()));
        }
        let figures = Figures {
            wave,
            score,
            elapsed_s,
        };
        listing.figures = Some((figures, now));
        Ok(())
    }

    /// The host removes spectator `spectator`: its connection is closed
    /// (close code 4001, `CLOSE_KICKED`), whoever streamed to it hears it
    /// left, and its address and seat token may not watch this room for
    /// `KICK_BAN` (5 minutes).
    pub fn kick(
        &mut self,
        code: &RoomCode,
        token: SeatToken,
        spectator: PeerId,
        now: Instant,
    ) -> Result<(), ModerationError> {
        self.host(code, token)?;
        let key = code.canonical();
        let watching = (self.rooms.get(key))
            .is_some_and(|r| r.spectators.iter().any(|(s, _)| *s == spectator));
        let seat = self.peers.get(&spectator).filter(|_| watching);
        let Some(seat) = seat else {
            return Err(ModerationError::NoSpectator(
                code.clone(),
                spectator.to_string(),
            ));
        };
        let _ = try_send(
            &seat.channel,
            close(CLOSE_KICKED, "the room's host removed you from the room"),
        );
        let ban = Ban {
            room: key.to_owned(),
            address: seat.address,
            token: seat.token,
            until: now + KICK_BAN,
        };
        self.prune_bans(now);
        if self.bans.len() >= MAX_BANS {
            self.bans.pop_front();
        }
        self.bans.push_back(ban);
        // Its connection task then ends and finds nothing to leave.
        self.leave(spectator);
        Ok(())
    }

    fn prune_bans(&mut self, now: Instant) {
        // Every ban lasts as long, so the oldest ends first.
        while self.bans.front().is_some_and(|b| b.until <= now) {
            self.bans.pop_front();
        }
    }

    /// How much longer a spectator asking to watch from `address` with
    /// `token` is kept out of the room it asks for, if it is.
    pub fn kicked(
        &mut self,
        request: &RoomRequest,
        address: IpAddr,
        token: Option<SeatToken>,
        now: Instant,
    ) -> Option<Duration> {
        let RoomRequest::Watch(code) = request else {
            return None;
        };
        self.prune_bans(now);
        let ban = self.bans.iter().rev().find(|b| {
            b.room == code.canonical()
                && (b.address == Some(address) || (token.is_some() && b.token == token))
        })?;
        Some(ban.until.saturating_duration_since(now))
    }

    /// May the client whose seat `token` is file a report about room
    /// `code` now? Any member or spectator may, one per `REPORT_INTERVAL`
    /// (10 s).
    pub fn may_report(
        &mut self,
        code: &RoomCode,
        token: SeatToken,
        now: Instant,
    ) -> Result<Reporter, ModerationError> {
        let room = (self.rooms.get(code.canonical()))
            .ok_or_else(|| ModerationError::NoRoom(code.clone()))?;
        let members = room.members.iter().enumerate();
        let spectators = room.spectators.iter().map(|(s, _)| (usize::MAX, s));
        let holds = |peer: &PeerId| self.peers.get(peer).is_some_and(|s| s.token == Some(token));
        let (index, peer) = members
            .chain(spectators)
            .find(|(_, p)| holds(p))
            .ok_or_else(|| ModerationError::NotSeated(code.clone()))?;
        let peer = *peer;
        let seat = self.peers.get_mut(&peer).expect("found above");
        if let Some(at) = seat.reported_at
            && now.saturating_duration_since(at) < REPORT_INTERVAL
        {
            return Err(ModerationError::TooSoon(REPORT_INTERVAL.as_millis()));
        }
        seat.reported_at = Some(now);
        Ok(match index {
            usize::MAX => Reporter::Spectator,
            i => Reporter::Player(i + 1),
        })
    }
}

#[cfg(test)]
mod tests {
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
}
