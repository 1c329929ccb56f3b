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

/// A room that pairs again this soon after its match closed, with one of
/// the same players, resumes that match (a rejoin) rather than starting
/// another.
pub const REJOIN_GAP: Duration = Duration::from_secs(10 * 60);

/// Whether `later` resumes `earlier`: the same room, a player of both,
/// paired after `earlier` closed and within [`REJOIN_GAP`] of it.
fn continues(earlier: &HostedMatch, later: &HostedMatch) -> bool {
    earlier.room == later.room
        && later.peers.iter().any(|p| earlier.peers.contains(p))
        && earlier.closed.is_some_and(|closed| {
            later.opened >= closed && later.opened.saturating_duration_since(closed) <= REJOIN_GAP
        })
}

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

    /// The newest match a replay naming `room` and `peers` is of, with
    /// the matches it continued or was continued by (see
    /// [`REJOIN_GAP`]): a player whose connection dropped comes back as a
    /// new peer, and its room pairs again; that is one match, whose replay
    /// lasts from the first pairing to the last close, under the first
    /// entry's id (one ranked upload).
    pub(super) fn find(&self, room: Option<&str>, peers: &[String]) -> Option<HostedMatch> {
        let at = (self
            .matches
            .iter()
            .rposition(|m| m.is_named_by(room, peers)))?;
        let mut first = at;
        while first > 0 {
            match (0..first)
                .rev()
                .find(|&i| continues(&self.matches[i], &self.matches[first]))
            {
                Some(i) => first = i,
                None => break,
            }
        }
        let mut found = self.matches[first].clone();
        let mut last = first;
        for later in first + 1..self.matches.len() {
            if continues(&self.matches[last], &self.matches[later]) {
                let m = &self.matches[later];
                found.closed = m.closed;
                let new: Vec<PeerId> = (m.peers.iter())
                    .filter(|p| !found.peers.contains(p))
                    .copied()
                    .collect();
                found.peers.extend(new);
                last = later;
            }
        }
        Some(found)
    }

    pub(super) fn len(&self) -> usize {
        self.matches.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peer(n: u128) -> PeerId {
        PeerId(uuid::Uuid::from_u128(n))
    }

    /// A player killed mid-match comes back as a new peer and the room
    /// pairs again: the host's replay, naming either seat's first or new
    /// id, is of one match that lasted from the first pairing to the end.
    #[test]
    fn a_rejoin_resumes_the_match_it_left() {
        let t0 = Instant::now();
        let at = |s| t0 + Duration::from_secs(s);
        let (host, first, back) = (peer(1), peer(2), peer(3));
        let mut hosted = Hosted::default();
        hosted.paired("K7Q-2XM", &[host, first], at(0));
        hosted.left(first, at(5));
        hosted.paired("K7Q-2XM", &[host, back], at(6));
        hosted.left(host, at(20));
        let names = |ids: &[PeerId]| ids.iter().map(|p| p.to_string()).collect::<Vec<_>>();
        for named in [names(&[host, first]), names(&[host, back])] {
            let m = hosted.find(Some("K7Q-2XM"), &named).expect("found");
            assert_eq!(m.id, 1, "one match, the first entry's id");
            assert_eq!(m.lifetime(at(30)), Duration::from_secs(20));
            assert!(m.peers.contains(&back) && m.peers.contains(&first));
        }
        // Another room, or the same room much later, is another match.
        hosted.paired("OTHER-1", &[host, peer(4)], at(21));
        hosted.paired(
            "K7Q-2XM",
            &[host, peer(5)],
            at(20) + REJOIN_GAP + Duration::from_secs(1),
        );
        let later = hosted
            .find(Some("K7Q-2XM"), &names(&[host, peer(5)]))
            .unwrap();
        assert_eq!(later.id, 4);
        let other = hosted.find(Some("OTHER-1"), &names(&[host])).unwrap();
        assert_eq!((other.id, other.closed), (3, None));
    }
}
