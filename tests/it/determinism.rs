//! The simulation produces the same bits from the same inputs: a golden
//! checksum pins the rules, and GGRS synctest re-simulates every frame.
//! Human-bot matches reach the later waves and every enemy kind, so a golden
//! checksum over one of them pins those rules too.

use twinstar::input::{HumanBot, ScriptBot};
use twinstar::session::Driver;
use twinstar::sim::{EnemyKind, SimConfig, World};
use twinstar_netcode::session::{CHECK_DISTANCES, SessionError};
use twinstar_netcode::testing;

/// Checksum of the default preset after 10,000 frames of seed-1 bots.
/// A rule change moves it: update it on purpose, and bump SIM_VERSION.
const GOLDEN_10K_SEED_1: u128 = 0xaff3065b9ae4aedf5692adfa9c730f8a;

/// Checksum of the default preset after `HUMAN_GOLDEN_FRAMES` frames of
/// human-bot play from `HUMAN_GOLDEN_SEED`: a match that reaches wave 10
/// with every enemy kind, both bosses included, on the field at some point. It moves when the rules or
/// the human bot change: update it on purpose.
const HUMAN_GOLDEN_SEED: u64 = 28;
const HUMAN_GOLDEN_FRAMES: u32 = 36_000;
const GOLDEN_HUMAN: u128 = 0x811dea138ea2a3a77f2b802bd2358418;

/// What a human-bot match went through.
struct HumanRun {
    world: Box<World>,
    /// Highest wave started.
    wave: u32,
    /// Frame at which wave 5 started, if it did.
    wave_5_at: Option<u32>,
    /// Which enemy kinds were alive at some point.
    kinds_seen: [bool; EnemyKind::COUNT],
}

fn human_run(seed: u64, frames: u32) -> HumanRun {
    let mut world = World::new(seed, SimConfig::DEFAULT);
    let mut bots = [HumanBot::new(seed, 0), HumanBot::new(seed, 1)];
    let mut run_wave = 0;
    let mut wave_5_at = None;
    let mut kinds_seen = [false; EnemyKind::COUNT];
    for _ in 0..frames {
        let inputs = [bots[0].next_input(&world), bots[1].next_input(&world)];
        world.step(inputs, &mut ());
        run_wave = run_wave.max(world.spawner.wave);
        if run_wave >= 5 && wave_5_at.is_none() {
            wave_5_at = Some(world.frame);
        }
        for e in world.enemies() {
            kinds_seen[e.kind() as usize] = true;
        }
    }
    HumanRun {
        world,
        wave: run_wave,
        wave_5_at,
        kinds_seen,
    }
}

fn bot_run(seed: u64, frames: u32) -> Box<World> {
    let mut world = World::new(seed, SimConfig::DEFAULT);
    let mut bots = [ScriptBot::new(seed, 0), ScriptBot::new(seed, 1)];
    for _ in 0..frames {
        world.step([bots[0].next_input(), bots[1].next_input()], &mut ());
    }
    world
}

fn synctest(
    seed: u64,
    frames: u32,
    check_distance: usize,
    inject: Option<u32>,
) -> (Driver, Option<SessionError>) {
    let mut driver =
        Driver::synctest(seed, SimConfig::DEFAULT, check_distance).expect("valid session");
    if let Some(from) = inject {
        driver = testing::inject_desync(driver, from);
    }
    let mut bots = [ScriptBot::new(seed, 0), ScriptBot::new(seed, 1)];
    while driver.world().frame < frames {
        if let Err(e) = testing::advance(&mut driver, [bots[0].next_input(), bots[1].next_input()])
        {
            return (driver, Some(e));
        }
    }
    (driver, None)
}

#[test]
fn golden_checksum_after_10k_frames() {
    let world = bot_run(1, 10_000);
    assert_eq!(
        world.checksum(),
        GOLDEN_10K_SEED_1,
        "rules changed: got {:032x}",
        world.checksum()
    );
}

#[test]
fn the_match_is_eventful_enough_to_prove_something() {
    // A golden checksum of a match where nothing happens would pin little.
    let world = bot_run(1, 10_000);
    assert!(world.shared_score() > 0, "bots never scored");
    assert!(world.restarts > 0, "no game over and restart happened");
}

#[test]
fn other_seeds_give_other_checksums() {
    let a = bot_run(1, 2_000).checksum();
    let b = bot_run(2, 2_000).checksum();
    assert_ne!(a, b);
}

#[test]
fn synctest_matches_plain_stepping_for_every_check_distance() {
    let expected = bot_run(7, 1_500).checksum();
    for d in CHECK_DISTANCES {
        let (driver, error) = synctest(7, 1_500, d, None);
        assert!(error.is_none(), "distance {d}: {error:?}");
        assert_eq!(driver.world().checksum(), expected, "distance {d}");
        let summary = driver.match_summary();
        assert_eq!(summary.mismatches, 0);
        assert!(
            summary.rollback_frames >= (1_500 - 8) * (d as u64 - 1),
            "distance {d} rolled back too little"
        );
    }
}

#[test]
fn synctest_catches_injected_nondeterminism_at_its_frame() {
    for d in CHECK_DISTANCES {
        let (driver, Some(error)) = synctest(3, 1_000, d, Some(200)) else {
            panic!("distance {d}: injected non-determinism went unnoticed");
        };
        match error {
            SessionError::Mismatch {
                frame,
                first,
                resimulated,
            } => {
                assert_eq!(frame, 200, "distance {d}");
                assert_ne!(first, resimulated);
            }
            other => panic!("distance {d}: unexpected error {other}"),
        }
        assert_eq!(driver.match_summary().mismatches, 1);
    }
}

#[test]
fn local_mode_never_rolls_back_and_matches_plain_stepping() {
    let mut driver = Driver::local(5, SimConfig::DEFAULT).unwrap();
    let mut bots = [ScriptBot::new(5, 0), ScriptBot::new(5, 1)];
    for _ in 0..1_000 {
        testing::advance(&mut driver, [bots[0].next_input(), bots[1].next_input()]).unwrap();
    }
    assert_eq!(driver.match_summary().rollback_frames, 0);
    assert_eq!(driver.world().checksum(), bot_run(5, 1_000).checksum());
}

#[test]
fn golden_checksum_of_a_human_bot_match_that_reaches_wave_10() {
    let run = human_run(HUMAN_GOLDEN_SEED, HUMAN_GOLDEN_FRAMES);
    assert!(run.wave >= 10, "only reached wave {}", run.wave);
    for kind in EnemyKind::ALL {
        assert!(run.kinds_seen[kind as usize], "no {kind:?} was ever alive");
    }
    assert_eq!(
        run.world.checksum(),
        GOLDEN_HUMAN,
        "rules or the human bot changed: got {:032x}",
        run.world.checksum()
    );
}

#[test]
fn human_bots_reach_wave_5_within_10_minutes_in_most_seeds() {
    const SEEDS: u64 = 8;
    const FRAMES: u32 = 10 * 60 * 60;
    let mut reached = 0;
    for seed in 1..=SEEDS {
        let run = human_run(seed, FRAMES);
        eprintln!(
            "seed {seed}: wave {} (wave 5 at frame {:?}), {} restarts",
            run.wave, run.wave_5_at, run.world.restarts
        );
        reached += (run.wave >= 5) as u64;
    }
    assert!(
        reached * 4 >= SEEDS * 3,
        "only {reached} of {SEEDS} seeds reached wave 5"
    );
}

#[test]
fn synctest_of_human_bots_matches_plain_stepping() {
    let (seed, frames) = (1, 1_500);
    let mut driver = Driver::synctest(seed, SimConfig::DEFAULT, 7).expect("valid session");
    let mut bots = [HumanBot::new(seed, 0), HumanBot::new(seed, 1)];
    while driver.world().frame < frames {
        let world = driver.world();
        let inputs = [bots[0].next_input(world), bots[1].next_input(world)];
        testing::advance(&mut driver, inputs).expect("no mismatch");
    }
    assert_eq!(driver.match_summary().mismatches, 0);
    assert_eq!(
        driver.world().checksum(),
        human_run(seed, frames).world.checksum()
    );
}

/// The new content under rollback: synctest (every frame rolled back 7
/// frames and re-simulated) with the human-like pair on several seeds of
/// both presets: the default one for 200 s (markers, wind-ups, bombs,
/// pickups, wave 3 or later); stress at its heaviest (a boss in its last
/// phase, the bullet pool full).
#[test]
fn synctest_holds_on_several_seeds_of_both_presets() {
    for (config, frames) in [(SimConfig::DEFAULT, 12_000), (SimConfig::STRESS, 600)] {
        for seed in [2, 3, 4] {
            let mut driver = Driver::synctest(seed, config, 7).expect("valid session");
            let mut bots = [HumanBot::new(seed, 0), HumanBot::new(seed, 1)];
            while driver.world().frame < frames {
                let world = driver.world();
                let inputs = [bots[0].next_input(world), bots[1].next_input(world)];
                if let Err(e) = testing::advance(&mut driver, inputs) {
                    panic!("seed {seed}, preset {:?}: {e}", config.preset_name());
                }
            }
            assert_eq!(driver.match_summary().mismatches, 0);
            let world = driver.world();
            if config == SimConfig::DEFAULT {
                assert!(
                    world.team.best_wave >= 3,
                    "seed {seed}: wave {}",
                    world.team.best_wave
                );
            } else {
                assert!(
                    world.bullet_count > 2000,
                    "seed {seed}: {}",
                    world.bullet_count
                );
            }
        }
    }
}
