//! The catch-up of a rejoining player: the match so far, sent by the player
//! who stayed, as the replay format's input chunks (run-length encoded
//! inputs and the state checksum after each chunk), a few minutes of play
//! per [`Message::CatchUp`]. The receiver re-simulates them and checks
//! every chunk's checksum, so no trusted state crosses the wire; bytes from
//! the network are decoded with bounds before anything is allocated.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::{Deserialize, Serialize};

use super::handshake::Message;
use crate::replay::{Chunk, decode_chunk, encode_chunk};
use crate::sim::{Frame, Input, PLAYERS};

/// A rejoin ticket as it is stored (`app::tickets` keeps one per player
/// slot while a match runs, in a file of the data folder or the page's
/// local storage): match `match_id`, player `player`, on `server`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ticket {
    pub server: String,
    pub match_id: u64,
    pub player: u8,
    pub version: String,
    /// Unix seconds.
    pub saved_at: u64,
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

/// Frames per chunk: the replay format's checksum interval.
pub const CHUNK_FRAMES: usize = crate::replay::CHECKSUM_INTERVAL as usize;
/// Chunks per message: one minute of play, about 2.5 KB.
const CHUNKS_PER_MESSAGE: usize = 60;
/// The longest match a rejoiner accepts: four hours (1.7 MB of inputs).
pub const MAX_CATCH_UP_FRAMES: usize = 4 * 60 * 60 * 60;
/// A chunk of 60 frames is at most 4 + 1 + 2 × 2 × 60 + 16 bytes.
const MAX_CHUNK_BYTES: usize = 4 + 1 + PLAYERS * 2 * CHUNK_FRAMES + 16;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CatchUpError {
    #[error("catch-up message is not base64")]
    NotBase64,
    #[error("catch-up chunk at byte {0}: {1}")]
    BadChunk(usize, &'static str),
    #[error("catch-up chunk starts at frame {got}, expected {expected}")]
    OutOfOrder { expected: Frame, got: Frame },
    #[error("the match to catch up on is longer than {MAX_CATCH_UP_FRAMES} frames")]
    TooLong,
    #[error("the catch-up ended at frame {sent}, but {received} frames arrived")]
    Incomplete { sent: Frame, received: Frame },
}

/// The confirmed frames `0..inputs.len()` as catch-up messages, ending with
/// [`Message::CaughtUp`]. `checksums[i]` is the state checksum after frame
/// `(i + 1) × CHUNK_FRAMES`; `last` the one after the last frame.
pub fn encode_catch_up(
    inputs: &[[Input; PLAYERS]],
    checksums: &[u128],
    last: u128,
) -> Vec<Message> {
    let mut messages = Vec::new();
    let chunks: Vec<_> = inputs.chunks(CHUNK_FRAMES).enumerate().collect();
    for group in chunks.chunks(CHUNKS_PER_MESSAGE) {
        let mut bytes = Vec::new();
        for (index, frames) in group {
            let start = (index * CHUNK_FRAMES) as Frame;
            let checksum = match checksums.get(*index) {
                Some(c) if frames.len() == CHUNK_FRAMES => *c,
                _ => last,
            };
            let mut chunk = Vec::new();
            encode_chunk(start, frames, checksum, &mut chunk);
            bytes.extend_from_slice(&(chunk.len() as u16).to_le_bytes());
            bytes.extend_from_slice(&chunk);
        }
        messages.push(Message::CatchUp {
            chunks: BASE64.encode(bytes),
        });
    }
    messages.push(Message::CaughtUp {
        frame: inputs.len() as Frame,
        checksum: last,
    });
    messages
}

/// Frames `start..start + inputs.len()` as one `CatchUp` message: chunks
/// that end at multiples of [`CHUNK_FRAMES`] or at the last frame, each
/// with `checksum_after(f)`, the world's checksum after frame `f` (asked at
/// each chunk's end). Empty `inputs` give no message.
pub fn encode_frames(
    start: Frame,
    inputs: &[[Input; PLAYERS]],
    checksum_after: impl Fn(Frame) -> u128,
) -> Option<Message> {
    let mut bytes = Vec::new();
    let mut at = 0usize;
    while at < inputs.len() {
        let first = start as usize + at;
        let boundary = (first / CHUNK_FRAMES + 1) * CHUNK_FRAMES;
        let end = (boundary - start as usize).min(inputs.len());
        let mut chunk = Vec::new();
        let last = (start as usize + end) as Frame;
        encode_chunk(
            first as Frame,
            &inputs[at..end],
            checksum_after(last),
            &mut chunk,
        );
        bytes.extend_from_slice(&(chunk.len() as u16).to_le_bytes());
        bytes.extend_from_slice(&chunk);
        at = end;
    }
    (!bytes.is_empty()).then(|| Message::CatchUp {
        chunks: BASE64.encode(bytes),
    })
}

/// Collects catch-up messages in order.
#[derive(Default)]
pub struct CatchUpReceiver {
    chunks: Vec<Chunk>,
    frames: usize,
    /// Payload bytes received (after base64), for the summary.
    pub bytes: usize,
}

/// The match so far, decoded: every chunk with its checksum.
pub struct History {
    pub chunks: Vec<Chunk>,
    pub frames: Frame,
    pub checksum: u128,
    pub bytes: usize,
}

impl CatchUpReceiver {
    /// One `CatchUp` message's payload.
    pub fn add(&mut self, chunks: &str) -> Result<(), CatchUpError> {
        // Bound the work before decoding: base64 is 4/3 of the bytes.
        // (A receiver that already refused a message as too long has no
        // room left, rather than an underflow.)
        let room = MAX_CATCH_UP_FRAMES
            .saturating_sub(self.frames)
            .div_ceil(CHUNK_FRAMES)
            * (MAX_CHUNK_BYTES + 2);
        if chunks.len() / 4 * 3 > room + 3 {
            return Err(CatchUpError::TooLong);
        }
        let bytes = BASE64.decode(chunks).map_err(|_| CatchUpError::NotBase64)?;
        self.bytes += bytes.len();
        let mut at = 0;
        while at < bytes.len() {
            let len = bytes
                .get(at..at + 2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]) as usize)
                .ok_or(CatchUpError::BadChunk(at, "length cut short"))?;
            let body = bytes
                .get(at + 2..at + 2 + len)
                .filter(|_| len <= MAX_CHUNK_BYTES)
                .ok_or(CatchUpError::BadChunk(at, "chunk cut short or too long"))?;
            let chunk = decode_chunk(body).map_err(|e| CatchUpError::BadChunk(at, e))?;
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
            at += 2 + len;
        }
        Ok(())
    }

    /// The chunks received since the last call (a spectator steps them as
    /// they come); the count of frames received goes on.
    pub fn take_chunks(&mut self) -> Vec<Chunk> {
        std::mem::take(&mut self.chunks)
    }

    /// Frames received so far.
    pub fn frames(&self) -> Frame {
        self.frames as Frame
    }

    /// The `CaughtUp` message: everything must have arrived.
    pub fn finish(self, frame: Frame, checksum: u128) -> Result<History, CatchUpError> {
        if frame as usize != self.frames {
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

    fn inputs(n: usize) -> Vec<[Input; PLAYERS]> {
        (0..n)
            .map(|i| [Input((i / 7) as u8 & 0x3f), Input((i / 13) as u8 & 0x3f)])
            .collect()
    }

    fn receive(messages: &[Message]) -> Result<History, CatchUpError> {
        let mut receiver = CatchUpReceiver::default();
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
        assert_eq!(history.chunks[0].checksum, 1000);
        assert_eq!(history.chunks[122].checksum, 123_000);
        // The partial last chunk carries the final checksum.
        assert_eq!(history.chunks[123].checksum, 42);
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
        assert!(encode_frames(200, &[], checksum_after).is_none());
        let mut receiver = CatchUpReceiver::default();
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
        let want: Vec<_> = [60, 100, 106, 120, 130, 180, 200]
            .into_iter()
            .map(|f| (f, checksum_after(f)))
            .collect();
        assert_eq!(ends, want);
        let got: Vec<_> = chunks.iter().flat_map(|c| c.frames.clone()).collect();
        assert_eq!(got, sent);
        // Out of order is refused as before.
        let mut late = CatchUpReceiver::default();
        let Message::CatchUp { chunks: text } = &messages[2] else {
            panic!()
        };
        assert!(matches!(
            late.add(text),
            Err(CatchUpError::OutOfOrder { .. })
        ));
    }

    #[test]
    fn an_empty_match_is_just_the_end() {
        let history = receive(&encode_catch_up(&[], &[], 7)).unwrap();
        assert_eq!((history.frames, history.chunks.len()), (0, 0));
    }

    #[test]
    fn junk_missing_and_reordered_chunks_are_refused() {
        let mut receiver = CatchUpReceiver::default();
        assert_eq!(receiver.add("not base64!"), Err(CatchUpError::NotBase64));
        let mut receiver = CatchUpReceiver::default();
        let junk = BASE64.encode([5u8, 0, 1, 2, 3]);
        assert!(matches!(
            receiver.add(&junk),
            Err(CatchUpError::BadChunk(0, _))
        ));
        // The second message alone: it starts at frame 3600.
        let messages = encode_catch_up(&inputs(4000), &[], 1);
        let Message::CatchUp { chunks } = &messages[1] else {
            panic!()
        };
        let mut receiver = CatchUpReceiver::default();
        assert_eq!(
            receiver.add(chunks),
            Err(CatchUpError::OutOfOrder {
                expected: 0,
                got: 3600
            })
        );
        // The end claims more than arrived.
        let receiver = CatchUpReceiver::default();
        assert!(matches!(
            receiver.finish(10, 0),
            Err(CatchUpError::Incomplete {
                sent: 10,
                received: 0
            })
        ));
    }

    #[test]
    fn a_huge_message_is_refused_before_it_is_decoded() {
        let mut receiver = CatchUpReceiver::default();
        let huge = "A".repeat(8 * MAX_CATCH_UP_FRAMES);
        assert_eq!(receiver.add(&huge), Err(CatchUpError::TooLong));
    }
}
