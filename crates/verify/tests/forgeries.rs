//! A replay the verifier accepts, and each forgery refused with its reason:
//! an edited input, edited checksums, another version, rules that are no
//! preset, a truncated file, bytes that are no replay.

use twinstar_replay_format::replay::Header;
use twinstar_sim::{Input, SimConfig};
use twinstar_verify::sample::SampleMatch;
use twinstar_verify::verify_bytes;

/// Bytes before the first record: magic, format version, sim version.
const PREAMBLE: usize = 8 + 2 + 4;

/// Records a sample match of `frames` frames with `edit` applied to its
/// header; its bytes and final score.
fn record(frames: u32, edit: impl FnOnce(&mut Header)) -> (Vec<u8>, u64) {
    let sample = SampleMatch::new(
        42,
        frames,
        "K7Q-2XM",
        "00000000-0000-0000-0000-000000000002",
    );
    sample.record_with(edit).unwrap()
}

/// Each record's (offset of its body, body length), in file order.
fn records(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = PREAMBLE;
    while at + 4 <= bytes.len() {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        out.push((at + 4, len));
        at += 4 + len + 4;
    }
    out
}

/// Edits record `index`'s body with `edit`, then fixes its check (as a
/// forger would: the check only catches accidents).
fn forge(bytes: &mut [u8], index: usize, edit: impl FnOnce(&mut [u8])) {
    let (body, len) = records(bytes)[index];
    edit(&mut bytes[body..body + len]);
    let check = xxhash_rust::xxh3::xxh3_64(&bytes[body..body + len]) as u32;
    bytes[body + len..body + len + 4].copy_from_slice(&check.to_le_bytes());
}

#[test]
fn a_whole_replay_verifies_to_its_score_and_wave() {
    let (bytes, score) = record(30 * 60, |_| {});
    let verified = verify_bytes(&bytes).unwrap();
    assert_eq!(verified.score, score);
    assert!(
        score > 0,
        "the bots scored nothing: the test would not see a wrong sum"
    );
    assert_eq!(
        (verified.frames, verified.preset.as_str()),
        (1800, "default")
    );
    assert_eq!(verified.room.as_deref(), Some("K7Q-2XM"));
    assert!(verified.wave >= 1);
}

#[test]
fn an_edited_input_is_refused_by_the_checksums() {
    let (mut bytes, _) = record(600, |_| {});
    // Record 0 is the header; 1 the first chunk: start u32, count u8, then
    // player 1's first (input, run): flip the input's move bits (in its
    // low byte: an input is a little-endian u16).
    forge(&mut bytes, 3, |body| {
        body[1 + 4 + 1] ^= (Input::LEFT | Input::RIGHT) as u8
    });
    let why = verify_bytes(&bytes).unwrap_err();
    assert!(why.starts_with("checksum mismatch at frame"), "{why}");
}

#[test]
fn edited_checksums_are_refused() {
    let (mut bytes, _) = record(600, |_| {});
    // A chunk's checksum is its last 16 bytes.
    forge(&mut bytes, 2, |body| {
        let n = body.len();
        body[n - 1] ^= 0xFF;
    });
    let why = verify_bytes(&bytes).unwrap_err();
    assert!(why.starts_with("checksum mismatch at frame 120"), "{why}");
}

#[test]
fn another_version_and_rules_that_are_no_preset_are_refused() {
    let (bytes, _) = record(120, |h| h.game_version = "0.0.1".into());
    let why = verify_bytes(&bytes).unwrap_err();
    assert!(why.starts_with("another version"), "{why}");
    let mut other = SimConfig::preset("default").unwrap();
    other.drop_permille += 1;
    let hex: String = bytemuck::bytes_of(&other)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let (bytes, _) = record(120, |h| h.config_hex = hex);
    let why = verify_bytes(&bytes).unwrap_err();
    assert!(why.starts_with("config"), "{why}");
    // Another simulation version: refused before anything is read.
    let (mut bytes, _) = record(120, |_| {});
    bytes[10] ^= 0x40;
    let why = verify_bytes(&bytes).unwrap_err();
    assert!(why.contains("simulation version"), "{why}");
}

#[test]
fn truncated_files_and_other_bytes_are_refused() {
    let (bytes, _) = record(600, |_| {});
    for cut in [bytes.len() - 3, bytes.len() / 2] {
        let why = verify_bytes(&bytes[..cut]).unwrap_err();
        assert!(why.starts_with("truncated"), "{cut}: {why}");
    }
    assert!(
        verify_bytes(b"GIF89a...")
            .unwrap_err()
            .starts_with("not a replay")
    );
    assert!(verify_bytes(&[]).unwrap_err().starts_with("not a replay"));
    // A local match (no peers) is no match a server hosted.
    let (bytes, _) = record(60, |h| h.peers.clear());
    assert!(verify_bytes(&bytes).unwrap_err().contains("no peer"));
}

/// A replay of the first simulation version (recorded before the rules of
/// version 2) is refused with the reason: it would not re-simulate.
#[test]
fn a_replay_of_the_old_simulation_is_refused_naming_both_versions() {
    let old = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/replays/sim-v1-default-150.tsr");
    let bytes = std::fs::read(old).unwrap();
    let why = verify_bytes(&bytes).unwrap_err();
    assert!(
        why.contains("simulation version 1") && why.contains("version 2"),
        "{why}"
    );
}
