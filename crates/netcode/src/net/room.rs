//! Who a peer in the room is, and what it may send: the admission rule,
//! written once.
//!
//! Sans-IO like [`Handshake`] and the signaling `Registry`: a [`Room`] is
//! told which peers connected and left, what each sent (decoded) and the
//! time, and answers with [`Output`]s — messages to send and what happened.
//! The caller owns the channel and the clock (`net::control` feeds it from
//! the data channel; the connector and the session act on what it says).
//!
//! The rule, in every phase:
//! - a peer that says `Watch` is a spectator, never a player: it is handed
//!   to the caller ([`Output::Spectator`]), and so is its `Chat`;
//! - a peer that says `Hello` may be the player we wait for: while the
//!   partner is still unknown ([`Phase::Seeking`]) or has dropped
//!   ([`Phase::Paused`]) it is heard, one at a time, by a [`Handshake`]
//!   that decides; once a player is agreed ([`Phase::Playing`]) anyone else
//!   saying `Hello` is told `Busy`;
//! - a spectator ([`Phase::Watching`]) listens only to the player it asked.
//!
//! Peers are generic (`P`) so the tests run on plain numbers.

use std::collections::HashSet;
use std::fmt::Debug;
use std::hash::Hash;

use web_time::Instant;

use super::delay::DelaySetting;
use super::handshake::{Agreement, Handshake, HandshakeError, Hello, Message, Watch};
use super::protocol::phase::{Heard, Stranger};
use crate::GameInfo;

/// Peers kept while they wait to be heard (each repeats its `Hello` every
/// 100 ms, so dropping the excess only delays it), and spectators remembered.
const KEPT: usize = 64;
/// More peers told `Busy` than this are still told, just not logged again.
const BUSY_LOGGED: usize = 16;

/// What a room is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Looking for our partner: the first peer that connects is asked (our
    /// `Hello`); one that turns out to be a spectator is passed over.
    Seeking,
    /// A player is agreed; the match (or its catch-up) runs.
    Playing,
    /// The partner dropped mid-match: only the player holding our `Hello`'s
    /// resume claim may take the seat.
    Paused,
    /// We are a spectator of the one player we asked.
    Watching,
}

/// What the caller must do or know, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Output<P> {
    /// Send this message to this peer.
    Send(P, Message),
    /// The handshake with this peer agreed: the partner (seeking) or the
    /// rejoiner (paused). The room is [`Phase::Playing`] with it from here.
    Agreed(P, Agreement),
    /// The handshake with the partner failed (seeking: the attempt is over,
    /// the caller reports it; paused: that peer was refused and the room
    /// listens to the next).
    Failed(P, HandshakeError),
    /// The peer being heard while seeking sent bytes that are no message of
    /// ours: the attempt is over. (Paused, such a newcomer is just dropped;
    /// from an agreed partner it is a [`Output::FromPartner`] error.)
    Malformed(P, HandshakeError),
    /// The partner, once heard from, left before or after agreeing.
    PartnerLeft(P),
    /// A peer left that never opened a connection to us (behind a NAT we
    /// cannot cross, or it cancelled early: the two look the same).
    LeftUnconnected(P),
    /// A peer asked to watch (its `Watch`, for the caller to check the
    /// versions and the spectator cap). Repeats are passed on too.
    Spectator(P, Watch),
    /// A chat line from a peer other than the partner (a spectator's; the
    /// caller checks it against the spectators it streams to).
    OthersChat(P, String),
    /// A message from the agreed partner (or, watching, the player), or
    /// why its bytes did not decode.
    FromPartner(Result<Message, HandshakeError>),
}

/// The handshake run with one peer while seeking or paused.
struct Candidate<P> {
    peer: P,
    handshake: Handshake,
    /// It said `Hello`: a player, not a spectator that has not spoken yet.
    said_hello: bool,
    /// Anything arrived from it (a silent peer leaving is passed over).
    heard: bool,
    /// Its handshake's failure was reported (seeking: once).
    failed: bool,
}

pub struct Room<P> {
    phase: Phase,
    /// The game a player's room plays (none for a spectator's).
    game: Option<GameInfo>,
    /// The `Hello` (and delay setting) each new candidate's handshake sends.
    hello: Option<(Hello, DelaySetting)>,
    candidate: Option<Candidate<P>>,
    /// The agreed partner, or the player a spectator watches.
    partner: Option<P>,
    /// Peers whose connection opened, in order, and are still here.
    live: Vec<P>,
    /// Every peer whose connection ever opened.
    connected_once: HashSet<P>,
    spectators: HashSet<P>,
    /// Said `Hello` while another was being heard: the next candidates,
    /// with the `Hello` each sent.
    knocking: Vec<(P, Message)>,
    /// `Hello`s and `Watch`es from peers whose connection is not reported
    /// open yet (an answer sent now would be dropped), received again once
    /// it is.
    early: Vec<(P, Message)>,
    told_busy: HashSet<P>,
    out: Vec<Output<P>>,
}

impl<P: Copy + Ord + Hash + Debug> Room<P> {
    /// A player's room before its match: it seeks a partner with `hello`.
    pub fn seeking(game: &GameInfo, hello: Hello, delay: DelaySetting) -> Self {
        let mut room = Room::new(Phase::Seeking, Some((hello, delay)), None);
        room.game = Some(*game);
        room
    }

    /// A spectator's room: it listens to `player` only.
    pub fn watching(player: P) -> Self {
        let mut room = Room::new(Phase::Watching, None, Some(player));
        room.live.push(player);
        room.connected_once.insert(player);
        room
    }

    fn new(phase: Phase, hello: Option<(Hello, DelaySetting)>, partner: Option<P>) -> Self {
        Room {
            phase,
            game: None,
            hello,
            candidate: None,
            partner,
            live: Vec::new(),
            connected_once: HashSet::new(),
            spectators: HashSet::new(),
            knocking: Vec::new(),
            early: Vec::new(),
            told_busy: HashSet::new(),
            out: Vec::new(),
        }
    }

    #[cfg(test)]
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Who messages to the partner go to: the agreed partner, or the peer
    /// being heard.
    pub fn partner(&self) -> Option<P> {
        self.partner.or(self.candidate.as_ref().map(|c| c.peer))
    }

    /// Round trips measured with the peer being heard, and to measure
    /// (progress display).
    pub(crate) fn probes(&self) -> (u32, u32) {
        self.candidate
            .as_ref()
            .map_or((0, 0), |c| c.handshake.probes())
    }

    /// The result of the handshake with the peer being heard, if it ended
    /// (an agreement moves the room on, so this is a failure).
    pub(crate) fn candidate_outcome(&self) -> Option<&Result<Agreement, HandshakeError>> {
        self.candidate.as_ref()?.handshake.outcome()
    }

    /// Peers whose connection ever opened (a refused third player waits for
    /// both players' connections before leaving).
    pub(crate) fn connected_count(&self) -> usize {
        self.connected_once.len()
    }

    /// What to do, in order, since the last call.
    pub(crate) fn take_outputs(&mut self) -> Vec<Output<P>> {
        std::mem::take(&mut self.out)
    }

    /// The agreed partner dropped: wait for the player holding `hello`'s
    /// resume claim. Whoever said `Hello` before is heard again when it
    /// repeats it.
    pub fn pause(&mut self, hello: Hello, delay: DelaySetting) {
        self.phase = Phase::Paused;
        self.hello = Some((hello, delay));
        if let Some(partner) = self.partner.take() {
            self.forget(partner);
        }
        self.candidate = None;
        self.knocking.clear();
    }

    /// A peer's connection opened.
    ///
    /// matchbox sends only to peers it has reported connected, and data
    /// can arrive before that report: what a peer said before is acted on
    /// now, when an answer can reach it.
    pub fn connected(&mut self, peer: P, now: Instant) {
        self.connected_once.insert(peer);
        if !self.live.contains(&peer) {
            self.live.push(peer);
        }
        let (said, others) = std::mem::take(&mut self.early)
            .into_iter()
            .partition(|(p, _)| *p == peer);
        self.early = others;
        for (_, message) in said {
            self.received(peer, Ok(message), now);
        }
        // A newcomer is heard at once unless someone who said `Hello` is
        // being heard (dropping that handshake for every newcomer let three
        // players on a stock server each chase another and none agree).
        // Paused too: it may be the other keeper of this match, which
        // waits for a `Hello` as we do (both kept it for each other).
        let unheard = !self.spectators.contains(&peer) && self.partner().is_none();
        let free = (self.candidate.as_ref()).is_none_or(|c| !c.said_hello);
        if unheard && free && matches!(self.phase, Phase::Seeking | Phase::Paused) {
            self.hear(peer, None, now);
        }
    }

    /// A peer left the room (or its connection closed).
    pub fn disconnected(&mut self, peer: P, now: Instant) {
        self.forget(peer);
        if self.partner == Some(peer) {
            self.out.push(Output::PartnerLeft(peer));
            return;
        }
        match self.candidate.as_ref() {
            Some(c) if c.peer == peer => {
                let heard = c.heard;
                self.candidate = None;
                match self.phase {
                    // The peer we were hearing had spoken: the attempt ends.
                    Phase::Seeking if heard => self.out.push(Output::PartnerLeft(peer)),
                    // Silent (a spectator that left before its `Watch`), or
                    // a newcomer to a paused match: hear the next.
                    _ => self.hear_next(now),
                }
            }
            _ if !self.connected_once.contains(&peer) => {
                self.out.push(Output::LeftUnconnected(peer));
            }
            _ => {}
        }
    }

    /// A message (or bytes that did not decode) from `from`.
    pub fn received(&mut self, from: P, message: Result<Message, HandshakeError>, now: Instant) {
        if self.partner == Some(from) {
            self.out.push(Output::FromPartner(message));
            return;
        }
        if self.candidate.as_ref().is_some_and(|c| c.peer == from) {
            self.hear_candidate(from, message, now);
            return;
        }
        if let Ok(message) = &message
            && self.answer_later(from, message)
        {
            return;
        }
        let message = match message {
            Ok(message) => message.heard_as::<Stranger>(),
            // A peer of another version (a spectator, a third player) gets
            // an answer in ours, which it cannot read either: so its user
            // is told of a version mismatch instead of waiting in silence.
            Err(e @ HandshakeError::VersionMismatch { .. }) => {
                if self.phase != Phase::Watching {
                    let reason = e.to_string();
                    self.out
                        .push(Output::Send(from, Message::WatchRefused { reason }));
                }
                return;
            }
            Err(_) => return,
        };
        let watching = self.phase == Phase::Watching;
        match message {
            Heard::Expected(Stranger::Watch(watch)) => {
                if !watching {
                    self.knocking.retain(|(p, _)| *p != from);
                    self.add_spectator(from, watch);
                }
            }
            Heard::Expected(Stranger::Chat { text }) => {
                if !watching {
                    self.out.push(Output::OthersChat(from, text));
                }
            }
            Heard::Expected(Stranger::Hello(hello)) => {
                self.knock(from, Message::Hello(hello), now);
            }
            // Anything else from a stranger is not for us (a dropped
            // partner's last words, a `Busy` from a player we did not ask).
            Heard::Stray(_) => {}
        }
    }

    fn add_spectator(&mut self, peer: P, watch: Watch) {
        if self.spectators.len() < KEPT {
            self.spectators.insert(peer);
        }
        self.out.push(Output::Spectator(peer, watch));
    }

    /// Sends what the handshake has due at `now` and acts on its outcome.
    pub fn poll(&mut self, now: Instant) {
        let Some(candidate) = &mut self.candidate else {
            return;
        };
        let peer = candidate.peer;
        for message in candidate.handshake.poll(now) {
            self.out.push(Output::Send(peer, message));
        }
        self.check_outcome(now);
    }

    /// Keeps a `Watch`, or a `Hello` while a player is sought, from a peer
    /// whose connection is not reported open, for `connected`; one of each
    /// kind a peer.
    fn answer_later(&mut self, from: P, message: &Message) -> bool {
        if self.live.contains(&from) {
            return false;
        }
        let kept = match message {
            Message::Watch(_) => self.phase != Phase::Watching,
            Message::Hello(_) => matches!(self.phase, Phase::Seeking | Phase::Paused),
            _ => false,
        };
        let kind = std::mem::discriminant(message);
        let known =
            (self.early.iter()).any(|(p, m)| *p == from && std::mem::discriminant(m) == kind);
        if kept && !known && self.early.len() < KEPT {
            self.early.push((from, message.clone()));
        }
        kept
    }

    /// A stranger said `Hello`.
    fn knock(&mut self, from: P, hello: Message, now: Instant) {
        let hearing = self.candidate.as_ref();
        match self.phase {
            // Nobody is being heard: this one is (seeking, the partner that
            // turned out a spectator left no one else; paused, the first).
            Phase::Seeking | Phase::Paused if hearing.is_none() => {
                self.hear(from, Some(hello), now);
            }
            // The one being heard has not said `Hello`: a spectator whose
            // `Watch` is on its way, or a player that asked someone else (a
            // stock server seats three, each hearing the next). This one
            // asked us, so it is heard instead; the other is heard again if
            // it says `Hello` too.
            Phase::Seeking | Phase::Paused if !hearing.is_some_and(|c| c.said_hello) => {
                self.hear(from, Some(hello), now);
            }
            Phase::Paused => self.hold(from, hello),
            // Seeking, a lower id than the one being heard is heard instead,
            // and that one told a match is running: three players let in
            // by a stock server each heard another and told the third
            // `Busy`, and none agreed. By this rule the two lowest pair.
            Phase::Seeking if hearing.is_some_and(|c| from < c.peer) => {
                if let Some(dropped) = self.candidate.take() {
                    self.busy(dropped.peer);
                }
                self.hear(from, Some(hello), now);
            }
            Phase::Seeking | Phase::Playing => self.busy(from),
            // A player took us for its partner; our `Watch` went to another.
            Phase::Watching => {}
        }
    }

    fn hold(&mut self, from: P, hello: Message) {
        if !self.knocking.iter().any(|(p, _)| *p == from) && self.knocking.len() < KEPT {
            self.knocking.push((from, hello));
        }
    }

    fn busy(&mut self, peer: P) {
        if self.told_busy.len() < BUSY_LOGGED && self.told_busy.insert(peer) {
            tracing::info!("{peer:?} wants to play too; told it a match is running");
        }
        self.out.push(Output::Send(peer, Message::Busy));
    }

    /// Starts hearing `peer` with a fresh handshake (fed its `Hello` when it
    /// has sent one already).
    fn hear(&mut self, peer: P, hello: Option<Message>, now: Instant) {
        let (Some(game), Some((ours, delay))) = (&self.game, &self.hello) else {
            return;
        };
        self.candidate = Some(Candidate {
            peer,
            handshake: Handshake::new(game, ours.clone(), *delay),
            said_hello: false,
            heard: false,
            failed: false,
        });
        match hello {
            Some(hello) => self.hear_candidate(peer, Ok(hello), now),
            None => self.poll(now),
        }
    }

    /// The next peer to hear, after the one heard was a spectator, left or
    /// was refused: one that said `Hello` first, else (seeking) one that is
    /// connected and has not said what it is.
    fn hear_next(&mut self, now: Instant) {
        if !self.knocking.is_empty() {
            let (peer, hello) = self.knocking.remove(0);
            self.hear(peer, Some(hello), now);
            return;
        }
        if self.phase == Phase::Seeking
            && let Some(peer) = self
                .live
                .iter()
                .copied()
                .find(|p| !self.spectators.contains(p) && !self.told_busy.contains(p))
        {
            self.hear(peer, None, now);
        }
    }

    fn hear_candidate(&mut self, from: P, message: Result<Message, HandshakeError>, now: Instant) {
        let Some(candidate) = &mut self.candidate else {
            return;
        };
        candidate.heard = true;
        let message = match message {
            Ok(message) => message,
            Err(e) => {
                if self.phase == Phase::Paused {
                    tracing::warn!("{from:?} sent an unreadable handshake message: {e}");
                    self.candidate = None;
                    self.hear_next(now);
                } else {
                    self.out.push(Output::Malformed(from, e));
                }
                return;
            }
        };
        match message {
            // Before its `Watch` is heard (a player says `Hello` first).
            Message::Chat { text } if !candidate.said_hello => {
                self.out.push(Output::OthersChat(from, text));
            }
            Message::Watch(watch) => {
                tracing::info!("{from:?} is a spectator, not a player");
                self.candidate = None;
                self.add_spectator(from, watch);
                self.hear_next(now);
            }
            message => {
                if matches!(message, Message::Hello(_)) && !candidate.said_hello {
                    candidate.said_hello = true;
                    // A player for sure: in a new match, whoever else said
                    // `Hello` meanwhile is told a match is running.
                    if self.phase == Phase::Seeking {
                        for (peer, _) in std::mem::take(&mut self.knocking) {
                            self.busy(peer);
                        }
                    }
                }
                let Some(candidate) = &mut self.candidate else {
                    return;
                };
                if let Some(reply) = candidate.handshake.receive(now, message) {
                    self.out.push(Output::Send(from, reply));
                }
                self.poll(now);
            }
        }
    }

    /// Moves on when the handshake with the candidate has ended.
    fn check_outcome(&mut self, now: Instant) {
        let Some(candidate) = &mut self.candidate else {
            return;
        };
        let peer = candidate.peer;
        match candidate.handshake.outcome().cloned() {
            Some(Ok(agreement)) => {
                self.out.push(Output::Agreed(peer, agreement));
                self.candidate = None;
                self.partner = Some(peer);
                self.phase = Phase::Playing;
                for (peer, _) in std::mem::take(&mut self.knocking) {
                    self.busy(peer);
                }
            }
            Some(Err(e)) if self.phase == Phase::Paused => {
                // Our `Hello` (with the reason) has been sent; it leaves.
                tracing::warn!("refused {peer:?}, who came into the paused room: {e}");
                self.out.push(Output::Failed(peer, e));
                self.candidate = None;
                self.hear_next(now);
            }
            // The attempt is over; the candidate stays, so nothing else is
            // heard while the caller reports it.
            Some(Err(e)) if !candidate.failed => {
                candidate.failed = true;
                self.out.push(Output::Failed(peer, e));
            }
            Some(Err(_)) | None => {}
        }
    }

    /// `peer` is gone: out of every list.
    fn forget(&mut self, peer: P) {
        self.live.retain(|p| *p != peer);
        self.spectators.remove(&peer);
        self.knocking.retain(|(p, _)| *p != peer);
        self.early.retain(|(p, _)| *p != peer);
    }
}

#[cfg(test)]
#[path = "room_tests.rs"]
mod tests;
