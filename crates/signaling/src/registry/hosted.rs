//! The matches this server hosted: for every room that paired, its key
//! (the room code, or `quick-N`), both players' peer ids and when it opened
//! and closed. An uploaded replay is ranked only if it names one of them
//! (`replays`): its room code and peers must match and its frames must fit
//! in the match's lifetime. Kept by the registry, which sees rooms pair and
//! players leave, with the clock passed in; no I/O.

use std::collections::VecDeque;

use matchbox_protocol::PeerId;
use web_time::{Duration, Instant};

/// At most this many matches are remembered (the oldest are forgotten):
/// bounds the ledger whatever the traffic.
pub const MAX_HOSTED: usize = 100_000;
/// A closed match is forgotten this long after it closed: its host uploads
/// its replay as the match ends.
pub const HOSTED_RETENTION: Duration = Duration::from_secs(6 * 3600);

/// One match this server paired.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostedMatch {
    /// Unique for the server's life: one ranked upload per id.
    pub id: u64,
    /// The room's key: its canonical code, or `quick-N` for a quick match.
    pub room: String,
    /// Every peer id that held one of its two seats (a player who took
    /// its seat back with a new connection adds one).
    pub peers: Vec<PeerId>,
    /// When its second player arrived.
    pub opened: Instant,
    /// When one of its players left, if one has.
    pub closed: Option<Instant>,
}

impl HostedMatch {
    /// Whether a replay naming `room` (a canonical code, or none) and
    /// `peers` is of this match: every named peer sat in it, at least one
    /// is named, and a named room is its room (a quick match's client
    /// knows no code and names none).
    pub fn is_named_by(&self, room: Option<&str>, peers: &[String]) -> bool {
        let room_ok = match room {
            Some(code) => code == self.room,
            None => self.room.starts_with("quick-"),
        };
        room_ok
            && !peers.is_empty()
            && peers
                .iter()
                .all(|p| self.peers.iter().any(|q| q.to_string() == *p))
    }

    /// How long it lasted, or has lasted by `now` if still open.
    pub fn lifetime(&self, now: Instant) -> Duration {
        self.closed
            .unwrap_or(now)
            .saturating_duration_since(self.opened)
    }
}

/// The ledger, newest last.
#[derive(Debug, Default)]
pub(super) struct Hosted {
    matches: VecDeque<HostedMatch>,
    made: u64,
}

impl Hosted {
    /// Room `room` paired `players` at `now`: a new match.
    pub(super) fn paired(&mut self, room: &str, players: &[PeerId], now: Instant) {
        while self.matches.len() >= MAX_HOSTED
            || self.matches.front().is_some_and(|m| {
                m.closed
                    .is_some_and(|c| now.saturating_duration_since(c) > HOSTED_RETENTION)
            })
        {
            self.matches.pop_front();
        }
        self.made += 1;
        self.matches.push_back(HostedMatch {
            id: self.made,
            room: room.to_owned(),
            peers: players.to_vec(),
            opened: now,
            closed: None,
        });
    }

    /// `peer` took its seat back as `new`: the match it plays goes on.
    pub(super) fn replaced(&mut self, stale: PeerId, new: PeerId) {
        if let Some(m) = self.open_match_of(stale) {
            m.peers.push(new);
        }
    }

    /// `peer` left at `now`: its open match, if any, closes.
    pub(super) fn left(&mut self, peer: PeerId, now: Instant) {
        if let Some(m) = self.open_match_of(peer) {
            m.closed = Some(now);
        }
    }

    fn open_match_of(&mut self, peer: PeerId) -> Option<&mut HostedMatch> {
        (self.matches.iter_mut().rev()).find(|m| m.closed.is_none() && m.peers.contains(&peer))
    }

    /// The newest match a replay naming `room` and `peers` is of.
    pub(super) fn find(&self, room: Option<&str>, peers: &[String]) -> Option<HostedMatch> {
        (self.matches.iter().rev())
            .find(|m| m.is_named_by(room, peers))
            .cloned()
    }

    pub(super) fn len(&self) -> usize {
        self.matches.len()
    }
}
