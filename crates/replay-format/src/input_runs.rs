//! The run-length layout of a game's inputs, shared by replay chunks and
//! the wire's catch-up chunks: for each player in turn, (input, run) pairs —
//! the input's bytes as laid out in memory, then the run's length in one
//! byte. Generic over the input (any plain-old-data type) and the number of
//! players.

use bytemuck::Pod;

/// Frames per chunk of inputs, in replays and catch-ups alike, and so
/// between recorded checksums: one second at 60 frames a second.
pub const CHECKSUM_INTERVAL: u32 = 60;

/// Appends each player's inputs as runs, player 1's first.
pub fn put_input_runs<I: Pod + PartialEq, const N: usize>(frames: &[[I; N]], out: &mut Vec<u8>) {
    for player in 0..N {
        let mut i = 0;
        while i < frames.len() {
            let value = frames[i][player];
            let run = frames[i..]
                .iter()
                .take(u8::MAX as usize)
                .take_while(|f| f[player] == value)
                .count();
            out.extend_from_slice(bytemuck::bytes_of(&value));
            out.push(run as u8);
            i += run;
        }
    }
}

/// `count` frames of input runs from the front of `bytes` (see
/// [`put_input_runs`]), and the bytes they took; `Err` says what is wrong.
pub fn read_input_runs<I: Pod, const N: usize>(
    bytes: &[u8],
    count: usize,
) -> Result<(Vec<[I; N]>, usize), &'static str> {
    let mut rest = bytes;
    let mut frames = vec![[I::zeroed(); N]; count];
    for player in 0..N {
        let mut filled = 0usize;
        while filled < count {
            let size = size_of::<I>();
            if rest.len() < size + 1 {
                return Err("input chunk ends early");
            }
            let value: I = bytemuck::pod_read_unaligned(&rest[..size]);
            let run = rest[size] as usize;
            rest = &rest[size + 1..];
            if run == 0 || filled + run > count {
                return Err("input runs do not add up to the chunk length");
            }
            for frame in &mut frames[filled..filled + run] {
                frame[player] = value;
            }
            filled += run;
        }
    }
    Ok((frames, bytes.len() - rest.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runs work for any plain-old-data input and player count, here a
    /// two-byte input and three players, and read back what was written.
    #[test]
    fn input_runs_round_trip_for_any_input_and_players() {
        let frames: Vec<[u16; 3]> = (0..60u16).map(|f| [f / 7, 0x1234, f % 3]).collect();
        let mut bytes = Vec::new();
        put_input_runs(&frames, &mut bytes);
        let (back, used) = read_input_runs::<u16, 3>(&bytes, frames.len()).unwrap();
        assert_eq!((back, used), (frames, bytes.len()));
        // One-byte inputs: one byte of input, one of length.
        let ours = [[5u8, 9u8]; 4];
        let mut bytes = Vec::new();
        put_input_runs(&ours, &mut bytes);
        assert_eq!(bytes, [5, 4, 9, 4]);
        assert!(read_input_runs::<u16, 3>(&bytes[..3], 4).is_err());
    }

    /// A run never passes 255 frames: its length is one byte.
    #[test]
    fn a_long_run_is_split_at_255() {
        let frames = vec![[7u8]; 300];
        let mut bytes = Vec::new();
        put_input_runs(&frames, &mut bytes);
        assert_eq!(bytes, [7, 255, 7, 45]);
        assert_eq!(read_input_runs::<u8, 1>(&bytes, 300).unwrap().0, frames);
    }
}
