//! Rooms, seats and the relaying of signals between the two members of a
//! room, and its spectators. No sockets and no clock of its own: the server
//! task calls in under one lock, and the tests call in directly.
//!
//! A spectator is introduced (matchbox's `NewPeer`) only to the room's first
//! player, and only once both players are in (one waiting before that is
//! introduced when the second player arrives): that player streams the
//! match to it. Players are never introduced to spectators, spectators
//! never to each other, and signals pass only between a spectator and the
//! player it was introduced to.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use web_time::{Duration, Instant};

use axum::extract::ws::Message;
use matchbox_protocol::{JsonPeerEvent, PeerId};
use matchbox_signaling::common_logic::{SignalingChannel, try_send};
use tracing::warn;

use crate::ops::metrics::RoomCounts;
use crate::rooms::close::{CLOSE_REPLACED, close};
use moderation::Figures;
use twinstar_signaling_protocol::SeatToken;

mod connect_reports;
mod hosted;
mod moderation;
mod timing;
use connect_reports::MatchReports;
pub use hosted::HostedMatch;
pub use moderation::{ModerationError, Reporter};
use timing::{MAX_WAITING_EVENTS, RoomTimes};
pub use timing::{Observed, is_answer};

use twinstar_signaling_protocol::{
    MAX_SIGNAL_BYTES, MAX_SPECTATORS, PlayerName, RELAY_BUDGET_BYTES, RESERVATION_TTL,
    ROOM_CAPACITY, Refusal, RoomCode, RoomListing, RoomRequest, RoomStatus, RoomsPage, RoomsQuery,
    VersionTag,
};

/// Why a signal was not relayed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RelayError {
    #[error("the sender is not seated")]
    NotSeated,
    #[error("unknown receiver {0}")]
    UnknownReceiver(PeerId),
    #[error("{to} is not in room {room}")]
    OtherRoom { to: PeerId, room: String },
    #[error("signal of {0} bytes is over the {MAX_SIGNAL_BYTES}-byte limit")]
    TooLarge(usize),
    #[error("relay budget of {RELAY_BUDGET_BYTES} bytes used up")]
    BudgetExhausted,
    #[error("the receiver's queue is closed")]
    Closed,
    #[error("{0} was never introduced to the sender")]
    NotIntroduced(PeerId),
}

#[derive(Debug)]
struct Seat {
    room: String,
    channel: SignalingChannel,
    /// Bytes relayed from this peer so far.
    relayed: usize,
    /// A spectator (not a player member of its room).
    spectator: bool,
    /// The client's seat token: whoever presents it takes a player's seat
    /// back; a spectator's proves it for its room requests (`moderation`).
    token: Option<SeatToken>,
    /// Where the client connects from (a kick bans it for a while).
    address: Option<IpAddr>,
    /// When this client last filed a report (one per `REPORT_INTERVAL`).
    reported_at: Option<Instant>,
}

/// A public room's entry in `GET /rooms`.
#[derive(Debug)]
struct Listing {
    code: RoomCode,
    host: PlayerName,
    version: VersionTag,
    created_s: u64,
    /// The host's latest figures, and when they came.
    figures: Option<(Figures, Instant)>,
}

impl Seat {
    /// A fresh seat in room `room`, nothing relayed yet.
    fn new(
        room: &str,
        channel: SignalingChannel,
        token: Option<SeatToken>,
        spectator: bool,
    ) -> Seat {
        Seat {
            room: room.to_owned(),
            channel,
            relayed: 0,
            spectator,
            token,
            address: None,
            reported_at: None,
        }
    }
}

#[derive(Debug, Default)]
struct Room {
    /// Set when the room's first player asked for it to be listed.
    listing: Option<Listing>,
    members: Vec<PeerId>,
    /// Admission times of clients let in but not yet upgraded.
    reservations: Vec<Instant>,
    /// Spectators, each with the player it was introduced to, if yet.
    spectators: Vec<(PeerId, Option<PeerId>)>,
    spectator_reservations: Vec<Instant>,
    /// When its player came and when it was paired (`timing`).
    times: RoomTimes,
    /// Its players' connect reports since it paired (`connect_reports`).
    reports: MatchReports,
}

impl Room {
    fn prune(&mut self, now: Instant) {
        let fresh = |t: &Instant| now.saturating_duration_since(*t) < RESERVATION_TTL;
        self.reservations.retain(fresh);
        self.spectator_reservations.retain(fresh);
    }

    /// A player was added at `now`: a pairing starts a new match.
    fn arrived(&mut self, now: Instant) -> Option<Observed> {
        let event = self.times.arrived(self.members.len(), now);
        if let Some(Observed::Paired { .. }) = event {
            self.reports.paired();
        }
        event
    }

    fn is_unused(&self) -> bool {
        self.members.is_empty()
            && self.reservations.is_empty()
            && self.spectators.is_empty()
            && self.spectator_reservations.is_empty()
    }
}

/// What a quick-match client says about itself (its room URL's query):
/// only equal versions pair, and closer levels and shorter round trips to
/// the server are preferred. Self-reported, so they only order partners.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QuickTicket {
    /// `None` pairs only with another client that sent none (an older one).
    pub version: Option<VersionTag>,
    /// The best wave reached online (0 when not sent).
    pub level: u32,
    /// The client's round trip to this server, in ms (0 when not sent).
    pub rtt_ms: u32,
    /// Pairs only with the same challenge (none with none): two players
    /// who want today's daily-challenge seed find each other.
    pub challenge: Option<VersionTag>,
}

/// The largest level gap a quick-match pair may have when both have just
/// arrived; it grows by [`QUICK_GAP_PER_S`] a second of waiting.
pub const QUICK_GAP_START: u32 = 2;
pub const QUICK_GAP_PER_S: u32 = 4;
/// After this long waiting, a ticket pairs with anyone of its version.
pub const QUICK_ANYONE_AFTER: Duration = Duration::from_secs(10);

/// The level gap allowed after waiting `waited`.
pub fn quick_gap(waited: Duration) -> u32 {
    if waited >= QUICK_ANYONE_AFTER {
        return u32::MAX;
    }
    let secs = u32::try_from(waited.as_millis() / 1000).unwrap_or(u32::MAX);
    QUICK_GAP_START.saturating_add(QUICK_GAP_PER_S.saturating_mul(secs))
}

/// A quick-match client waiting, alone in its own room, for a partner.
#[derive(Debug)]
struct Waiting {
    key: String,
    peer: PeerId,
    ticket: QuickTicket,
    since: Instant,
}

/// Tells each of `members` that `newcomer` arrived (matchbox's `NewPeer`:
/// a member then makes the WebRTC offer).
fn introduce(peers: &HashMap<PeerId, Seat>, members: &[PeerId], newcomer: PeerId) {
    let event = Message::Text(JsonPeerEvent::NewPeer(newcomer).to_string().into());
    for member in members {
        if let Some(seat) = peers.get(member)
            && let Err(e) = try_send(&seat.channel, event.clone())
        {
            warn!("could not tell {member} about {newcomer}: {e}");
        }
    }
}

/// Rooms and members. Pure bookkeeping with the clock passed in, so its
/// rules are unit-tested without sockets.
#[derive(Debug, Default)]
pub struct Registry {
    /// Keyed by canonical code, or `quick-N` for quick matches.
    rooms: HashMap<String, Room>,
    peers: HashMap<PeerId, Seat>,
    /// Quick-match clients waiting for a partner, oldest first.
    quick: Vec<Waiting>,
    quick_rooms_made: u64,
    /// Spectators their hosts removed, oldest first (`moderation`).
    bans: VecDeque<moderation::Ban>,
    /// Pairings and negotiations for the metrics, until taken.
    observed: Vec<Observed>,
    /// The matches it paired, for ranking their replays (`hosted`).
    hosted: hosted::Hosted,
}

impl Registry {
    /// Before the upgrade: may this client in? Reserves its seat if so.
    pub fn admit(&mut self, request: &RoomRequest, now: Instant) -> Result<(), Refusal> {
        self.admit_with(request, None, now)
    }

    /// [`Registry::admit`] for a player presenting a seat token: one that
    /// holds a seat in the room is let in to take it back (at
    /// [`Registry::join_with`]), full room or not; any other token takes
    /// nothing (see `seat`).
    pub fn admit_with(
        &mut self,
        request: &RoomRequest,
        token: Option<SeatToken>,
        now: Instant,
    ) -> Result<(), Refusal> {
        if let (RoomRequest::Code(code), Some(token)) = (request, token)
            && self.holder(code.canonical(), token).is_some()
        {
            return Ok(());
        }
        let (code, watching) = match request {
            RoomRequest::Code(code) => (code, false),
            RoomRequest::Watch(code) => (code, true),
            // A quick match always finds a place: a waiting room or a new one.
            RoomRequest::Quick => return Ok(()),
        };
        // Forget rooms whose only trace was an expired reservation, so
        // clients that never finish their upgrade cannot grow the map.
        self.rooms.retain(|_, room| {
            room.prune(now);
            !room.is_unused()
        });
        let room = self.rooms.entry(code.canonical().to_owned()).or_default();
        if watching {
            if room.spectators.len() + room.spectator_reservations.len() >= MAX_SPECTATORS {
                return Err(Refusal::TooManySpectators(code.clone()));
            }
            room.spectator_reservations.push(now);
            return Ok(());
        }
        if room.members.len() + room.reservations.len() >= ROOM_CAPACITY {
            return Err(Refusal::RoomFull(code.clone()));
        }
        room.reservations.push(now);
        Ok(())
    }

    /// After the upgrade: seats the peer and introduces it to the member
    /// already there (matchbox's protocol: the member gets `NewPeer` and
    /// sends the WebRTC offer). Returns the room key, or `None` if the room
    /// filled up meanwhile (only possible past an expired reservation).
    pub fn join(
        &mut self,
        request: &RoomRequest,
        peer: PeerId,
        sender: SignalingChannel,
        now: Instant,
    ) -> Option<String> {
        self.join_with(request, None, peer, sender, now)
    }

    /// [`Registry::join`] with the player's seat token: the seat it holds
    /// in the room, if any, is taken back from its stale connection.
    pub fn join_with(
        &mut self,
        request: &RoomRequest,
        token: Option<SeatToken>,
        peer: PeerId,
        sender: SignalingChannel,
        now: Instant,
    ) -> Option<String> {
        if let (RoomRequest::Code(code), Some(token)) = (request, token)
            && let Some(stale) = self.holder(code.canonical(), token)
        {
            self.take_back(code.canonical(), stale, peer, sender, token);
            return Some(code.canonical().to_owned());
        }
        let key = match request {
            RoomRequest::Watch(code) => {
                return self.watch(code.canonical(), peer, sender, token, now);
            }
            RoomRequest::Code(code) => {
                let room = self.rooms.entry(code.canonical().to_owned()).or_default();
                room.prune(now);
                if !room.reservations.is_empty() {
                    room.reservations.remove(0);
                }
                if room.members.len() >= ROOM_CAPACITY {
                    return None;
                }
                code.canonical().to_owned()
            }
            RoomRequest::Quick => {
                return Some(self.join_quick(peer, sender, QuickTicket::default(), now));
            }
        };
        let room = self.rooms.entry(key.clone()).or_default();
        introduce(&self.peers, &room.members, peer);
        self.seat_player(peer, &key, sender, token, now);
        self.introduce_spectators(&key);
        Some(key)
    }

    /// Makes `peer` a player member of room `key` (its last).
    fn seat_player(
        &mut self,
        peer: PeerId,
        key: &str,
        sender: SignalingChannel,
        token: Option<SeatToken>,
        now: Instant,
    ) {
        let room = self.rooms.entry(key.to_owned()).or_default();
        room.members.push(peer);
        let event = room.arrived(now);
        if let Some(Observed::Paired { .. }) = event {
            self.hosted.paired(key, &room.members, now);
        }
        self.observe(event);
        self.peers
            .insert(peer, Seat::new(key, sender, token, false));
    }

    fn observe(&mut self, event: Option<Observed>) {
        if let Some(event) = event
            && self.observed.len() < MAX_WAITING_EVENTS
        {
            self.observed.push(event);
        }
    }

    /// The newest match this server hosted that a replay naming `room` (a
    /// canonical code, or none for a quick match) and `peers` is of.
    pub fn hosted_match(&self, room: Option<&str>, peers: &[String]) -> Option<HostedMatch> {
        self.hosted.find(room, peers)
    }

    /// Matches remembered for ranking.
    pub fn hosted_count(&self) -> usize {
        self.hosted.len()
    }

    /// The pairings and negotiations since the last call, for the metrics.
    pub fn take_observed(&mut self) -> Vec<Observed> {
        std::mem::take(&mut self.observed)
    }

    /// `from` relayed a WebRTC answer (matchbox's `{"Answer": SDP}` signal)
    /// to `to` at `now`: the end of the negotiation between a room's
    /// players, timed once per pairing. Spectators' are not timed.
    pub fn answered(&mut self, from: PeerId, to: PeerId, now: Instant) {
        let (Some(a), Some(b)) = (self.peers.get(&from), self.peers.get(&to)) else {
            return;
        };
        if a.spectator || b.spectator || a.room != b.room {
            return;
        }
        let event = (self.rooms.get_mut(&a.room)).and_then(|room| room.times.answered(now));
        self.observe(event);
    }

    /// Seats a quick-match client alone in a room of its own, waiting for a
    /// partner, and pairs whoever can be paired now ([`Registry::match_quick`]).
    /// Returns its room (its partner's, if it was paired at once).
    pub fn join_quick(
        &mut self,
        peer: PeerId,
        sender: SignalingChannel,
        ticket: QuickTicket,
        now: Instant,
    ) -> String {
        self.quick_rooms_made += 1;
        let key = format!("quick-{}", self.quick_rooms_made);
        self.seat_player(peer, &key, sender, None, now);
        self.quick.push(Waiting {
            key,
            peer,
            ticket,
            since: now,
        });
        // Only the newcomer is new to compare (O(waiting) under the lock,
        // as every client's connection needs it too); pairs that wait for
        // their gap to widen are the timer's (`match_quick`).
        let newest = self.quick.len() - 1;
        if let Some(j) = self.best_partner(newest, 0..newest, now) {
            let newcomer = self.quick.remove(newest);
            let older = self.quick.remove(j);
            self.move_into(newcomer.peer, &newcomer.key, &older.key, now);
        }
        self.peers
            .get(&peer)
            .map(|s| s.room.clone())
            .unwrap_or_default()
    }

    /// Pairs waiting quick-match clients: only equal versions; a pair's
    /// level gap within what the longer waiter's wait allows
    /// (`quick_gap`: 2 levels, 4 more for each second waited, any gap after
    /// 10 s); for each client, oldest first, the partner with the
    /// closest level, then the lowest sum of round trips, then the oldest.
    /// The newer one moves into the older one's room, which is introduced
    /// to it as in any room. Called on every arrival and every few hundred
    /// ms by the server, as waits grow. Returns the pairs made.
    pub fn match_quick(&mut self, now: Instant) -> usize {
        let mut made = 0;
        let mut i = 0;
        while i < self.quick.len() {
            match self.best_partner(i, i + 1..self.quick.len(), now) {
                Some(j) => {
                    let b = self.quick.remove(j);
                    let a = self.quick.remove(i);
                    self.move_into(b.peer, &b.key, &a.key, now);
                    made += 1;
                }
                None => i += 1,
            }
        }
        made
    }

    /// Among the waiting tickets at `candidates`, the one ticket `i` pairs
    /// with now, if any (see [`Registry::match_quick`] for the rule).
    fn best_partner(
        &self,
        i: usize,
        candidates: std::ops::Range<usize>,
        now: Instant,
    ) -> Option<usize> {
        let a = &self.quick[i];
        candidates
            .map(|j| (j, &self.quick[j]))
            .filter(|(_, b)| b.ticket.version == a.ticket.version)
            .filter(|(_, b)| b.ticket.challenge == a.ticket.challenge)
            .filter(|(_, b)| {
                let waited = now.saturating_duration_since(a.since.min(b.since));
                a.ticket.level.abs_diff(b.ticket.level) <= quick_gap(waited)
            })
            .min_by_key(|(_, b)| {
                (
                    a.ticket.level.abs_diff(b.ticket.level),
                    a.ticket.rtt_ms.saturating_add(b.ticket.rtt_ms),
                    b.since,
                )
            })
            .map(|(j, _)| j)
    }

    /// Moves a client waiting alone in room `from` into room `to`, whose
    /// member is told (matchbox's `NewPeer`) and makes the WebRTC offer.
    fn move_into(&mut self, peer: PeerId, from: &str, to: &str, now: Instant) {
        self.rooms.remove(from);
        let Some(room) = self.rooms.get_mut(to) else {
            return;
        };
        introduce(&self.peers, &room.members, peer);
        room.members.push(peer);
        let event = room.arrived(now);
        if let Some(Observed::Paired { .. }) = event {
            self.hosted.paired(to, &room.members, now);
        }
        self.observe(event);
        if let Some(seat) = self.peers.get_mut(&peer) {
            seat.room = to.to_owned();
        }
    }

    /// Quick-match clients waiting for a partner now.
    pub fn quick_waiting(&self) -> usize {
        self.quick.len()
    }

    /// Would this player's connection take back a seat (see `join_with`)?
    pub fn takes_back(&self, request: &RoomRequest, token: Option<SeatToken>) -> bool {
        match (request, token) {
            (RoomRequest::Code(code), Some(token)) => {
                self.holder(code.canonical(), token).is_some()
            }
            _ => false,
        }
    }

    /// The member of room `key` whose seat `token` holds.
    fn holder(&self, key: &str, token: SeatToken) -> Option<PeerId> {
        let room = self.rooms.get(key)?;
        (room.members.iter().copied()).find(|member| {
            self.peers
                .get(member)
                .is_some_and(|s| s.token == Some(token))
        })
    }

    /// `peer` takes `stale`'s seat, in its place (the first player stays
    /// first: it is the one spectators are introduced to). The stale
    /// connection is closed; whoever knew it hears it left and meets
    /// `peer` instead, as if it had left and come back.
    fn take_back(
        &mut self,
        key: &str,
        stale: PeerId,
        peer: PeerId,
        sender: SignalingChannel,
        token: SeatToken,
    ) {
        if let Some(seat) = self.peers.remove(&stale) {
            // Its task then ends and finds nothing to leave.
            let _ = try_send(
                &seat.channel,
                close(
                    CLOSE_REPLACED,
                    "this seat was taken back by a newer connection",
                ),
            );
        }
        let Some(room) = self.rooms.get_mut(key) else {
            return;
        };
        let mut told = Vec::new();
        self.hosted.replaced(stale, peer);
        for member in room.members.iter_mut() {
            if *member == stale {
                *member = peer;
            } else {
                told.push(*member);
            }
        }
        let mut orphans = Vec::new();
        for (spectator, introduced_to) in &mut room.spectators {
            if *introduced_to == Some(stale) {
                orphans.push(*spectator);
                *introduced_to = None;
            }
        }
        for spectator in orphans {
            self.send_to(spectator, JsonPeerEvent::PeerLeft(stale));
        }
        for member in told {
            self.send_to(member, JsonPeerEvent::PeerLeft(stale));
            self.send_to(member, JsonPeerEvent::NewPeer(peer));
        }
        self.peers
            .insert(peer, Seat::new(key, sender, Some(token), false));
        self.introduce_spectators(key);
    }

    /// Queues `event` for `to`; one that is leaving too is no matter.
    fn send_to(&self, to: PeerId, event: JsonPeerEvent) {
        if let Some(seat) = self.peers.get(&to) {
            let _ = try_send(&seat.channel, Message::Text(event.to_string().into()));
        }
    }

    /// Seats a spectator of room `key` (always: admission counted it).
    fn watch(
        &mut self,
        key: &str,
        peer: PeerId,
        sender: SignalingChannel,
        token: Option<SeatToken>,
        now: Instant,
    ) -> Option<String> {
        let room = self.rooms.entry(key.to_owned()).or_default();
        room.prune(now);
        if !room.spectator_reservations.is_empty() {
            room.spectator_reservations.remove(0);
        }
        if room.spectators.len() >= MAX_SPECTATORS {
            return None;
        }
        room.spectators.push((peer, None));
        self.peers.insert(peer, Seat::new(key, sender, token, true));
        self.introduce_spectators(key);
        Some(key.to_owned())
    }

    /// With both players in, introduces the spectators not yet introduced
    /// to the first player (which sends them the WebRTC offer).
    fn introduce_spectators(&mut self, key: &str) {
        let Some(room) = self.rooms.get_mut(key) else {
            return;
        };
        if room.members.len() < ROOM_CAPACITY {
            return;
        }
        let first = room.members[0];
        let Some(seat) = self.peers.get(&first) else {
            return;
        };
        for (spectator, introduced_to) in &mut room.spectators {
            if introduced_to.is_some() {
                continue;
            }
            let event = Message::Text(JsonPeerEvent::NewPeer(*spectator).to_string().into());
            match try_send(&seat.channel, event) {
                Ok(()) => *introduced_to = Some(first),
                Err(e) => warn!("could not tell {first} about spectator {spectator}: {e}"),
            }
        }
    }

    /// Removes the peer and tells whoever is left in its room (a player's
    /// partner and the spectators introduced to it; a spectator's player).
    pub fn leave(&mut self, peer: PeerId) -> Option<String> {
        self.leave_at(peer, Instant::now())
    }

    /// [`Registry::leave`] at `now`: a player leaving closes the match it
    /// played (`hosted`: its replay's frames must fit before then).
    pub fn leave_at(&mut self, peer: PeerId, now: Instant) -> Option<String> {
        self.hosted.left(peer, now);
        let key = self.peers.remove(&peer)?.room;
        let room = self.rooms.get_mut(&key)?;
        let players = room.members.len();
        room.members.retain(|m| *m != peer);
        if room.members.len() < players {
            room.times.left();
        }
        if room.members.is_empty() {
            // A later player in this room is no longer its host.
            room.listing = None;
        }
        let mut told: Vec<PeerId> = room.members.clone();
        if let Some(at) = room.spectators.iter().position(|(s, _)| *s == peer) {
            let (_, introduced_to) = room.spectators.remove(at);
            told = introduced_to.into_iter().collect();
        } else {
            for (spectator, introduced_to) in &mut room.spectators {
                if *introduced_to == Some(peer) {
                    told.push(*spectator);
                    *introduced_to = None;
                }
            }
        }
        let event = Message::Text(JsonPeerEvent::PeerLeft(peer).to_string().into());
        for member in &told {
            if let Some(seat) = self.peers.get(member) {
                // The member may be leaving too; nothing to do about it.
                let _ = try_send(&seat.channel, event.clone());
            }
        }
        if room.is_unused() {
            self.rooms.remove(&key);
            self.quick.retain(|w| w.key != key);
        }
        Some(key)
    }

    /// Forwards a WebRTC signal (offer, answer, ICE candidate), but only
    /// between members of the same room: rooms never cross. Signals over
    /// [`MAX_SIGNAL_BYTES`], and any once the sender has had
    /// [`RELAY_BUDGET_BYTES`] relayed, are dropped.
    pub fn relay(
        &mut self,
        from: PeerId,
        to: PeerId,
        data: serde_json::Value,
    ) -> Result<(), RelayError> {
        let sender = self.peers.get(&from).ok_or(RelayError::NotSeated)?;
        let receiver = self.peers.get(&to).ok_or(RelayError::UnknownReceiver(to))?;
        if sender.room != receiver.room {
            return Err(RelayError::OtherRoom {
                to,
                room: sender.room.clone(),
            });
        }
        if sender.spectator || receiver.spectator {
            let (spectator, player) = if sender.spectator {
                (from, to)
            } else {
                (to, from)
            };
            let introduced = self.rooms.get(&sender.room).is_some_and(|room| {
                room.spectators
                    .iter()
                    .any(|(s, p)| *s == spectator && *p == Some(player))
            });
            if !introduced {
                return Err(RelayError::NotIntroduced(to));
            }
        }
        let text = JsonPeerEvent::Signal { sender: from, data }.to_string();
        if text.len() > MAX_SIGNAL_BYTES {
            return Err(RelayError::TooLarge(text.len()));
        }
        if sender.relayed + text.len() > RELAY_BUDGET_BYTES {
            return Err(RelayError::BudgetExhausted);
        }
        let len = text.len();
        try_send(&receiver.channel, Message::Text(text.into())).map_err(|_| RelayError::Closed)?;
        if let Some(sender) = self.peers.get_mut(&from) {
            sender.relayed += len;
        }
        Ok(())
    }

    /// Members of a room, for logs and tests.
    /// Lists room `key` in `GET /rooms`, if `peer` is its only member (a
    /// host asking as it arrives: a joiner cannot list someone else's room,
    /// and a room listed once stays listed while it lives). Returns whether
    /// it is listed now.
    pub fn publish(
        &mut self,
        key: &str,
        peer: PeerId,
        host: PlayerName,
        version: VersionTag,
        created_s: u64,
    ) -> bool {
        let Some(room) = self.rooms.get_mut(key) else {
            return false;
        };
        let Ok(code) = RoomCode::parse(key) else {
            // Quick-match rooms have no code to list.
            return false;
        };
        if room.listing.is_some() {
            return true;
        }
        if room.members != [peer] {
            return false;
        }
        room.listing = Some(Listing {
            code,
            host,
            version,
            created_s,
            figures: None,
        });
        true
    }

    /// The public rooms that still have a player, newest first, a page at a
    /// time (`next` continues after the last one shown).
    pub fn rooms(&self, query: &RoomsQuery) -> RoomsPage {
        RoomsPage::of(self.listings(), query)
    }

    /// Every public room that still has a player, in no order (what a
    /// node tells the shared directory).
    pub fn listings(&self) -> Vec<RoomListing> {
        self.rooms
            .values()
            .filter(|room| !room.members.is_empty())
            .filter_map(|room| {
                let l = room.listing.as_ref()?;
                let playing = room.members.len() >= ROOM_CAPACITY;
                // While it plays: the host's latest figures, and the
                // spectators as this server counts them.
                let figures = l.figures.as_ref().filter(|_| playing).map(|(f, _)| f);
                Some(RoomListing {
                    code: l.code.to_string(),
                    host: l.host.clone(),
                    state: if playing {
                        RoomStatus::Playing
                    } else {
                        RoomStatus::Waiting
                    },
                    version: l.version.clone(),
                    created_s: l.created_s,
                    wave: figures.map(|f| f.wave),
                    score: figures.map(|f| f.score),
                    elapsed_s: figures.map(|f| f.elapsed_s),
                    spectators: playing.then_some(room.spectators.len() as u32),
                })
            })
            .collect()
    }

    /// Public rooms listed now (for /metrics: a count, never a code).
    pub fn public_rooms(&self) -> usize {
        self.rooms
            .values()
            .filter(|r| r.listing.is_some() && !r.members.is_empty())
            .count()
    }

    pub fn members(&self, key: &str) -> usize {
        self.rooms.get(key).map_or(0, |r| r.members.len())
    }

    /// Spectators of a room, for logs and tests.
    pub fn spectators(&self, key: &str) -> usize {
        self.rooms.get(key).map_or(0, |r| r.spectators.len())
    }

    /// Rooms that have members or reservations.
    pub fn room_count(&self) -> usize {
        self.rooms.len()
    }

    /// Rooms waiting for their second player, full rooms, and spectators,
    /// for `/metrics`.
    pub fn counts(&self) -> RoomCounts {
        let mut counts = RoomCounts::default();
        for room in self.rooms.values() {
            match room.members.len() {
                0 => {}
                n if n < ROOM_CAPACITY => counts.waiting += 1,
                _ => counts.full += 1,
            }
            counts.spectators += room.spectators.len();
            if room.listing.is_some() && !room.members.is_empty() {
                counts.public += 1;
            }
        }
        counts
    }

    /// No client is seated.
    pub fn is_empty(&self) -> bool {
        self.peers.is_empty()
    }

    /// Whether `request` is for a room here that has a player in it: the
    /// one kind of request a draining server still admits (a player
    /// rejoining its match, a spectator of it), since refusing it would end
    /// a match that could go on. A new room is never live.
    pub fn is_live(&self, request: &RoomRequest) -> bool {
        match request {
            RoomRequest::Code(code) | RoomRequest::Watch(code) => (self.rooms)
                .get(code.canonical())
                .is_some_and(|room| !room.members.is_empty()),
            RoomRequest::Quick => false,
        }
    }

    /// The channels of players alone in their room: waiting for a partner,
    /// with no match to lose (a draining server tells them first).
    pub fn waiting_alone(&self) -> Vec<SignalingChannel> {
        self.rooms
            .values()
            .filter(|room| room.members.len() == 1)
            .filter_map(|room| self.peers.get(&room.members[0]))
            .map(|seat| seat.channel.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests;
