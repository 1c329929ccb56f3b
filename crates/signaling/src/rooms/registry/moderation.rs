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
#[path = "moderation_tests.rs"]
mod tests;
