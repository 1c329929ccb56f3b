//! The reliable control channel to the other peer: handshake messages before
//! the match, end-of-match checksums and goodbyes during it.
//!
//! When a bad link is simulated, control messages are delayed like GGRS
//! packets (latency and jitter; never lost: the real channel is reliable),
//! so the latency probe measures the link the match will run over.
//!
//! Only the partner is listened to. Anyone else who says `Hello` (a third
//! player let into the room by a signaling server without room caps) is
//! answered `Busy`, so it can tell its user that a match is running instead
//! of waiting for a handshake that never comes. A `Watch` from anyone but
//! the partner is a spectator asking for the match: it is kept for the
//! session to take ([`ControlChannel::take_watchers`]), and the session
//! streams to it with [`ControlChannel::send_to`]. A spectator's `Chat` is
//! kept the same way ([`ControlChannel::take_others_chat`]) for the session
//! to check against the spectators it streams to.

use std::collections::HashSet;
use web_time::Instant;

use matchbox_socket::{Packet, PeerId, WebRtcChannel};

use super::handshake::{HandshakeError, Message};
use super::link_sim::{LinkConfig, LinkSim};

pub struct ControlChannel {
    channel: WebRtcChannel,
    peer: PeerId,
    link: Option<LinkSim<Packet>>,
    /// Peers already told `Busy`, so each is logged once.
    refused: HashSet<PeerId>,
    /// Spectators who sent `Watch` (with it) since the last take.
    watchers: Vec<(PeerId, Message)>,
    /// `Chat` texts from peers other than the partner since the last take,
    /// and how many did not fit.
    others_chat: Vec<(PeerId, String)>,
    others_chat_overflow: u32,
    /// Bytes received from the peer (a spectator's `bytes_received`).
    pub bytes_received: u64,
    /// While a paused match waits for its player: who said `Hello`, kept
    /// (not told `Busy`) for the session to check one by one.
    knocking: Option<Vec<PeerId>>,
}

/// Spectators' `Watch`es kept between two takes: each repeats every 500 ms
/// until answered, so dropping the excess loses nothing for long.
const WATCHERS_KEPT: usize = 64;

/// Spectators' chat messages kept between two takes (the session takes
/// them every frame; eight spectators within their rate send far fewer):
/// the excess is dropped and counted, so a flood costs no memory.
const OTHERS_CHAT_KEPT: usize = 64;

/// More refused peers than this are still answered, just not remembered.
const REFUSED_LOGGED: usize = 16;

impl ControlChannel {
    pub fn new(channel: WebRtcChannel, peer: PeerId, link: LinkConfig, seed: u64) -> Self {
        // The real channel is reliable: what a cut holds back arrives
        // later, so only the delay is simulated here.
        let delay_only = LinkConfig {
            loss_pct: 0.0,
            dup_pct: 0.0,
            outage: None,
            ..link
        };
        ControlChannel {
            channel,
            peer,
            link: (!delay_only.is_passthrough()).then(|| LinkSim::new(delay_only, seed)),
            refused: HashSet::new(),
            watchers: Vec::new(),
            others_chat: Vec::new(),
            others_chat_overflow: 0,
            bytes_received: 0,
            knocking: None,
        }
    }

    /// Keeps the peers other than the partner that say `Hello` for
    /// [`ControlChannel::take_knocking`] instead of answering `Busy` (`on`),
    /// or goes back to answering `Busy`.
    pub fn hold_hellos(&mut self, on: bool) {
        self.knocking = on.then(Vec::new);
    }

    /// Peers holding with a `Hello` (while holding them), not taken yet.
    pub fn knocking(&self) -> &[PeerId] {
        self.knocking.as_deref().unwrap_or_default()
    }

    /// Answers `Busy` to every peer held (but the partner) and goes back to
    /// answering at once: the partner has shown itself a player.
    pub fn refuse_knocking(&mut self) {
        for peer in self.take_knocking() {
            if peer != self.peer {
                self.refuse(peer);
            }
        }
        self.knocking = None;
    }

    /// Peers that said `Hello` since the last call (while holding them).
    pub fn take_knocking(&mut self) -> Vec<PeerId> {
        self.knocking
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// The peer this channel talks to.
    pub fn peer(&self) -> PeerId {
        self.peer
    }

    /// Spectators who asked to watch since the last call, with their
    /// `Watch` (versions), in arrival order; repeats included.
    pub fn take_watchers(&mut self) -> Vec<(PeerId, Message)> {
        std::mem::take(&mut self.watchers)
    }

    /// `Chat` texts from peers other than the partner since the last call,
    /// in arrival order, and how many more were dropped for lack of room.
    pub fn take_others_chat(&mut self) -> (Vec<(PeerId, String)>, u32) {
        (
            std::mem::take(&mut self.others_chat),
            std::mem::take(&mut self.others_chat_overflow),
        )
    }

    /// A spectator that turned out to be the peer (a player's connector
    /// took it for its partner): kept like any other `Watch`.
    pub fn add_watcher(&mut self, peer: PeerId, watch: Message) {
        if self.watchers.len() < WATCHERS_KEPT {
            self.watchers.push((peer, watch));
        }
    }

    /// Sends to someone other than the peer (a spectator), at once and
    /// without the simulated link; never blocks. Returns the bytes sent.
    pub fn send_to(&mut self, to: PeerId, message: &Message) -> usize {
        let bytes = message.encode();
        let len = bytes.len();
        // A spectator that left is dropped by the session when matchbox
        // says so; until then its messages go nowhere.
        let _ = self.channel.try_send(Packet::from(bytes), to);
        len
    }

    /// Talks to `peer` from now on (a player rejoining a paused match).
    pub fn set_peer(&mut self, peer: PeerId) {
        self.peer = peer;
        self.refused.remove(&peer);
    }

    pub fn send(&mut self, message: &Message) {
        tracing::trace!("control out: {message:?}");
        let packet = Packet::from(message.encode());
        let now = Instant::now();
        match &mut self.link {
            Some(link) => link.push(now, packet),
            None => {
                // The peer may be gone; the caller learns that from the
                // socket's peer state, not from here.
                let _ = self.channel.try_send(packet, self.peer);
            }
        }
        self.flush();
    }

    /// Hands delayed messages whose time has come to the channel.
    pub fn flush(&mut self) {
        if let Some(link) = &mut self.link {
            for packet in link.pop_ready(Instant::now()) {
                let _ = self.channel.try_send(packet, self.peer);
            }
        }
    }

    /// Messages received from the peer since the last call; ones that do
    /// not decode are returned as errors for the caller to judge. A `Hello`
    /// from any other peer is answered `Busy` here; its `Watch` and `Chat`
    /// are kept for the session; the rest of what other peers send is
    /// dropped.
    pub fn receive(&mut self) -> Vec<Result<Message, HandshakeError>> {
        self.flush();
        let mut from_partner = Vec::new();
        for (from, packet) in self.channel.receive() {
            if from == self.peer {
                self.bytes_received += packet.len() as u64;
                let message = Message::decode(&packet);
                tracing::trace!("control in: {message:?}");
                from_partner.push(message);
            } else {
                match Message::decode(&packet) {
                    Ok(Message::Hello(_)) => match &mut self.knocking {
                        Some(knocking) => {
                            if !knocking.contains(&from) && knocking.len() < WATCHERS_KEPT {
                                knocking.push(from);
                            }
                        }
                        None => self.refuse(from),
                    },
                    Ok(watch @ Message::Watch { .. }) => self.add_watcher(from, watch),
                    Ok(Message::Chat { text }) => {
                        if self.others_chat.len() < OTHERS_CHAT_KEPT {
                            self.others_chat.push((from, text));
                        } else {
                            self.others_chat_overflow = self.others_chat_overflow.saturating_add(1);
                        }
                    }
                    _ => {}
                }
            }
        }
        from_partner
    }

    fn refuse(&mut self, from: PeerId) {
        if self.refused.len() < REFUSED_LOGGED && self.refused.insert(from) {
            tracing::info!(
                "{from} wants to play too; told it a match with {} is running",
                self.peer
            );
        }
        let _ = self
            .channel
            .try_send(Packet::from(Message::Busy.encode()), from);
    }
}
