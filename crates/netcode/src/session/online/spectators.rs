//! Spectators, on the player who streams to them (the room's first player:
//! the signaling server introduces spectators to it alone). A spectator is
//! a replay still being written: it is sent the chat so far (`Relayed`
//! lines) and the confirmed match so far as the rejoin catch-up's replay
//! chunks, then every [`LIVE_BATCH`] newly confirmed frames as one more
//! chunk with the confirmed checksum, each chat line as it is said
//! (`room_chat.rs`), and `Done` (or `Bye`) at the end. It re-simulates and
//! checks them itself.
//!
//! Only the control channel carries any of it, to peers other than the
//! partner: the players' GGRS traffic and their own control messages do
//! not change. Sends never block (matchbox queues them); a spectator that
//! leaves is dropped when matchbox says so.

use crate::{Game, GameInfo, GameInput};
use std::collections::HashSet;

use matchbox_socket::PeerId;

use super::OnlineBackend;
use crate::Frame;
use crate::net::control::ControlChannel;
use crate::net::handshake::{Agreement, Message};
use crate::net::rejoin::{CHUNK_FRAMES, encode_catch_up, encode_frames};
use crate::net::signaling::PlayerName;
use crate::session::chat::{Chat, RateLimiter, same_name, spectator_name, unique_name};
use crate::session::frame_log::FrameLog;

/// Newly confirmed frames sent together (133 ms): each message costs ~6
/// bytes of envelope and chunk header, so 8 frames a message keep the
/// stream under 8 KB a minute with human-like play (6 cost 8.3) while the
/// spectator stays well under 0.3 s behind live.
pub(in crate::session) const LIVE_BATCH: Frame = 8;
/// Spectators streamed to at once: the signaling server's cap (a stock
/// server has none; beyond this a `Watch` is refused).
const MAX_SPECTATORS: usize = crate::net::signaling::MAX_SPECTATORS;
/// What a spectator the host removed is told.
const REMOVED: &str = "the room's host removed you from the room";
/// Refused spectators remembered so that each is logged once.
const REFUSED_LOGGED: usize = 16;

struct Spectator {
    peer: PeerId,
    /// Frames sent to it so far: 0..sent.
    sent: Frame,
    /// Its name in the room's chat, and the limit on its lines.
    name: String,
    chat_limit: RateLimiter,
}

#[derive(Default)]
pub(in crate::session) struct Spectators {
    list: Vec<Spectator>,
    refused: HashSet<PeerId>,
    /// Spectators the host removed (`/kick`): never streamed to again.
    removed: HashSet<PeerId>,
    /// Spectators ever streamed to, and the bytes sent to them.
    pub(in crate::session) served: u32,
    pub(in crate::session) bytes_sent: u64,
}

impl Spectators {
    pub(in crate::session) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The chat name and line limit of the spectator at `peer`, if we
    /// stream to it.
    pub(in crate::session) fn chat_of(&mut self, peer: PeerId) -> Option<(&str, &mut RateLimiter)> {
        let spectator = self.list.iter_mut().find(|s| s.peer == peer)?;
        Some((&spectator.name, &mut spectator.chat_limit))
    }

    /// Sends `message` to every spectator (counted in `bytes_sent`).
    pub(in crate::session) fn send_all(&mut self, control: &mut ControlChannel, message: &Message) {
        for spectator in &self.list {
            self.bytes_sent += control.send_to(spectator.peer, message) as u64;
        }
    }

    /// The peer of the spectator called `name` (any case), if we stream
    /// to it.
    pub(in crate::session) fn named(&self, name: &str) -> Option<PeerId> {
        let spectator = self.list.iter().find(|s| same_name(&s.name, name))?;
        Some(spectator.peer)
    }

    /// The host removed `peer`: it is told so (a `Bye`, which ends its
    /// watching with that reason) and sent nothing more, and a `Watch` of
    /// its is refused for the rest of the match (the server closes its
    /// signaling and keeps it out of the room).
    pub(in crate::session) fn remove(&mut self, control: &mut ControlChannel, peer: PeerId) {
        self.stop(peer);
        self.tell_removed(control, peer);
    }

    /// Stops streaming to `peer` for good, saying nothing yet: the host
    /// has asked the server to ban it, and tells it once the server has
    /// answered ([`tell_removed`](Self::tell_removed)).
    pub(in crate::session) fn stop(&mut self, peer: PeerId) {
        self.drop_peer(peer);
        self.removed.insert(peer);
    }

    /// Tells a removed spectator why the stream ended.
    pub(in crate::session) fn tell_removed(&mut self, control: &mut ControlChannel, peer: PeerId) {
        let reason = REMOVED.to_owned();
        self.bytes_sent += control.send_to(peer, &Message::Bye { reason }) as u64;
    }

    /// The removed spectator whose peer id reads `id` (a kick's answer).
    pub(in crate::session) fn removed_by_id(&self, id: &str) -> Option<PeerId> {
        self.removed.iter().copied().find(|p| p.to_string() == id)
    }

    /// A spectator's connection closed: nothing more to send it.
    pub(in crate::session) fn drop_peer(&mut self, peer: PeerId) -> bool {
        let before = self.list.len();
        self.list.retain(|s| s.peer != peer);
        before != self.list.len()
    }
}

/// What a new spectator is sent before the frames: the match's seed and
/// preset, and the chat so far.
pub(in crate::session) struct StreamStart<'a> {
    /// The game played: a spectator of another build is refused.
    pub game: &'a GameInfo,
    pub seed: u64,
    pub preset: &'a str,
    pub chat: &'a Chat,
    /// The players' names in the chat, player 1's first.
    pub players: [&'a str; 2],
}

impl Spectators {
    /// New spectators get the match so far; everyone gets the frames
    /// confirmed since, once there are [`LIVE_BATCH`] of them (all of them
    /// with `all`: the end of the match). `partner` is never a spectator.
    pub(in crate::session) fn serve<I: GameInput, const N: usize>(
        &mut self,
        control: &mut ControlChannel,
        partner: PeerId,
        start: &StreamStart<'_>,
        log: &FrameLog<I, N>,
        all: bool,
    ) {
        self.admit(control, partner, start, log);
        self.stream(control, log, all);
    }

    /// The end of the match (`Done`) or of this player's part in it
    /// (`Bye`, a failure): every spectator is told, after the last frames.
    pub(in crate::session) fn tell<I: GameInput, const N: usize>(
        &mut self,
        control: &mut ControlChannel,
        partner: PeerId,
        start: &StreamStart<'_>,
        log: &FrameLog<I, N>,
        message: &Message,
    ) {
        if self.is_empty() {
            return;
        }
        self.serve(control, partner, start, log, true);
        self.send_all(control, message);
    }

    /// Each newcomer that asked to watch: refused in words (another
    /// version, or the match is full), or sent the chat and the match so
    /// far and added to the list.
    fn admit<I: GameInput, const N: usize>(
        &mut self,
        control: &mut ControlChannel,
        partner: PeerId,
        start: &StreamStart<'_>,
        log: &FrameLog<I, N>,
    ) {
        for (peer, watch) in control.take_watchers() {
            if peer == partner || self.list.iter().any(|s| s.peer == peer) {
                continue;
            }
            if self.removed.contains(&peer) {
                let reason = REMOVED.to_owned();
                control.send_to(peer, &Message::WatchRefused { reason });
                continue;
            }
            if let Some(reason) = watch.mismatch(start.game) {
                if self.refused.len() < REFUSED_LOGGED && self.refused.insert(peer) {
                    tracing::warn!("refused spectator {peer}: {reason}");
                }
                control.send_to(peer, &Message::WatchRefused { reason });
                continue;
            }
            if self.list.len() >= MAX_SPECTATORS {
                let reason = format!("this match already has {MAX_SPECTATORS} spectators");
                control.send_to(peer, &Message::WatchRefused { reason });
                continue;
            }
            self.welcome(control, (peer, &watch.name), start, log);
        }
    }

    /// Sends a new spectator the stream's start, the chat so far and the
    /// confirmed match so far, and adds it to the list. It is called what
    /// it asked for (`wanted`) if that is a name, else `S1`, `S2`, ...; a
    /// name someone in the room has already gets ` (2)` after it.
    fn welcome<I: GameInput, const N: usize>(
        &mut self,
        control: &mut ControlChannel,
        (peer, wanted): (PeerId, &str),
        start: &StreamStart<'_>,
        log: &FrameLog<I, N>,
    ) {
        let Some(history) = log.history() else {
            return;
        };
        let wanted = match PlayerName::parse(wanted) {
            Ok(name) => name.to_string(),
            Err(_) => spectator_name(self.served + 1),
        };
        let spectators = self.list.iter().map(|s| s.name.as_str());
        let taken: Vec<&str> = start.players.into_iter().chain(spectators).collect();
        let name = unique_name(&wanted, &taken);
        let sent = history.inputs.len() as Frame;
        let streaming = Message::Streaming {
            seed: start.seed,
            preset: start.preset.to_string(),
            frame: sent,
            name: name.clone(),
            players: start.players.map(str::to_owned).to_vec(),
        };
        // The chat so far first: on the ordered channel, a spectator that
        // holds any of the frames then holds every line said before them,
        // and records each at its frame even when it fast-forwards through
        // them at once. (Sent after the frames, lines that arrived after
        // the fast-forward were recorded late; seen in tests/it/watch.rs on a
        // loaded machine.)
        let mut messages = vec![streaming];
        messages.extend(start.chat.history().map(|line| line.relayed()));
        messages.extend(encode_catch_up(
            &history.inputs,
            &history.checksums,
            log.confirmed_checksum(),
        ));
        // The end of a rejoin's catch-up; a spectator's goes on live.
        messages.pop();
        let bytes: usize = (messages.iter())
            .map(|message| control.send_to(peer, message))
            .sum();
        tracing::info!(
            "spectator {peer} ({name}) is watching; sent it the {sent} frames so far ({bytes} bytes)"
        );
        self.bytes_sent += bytes as u64;
        self.served += 1;
        self.list.push(Spectator {
            peer,
            sent,
            name,
            chat_limit: RateLimiter::for_peer(),
        });
    }

    /// The frames confirmed since each spectator's last batch, once there
    /// are [`LIVE_BATCH`] of them (all of them with `all`).
    fn stream<I: GameInput, const N: usize>(
        &mut self,
        control: &mut ControlChannel,
        log: &FrameLog<I, N>,
        all: bool,
    ) {
        if self.list.is_empty() {
            return;
        }
        let Some(history) = log.history() else {
            return;
        };
        let confirmed = history.inputs.len() as Frame;
        let checksum_after = |f: Frame| {
            if f == confirmed {
                log.confirmed_checksum()
            } else {
                let index = (f as usize / CHUNK_FRAMES).saturating_sub(1);
                history.checksums.get(index).copied().unwrap_or_default()
            }
        };
        for spectator in &mut self.list {
            let due = confirmed.saturating_sub(spectator.sent);
            if due == 0 || (due < LIVE_BATCH && !all) {
                continue;
            }
            let frames = &history.inputs[spectator.sent as usize..];
            if let Some(message) = encode_frames(spectator.sent, frames, checksum_after) {
                self.bytes_sent += control.send_to(spectator.peer, &message) as u64;
            }
            spectator.sent = confirmed;
        }
    }
}

impl<G: Game<N>, const N: usize> OnlineBackend<G, N> {
    /// [`Spectators::serve`], handed this match's parts.
    pub(super) fn serve_spectators(&mut self, log: &FrameLog<G::Input, N>, all: bool) {
        let start = stream_start(&G::INFO, &self.agreement, &self.audience.chat);
        let partner = self.ggrs.peer;
        (self.audience.spectators).serve(&mut self.wire.control, partner, &start, log, all);
    }

    /// [`Spectators::tell`], handed this match's parts.
    pub(super) fn tell_spectators(&mut self, log: &FrameLog<G::Input, N>, message: &Message) {
        let start = stream_start(&G::INFO, &self.agreement, &self.audience.chat);
        let partner = self.ggrs.peer;
        (self.audience.spectators).tell(&mut self.wire.control, partner, &start, log, message);
    }
}

/// What a new spectator of the match `agreement` made is sent before the
/// frames.
fn stream_start<'a>(
    game: &'a GameInfo,
    agreement: &'a Agreement,
    chat: &'a Chat,
) -> StreamStart<'a> {
    let (ours, theirs) = (chat.name(), chat.partner());
    StreamStart {
        game,
        seed: agreement.seed,
        preset: &agreement.preset,
        chat,
        players: match agreement.local_handle {
            0 => [ours, theirs],
            _ => [theirs, ours],
        },
    }
}
