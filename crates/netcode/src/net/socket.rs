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
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A real GGRS message, built through serde because its fields are
    /// private to ggrs.
    fn sample_messages() -> Vec<Message> {
        [
            r#"{"header":{"magic":4660},"body":{"SyncRequest":{"random_request":3735928559}}}"#,
            r#"{"header":{"magic":1},"body":"KeepAlive"}"#,
            r#"{"header":{"magic":65535},"body":{"Input":{"peer_connect_status":
                [{"disconnected":false,"last_frame":41},{"disconnected":true,"last_frame":-1}],
                "disconnect_requested":false,"start_frame":40,"ack_frame":39,
                "bytes":[6,1,0,5]}}}"#,
            r#"{"header":{"magic":7},"body":{"QualityReport":{"frame_advantage":-3,
                "ping":1234567890123}}}"#,
            r#"{"header":{"magic":7},"body":{"ChecksumReport":{"checksum":123456789,"frame":600}}}"#,
        ]
        .iter()
        .map(|json| serde_json::from_str(json).expect("sample message"))
        .collect()
    }

    #[test]
    fn encode_decode_round_trip() {
        for msg in sample_messages() {
            let bytes = encode(&msg).unwrap();
            assert_eq!(decode(&bytes), Some(msg));
        }
    }

    #[test]
    fn wire_format_is_matchbox_bincode2_standard() {
        // magic 1 as a one-byte varint, then variant 7 (KeepAlive): the bytes
        // matchbox's adapter would produce for the same message.
        let keep_alive = &sample_messages()[1];
        assert_eq!(encode(keep_alive).unwrap(), vec![1, 7]);
        // magic 4660 = 0x1234 needs the u16 varint marker 251.
        let sync = &sample_messages()[0];
        assert_eq!(&encode(sync).unwrap()[..4], &[251, 0x34, 0x12, 0]);
    }

    fn input_ack() -> Message {
        serde_json::from_str(r#"{"header":{"magic":4660},"body":{"InputAck":{"ack_frame":41}}}"#)
            .expect("sample ack")
    }

    #[test]
    fn message_kinds_are_read_after_either_magic_width() {
        let m = sample_messages();
        let kind = |msg: &Message| message_kind(&encode(msg).unwrap());
        // magic 65535 (3-byte varint) + Input; magic 4660 + InputAck; magic 1 + KeepAlive.
        assert_eq!(kind(&m[2]), Some(KIND_INPUT));
        assert_eq!(kind(&input_ack()), Some(KIND_INPUT_ACK));
        assert_eq!(kind(&m[1]), Some(7));
        assert_eq!(message_kind(&[]), None);
    }

    #[test]
    fn acks_right_after_an_input_are_coalesced_and_others_sent() {
        let (mut a, mut b) = socket_pair();
        let m = sample_messages();
        let (input, ack) = (&m[2], &input_ack());
        // No input sent yet: the ack goes out.
        a.send_to(ack, &1);
        a.send_to(input, &1);
        // Just after an input: the ack rides on it.
        a.send_to(ack, &1);
        assert_eq!(b.receive_all_messages().len(), 2);
        assert_eq!(a.stats().acks_coalesced, 1);
        assert_eq!(a.stats().packets_sent, 2);
        std::thread::sleep(ACK_COALESCE_WINDOW + web_time::Duration::from_millis(5));
        // The input is old now (this peer stalled): acks flow again.
        a.send_to(ack, &1);
        assert_eq!(b.receive_all_messages().len(), 1);
    }

    #[test]
    fn truncated_extended_and_empty_packets_are_rejected() {
        for msg in sample_messages() {
            let bytes = encode(&msg).unwrap();
            for cut in 0..bytes.len() {
                assert_eq!(decode(&bytes[..cut]), None, "{msg:?} cut at {cut}");
            }
            let mut longer = bytes.clone();
            longer.push(0);
            assert_eq!(decode(&longer), None);
        }
        assert_eq!(decode(&[0u8; MAX_PACKET_BYTES + 1]), None);
    }

    /// The copy of GGRS's wire layout in [`wire`] reads exactly the bytes
    /// GGRS writes, for every kind of message.
    #[test]
    fn the_wire_copy_reads_what_ggrs_writes() {
        let mut kinds = std::collections::HashSet::new();
        for msg in sample_messages()
            .into_iter()
            .chain([input_ack(), quality_reply(), sync_reply()])
        {
            let bytes = encode(&msg).unwrap();
            assert!(wire::check(&bytes), "{msg:?}");
            kinds.insert(message_kind(&bytes));
        }
        assert_eq!(kinds.len(), 8, "every message kind");
    }

    fn quality_reply() -> Message {
        serde_json::from_str(r#"{"header":{"magic":9},"body":{"QualityReply":{"pong":340282366920938463463374607431768211455}}}"#)
            .expect("sample reply")
    }

    fn sync_reply() -> Message {
        serde_json::from_str(r#"{"header":{"magic":9},"body":{"SyncReply":{"random_reply":7}}}"#)
            .expect("sample reply")
    }

    /// Messages that decode as GGRS messages but would panic GGRS (or make
    /// it allocate without bound) are dropped: the ggrs_session fuzzer's
    /// finding (fuzz/regressions/ggrs_datagram has the datagrams).
    #[test]
    fn input_runs_and_frames_ggrs_cannot_take_are_dropped() {
        let input = |bytes: &str, start: i64, last: i64| -> Message {
            serde_json::from_str(&format!(
                r#"{{"header":{{"magic":1}},"body":{{"Input":{{"peer_connect_status":
                [{{"disconnected":false,"last_frame":{last}}},{{"disconnected":false,"last_frame":0}}],
                "disconnect_requested":false,"start_frame":{start},"ack_frame":-1,"bytes":{bytes}}}}}}}"#
            ))
            .expect("an input message")
        };
        let accepted = |msg: &Message| decode(&encode(msg).unwrap()).is_some();
        assert!(accepted(&input("[6,1,0,5]", 0, 0)));
        assert!(accepted(&input("[]", wire::MAX_FRAME as i64, -1)));
        // A varint cut short, a literal past the end, a 10-byte varint.
        for bytes in [
            "[128]",
            "[200,1,1]",
            "[255,255,255,255,255,255,255,255,255,1]",
        ] {
            assert!(!accepted(&input(bytes, 0, 0)), "{bytes}");
        }
        // A run of 2^40 bytes (varint of 2^40 << 2 | 1).
        let mut run = Vec::new();
        let mut n: u64 = (1 << 42) | 1;
        while n >= 128 {
            run.push((n as u8 & 127) | 128);
            n >>= 7;
        }
        run.push(n as u8);
        assert!(!accepted(&input(&format!("{run:?}"), 0, 0)));
        // Frames GGRS would add to or subtract from past the i32 range.
        assert!(!accepted(&input("[6,1,0,5]", i32::MAX as i64, 0)));
        assert!(!accepted(&input("[6,1,0,5]", 0, i32::MAX as i64)));
        assert!(!accepted(&input("[6,1,0,5]", 0, -2)));
        let report: Message = serde_json::from_str(
            r#"{"header":{"magic":7},"body":{"ChecksumReport":{"checksum":1,"frame":-2147483648}}}"#,
        )
        .unwrap();
        assert!(!accepted(&report));
        // A pong from 1970: GGRS's round trip of 56 years overflowed.
        let reply: Message =
            serde_json::from_str(r#"{"header":{"magic":7},"body":{"QualityReply":{"pong":0}}}"#)
                .unwrap();
        assert!(!accepted(&reply));
        assert!(wire::pong_ok(1_000, 1_000 + wire::MAX_PONG_AGE_MS));
        assert!(!wire::pong_ok(999, 1_000 + wire::MAX_PONG_AGE_MS));
    }

    #[test]
    fn rle_lengths_are_read_like_bitfield_rle() {
        // Literal of 3, a run of 4 zero bytes, a run of 2 bytes of 255.
        assert_eq!(wire::rle_decoded_len(&[6, 1, 2, 3, 17, 11]), Some(9));
        assert_eq!(wire::rle_decoded_len(&[]), Some(0));
        assert_eq!(wire::rle_decoded_len(&[6, 1, 2]), None);
    }

    #[test]
    fn forged_length_prefix_does_not_allocate_wildly() {
        // magic 1, Input variant (2), then a Vec length of u64::MAX
        // (varint marker 253 + 8 bytes).
        let mut forged = vec![1u8, 2, 253];
        forged.extend_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(decode(&forged), None);
    }

    fn socket_pair() -> (GgrsSocket<MemoryChannel>, GgrsSocket<MemoryChannel>) {
        let (a, b) = memory_pair();
        (GgrsSocket::new(a), GgrsSocket::new(b))
    }

    #[test]
    fn messages_cross_and_are_counted() {
        let (mut a, mut b) = socket_pair();
        let msgs = sample_messages();
        let mut bytes = 0;
        for m in &msgs {
            a.send_to(m, &1);
            bytes += encode(m).unwrap().len() as u64;
        }
        let got = b.receive_all_messages();
        assert_eq!(got.len(), msgs.len());
        assert!(got.iter().all(|(from, _)| *from == 0));
        assert_eq!(got.into_iter().map(|(_, m)| m).collect::<Vec<_>>(), msgs);
        let sa = a.stats();
        let sb = b.stats();
        assert_eq!((sa.packets_sent, sa.bytes_sent), (msgs.len() as u64, bytes));
        assert_eq!(
            (sb.packets_received, sb.bytes_received),
            (msgs.len() as u64, bytes)
        );
        assert_eq!(sb.packets_dropped_malformed, 0);
    }

    #[test]
    fn garbage_is_dropped_and_counted_between_good_packets() {
        let (mut a, mut b) = socket_pair();
        let good = &sample_messages()[2];
        a.send_to(good, &1);
        a.send_raw(&1, &[0xFF; 40]).unwrap();
        a.send_raw(&1, &[]).unwrap();
        a.send_to(good, &1);
        let got = b.receive_all_messages();
        assert_eq!(got.len(), 2);
        let s = b.stats();
        assert_eq!(s.packets_received, 2);
        assert_eq!(s.packets_dropped_malformed, 2);
        assert_eq!(
            s.bytes_received,
            2 * encode(good).unwrap().len() as u64 + 40
        );
    }

    #[test]
    fn a_simulated_link_delays_and_loses_on_the_send_side() {
        let (a, b) = memory_pair();
        let link = LinkConfig {
            latency_ms: 10_000.0,
            ..Default::default()
        };
        let mut a = GgrsSocket::with_link(a, link, 1);
        let mut b = GgrsSocket::new(b);
        let msg = &sample_messages()[1];
        let sent_at = Instant::now();
        a.send_to(msg, &1);
        a.flush(Instant::now());
        assert!(b.receive_all_messages().is_empty(), "arrived before 10 s");
        // `flush` takes the clock as an argument: no sleeping in tests.
        a.flush(sent_at + web_time::Duration::from_millis(10_001));
        assert_eq!(b.receive_all_messages().len(), 1);
        assert_eq!(a.link_stats().unwrap().delivered, 1);

        let (c, d) = memory_pair();
        let lossy = LinkConfig {
            loss_pct: 100.0,
            ..Default::default()
        };
        let mut c = GgrsSocket::with_link(c, lossy, 2);
        let mut d = GgrsSocket::new(d);
        for _ in 0..10 {
            c.send_to(msg, &1);
        }
        c.flush(Instant::now());
        assert!(d.receive_all_messages().is_empty());
        // Sent counts what the game sent, lost or not.
        assert_eq!(c.stats().packets_sent, 10);
        assert_eq!(c.link_stats().unwrap().lost, 10);
        // A pass-through config adds no link at all.
        let (e, _f) = memory_pair();
        assert!(
            GgrsSocket::with_link(e, LinkConfig::default(), 3)
                .link_stats()
                .is_none()
        );
    }

    #[test]
    fn the_matchbox_socket_is_send() {
        // If ggrs's `sync-send` feature ever gets enabled, NonBlockingSocket
        // requires Send + Sync; keep the socket movable across threads.
        fn assert_send<T: Send>() {}
        assert_send::<GgrsSocket<WebRtcChannel>>();
        assert_send::<GgrsSocket<MemoryChannel>>();
    }

    /// Two matchbox sockets with one unreliable channel each, in the room
    /// at `url`, once each sees the other connected.
    async fn connected_pair(
        url: &str,
    ) -> (matchbox_socket::WebRtcSocket, matchbox_socket::WebRtcSocket) {
        use crate::net::signaling::{client_builder, no_ice_servers};
        let open = || {
            let (socket, message_loop) = client_builder(url, no_ice_servers())
                .add_unreliable_channel()
                .build();
            tokio::spawn(message_loop);
            socket
        };
        let (mut a, mut b) = (open(), open());
        while a.connected_peers().count() == 0 || b.connected_peers().count() == 0 {
            let _ = a.try_update_peers();
            let _ = b.try_update_peers();
            tokio::time::sleep(web_time::Duration::from_millis(20)).await;
        }
        (a, b)
    }

    /// The same socket over a real matchbox WebRTC channel on loopback:
    /// messages cross decoded, garbage is dropped and counted.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn ggrs_messages_cross_a_real_webrtc_channel() {
        use crate::net::room_code::RoomCode;
        use crate::net::signaling::room_url;
        use twinstar_signaling::bind;
        use web_time::Duration;

        tokio::time::timeout(Duration::from_secs(30), async {
            let server = bind(std::net::SocketAddr::from(([127, 0, 0, 1], 0)), None).unwrap();
            let url = room_url(
                &format!("ws://{}", server.local_addr()),
                Some(&RoomCode::parse("SCKTST").unwrap()),
            );
            let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
            let serving = tokio::spawn(server.serve(async {
                let _ = stopped.await;
            }));
            let (mut a, mut b) = connected_pair(&url).await;
            let b_id = b.id().unwrap();
            let mut ga = GgrsSocket::new(a.take_channel(0).unwrap());
            let mut gb = GgrsSocket::new(b.take_channel(0).unwrap());

            let msgs = sample_messages();
            ga.send_raw(&b_id, b"not a ggrs message").unwrap();
            for m in &msgs {
                ga.send_to(m, &b_id);
            }
            let mut got = Vec::new();
            while got.len() < msgs.len() || gb.stats().packets_dropped_malformed == 0 {
                got.extend(gb.receive_all_messages().into_iter().map(|(_, m)| m));
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            // The channel is unordered: compare as sets of debug strings.
            let mut want: Vec<String> = msgs.iter().map(|m| format!("{m:?}")).collect();
            let mut have: Vec<String> = got.iter().map(|m| format!("{m:?}")).collect();
            want.sort();
            have.sort();
            assert_eq!(have, want);
            assert_eq!(gb.stats().packets_dropped_malformed, 1);
            assert_eq!(gb.stats().bytes_received, ga.stats().bytes_sent + 18);
            drop((ga, gb, a, b));
            let _ = stop.send(());
            serving.await.unwrap().unwrap();
        })
        .await
        .expect("test timed out");
    }

    proptest! {
        #[test]
        fn random_garbage_never_panics_and_is_counted(
            packets in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..200), 1..20)
        ) {
            let (mut a, mut b) = socket_pair();
            let mut total = 0u64;
            for p in &packets {
                a.send_raw(&1, p).unwrap();
                total += p.len() as u64;
            }
            let got = b.receive_all_messages();
            let s = b.stats();
            prop_assert_eq!(s.bytes_received, total);
            prop_assert_eq!(s.packets_received, got.len() as u64);
            prop_assert_eq!(s.packets_received + s.packets_dropped_malformed, packets.len() as u64);
            // Whatever did decode is a message we can re-encode to the same bytes.
            for (_, m) in got {
                let again = encode(&m).unwrap();
                prop_assert_eq!(decode(&again), Some(m));
            }
        }

        #[test]
        fn mutated_real_packets_never_panic(
            index in 0usize..5, flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6)
        ) {
            let mut bytes = encode(&sample_messages()[index]).unwrap();
            for (at, xor) in flips {
                let i = at % bytes.len();
                bytes[i] ^= xor;
            }
            let _ = decode(&bytes);
        }
    }
}
