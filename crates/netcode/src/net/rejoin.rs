//! The catch-up of a rejoining player: the match so far, sent by the player
//! who stayed, as the wire's input chunks (`net::protocol::chunk`:
//! run-length encoded inputs and the state checksum after each chunk), a
//! minute of play per [`Message::CatchUp`]. The receiver re-simulates them and checks
//! every chunk's checksum, so no trusted state crosses the wire; bytes from
//! the network are decoded with bounds before anything is allocated.

use serde::{Deserialize, Serialize};

use super::control::Batch;
use bytemuck::Pod;

use super::handshake::{HandshakeError, Message};
use super::protocol::chunk::{self, Chunk};
use super::protocol::phase::{CatchingUp, Heard};
use crate::Frame;

pub(crate) use super::protocol::chunk::CHUNK_FRAMES;

/// A rejoin ticket as it is stored (`app::tickets` keeps one per player
/// slot while a match runs, in a file of the data folder or the page's
/// local storage): match `match_id`, player `player`, on `server`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ticket {
    /// The signaling server the match was played through.
    pub server: String,
    /// The match, as its agreement named it.
    pub match_id: u64,
    /// The player's number in it, 1 or 2.
    pub player: u8,
    /// The game's version that played it (another build cannot rejoin).
    pub version: String,
    /// Unix seconds.
    pub saved_at: u64,
    /// The player's seat token (`net::signaling::seat`, 32 hex digits): a
    /// game restarted after a power loss presents it and takes the seat
    /// back from its old, silent connection at once. Absent in tickets
    /// written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<String>,
}

impl Ticket {
    /// A stored ticket's text, as read back: anything else is an error.
    pub fn parse(text: &str) -> Result<Ticket, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// The text to store.
    pub fn to_text(&self) -> String {
        // Strings and integers always serialise.
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Chunks per message: one minute of play, about 2 KB (at most 60 chunks
/// of 5 + 1 + 2 × 2 × 60 + 17 bytes, 16 KB: under the envelope's cap).
const CHUNKS_PER_MESSAGE: usize = 60;
/// The longest match a rejoiner accepts: four hours (1.7 MB of inputs).
pub(crate) const MAX_CATCH_UP_FRAMES: usize = 4 * 60 * 60 * 60;

/// Why a catch-up (the frames of a match so far, sent to a rejoining
/// player or a spectator) was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CatchUpError {
    /// A chunk that does not decode: the byte it failed at, and why.
    #[error("catch-up chunk at byte {0}: {1}")]
    BadChunk(usize, &'static str),
    /// A chunk that does not start where the previous one ended.
    #[error("catch-up chunk starts at frame {got}, expected {expected}")]
    OutOfOrder {
        /// The frame after the previous chunk.
        expected: Frame,
        /// The chunk's first frame.
        got: Frame,
    },
    /// More frames than a rejoiner accepts (four hours).
    #[error("the match to catch up on is longer than {MAX_CATCH_UP_FRAMES} frames")]
    TooLong,
    /// The sender's end does not match the frames that arrived.
    #[error("the catch-up ended at frame {sent}, but {received} frames arrived")]
    Incomplete {
        /// The frame count its end names.
        sent: Frame,
        /// The frames received.
        received: Frame,
    },
}

/// The confirmed frames `0..inputs.len()` as catch-up messages, ending with
/// [`Message::CaughtUp`]. `checksums[i]` is the state checksum after frame
/// `(i + 1) × CHUNK_FRAMES`; `last` the one after the last frame.
pub fn encode_catch_up<I: Pod + PartialEq, const N: usize>(
    inputs: &[[I; N]],
    checksums: &[u128],
    last: u128,
) -> Vec<Message> {
    encode_catch_up_after(0, inputs, checksums, last)
}

/// [`encode_catch_up`] for a receiver that has confirmed `known` frames
/// already: only the chunks from the one holding frame `known` on (the
/// receiver checks that the frames it knows agree).
pub(crate) fn encode_catch_up_after<I: Pod + PartialEq, const N: usize>(
    known: Frame,
    inputs: &[[I; N]],
    checksums: &[u128],
    last: u128,
) -> Vec<Message> {
    let mut messages = Vec::new();
    let first = known as usize / CHUNK_FRAMES;
    let chunks: Vec<_> = (inputs.chunks(CHUNK_FRAMES).enumerate())
        .skip(first)
        .collect();
    for group in chunks.chunks(CHUNKS_PER_MESSAGE) {
        let mut bytes = Vec::new();
        for (index, frames) in group {
            let start = (index * CHUNK_FRAMES) as Frame;
            let checksum = match checksums.get(*index) {
                Some(c) if frames.len() == CHUNK_FRAMES => *c,
                _ => last,
            };
            chunk::encode(start, frames, Some(checksum), &mut bytes);
        }
        messages.push(Message::CatchUp { chunks: bytes });
    }
    messages.push(Message::CaughtUp {
        frame: inputs.len() as Frame,
        checksum: last,
    });
    messages
}

/// Frames `start..start + inputs.len()` as one `CatchUp` message: chunks
/// that end at multiples of `CHUNK_FRAMES` or at the last frame; one that
/// ends on the grid carries `checksum_after(f)`, the world's checksum after
/// its last frame `f` (the receiver checks its world once a second). Empty
/// `inputs` give no message.
pub fn encode_frames<I: Pod + PartialEq, const N: usize>(
    start: Frame,
    inputs: &[[I; N]],
    checksum_after: impl Fn(Frame) -> u128,
) -> Option<Message> {
    let mut bytes = Vec::new();
    let mut at = 0usize;
    while at < inputs.len() {
        let first = start as usize + at;
        let boundary = (first / CHUNK_FRAMES + 1) * CHUNK_FRAMES;
        let end = (boundary - start as usize).min(inputs.len());
        let last = start as usize + end;
        let checksum = last
            .is_multiple_of(CHUNK_FRAMES)
            .then(|| checksum_after(last as Frame));
        chunk::encode(first as Frame, &inputs[at..end], checksum, &mut bytes);
        at = end;
    }
    (!bytes.is_empty()).then_some(Message::CatchUp { chunks: bytes })
}

/// Why a batch of catch-up messages was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CatchUpReadError {
    /// A message that does not decode.
    #[error(transparent)]
    Message(#[from] HandshakeError),
    /// Frames that cannot be caught up on.
    #[error(transparent)]
    CatchUp(#[from] CatchUpError),
}

/// Collects catch-up messages of `N` players' inputs `I`, in order.
pub struct CatchUpReceiver<I, const N: usize> {
    chunks: Vec<Chunk<I, N>>,
    frames: usize,
    /// The frames the receiver has confirmed itself (see [`Self::after`]).
    known: usize,
    /// Payload bytes received, for the summary.
    pub bytes: usize,
}

impl<I, const N: usize> Default for CatchUpReceiver<I, N> {
    fn default() -> Self {
        CatchUpReceiver {
            chunks: Vec::new(),
            frames: 0,
            known: 0,
            bytes: 0,
        }
    }
}

/// The match so far, decoded: every chunk with its checksum.
pub struct History<I, const N: usize> {
    /// The chunks, in order.
    pub chunks: Vec<Chunk<I, N>>,
    /// Frames in all.
    pub frames: Frame,
    /// The world's checksum after the last frame.
    pub checksum: u128,
    /// Payload bytes received, for the summary.
    pub bytes: usize,
}

impl<I: Pod, const N: usize> CatchUpReceiver<I, N> {
    /// A receiver that has confirmed `known` frames: the chunks start at
    /// the one holding frame `known` (`encode_catch_up_after`), and a
    /// sender that knows no more sends none.
    pub fn after(known: Frame) -> Self {
        let known = known as usize;
        CatchUpReceiver {
            frames: known / CHUNK_FRAMES * CHUNK_FRAMES,
            known,
            ..CatchUpReceiver::default()
        }
    }

    /// One `CatchUp` message's payload.
    pub fn add(&mut self, bytes: &[u8]) -> Result<(), CatchUpError> {
        // A receiver that already refused a message as too long stays
        // refused (rather than an underflow).
        if self.frames >= MAX_CATCH_UP_FRAMES {
            return Err(CatchUpError::TooLong);
        }
        self.bytes += bytes.len();
        let mut at = 0;
        while at < bytes.len() {
            let (chunk, used) =
                chunk::decode(&bytes[at..]).map_err(|e| CatchUpError::BadChunk(at, e))?;
            if chunk.start as usize != self.frames {
                return Err(CatchUpError::OutOfOrder {
                    expected: self.frames as Frame,
                    got: chunk.start,
                });
            }
            self.frames += chunk.frames.len();
            if self.frames > MAX_CATCH_UP_FRAMES {
                return Err(CatchUpError::TooLong);
            }
            self.chunks.push(chunk);
            at += used;
        }
        Ok(())
    }

    /// The chunks received since the last call (a spectator steps them as
    /// they come); the count of frames received goes on.
    pub fn take_chunks(&mut self) -> Vec<Chunk<I, N>> {
        std::mem::take(&mut self.chunks)
    }

    /// Frames received so far.
    pub fn frames(&self) -> Frame {
        self.frames as Frame
    }

    /// One batch of what the other player said while we catch up: its
    /// chunks are added; at its `CaughtUp`, the finished history, with the
    /// messages that followed in the same batch. Those belong to the match
    /// played on (its `Done` if the match was already at its end, a `Bye`,
    /// chat) and go back to the channel for the playing phase to read.
    /// Other phases' messages before it (the handshake's last `Pong`s) are
    /// dropped.
    pub fn read(
        &mut self,
        batch: Batch,
    ) -> Result<Option<(History<I, N>, Batch)>, CatchUpReadError> {
        let mut batch = batch.into_iter();
        while let Some(received) = batch.next() {
            let Heard::Expected(message) = received?.heard_as::<CatchingUp>() else {
                continue;
            };
            match message {
                CatchingUp::CatchUp { chunks } => self.add(&chunks)?,
                CatchingUp::CaughtUp { frame, checksum } => {
                    let history = std::mem::take(self).finish(frame, checksum)?;
                    return Ok(Some((history, batch.collect())));
                }
            }
        }
        Ok(None)
    }

    /// The `CaughtUp` message: everything must have arrived.
    pub fn finish(self, frame: Frame, checksum: u128) -> Result<History<I, N>, CatchUpError> {
        // A sender that knows no more than we do sends no chunk at all (the
        // chunks may have been taken already: count frames, not chunks).
        let received_none = self.frames == self.known / CHUNK_FRAMES * CHUNK_FRAMES;
        let nothing_new = received_none && frame as usize <= self.known;
        if frame as usize != self.frames && !nothing_new {
            return Err(CatchUpError::Incomplete {
                sent: frame,
                received: self.frames as Frame,
            });
        }
        Ok(History {
            chunks: self.chunks,
            frames: frame,
            checksum,
            bytes: self.bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two players' one-byte inputs, as twinstar's.
    type Receiver = CatchUpReceiver<u8, 2>;

    fn inputs(n: usize) -> Vec<[u8; 2]> {
        (0..n)
            .map(|i| [(i / 7) as u8 & 0x3f, (i / 13) as u8 & 0x3f])
            .collect()
    }

    fn receive(messages: &[Message]) -> Result<History<u8, 2>, CatchUpError> {
        let mut receiver = Receiver::default();
        for message in messages {
            match message {
                Message::CatchUp { chunks } => receiver.add(chunks)?,
                Message::CaughtUp { frame, checksum } => {
                    return receiver.finish(*frame, *checksum);
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        panic!("no CaughtUp");
    }

    #[test]
    fn the_match_so_far_arrives_whole_with_its_checksums() {
        let sent = inputs(7_385);
        let checksums: Vec<u128> = (1..=123).map(|i| i * 1000).collect();
        let messages = encode_catch_up(&sent, &checksums, 42);
        // 124 chunks, 60 a message, and the end.
        assert_eq!(messages.len(), 4);
        let history = receive(&messages).unwrap();
        assert_eq!((history.frames, history.checksum), (7_385, 42));
        let got: Vec<_> = history
            .chunks
            .iter()
            .flat_map(|c| c.frames.iter().copied())
            .collect();
        assert_eq!(got, sent);
        assert_eq!(history.chunks[0].checksum, Some(1000));
        assert_eq!(history.chunks[122].checksum, Some(123_000));
        // The partial last chunk carries the final checksum.
        assert_eq!(history.chunks[123].checksum, Some(42));
    }

    #[test]
    fn live_frames_follow_the_match_so_far_in_chunks_ending_on_the_grid() {
        let sent = inputs(200);
        let checksum_after = |f: Frame| u128::from(f) * 7;
        // The first 100 frames as a rejoin would get them, minus the end.
        let mut messages = encode_catch_up(&sent[..100], &[60 * 7], 100 * 7);
        assert!(matches!(messages.pop(), Some(Message::CaughtUp { .. })));
        // Then 100..106, 106..130 (crosses frame 120), 130..200.
        for (a, b) in [(100, 106), (106, 130), (130, 200)] {
            messages.push(encode_frames(a, &sent[a as usize..b], checksum_after).unwrap());
        }
        assert!(encode_frames::<u8, 2>(200, &[], checksum_after).is_none());
        let mut receiver = Receiver::default();
        let mut chunks = Vec::new();
        for message in &messages {
            let Message::CatchUp { chunks: text } = message else {
                panic!("{message:?}")
            };
            receiver.add(text).unwrap();
            chunks.extend(receiver.take_chunks());
        }
        assert_eq!(receiver.frames(), 200);
        let ends: Vec<_> = chunks
            .iter()
            .map(|c| (c.start + c.frames.len() as Frame, c.checksum))
            .collect();
        // The catch-up's chunks all carry one (100: its end); live ones
        // only on the 60-frame grid.
        let want: Vec<_> = [60, 100, 106, 120, 130, 180, 200]
            .into_iter()
            .map(|f| (f, (f % 60 == 0 || f == 100).then(|| checksum_after(f))))
            .collect();
        assert_eq!(ends, want);
        let got: Vec<_> = chunks.iter().flat_map(|c| c.frames.clone()).collect();
        assert_eq!(got, sent);
        // Out of order is refused as before.
        let mut late = Receiver::default();
        let Message::CatchUp { chunks: text } = &messages[2] else {
            panic!()
        };
        assert!(matches!(
            late.add(text),
            Err(CatchUpError::OutOfOrder { .. })
        ));
    }

    #[test]
    fn what_follows_caught_up_in_the_same_read_is_handed_back_in_order() {
        let sent = inputs(300);
        let checksums: Vec<u128> = (1..=2).map(|i| i * 1000).collect();
        let mut messages: Batch = encode_catch_up(&sent, &checksums, 42)
            .into_iter()
            .map(Ok)
            .collect();
        let caught_up = messages.len() - 1;
        // The handshake's last Pong before; the match's end and chat after.
        messages.insert(0, Ok(Message::Pong { seq: 3 }));
        let after = [
            Message::Done {
                frame: 300,
                checksum: 42,
            },
            Message::Chat { text: "gg".into() },
        ];
        messages.extend(after.iter().cloned().map(Ok));
        let mut receiver = Receiver::default();
        let later = messages.split_off(caught_up);
        assert!(
            receiver.read(messages).unwrap().is_none(),
            "no CaughtUp yet"
        );
        let (history, rest) = receiver.read(later).unwrap().expect("CaughtUp read");
        assert_eq!((history.frames, history.checksum), (300, 42));
        let rest: Vec<Message> = rest.into_iter().map(Result::unwrap).collect();
        assert_eq!(rest, after);
    }

    #[test]
    fn a_broken_message_in_a_catch_up_is_refused() {
        let mut receiver = Receiver::default();
        let batch = vec![Ok(Message::CatchUp {
            chunks: vec![0xff; 9],
        })];
        assert!(matches!(
            receiver.read(batch),
            Err(CatchUpReadError::CatchUp(CatchUpError::BadChunk(0, _)))
        ));
    }

    #[test]
    fn a_receiver_that_knows_part_of_the_match_gets_the_rest_from_its_chunk() {
        let sent = inputs(500);
        let checksums: Vec<u128> = (1..=8).map(|i| i * 1000).collect();
        // It knows 130 frames: the chunks from 120 on come.
        let mut receiver = Receiver::after(130);
        for message in encode_catch_up_after(130, &sent, &checksums, 42) {
            match message {
                Message::CatchUp { chunks } => receiver.add(&chunks).unwrap(),
                Message::CaughtUp { frame, checksum } => {
                    let history = receiver.finish(frame, checksum).unwrap();
                    assert_eq!((history.frames, history.checksum), (500, 42));
                    assert_eq!(history.chunks[0].start, 120);
                    assert_eq!(history.chunks[0].checksum, Some(3000));
                    let got: Vec<_> = history
                        .chunks
                        .iter()
                        .flat_map(|c| c.frames.clone())
                        .collect();
                    assert_eq!(got, sent[120..]);
                    break;
                }
                other => panic!("{other:?}"),
            }
        }
        // Frames taken as they came (a spectator) still count as received.
        let mut live = Receiver::default();
        let Message::CatchUp { chunks } = &encode_catch_up(&sent[..60], &checksums, 1)[0] else {
            panic!()
        };
        live.add(chunks).unwrap();
        assert_eq!(live.take_chunks().len(), 1);
        assert!(
            live.finish(0, 1).is_err(),
            "60 frames arrived, the end says 0"
        );
        // A sender that knows less sends only its end, which is accepted;
        // one that claims more than it sent is not.
        let history = Receiver::after(130).finish(100, 7).unwrap();
        assert_eq!((history.frames, history.chunks.len()), (100, 0));
        assert!(Receiver::after(130).finish(131, 7).is_err());
        assert!(Receiver::after(130).finish(130, 7).is_ok());
        // Chunks from before the receiver's are out of order.
        let from_zero = encode_catch_up(&sent, &checksums, 42);
        let Message::CatchUp { chunks } = &from_zero[0] else {
            panic!()
        };
        assert!(matches!(
            Receiver::after(130).add(chunks),
            Err(CatchUpError::OutOfOrder {
                expected: 120,
                got: 0
            })
        ));
    }

    #[test]
    fn an_empty_match_is_just_the_end() {
        let history = receive(&encode_catch_up::<u8, 2>(&[], &[], 7)).unwrap();
        assert_eq!((history.frames, history.chunks.len()), (0, 0));
    }

    #[test]
    fn junk_missing_and_reordered_chunks_are_refused() {
        let mut receiver = Receiver::default();
        assert!(matches!(
            receiver.add(&[5u8, 0, 1, 2, 3]),
            Err(CatchUpError::BadChunk(0, _))
        ));
        // The second message alone: it starts at frame 3600.
        let messages = encode_catch_up(&inputs(4000), &[], 1);
        let Message::CatchUp { chunks } = &messages[1] else {
            panic!()
        };
        let mut receiver = Receiver::default();
        assert_eq!(
            receiver.add(chunks),
            Err(CatchUpError::OutOfOrder {
                expected: 0,
                got: 3600
            })
        );
        // The end claims more than arrived.
        let receiver = Receiver::default();
        assert!(matches!(
            receiver.finish(10, 0),
            Err(CatchUpError::Incomplete {
                sent: 10,
                received: 0
            })
        ));
    }

    #[test]
    fn a_match_longer_than_four_hours_is_refused_and_stays_refused() {
        // (A message too big to hold is the envelope's to refuse unread.)
        let messages = encode_catch_up(&inputs(MAX_CATCH_UP_FRAMES + 60), &[], 1);
        let mut receiver = Receiver::default();
        let results: Vec<_> = (messages.iter())
            .filter_map(|m| match m {
                Message::CatchUp { chunks } => Some(receiver.add(chunks)),
                _ => None,
            })
            .collect();
        let (last, earlier) = results.split_last().unwrap();
        assert!(earlier.iter().all(Result::is_ok));
        assert_eq!(last, &Err(CatchUpError::TooLong));
        let Message::CatchUp { chunks } = &messages[0] else {
            panic!()
        };
        assert_eq!(receiver.add(chunks), Err(CatchUpError::TooLong));
    }
}
