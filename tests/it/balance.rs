//! The balance benchmark's short form (scripts/balance.sh runs 100 seeds
//! and writes docs/balance.md): five seeds of the default preset with the
//! human-like pair, each to its first game over. Wide margins: it checks
//! that the game is a game (it lasts, it reaches a boss, the mechanics are
//! used), not the tuned figures.

use twinstar::balance::{play, report};
use twinstar::sim::{FPS, SimConfig};

#[test]
fn five_seeds_last_reach_a_boss_and_use_the_mechanics() {
    let cap = 60 * 60 * FPS;
    let runs: Vec<_> = (1..=5)
        .map(|seed| play(seed, SimConfig::DEFAULT, cap))
        .collect();
    let r = report(&runs);
    eprintln!("{}", serde_json::to_string(&r).unwrap());
    assert!(
        runs.iter().all(|run| run.game_over),
        "a run hit the 60-minute cap"
    );
    assert!(r.min_wave >= 2, "a seed ended before wave 2");
    assert!(r.max_wave >= 5, "no seed reached the first boss");
    assert!(
        r.median_minutes >= 2.0,
        "games last {:.1} minutes",
        r.median_minutes
    );
    assert!(r.bombs > 0, "no bomb was used");
    assert!(
        r.pickups_taken.iter().sum::<u32>() > 0,
        "no pickup was taken"
    );
}
