//! `POST /replays` as the server decodes it: the query's claim
//! (`replays::parse_claim`) and the body through twinstar's verifier
//! (`twinstar_verify::verify_bytes`: read, version and rules checks, the
//! whole re-simulation). Any bytes give facts or a one-line reason, never a
//! panic; what it accepts re-simulates within the frames it holds. The
//! replay mutator repairs record checks most of the time, so mutations
//! reach the record parsers and the simulation.
#![no_main]

use libfuzzer_sys::{fuzz_mutator, fuzz_target};

fuzz_target!(|data: &[u8]| {
    // The first byte says how much of the rest is the query string: most
    // inputs (the seeds: replays) spend a byte on an empty or short query.
    let Some((&n, rest)) = data.split_first() else {
        return;
    };
    let (query, body) = rest.split_at((n as usize % 32).min(rest.len()));
    if let Ok(query) = std::str::from_utf8(query) {
        let _ = twinstar_signaling::replays::parse_claim(Some(query));
    }
    match twinstar_verify::verify_bytes(body) {
        Ok(facts) => {
            assert!(facts.frames as usize <= body.len() * 255, "more frames than the bytes hold");
            assert!(!facts.peers.is_empty());
        }
        Err(reason) => assert!(!reason.contains('\n'), "a reason is one line: {reason}"),
    }
});

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    let size = libfuzzer_sys::fuzzer_mutate(data, size, max_size);
    if seed % 8 != 0 && size > 1 {
        twinstar_fuzz::fix_replay_checks(&mut data[1..size]);
    }
    size
});
