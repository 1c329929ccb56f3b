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
#[path = "rejoin_tests.rs"]
mod tests;
