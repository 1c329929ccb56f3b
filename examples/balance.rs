//! Plays seeds of the default preset with the human-like bot pair to the
//! first game over and prints one JSON line per seed, then the report
//! (`twinstar::balance`). `scripts/balance.sh` runs it and writes
//! docs/balance.md.
//!
//! cargo run --example balance -- 1-100 [CAP_MINUTES]

use std::io::Write;

use twinstar::balance::{play, report};
use twinstar::sim::{FPS, SimConfig};

fn main() {
    let mut args = std::env::args().skip(1);
    let seeds = args.next().unwrap_or_else(|| "1-5".into());
    let Some((from, to)) = seeds
        .split_once('-')
        .and_then(|(a, b)| Some((a.parse::<u64>().ok()?, b.parse::<u64>().ok()?)))
        .filter(|(a, b)| a <= b)
    else {
        eprintln!("balance: seeds must be FROM-TO (e.g. 1-100), not '{seeds}'");
        std::process::exit(2);
    };
    let cap_minutes: u32 = match args.next().map(|m| m.parse()) {
        None => 60,
        Some(Ok(m)) if m > 0 => m,
        Some(_) => {
            eprintln!("balance: the cap is a whole number of minutes");
            std::process::exit(2);
        }
    };
    let cap = cap_minutes * 60 * FPS;
    let mut out = std::io::stdout().lock();
    // A reader that stops early (`| head`) ends the run quietly.
    let mut print = |line: String| {
        if writeln!(out, "{line}").is_err() {
            std::process::exit(0);
        }
    };
    let runs: Vec<_> = (from..=to)
        .map(|seed| {
            let run = play(seed, SimConfig::DEFAULT, cap);
            print(serde_json::to_string(&run).expect("a run serializes"));
            run
        })
        .collect();
    print(serde_json::to_string(&report(&runs)).expect("a report serializes"));
}
