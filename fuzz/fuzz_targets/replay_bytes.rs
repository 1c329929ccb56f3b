//! Replay files as the game reads them: `replay::read_bytes` (what
//! `replay::read` calls after its bounded file read), then, for a file it
//! accepts, `replay::verify` (`twinstar replay FILE --verify`) on at most
//! the first 1,200 frames. A custom mutator repairs record checks most of
//! the time, so mutations reach the record parsers and the simulation.
#![no_main]

use libfuzzer_sys::{fuzz_mutator, fuzz_target};
use twinstar::replay;

/// Frames re-simulated per input: enough for several chunks and events,
/// few enough for thousands of runs a second.
const FRAMES: usize = 1_200;

fuzz_target!(|data: &[u8]| {
    let Ok(mut replay) = replay::read_bytes(data) else {
        return;
    };
    assert!(replay.checksums.len() <= replay.inputs.len());
    replay.inputs.truncate(FRAMES);
    replay
        .checksums
        .retain(|&(frame, _)| frame as usize <= FRAMES);
    let verification = replay::verify(&replay).expect("the reader checked the config");
    assert!(verification.frames as usize <= FRAMES);
});

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    let size = libfuzzer_sys::fuzzer_mutate(data, size, max_size);
    if seed % 8 != 0 {
        twinstar_fuzz::fix_replay_checks(&mut data[..size]);
    }
    size
});
