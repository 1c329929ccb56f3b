//! Input logs: the confirmed inputs of a match, enough to re-simulate it bit
//! for bit, for any [`crate::Game`]. Format v1 is documented in
//! `docs/replay-format.md`.
//!
//! `Writer` appends records as a match runs (crash-safe: every record is
//! complete or absent). `read` parses a file defensively: any bytes give a
//! `Replay` or a one-line `ReplayError`, never a panic, and memory stays
//! bounded by the file and record size limits. `verify` re-simulates.

mod format;
mod reader;
mod verify;
mod writer;

pub use format::Header;
pub use reader::{Replay, ReplayError, read, read_bytes};
pub use verify::{Verification, simulate_to, verify};

pub use format::{
    CHECKSUM_INTERVAL, Chunk, EndRecord, EventKind, FORMAT_VERSION, MAGIC, MAX_FILE_BYTES,
    MAX_RECORD_BYTES, ReplayEvent,
};
pub use reader::Cut;
pub use writer::Writer;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Game;
    use crate::test_game::{GAME, TestGame};

    fn record(path: &std::path::Path, frames: u32) -> u128 {
        let rules = TestGame::preset("stress").unwrap();
        let header = Header::new::<TestGame, 2>("local", 3, &rules);
        let mut writer = Writer::<u8, 2>::create(path, &GAME, &header).unwrap();
        let mut state = TestGame::start(3, &rules);
        for f in 0..frames {
            let inputs = [(f / 7) as u8, (f / 11) as u8];
            TestGame::step(&mut state, inputs, &mut Vec::new());
            writer.frame(inputs, || TestGame::checksum(&state)).unwrap();
        }
        writer.finish(TestGame::checksum(&state), "test").unwrap();
        TestGame::checksum(&state)
    }

    /// Any game's match is recorded, read back and re-simulated to the
    /// same checksums.
    #[test]
    fn a_games_replay_verifies() {
        let path = std::env::temp_dir().join(format!("netcode-replay-{}.tsr", std::process::id()));
        let last = record(&path, 150);
        let replay = read::<TestGame, 2>(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert_eq!(
            (replay.frames(), replay.header.game.as_str()),
            (150, "testgame")
        );
        let verified = verify::<TestGame, 2>(&replay).unwrap();
        // Chunks end at frames 60, 120 and 150, then the end record.
        assert_eq!((verified.checked, verified.first_mismatch), (4, None));
        assert_eq!(TestGame::checksum(&verified.state), last);
    }

    /// A replay of another game is refused in words, not re-simulated.
    #[test]
    fn another_games_replay_is_refused() {
        let path = std::env::temp_dir().join(format!("netcode-other-{}.tsr", std::process::id()));
        record(&path, 10);
        let mut bytes = std::fs::read(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        let at = bytes.windows(8).position(|w| w == b"testgame").unwrap();
        bytes[at..at + 8].copy_from_slice(b"testpong");
        // The header's record check covers the name: fix it up.
        let body_start = PREAMBLE + 4;
        let len = u32::from_le_bytes(bytes[PREAMBLE..body_start].try_into().unwrap()) as usize;
        let check = xxhash_rust::xxh3::xxh3_64(&bytes[body_start..body_start + len]) as u32;
        bytes[body_start + len..body_start + len + 4].copy_from_slice(&check.to_le_bytes());
        let error = read_bytes::<TestGame, 2>(&bytes).unwrap_err().to_string();
        assert!(
            error.contains("a replay of testpong, not of testgame"),
            "{error}"
        );
    }

    /// Magic, format version, simulation version.
    const PREAMBLE: usize = 8 + 2 + 4;
}
