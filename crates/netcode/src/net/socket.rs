//! `GgrsSocket`: our GGRS transport over a matchbox data channel.
//!
//! matchbox_socket's own adapter (`impl NonBlockingSocket for WebRtcChannel`)
//! `expect()`s every packet to decode, so one malformed datagram from a peer
//! (a bug, a version skew, an attacker) panics the game. This wrapper uses
//! the same wire format but drops and counts what does not decode, counts
//! traffic (GGRS 0.13 no longer reports kbps), and can send through an
//! in-process `LinkSim` to simulate a bad link.
//!
//! Wire format: bincode 2, `config::standard()` (varint integers), exactly as
//! matchbox's adapter writes it, so a peer using that adapter interoperates.

use std::hash::Hash;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use web_time::Instant;

use bincode::config::{self, Configuration, LittleEndian, Varint};
use ggrs::{Message, NonBlockingSocket};
use matchbox_socket::{Packet, PeerId, WebRtcChannel};

use super::link_sim::{LinkConfig, LinkSim, LinkStats};
use super::link_trace::{LinkRecorder, LinkTrace};
use super::loss::{LossMeter, LossStats};

/// Largest datagram we try to decode. GGRS packets are a few dozen bytes; the
/// limit also bounds what a forged length prefix can make the decoder
/// allocate.
pub(crate) const MAX_PACKET_BYTES: usize = 64 * 1024;

/// Traffic through one socket since it was created.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SocketStats {
    /// Encoded GGRS bytes handed to the link (before simulated loss).
    pub bytes_sent: u64,
    /// Bytes of every datagram received, malformed ones included.
    pub bytes_received: u64,
    /// GGRS messages sent (before simulated loss or duplication).
    pub packets_sent: u64,
    /// GGRS messages received and decoded.
    pub packets_received: u64,
    /// Datagrams received that did not decode as a GGRS message: dropped.
    pub packets_dropped_malformed: u64,
    /// Messages the channel refused because its message loop is gone.
    pub send_failures: u64,
    /// Input acknowledgements not sent because an input message, which
    /// carries the same acknowledgement, went out just before.
    pub acks_coalesced: u64,
}

/// The live counters behind [`SocketStats`], shared so the session (which owns
/// the socket once GGRS has it) can still read them.
#[derive(Debug, Default)]
struct Counters {
    bytes_sent: AtomicU64,
    bytes_received: AtomicU64,
    packets_sent: AtomicU64,
    packets_received: AtomicU64,
    packets_dropped_malformed: AtomicU64,
    send_failures: AtomicU64,
    acks_coalesced: AtomicU64,
    /// Loss on the path from the other peer, from its input messages.
    loss: std::sync::Mutex<LossMeter>,
    /// `--record-link`: the link's conditions as heard, sample by sample.
    recorder: std::sync::Mutex<Option<LinkRecorder>>,
}

impl Counters {
    fn heard_input(&self, frame: i32) {
        self.meter().heard(frame);
    }

    fn recorder(&self) -> std::sync::MutexGuard<'_, Option<LinkRecorder>> {
        self.recorder.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A datagram that decoded, and its last input frame if it had one.
    fn heard(&self, now: Instant, input_frame: Option<i32>) {
        if let Some(recorder) = self.recorder().as_mut() {
            recorder.packet(now);
            if let Some(frame) = input_frame {
                recorder.input(now, frame);
            }
        }
    }

    fn meter(&self) -> std::sync::MutexGuard<'_, LossMeter> {
        // A panic while holding it cannot leave the meter half-changed in
        // a way that matters: it only counts.
        self.loss.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn add(counter: &AtomicU64, n: u64) -> u64 {
        counter.fetch_add(n, Ordering::Relaxed) + n
    }

    fn snapshot(&self) -> SocketStats {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        SocketStats {
            bytes_sent: get(&self.bytes_sent),
            bytes_received: get(&self.bytes_received),
            packets_sent: get(&self.packets_sent),
            packets_received: get(&self.packets_received),
            packets_dropped_malformed: get(&self.packets_dropped_malformed),
            send_failures: get(&self.send_failures),
            acks_coalesced: get(&self.acks_coalesced),
        }
    }
}

/// Reads a socket's traffic counters after the socket moved into GGRS.
#[derive(Clone, Debug)]
pub(crate) struct StatsHandle(Arc<Counters>);

impl StatsHandle {
    pub fn get(&self) -> SocketStats {
        self.0.snapshot()
    }

    /// Loss on the path from the other peer over the last 10 s, once 2 s
    /// of its input messages have been counted ([`LossMeter`]).
    pub fn loss(&self) -> Option<LossStats> {
        self.0.meter().stats()
    }

    /// The same over every frame counted so far.
    pub fn total_loss(&self) -> Option<LossStats> {
        self.0.meter().total()
    }

    /// Input messages from the other peer settled and lost so far.
    pub fn loss_counted(&self) -> (u64, u64) {
        self.0.meter().counts()
    }

    /// Starts recording the link's conditions (`--record-link`) at `now`,
    /// for a sender at `fps`, the round trip `rtt_ms` until GGRS measures
    /// one. A rejoin's new socket counting into these stats goes on with
    /// the same recording.
    pub fn record_link(&self, now: Instant, fps: u32, rtt_ms: f64) {
        let mut recorder = self.0.recorder();
        if recorder.is_none() {
            let mut new = LinkRecorder::new(fps, rtt_ms);
            new.start(now);
            *recorder = Some(new);
        }
    }

    /// Whether the link is being recorded.
    pub fn recording_link(&self) -> bool {
        self.0.recorder().is_some()
    }

    /// The session's latest round trip, for the recording (if any).
    pub fn record_measured(&self, now: Instant, rtt_ms: Option<f64>) {
        let loss = self.0.meter().counts();
        if let Some(recorder) = self.0.recorder().as_mut() {
            recorder.measured(now, rtt_ms, loss);
        }
    }

    /// The recording so far, if one was started and has a sample.
    pub fn link_trace(&self, now: Instant) -> Option<LinkTrace> {
        self.0.recorder().as_mut()?.trace(now)
    }
}

/// The transport under a [`GgrsSocket`]: a matchbox data channel in the game,
/// an in-memory pair in tests.
pub trait PacketChannel {
    /// How the channel names the other end.
    type Addr: Clone + PartialEq + Eq + Hash;

    /// Queues one datagram; `Err` when the transport is gone for good.
    fn send_packet(&mut self, to: &Self::Addr, packet: Packet) -> Result<(), ChannelClosed>;

    /// Every datagram received since the last call.
    fn receive_packets(&mut self) -> Vec<(Self::Addr, Packet)>;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the channel is closed")]
/// The channel is gone for good.
pub struct ChannelClosed;

impl PacketChannel for WebRtcChannel {
    type Addr = PeerId;

    fn send_packet(&mut self, to: &PeerId, packet: Packet) -> Result<(), ChannelClosed> {
        // `try_send`, not `send`: the latter panics once the socket's message
        // loop has ended (peer gone, runtime shutting down).
        self.try_send(packet, *to).map_err(|_| ChannelClosed)
    }

    fn receive_packets(&mut self) -> Vec<(PeerId, Packet)> {
        self.receive()
    }
}

/// One channel shared by successive GGRS sessions: a rejoin starts a new
/// session over the same WebRTC socket, and GGRS keeps a session's socket
/// for its whole life.
#[derive(Clone)]
pub(crate) struct SharedChannel(Arc<std::sync::Mutex<WebRtcChannel>>);

impl SharedChannel {
    pub fn new(channel: WebRtcChannel) -> Self {
        SharedChannel(Arc::new(std::sync::Mutex::new(channel)))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, WebRtcChannel> {
        // Every use is one call into the channel: a panic cannot leave it
        // half-changed.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl PacketChannel for SharedChannel {
    type Addr = PeerId;

    fn send_packet(&mut self, to: &PeerId, packet: Packet) -> Result<(), ChannelClosed> {
        self.lock().send_packet(to, packet)
    }

    fn receive_packets(&mut self) -> Vec<(PeerId, Packet)> {
        self.lock().receive_packets()
    }
}

const WIRE: Configuration<LittleEndian, Varint> = config::standard();

/// Encodes a GGRS message the way matchbox's adapter does. `None` only if
/// serde refuses the value, which GGRS's plain structs never make it do.
pub fn encode(msg: &Message) -> Option<Vec<u8>> {
    bincode::serde::encode_to_vec(msg, WIRE).ok()
}

/// Decodes one datagram; `None` for anything that is not exactly one
/// well-formed GGRS message (trailing bytes included: a real packet never
/// has any, so they mean corruption), or one GGRS itself would not survive
/// (see `wire::check`).
pub fn decode(bytes: &[u8]) -> Option<Message> {
    decode_inspected(bytes).map(|(msg, _)| msg)
}

/// [`decode`], and for an input message the frame of its last input.
fn decode_inspected(bytes: &[u8]) -> Option<(Message, wire::Inspected)> {
    if bytes.len() > MAX_PACKET_BYTES {
        return None;
    }
    let limited = WIRE.with_limit::<MAX_PACKET_BYTES>();
    match bincode::serde::decode_from_slice::<Message, _>(bytes, limited) {
        Ok((msg, used)) if used == bytes.len() => Some((msg, wire::inspect(bytes)?)),
        _ => None,
    }
}

/// What GGRS 0.13 trusts in a message and should not: found by fuzzing
/// (`fuzz/fuzz_targets/ggrs_session.rs`, docs/fuzzing.md). GGRS decodes an
/// input message's run-length-encoded bytes with `bitfield-rle`, which
/// indexes past the end of a cut varint (a panic), allocates whatever
/// length the runs claim, and overflows on long varints; and it adds to
/// and subtracts from the peer's frame numbers unchecked. A message whose
/// frames are outside `NULL_FRAME..=MAX_FRAME` or whose input bytes do not
/// decode within `MAX_PACKET_BYTES` is dropped here instead.
///
/// GGRS's message fields are private, so they are read again from the same
/// bytes through a copy of its wire layout; a unit test checks that copy
/// against GGRS's own encoding of every kind of message.
pub mod wire {
    use serde::Deserialize;

    use super::{MAX_PACKET_BYTES, WIRE};

    /// The largest frame number accepted: 2^30 frames is 207 days at
    /// 60 fps, and GGRS's arithmetic on frames near it stays in range.
    pub(crate) const MAX_FRAME: i32 = 1 << 30;
    const NULL_FRAME: i32 = -1;

    #[derive(Deserialize)]
    struct Message {
        _header: Header,
        body: Body,
    }

    #[derive(Deserialize)]
    struct Header {
        _magic: u16,
    }

    #[derive(Deserialize)]
    struct ConnectionStatus {
        _disconnected: bool,
        last_frame: i32,
    }

    #[derive(Deserialize)]
    struct Input {
        peer_connect_status: Vec<ConnectionStatus>,
        _disconnect_requested: bool,
        start_frame: i32,
        ack_frame: i32,
        bytes: Vec<u8>,
    }

    #[derive(Deserialize)]
    enum Body {
        SyncRequest { _random_request: u32 },
        SyncReply { _random_reply: u32 },
        Input(Input),
        InputAck { ack_frame: i32 },
        QualityReport { _frame_advantage: i16, _ping: u128 },
        QualityReply { pong: u128 },
        ChecksumReport { _checksum: u128, frame: i32 },
        KeepAlive,
    }

    /// The oldest `pong` accepted, in milliseconds before now. A pong is
    /// this peer's own clock reading sent in a quality report and echoed;
    /// GGRS takes now minus it as the round trip and multiplies half of
    /// that, in milliseconds, by the frame rate in an `i32`: a pong
    /// 10 hours old overflows. An hour is beyond any link GGRS keeps.
    pub(crate) const MAX_PONG_AGE_MS: u128 = 60 * 60 * 1000;

    fn now_ms() -> u128 {
        web_time::SystemTime::now()
            .duration_since(web_time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis())
    }

    /// A pong from the future is fine (GGRS saturates it to 0 ms).
    pub(crate) fn pong_ok(pong: u128, now_ms: u128) -> bool {
        now_ms.saturating_sub(pong) <= MAX_PONG_AGE_MS
    }

    fn frame_ok(frame: i32) -> bool {
        (NULL_FRAME..=MAX_FRAME).contains(&frame)
    }

    /// Whether GGRS can take this encoded message (already known to
    /// decode as one) without a panic or an unbounded allocation.
    #[cfg(test)]
    pub fn check(bytes: &[u8]) -> bool {
        inspect(bytes).is_some()
    }

    /// What [`check`] sees in a message GGRS can take: for an input
    /// message, the frame of the last input it carries (the sequence
    /// [`crate::net::loss::LossMeter`] counts); `None` for a message GGRS
    /// cannot take.
    pub(crate) fn inspect(bytes: &[u8]) -> Option<Inspected> {
        let limited = WIRE.with_limit::<MAX_PACKET_BYTES>();
        let (message, used) =
            bincode::serde::decode_from_slice::<Message, _>(bytes, limited).ok()?;
        if used != bytes.len() {
            return None;
        }
        let ok = match &message.body {
            Body::Input(input) => {
                frame_ok(input.start_frame)
                    && frame_ok(input.ack_frame)
                    && input
                        .peer_connect_status
                        .iter()
                        .all(|s| frame_ok(s.last_frame))
                    && rle_decoded_len(&input.bytes).is_some()
            }
            Body::InputAck { ack_frame } => frame_ok(*ack_frame),
            Body::ChecksumReport { frame, .. } => frame_ok(*frame),
            Body::QualityReply { pong } => pong_ok(*pong, now_ms()),
            Body::SyncRequest { .. }
            | Body::SyncReply { .. }
            | Body::QualityReport { .. }
            | Body::KeepAlive => true,
        };
        if !ok {
            return None;
        }
        let last_input_frame = match message.body {
            Body::Input(input) => last_input_frame(&input),
            _ => None,
        };
        Some(Inspected { last_input_frame })
    }

    /// What [`inspect`] read from an accepted message.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) struct Inspected {
        pub(crate) last_input_frame: Option<i32>,
    }

    /// The frame of an input message's last input: its inputs are
    /// delta-encoded one after another, each behind its length as a
    /// little-endian `u16` (ggrs's `compression::delta_encode`), then
    /// run-length encoded; `start_frame` is the first one's frame. `None`
    /// for a message without inputs, or one whose lengths do not add up.
    fn last_input_frame(input: &Input) -> Option<i32> {
        // Known to decode within MAX_PACKET_BYTES (`rle_decoded_len`).
        let delta = bitfield_rle::decode(&input.bytes).ok()?;
        let mut at = 0usize;
        let mut count = 0i32;
        while at < delta.len() {
            let len = u16::from_le_bytes([*delta.get(at)?, *delta.get(at + 1)?]);
            at = at.checked_add(2 + usize::from(len))?;
            count += 1;
        }
        (at == delta.len() && count > 0)
            .then(|| input.start_frame.checked_add(count - 1))
            .flatten()
    }

    /// The length `bitfield_rle::decode` would give these bytes, if it can
    /// decode them without a panic, an overflow or more than
    /// [`MAX_PACKET_BYTES`] of output. The format: varints `n`; `n & 1` a
    /// run of `n >> 2` bytes of 0 or 255 (`n & 2`), else `n >> 1` literal
    /// bytes following.
    pub(crate) fn rle_decoded_len(buf: &[u8]) -> Option<usize> {
        let mut at = 0;
        let mut len = 0usize;
        while at < buf.len() {
            let (next, size) = varint(&buf[at..])?;
            at += size;
            let slice = usize::try_from(if next & 1 == 1 { next >> 2 } else { next >> 1 }).ok()?;
            len = len.checked_add(slice).filter(|&l| l <= MAX_PACKET_BYTES)?;
            if next & 1 == 0 {
                at = at.checked_add(slice).filter(|&a| a <= buf.len())?;
            }
        }
        Some(len)
    }

    /// An LEB128 varint of at most 9 bytes (`varinteger` overflows past
    /// that) and its size; `None` if it is cut short or longer.
    fn varint(buf: &[u8]) -> Option<(u64, usize)> {
        let mut value = 0u64;
        for (i, &byte) in buf.iter().take(9).enumerate() {
            value |= u64::from(byte & 127) << (7 * i);
            if byte & 128 == 0 {
                return Some((value, i + 1));
            }
        }
        None
    }
}

/// GGRS's message kinds, as the variant index bincode writes after the
/// header (the order of ggrs 0.13's `MessageBody`).
const KIND_INPUT: u8 = 2;
const KIND_INPUT_ACK: u8 = 3;

/// The message kind of an encoded GGRS message: the byte after the
/// varint-encoded `u16` magic (one byte below 251, else 251 + two bytes).
fn message_kind(bytes: &[u8]) -> Option<u8> {
    let at = if *bytes.first()? < 251 { 1 } else { 3 };
    bytes.get(at).copied().filter(|&k| k < 251)
}

/// GGRS answers every input message with an `InputAck`, although its own
/// input messages carry the same `ack_frame`: while this peer sends inputs
/// every frame, the separate ack is redundant. Dropping it when an input
/// left this recently halves the packet rate; when this peer stalls or stops
/// sending inputs, acks flow again.
const ACK_COALESCE_WINDOW: web_time::Duration = web_time::Duration::from_millis(34);

/// How many malformed packets are logged at `warn` before going quiet; the
/// counter keeps counting. A flood must not flood the log too.
const MALFORMED_WARNINGS: u64 = 5;

/// A GGRS `NonBlockingSocket` over a [`PacketChannel`] (by default a matchbox
/// [`WebRtcChannel`], address [`PeerId`]).
pub struct GgrsSocket<C: PacketChannel = WebRtcChannel> {
    channel: C,
    link: Option<LinkSim<(C::Addr, Packet)>>,
    stats: Arc<Counters>,
    /// When the last GGRS input message was sent (for ack coalescing).
    last_input_sent: Option<Instant>,
}

impl<C: PacketChannel> GgrsSocket<C> {
    /// A socket that sends straight to the channel.
    pub fn new(channel: C) -> Self {
        GgrsSocket {
            channel,
            link: None,
            stats: Arc::default(),
            last_input_sent: None,
        }
    }

    /// A socket whose outgoing packets cross a simulated link first. Only
    /// the send side is degraded: give both peers a link of half the wanted
    /// round-trip latency. A pass-through config adds no link at all.
    pub(crate) fn with_link(channel: C, config: LinkConfig, seed: u64) -> Self {
        let mut socket = Self::new(channel);
        if !config.is_passthrough() {
            socket.link = Some(LinkSim::new(config, seed));
        }
        socket
    }

    /// Bytes and datagrams sent and received so far.
    pub fn stats(&self) -> SocketStats {
        self.stats.snapshot()
    }

    /// Counts into `stats` (a rejoin's new socket adds to the match's totals).
    pub(crate) fn counting_into(mut self, stats: &StatsHandle) -> Self {
        self.stats = Arc::clone(&stats.0);
        self
    }

    /// A handle that keeps reading the counters after GGRS took the socket.
    pub(crate) fn stats_handle(&self) -> StatsHandle {
        StatsHandle(Arc::clone(&self.stats))
    }

    /// What the simulated link did, if there is one.
    pub fn link_stats(&self) -> Option<LinkStats> {
        self.link.as_ref().map(LinkSim::stats)
    }

    /// Hands the simulated link's due packets to the channel. GGRS calls
    /// `send_to`/`receive_all_messages` every poll, and both flush, so the
    /// simulated delay is as fine as the caller's polling (call this, or
    /// `poll_remote_clients`, often when simulating a link).
    pub fn flush(&mut self, now: Instant) {
        let Some(link) = self.link.as_mut() else {
            return;
        };
        for (to, packet) in link.pop_ready(now) {
            if self.channel.send_packet(&to, packet).is_err() {
                Counters::add(&self.stats.send_failures, 1);
            }
        }
    }

    /// Sends raw bytes, bypassing encoding, the link and the counters: a
    /// debugging and test aid to put garbage on the wire.
    pub fn send_raw(&mut self, to: &C::Addr, bytes: &[u8]) -> Result<(), ChannelClosed> {
        self.channel.send_packet(to, Packet::from(bytes.to_vec()))
    }
}

impl<C: PacketChannel> NonBlockingSocket<C::Addr> for GgrsSocket<C> {
    fn send_to(&mut self, msg: &Message, addr: &C::Addr) {
        let Some(bytes) = encode(msg) else {
            Counters::add(&self.stats.send_failures, 1);
            tracing::error!("could not encode a GGRS message: {msg:?}");
            return;
        };
        let now = Instant::now();
        match message_kind(&bytes) {
            Some(KIND_INPUT) => self.last_input_sent = Some(now),
            Some(KIND_INPUT_ACK)
                if self
                    .last_input_sent
                    .is_some_and(|t| now.duration_since(t) < ACK_COALESCE_WINDOW) =>
            {
                Counters::add(&self.stats.acks_coalesced, 1);
                return;
            }
            _ => {}
        }
        Counters::add(&self.stats.packets_sent, 1);
        Counters::add(&self.stats.bytes_sent, bytes.len() as u64);
        let packet = Packet::from(bytes);
        match self.link.as_mut() {
            Some(link) => {
                link.push(now, (addr.clone(), packet));
                self.flush(now);
            }
            None => {
                if self.channel.send_packet(addr, packet).is_err() {
                    Counters::add(&self.stats.send_failures, 1);
                }
            }
        }
    }

    fn receive_all_messages(&mut self) -> Vec<(C::Addr, Message)> {
        self.flush(Instant::now());
        let packets = self.channel.receive_packets();
        let mut messages = Vec::with_capacity(packets.len());
        for (from, packet) in packets {
            Counters::add(&self.stats.bytes_received, packet.len() as u64);
            match decode_inspected(&packet) {
                Some((msg, seen)) => {
                    Counters::add(&self.stats.packets_received, 1);
                    if let Some(frame) = seen.last_input_frame {
                        self.stats.heard_input(frame);
                    }
                    self.stats.heard(Instant::now(), seen.last_input_frame);
                    messages.push((from, msg));
                }
                None => {
                    let n = Counters::add(&self.stats.packets_dropped_malformed, 1);
                    if n <= MALFORMED_WARNINGS {
                        tracing::warn!(
                            "dropped a malformed GGRS packet of {} bytes ({n} so far{})",
                            packet.len(),
                            if n == MALFORMED_WARNINGS {
                                "; not logging further ones"
                            } else {
                                ""
                            }
                        );
                    }
                }
            }
        }
        messages
    }
}

/// An in-memory, lossless, unordered-capable channel pair for tests and
/// benchmarks that need GGRS traffic without WebRTC. Addresses are the
/// endpoint numbers 0 and 1.
pub struct MemoryChannel {
    me: u8,
    inbox: std::sync::Arc<std::sync::Mutex<Vec<(u8, Packet)>>>,
    outbox: std::sync::Arc<std::sync::Mutex<Vec<(u8, Packet)>>>,
}

/// Two connected [`MemoryChannel`]s: endpoint 0 and endpoint 1.
pub fn memory_pair() -> (MemoryChannel, MemoryChannel) {
    let a = std::sync::Arc::default();
    let b = std::sync::Arc::default();
    (
        MemoryChannel {
            me: 0,
            inbox: std::sync::Arc::clone(&a),
            outbox: std::sync::Arc::clone(&b),
        },
        MemoryChannel {
            me: 1,
            inbox: b,
            outbox: a,
        },
    )
}

impl PacketChannel for MemoryChannel {
    type Addr = u8;

    fn send_packet(&mut self, _to: &u8, packet: Packet) -> Result<(), ChannelClosed> {
        // A poisoned lock means the other end panicked: treat it as closed.
        let mut outbox = self.outbox.lock().map_err(|_| ChannelClosed)?;
        outbox.push((self.me, packet));
        Ok(())
    }

    fn receive_packets(&mut self) -> Vec<(u8, Packet)> {
        match self.inbox.lock() {
            Ok(mut inbox) => std::mem::take(&mut *inbox),
            Err(_) => Vec::new(),
        }
    }
}

#[cfg(test)]
#[path = "socket_tests.rs"]
mod tests;
