//! Replays: record, verify, diff, and survive broken files.

use crate::common;

use std::path::Path;

use common::{LIMIT, Twinstar, run, scratch, verify_replay};
use proptest::prelude::*;
use twinstar::input::ScriptBot;
use twinstar::replay::{self, Divergence, first_divergence, world_diff};
use twinstar::sim::{Input, SimConfig, World};
use twinstar_netcode::replay::{Cut, ReplayError};

/// Records `frames` frames of bots (optionally changing one input) straight
/// through the library writer.
fn record(path: &Path, seed: u64, frames: u32, change: Option<(u32, Input)>) -> Box<World> {
    let header = replay::header("local", seed, &SimConfig::DEFAULT);
    let mut writer = replay::create(path, &header).unwrap();
    let mut world = World::new(seed, SimConfig::DEFAULT);
    let mut bots = [ScriptBot::new(seed, 0), ScriptBot::new(seed, 1)];
    for _ in 0..frames {
        let mut inputs = [bots[0].next_input(), bots[1].next_input()];
        if let Some((frame, input)) = change
            && world.frame + 1 == frame
        {
            inputs[0] = input;
        }
        world.step(inputs, &mut ());
        writer.frame(inputs, || world.checksum()).unwrap();
    }
    writer.finish(world.checksum(), "completed").unwrap();
    world
}

#[test]
fn recorded_run_and_verification_agree_on_the_checksum() {
    let dir = scratch("verify");
    let file = dir.join("r.tsr");
    let f = file.to_str().unwrap();
    let run = run(
        &dir,
        &[
            "local",
            "--headless",
            "--bot",
            "--frames",
            "3000",
            "--seed",
            "11",
            "--record",
            f,
            "--json",
        ],
        LIMIT,
    );
    assert!(run.status.success());
    let (a, b) = (run.summary(), verify_replay(&file, Some(3000)));
    assert_eq!(a["replay"], f);
    assert_eq!(a["checksum"], b["checksum"]);
    assert_eq!(b["frames"], 3000);
    assert_eq!(b["mismatches"], 0);
}

#[test]
fn synctest_records_too_and_the_log_verifies() {
    let dir = scratch("synctest");
    let file = dir.join("s.tsr");
    let f = file.to_str().unwrap();
    let run = run(
        &dir,
        &[
            "synctest",
            "--headless",
            "--frames",
            "500",
            "--seed",
            "3",
            "--record",
            f,
            "--json",
        ],
        LIMIT,
    );
    assert!(run.status.success());
    let replay = replay::read(&file).unwrap();
    assert_eq!(replay.frames(), 500);
    assert_eq!(replay.header.mode, "synctest");
    let v = replay::verify(&replay).unwrap();
    assert!(v.first_mismatch.is_none());
    assert_eq!(
        format!("{:032x}", v.state.checksum()),
        run.summary()["checksum"].as_str().unwrap()
    );
}

#[test]
fn a_tampered_checksum_fails_verification_at_its_frame() {
    let dir = scratch("tamper");
    let file = dir.join("t.tsr");
    record(&file, 5, 600, None);
    let mut replay = replay::read(&file).unwrap();
    replay.checksums[3].1 ^= 1;
    let v = replay::verify(&replay).unwrap();
    assert_eq!(v.first_mismatch.map(|m| m.0), Some(240));
}

#[test]
fn replay_diff_pinpoints_a_changed_input() {
    let dir = scratch("diff");
    let (a, b) = (dir.join("a.tsr"), dir.join("b.tsr"));
    record(&a, 8, 2000, None);
    // Change player 0's input at the first frame from 1000 on where the ship
    // is in play, to the opposite horizontal direction: it must move.
    let mut world = World::new(8, SimConfig::DEFAULT);
    let mut bots = [ScriptBot::new(8, 0), ScriptBot::new(8, 1)];
    let (frame, changed) = loop {
        let inputs = [bots[0].next_input(), bots[1].next_input()];
        let p = world.players[0];
        let mid_arena = p.pos.x > twinstar::sim::fx(50) && p.pos.x < twinstar::sim::fx(590);
        if world.frame >= 1000 && !world.is_game_over() && p.alive == 1 && mid_arena {
            let dir = if inputs[0].has(Input::LEFT) {
                Input::RIGHT
            } else {
                Input::LEFT
            };
            break (world.frame + 1, Input(dir));
        }
        world.step(inputs, &mut ());
        assert!(world.frame < 1900, "player 0 never in play");
    };
    record(&b, 8, 2000, Some((frame, changed)));
    let (ra, rb) = (replay::read(&a).unwrap(), replay::read(&b).unwrap());
    let d = first_divergence(&ra, &rb).expect("the logs differ");
    assert_eq!(d.frame(), frame, "{d}");
    assert!(matches!(d, Divergence::Inputs { .. }), "{d}");
    assert!(first_divergence(&ra, &ra.clone()).is_none());

    let out = run(
        &dir,
        &[
            "replay-diff",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--state",
            "--json",
        ],
        LIMIT,
    );
    assert_eq!(out.status.code(), Some(1));
    let report = common::last_json(&out.stdout);
    assert_eq!(report["frame"], frame);
    let fields = report["state_diff"].as_array().unwrap();
    assert_eq!(
        report["state_frame"], frame,
        "a moving ship differs at once"
    );
    assert!(
        fields
            .iter()
            .any(|f| f["path"].as_str().unwrap().starts_with("players[0]")),
        "{report}"
    );

    let same = run(
        &dir,
        &["replay-diff", a.to_str().unwrap(), a.to_str().unwrap()],
        LIMIT,
    );
    assert_eq!(same.status.code(), Some(0));
}

#[test]
fn world_diff_is_empty_for_equal_worlds_and_precise_otherwise() {
    let a = World::new(1, SimConfig::DEFAULT);
    let mut b = a.clone();
    assert!(world_diff(&a, &b).is_empty());
    b.spawner.wave = 9;
    assert_eq!(world_diff(&a, &b)[0].path, "spawner.wave");
}

#[test]
fn kill_dash_9_leaves_a_log_that_verifies_up_to_the_cut() {
    let dir = scratch("kill");
    let file = dir.join("k.tsr");
    let mut child = Twinstar::spawn(
        &dir,
        &[
            "local",
            "--headless",
            "--frames",
            "4000000000",
            "--record",
            file.to_str().unwrap(),
        ],
    );
    std::thread::sleep(std::time::Duration::from_millis(700));
    child.kill(); // SIGKILL, reaped
    let replay = replay::read(&file).expect("a killed recording is still readable");
    assert!(
        replay.cut.is_some(),
        "no end record was written, so the log must say it was cut"
    );
    assert!(
        replay.frames() >= 600,
        "only {} frames survived",
        replay.frames()
    );
    let v = replay::verify(&replay).unwrap();
    assert!(v.first_mismatch.is_none());
    assert!(v.checked >= 10);
}

/// A finished 1,500-frame log; `name` keeps parallel tests off each other's file.
fn sample_log(name: &str) -> Vec<u8> {
    let dir = scratch(name);
    let file = dir.join("s.tsr");
    record(&file, 21, 1500, None);
    std::fs::read(file).unwrap()
}

#[test]
fn every_truncation_reads_as_a_cut_or_a_clean_error() {
    let bytes = sample_log("truncation");
    let full = replay::read_bytes(&bytes).unwrap();
    assert!(full.cut.is_none() && full.end.is_some());
    // Preamble, then the header record: length, body, check.
    let header_end = 14 + 4 + u32::from_le_bytes(bytes[14..18].try_into().unwrap()) as usize + 4;
    for len in 0..bytes.len() {
        match replay::read_bytes(&bytes[..len]) {
            Ok(r) => {
                assert!(r.cut.is_some(), "cut at {len} not reported");
                assert!(r.frames() <= full.frames());
                assert_eq!(r.inputs[..], full.inputs[..r.inputs.len()]);
            }
            Err(ReplayError::Empty | ReplayError::BadMagic | ReplayError::NoHeader) => {
                assert!(len < header_end, "{len}")
            }
            Err(e) => panic!("truncation at {len} gave {e}"),
        }
    }
    // A cut inside the first chunk after the header says where.
    let r = replay::read_bytes(&bytes[..bytes.len() - 10]).unwrap();
    assert!(matches!(r.cut, Some(Cut::Truncated { .. })), "{:?}", r.cut);
}

#[test]
fn hostile_headers_get_specific_errors() {
    let bytes = sample_log("hostile");
    let with = |at: usize, patch: &[u8]| {
        let mut b = bytes.clone();
        b[at..at + patch.len()].copy_from_slice(patch);
        replay::read_bytes(&b).unwrap_err().to_string()
    };
    assert!(with(0, b"NOTATSR!").contains("bad magic"));
    assert!(with(8, &2u16.to_le_bytes()).contains("format version 2"));
    assert!(with(10, &99u32.to_le_bytes()).contains("simulation version 99"));
    assert!(with(14, &u32::MAX.to_le_bytes()).contains("corrupt length"));
    assert!(with(20, &[0xFF]).contains("corrupt"));
}

proptest! {
    // The issue asks for at least 10,000 mutated logs in the suite.
    #![proptest_config(ProptestConfig { cases: 10_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_logs_never_panic(
        flips in prop::collection::vec((any::<prop::sample::Index>(), 0u8..8), 0..4),
        overwrite in prop::option::of((any::<prop::sample::Index>(), any::<u32>())),
        cut in prop::option::of(any::<prop::sample::Index>()),
        insert in prop::option::of((any::<prop::sample::Index>(), prop::collection::vec(any::<u8>(), 1..16))),
    ) {
        let original = SAMPLE.with(|s| s.clone());
        let mut bytes = original.clone();
        for (at, bit) in flips {
            let i = at.index(bytes.len());
            bytes[i] ^= 1 << bit;
        }
        if let Some((at, value)) = overwrite {
            let i = at.index(bytes.len().saturating_sub(4));
            bytes[i..i + 4].copy_from_slice(&value.to_le_bytes());
        }
        if let Some((at, extra)) = insert {
            let i = at.index(bytes.len());
            bytes.splice(i..i, extra);
        }
        if let Some(at) = cut {
            bytes.truncate(at.index(bytes.len() + 1));
        }
        // Any outcome but a panic is fine; a readable result is bounded.
        if let Ok(r) = replay::read_bytes(&bytes) {
            prop_assert!(r.frames() as usize <= bytes.len() * 255);
            if let Some(v) = replay::verify(&r) {
                prop_assert!(v.frames == r.frames() || v.first_mismatch.is_some());
            }
        }
    }
}

thread_local! {
    static SAMPLE: Vec<u8> = {
        let dir = scratch("mutation");
        let file = dir.join("m.tsr");
        record(&file, 4, 300, None);
        std::fs::read(file).unwrap()
    };
}

/// A replay of the first simulation version (a 150-frame default match,
/// recorded before SIM_VERSION 2) is refused by every reader with one
/// line naming both versions, and exit 2: it would not reproduce.
#[test]
fn a_replay_of_the_old_simulation_is_refused_naming_both_versions() {
    let dir = scratch("old-sim-replay");
    let old =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/replays/sim-v1-default-150.tsr");
    let bytes = std::fs::read(&old).unwrap();
    assert_eq!(
        &bytes[10..14],
        &1u32.to_le_bytes(),
        "the fixture is of version 1"
    );
    let why = replay::read_bytes(&bytes).unwrap_err();
    assert!(
        matches!(why, ReplayError::SimVersion { found: 1, ours: 2 }),
        "{why}"
    );
    for args in [
        vec!["replay", old.to_str().unwrap(), "--headless", "--verify"],
        vec!["replay", old.to_str().unwrap(), "--dump"],
    ] {
        let out = run(&dir, &args, LIMIT);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", out.stderr);
        let lines: Vec<&str> = out
            .stderr
            .lines()
            .filter(|l| l.contains("version"))
            .collect();
        assert_eq!(lines.len(), 1, "{}", out.stderr);
        assert!(
            lines[0].contains("simulation version 1") && lines[0].contains("version 2"),
            "{}",
            lines[0]
        );
    }
}
