//! The reliable control channel: the data channel every peer in the room
//! shares, read through a [`Room`] that decides who each peer is and what it
//! may send (`net::room`: the admission rule), and written on its behalf.
//!
//! What the room says is sorted here: messages to send go out (the
//! partner's through the simulated link, when one is set); the partner's
//! messages wait for [`ControlChannel::receive`]; spectators' `Watch`es and
//! chat wait for the session (`ControlChannel::take_watchers`,
//! `ControlChannel::take_others_chat`); the rest (agreed, refused, left)
//! are events for the connector or the session
//! (`ControlChannel::take_events`).
//!
//! When a bad link is simulated, messages to the partner are delayed like
//! GGRS packets (latency and jitter; never lost: the real channel is
//! reliable), so the latency probe measures the link the match will run
//! over.

use std::collections::VecDeque;
use web_time::Instant;

use matchbox_socket::{Packet, PeerId, PeerState, WebRtcChannel};

use super::handshake::{HandshakeError, Message, Watch};
use super::link_sim::{LinkConfig, LinkSim};
use super::room::{Output, Room};

/// What the channel hands over in one read: the partner's messages in
/// order, each decoded or not (the reader judges those that are not).
pub(crate) type Batch = Vec<Result<Message, HandshakeError>>;

pub struct ControlChannel {
    channel: WebRtcChannel,
    room: Room<PeerId>,
    /// Messages to a peer, delayed by the simulated link.
    link: Option<LinkSim<(PeerId, Packet)>>,
    /// The partner's messages not read yet.
    from_partner: VecDeque<Result<Message, HandshakeError>>,
    /// What the room said that is for the caller to act on.
    events: Vec<Output<PeerId>>,
    /// Spectators who sent `Watch` (with it) since the last take.
    watchers: Vec<(PeerId, Watch)>,
    /// `Chat` texts from peers other than the partner since the last take,
    /// and how many did not fit.
    others_chat: Vec<(PeerId, String)>,
    others_chat_overflow: u32,
    /// Bytes received from the partner (a spectator's `bytes_received`).
    pub bytes_received: u64,
}

/// Spectators' `Watch`es kept between two takes: each repeats every 500 ms
/// until answered, so dropping the excess loses nothing for long.
const WATCHERS_KEPT: usize = 64;

/// Spectators' chat messages kept between two takes (the session takes
/// them every frame; eight spectators within their rate send far fewer):
/// the excess is dropped and counted, so a flood costs no memory.
const OTHERS_CHAT_KEPT: usize = 64;

/// Events kept between two takes (peers coming and going on a stock
/// server without room caps); the oldest are dropped beyond this.
const EVENTS_KEPT: usize = 256;

impl ControlChannel {
    pub fn new(channel: WebRtcChannel, room: Room<PeerId>, link: LinkConfig, seed: u64) -> Self {
        // The real channel is reliable: what a cut holds back arrives
        // later, so only the delay is simulated here.
        let delay_only = LinkConfig {
            loss_pct: 0.0,
            dup_pct: 0.0,
            outage: None,
            trace: link.trace.as_ref().map(|t| t.delay_only()),
            ..link
        };
        ControlChannel {
            channel,
            room,
            link: (!delay_only.is_passthrough()).then(|| LinkSim::new(delay_only, seed)),
            from_partner: VecDeque::new(),
            events: Vec::new(),
            watchers: Vec::new(),
            others_chat: Vec::new(),
            others_chat_overflow: 0,
            bytes_received: 0,
        }
    }

    pub fn room(&self) -> &Room<PeerId> {
        &self.room
    }

    /// The partner dropped mid-match: the room waits for the player holding
    /// `hello`'s resume claim, and what the old partner left unread is
    /// dropped.
    pub fn pause(&mut self, hello: super::handshake::Hello, delay: super::delay::DelaySetting) {
        self.room.pause(hello, delay);
        self.from_partner.clear();
    }

    /// The peer messages to the partner go to, if any.
    pub fn partner(&self) -> Option<PeerId> {
        self.room.partner()
    }

    /// A change matchbox reported for a peer.
    pub(crate) fn peer_changed(&mut self, peer: PeerId, state: PeerState) {
        let now = Instant::now();
        match state {
            PeerState::Connected => self.room.connected(peer, now),
            PeerState::Disconnected => self.room.disconnected(peer, now),
        }
        self.route();
    }

    /// Reads what arrived, lets the room answer, and sends what is due.
    pub(crate) fn pump(&mut self) {
        self.flush();
        let now = Instant::now();
        for (from, packet) in self.channel.receive() {
            if Some(from) == self.room.partner() {
                self.bytes_received += packet.len() as u64;
            }
            let message = Message::decode(&packet);
            tracing::trace!("control in from {from}: {message:?}");
            self.room.received(from, message, now);
        }
        self.room.poll(now);
        self.route();
    }

    /// What the room decided since the last call that is not a message:
    /// `Agreed`, `Failed`, `Malformed`, `PartnerLeft`, `LeftUnconnected`.
    pub(crate) fn take_events(&mut self) -> Vec<Output<PeerId>> {
        std::mem::take(&mut self.events)
    }

    /// Messages received from the partner since the last call; ones that
    /// do not decode are errors for the caller to judge.
    pub fn receive(&mut self) -> Batch {
        self.pump();
        self.from_partner.drain(..).collect()
    }

    /// Puts messages taken by [`Self::receive`] back in front, in order,
    /// for the next reader (what followed a catch-up's end belongs to the
    /// match played on).
    pub(crate) fn unread(&mut self, messages: Batch) {
        for message in messages.into_iter().rev() {
            self.from_partner.push_front(message);
        }
    }

    /// Spectators who asked to watch since the last call, with their
    /// `Watch` (versions), in arrival order; repeats included.
    pub(crate) fn take_watchers(&mut self) -> Vec<(PeerId, Watch)> {
        std::mem::take(&mut self.watchers)
    }

    /// `Chat` texts from peers other than the partner since the last call,
    /// in arrival order, and how many more were dropped for lack of room.
    pub(crate) fn take_others_chat(&mut self) -> (Vec<(PeerId, String)>, u32) {
        (
            std::mem::take(&mut self.others_chat),
            std::mem::take(&mut self.others_chat_overflow),
        )
    }

    /// A way to send `message` to `to` from outside the match loop (a
    /// page's event handler, while the loop does not run), straight onto
    /// the channel: no simulated link delays it.
    pub(crate) fn sender_of(&self, to: PeerId, message: &Message) -> impl FnMut() + 'static {
        let sender = self.channel.sender_clone();
        let bytes: Packet = super::protocol::encode(message).into();
        move || {
            // A closed channel: the match is paused or over anyway.
            let _ = sender.unbounded_send((to, bytes.clone()));
        }
    }

    /// Sends to the partner (through the simulated link); never blocks.
    pub fn send(&mut self, message: &Message) {
        if let Some(partner) = self.room.partner() {
            self.send_through_link(partner, message);
        }
    }

    /// Sends to someone other than the partner (a spectator), at once and
    /// without the simulated link; never blocks. Returns the bytes sent.
    pub(crate) fn send_to(&mut self, to: PeerId, message: &Message) -> usize {
        let bytes = message.encode();
        let len = bytes.len();
        // A peer that left is dropped by the room when matchbox says so;
        // until then its messages go nowhere.
        let _ = self.channel.try_send(Packet::from(bytes), to);
        len
    }

    fn send_through_link(&mut self, to: PeerId, message: &Message) {
        tracing::trace!("control out to {to}: {message:?}");
        let packet = Packet::from(message.encode());
        match &mut self.link {
            Some(link) => link.push(Instant::now(), (to, packet)),
            // The peer may be gone; the caller learns that from the room.
            None => {
                let _ = self.channel.try_send(packet, to);
            }
        }
        self.flush();
    }

    /// Hands delayed messages whose time has come to the channel.
    pub fn flush(&mut self) {
        if let Some(link) = &mut self.link {
            for (to, packet) in link.pop_ready(Instant::now()) {
                let _ = self.channel.try_send(packet, to);
            }
        }
    }

    /// Carries out what the room said.
    fn route(&mut self) {
        for output in self.room.take_outputs() {
            match output {
                // Handshake messages go the partner's way (the link), a
                // `Busy` straight to the stranger.
                Output::Send(to, message) if Some(to) == self.room.partner() => {
                    self.send_through_link(to, &message);
                }
                Output::Send(to, message) => {
                    self.send_to(to, &message);
                }
                Output::FromPartner(message) => self.from_partner.push_back(message),
                Output::Spectator(peer, watch) => {
                    if self.watchers.len() < WATCHERS_KEPT {
                        self.watchers.push((peer, watch));
                    }
                }
                Output::OthersChat(peer, text) => {
                    if self.others_chat.len() < OTHERS_CHAT_KEPT {
                        self.others_chat.push((peer, text));
                    } else {
                        self.others_chat_overflow = self.others_chat_overflow.saturating_add(1);
                    }
                }
                event => {
                    if self.events.len() >= EVENTS_KEPT {
                        self.events.remove(0);
                    }
                    self.events.push(event);
                }
            }
        }
    }
}
