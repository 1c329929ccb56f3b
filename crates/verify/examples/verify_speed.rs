//! How fast the server verifies a ten-minute match (a figure, not a test):
//! records a sample online match of 36,000 frames, then times
//! `verify_bytes` on it (read, checks, the whole re-simulation).
//!
//!     cargo run --release -p twinstar-verify --example verify_speed [RUNS]

use std::time::Instant;

use twinstar_verify::sample::SampleMatch;
use twinstar_verify::verify_bytes;

fn main() {
    let runs: u32 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(20);
    let frames = 10 * 60 * 60;
    let sample = SampleMatch::new(1, frames, "K7Q-2XM", "00000000-0000-0000-0000-000000000002");
    let (bytes, score) = match sample.record() {
        Ok(recorded) => recorded,
        Err(e) => {
            eprintln!("verify_speed: cannot record the sample match: {e}");
            std::process::exit(1);
        }
    };
    let mut times = Vec::new();
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let verified = verify_bytes(&bytes);
        times.push(start.elapsed());
        assert_eq!(verified.map(|v| v.score), Ok(score));
    }
    times.sort();
    let median = times[times.len() / 2];
    println!(
        "verify_speed: {frames} frames ({} bytes), median {:.1} ms over {} runs: {:.0} ten-minute replays/s on one core, {:.0}x real time",
        bytes.len(),
        median.as_secs_f64() * 1000.0,
        times.len(),
        1.0 / median.as_secs_f64(),
        600.0 / median.as_secs_f64()
    );
}
