//! Confirmed frames on the wire (a rejoin's catch-up, a spectator's
//! stream): chunks of inputs, each `start` (varint), one byte of frame
//! count (1–60) whose top bit says a checksum follows the inputs, each
//! player's inputs as runs of (input, length), then that 16-byte state
//! checksum after the chunk's last frame, if flagged. A message's chunks
//! follow each other with nothing between.
//!
//! The input runs are the replay file's (`crate::input_runs`). Why not its
//! whole chunk: a live chunk of a few frames would
//! carry a fixed 4-byte start and a 16-byte checksum. Here the checksum
//! rides only where the sender has one worth checking — every chunk of a
//! catch-up (they end on the 60-frame grid, or at the end), and a live
//! chunk that ends on the grid — so a spectator still checks its world
//! once a second, and a live chunk of 6 frames is ~7 bytes.

use bytemuck::Pod;

use crate::Frame;
use crate::input_runs::{CHECKSUM_INTERVAL, put_input_runs, read_input_runs};

/// The most frames in one chunk (the replay format's checksum interval).
pub(crate) const CHUNK_FRAMES: usize = CHECKSUM_INTERVAL as usize;
/// The count byte's flag: a checksum follows the inputs.
const HAS_CHECKSUM: u8 = 0x80;

/// A decoded chunk: frames `start..start + frames.len()` of `N` players'
/// inputs `I`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk<I, const N: usize> {
    /// Its first frame.
    pub start: Frame,
    /// Each frame's inputs, one per player.
    pub frames: Vec<[I; N]>,
    /// The world's checksum after the last frame, when the sender sent it.
    pub checksum: Option<u128>,
}

/// Appends frames `start..start + frames.len()` (1 to `CHUNK_FRAMES`).
pub fn encode<I: Pod + PartialEq, const N: usize>(
    start: Frame,
    frames: &[[I; N]],
    checksum: Option<u128>,
    out: &mut Vec<u8>,
) {
    debug_assert!(!frames.is_empty() && frames.len() <= CHUNK_FRAMES);
    put_varint(start, out);
    let flag = if checksum.is_some() { HAS_CHECKSUM } else { 0 };
    out.push(frames.len() as u8 | flag);
    put_input_runs(frames, out);
    if let Some(checksum) = checksum {
        out.extend_from_slice(&checksum.to_le_bytes());
    }
}

/// The chunk at the start of `bytes` and the bytes it took; `Err` says
/// what is wrong. Nothing is allocated before the frame count is checked.
pub fn decode<I: Pod, const N: usize>(bytes: &[u8]) -> Result<(Chunk<I, N>, usize), &'static str> {
    let mut cur = Cursor { bytes, at: 0 };
    let start = cur.varint()?;
    let [count] = cur.take::<1>()?;
    let has_checksum = count & HAS_CHECKSUM != 0;
    let count = (count & !HAS_CHECKSUM) as usize;
    if count == 0 || count > CHUNK_FRAMES {
        return Err("a chunk holds 1 to 60 frames");
    }
    let (frames, used) = read_input_runs(&bytes[cur.at..], count)?;
    cur.at += used;
    let checksum = match has_checksum {
        true => Some(u128::from_le_bytes(cur.take()?)),
        false => None,
    };
    let chunk = Chunk {
        start,
        frames,
        checksum,
    };
    Ok((chunk, cur.at))
}

/// LEB128: seven bits a byte, low first.
fn put_varint(mut value: u32, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], &'static str> {
        let got = (self.bytes.get(self.at..self.at + N))
            .and_then(|b| b.try_into().ok())
            .ok_or("a chunk cut short")?;
        self.at += N;
        Ok(got)
    }

    fn varint(&mut self) -> Result<u32, &'static str> {
        let mut value = 0u32;
        for shift in [0, 7, 14, 21, 28] {
            let [byte] = self.take::<1>()?;
            let bits = u32::from(byte & 0x7f);
            if shift == 28 && (bits > 0x0f || byte & 0x80 != 0) {
                return Err("a chunk's start frame overflows");
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err("a chunk's start frame overflows")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two players' one-byte inputs.
    type Frames = Vec<[u8; 2]>;

    fn frames(n: usize, salt: u8) -> Frames {
        (0..n).map(|i| [(i / 4) as u8 ^ salt, salt]).collect()
    }

    fn decode(bytes: &[u8]) -> Result<(Chunk<u8, 2>, usize), &'static str> {
        super::decode(bytes)
    }

    #[test]
    fn chunks_round_trip_back_to_back() {
        let mut bytes = Vec::new();
        let sent = [
            (0, frames(60, 1), Some(u128::MAX)),
            (60, frames(6, 2), None),
            (u32::MAX - 5, frames(1, 3), Some(7)),
        ];
        for (start, frames, checksum) in &sent {
            encode(*start, frames, *checksum, &mut bytes);
        }
        let mut at = 0;
        for (start, frames, checksum) in sent {
            let (chunk, used) = decode(&bytes[at..]).unwrap();
            let want = Chunk {
                start,
                frames,
                checksum,
            };
            assert_eq!(chunk, want);
            at += used;
        }
        assert_eq!(at, bytes.len());
    }

    #[test]
    fn a_live_chunk_is_small() {
        let mut bytes = Vec::new();
        // Frame 3,000, six frames, each player holding one input.
        encode(3_000, &[[5u8, 9u8]; 6], None, &mut bytes);
        assert_eq!(bytes.len(), 2 + 1 + 2 + 2);
    }

    #[test]
    fn bad_chunks_say_what_is_wrong() {
        let mut good = Vec::new();
        encode(7, &frames(10, 0), Some(1), &mut good);
        assert!(decode(&good[..good.len() - 1]).is_err());
        let cases: [(&[u8], &str); 5] = [
            (&[0, 0], "1 to 60"),
            (&[0, 0x80 | 61], "1 to 60"),
            (&[0, 2, 5, 3], "add up"),
            (&[0xff, 0xff, 0xff, 0xff, 0x7f, 1, 0, 1, 0, 1], "overflows"),
            (&[0, 0x81, 0, 1, 0, 1, 2], "cut short"),
        ];
        for (bytes, what) in cases {
            let error = decode(bytes).unwrap_err();
            assert!(error.contains(what), "{bytes:?}: {error}");
        }
    }
}
