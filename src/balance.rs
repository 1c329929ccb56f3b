//! Balance as a benchmark (DESIGN.md, decision 5): a human-like bot pair
//! plays one seed to its first game over, and what the game put in front
//! of them is tallied: how long it lasted, how far it got, which kinds,
//! pickups and boss phases were seen, how often each mechanic was used.
//!
//! It steps the world exactly as `twinstar local --headless --bot-style
//! human --until-game-over` does (locally the bots see the confirmed
//! world), without the session around it, so a hundred seeds take seconds.
//! `examples/balance.rs` runs the seeds; `scripts/balance.sh` writes
//! `docs/balance.md` from them.

use serde::Serialize;

use crate::input::HumanBot;
use crate::sim::{EnemyKind, Event, FPS, PickupKind, SimConfig, World};

/// What one seed's game went through.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Run {
    pub seed: u64,
    pub frames: u32,
    /// The game ended (false: the cap was reached first).
    pub game_over: bool,
    pub wave: u32,
    pub team_score: u32,
    pub bosses_defeated: u32,
    pub revives: u32,
    pub bombs: u32,
    pub max_combo: u32,
    /// Pickups taken, by kind (`PickupKind` order).
    pub pickups: [u32; PickupKind::COUNT],
    /// Enemies spawned, by kind (`EnemyKind` order).
    pub kinds: [u32; EnemyKind::COUNT],
    /// Boss phases entered past the first, per boss (Warden, Hydra) and
    /// phase (the first is seen when the boss appears).
    pub boss_phases: [[bool; 3]; 2],
}

impl Run {
    pub fn minutes(&self) -> f64 {
        f64::from(self.frames) / f64::from(FPS) / 60.0
    }
}

/// Plays `seed` with a human-like pair until the first game over or
/// `cap` frames.
pub fn play(seed: u64, config: SimConfig, cap: u32) -> Run {
    let mut world = World::new(seed, config);
    let mut bots = [HumanBot::new(seed, 0), HumanBot::new(seed, 1)];
    let mut run = Run {
        seed,
        ..Run::default()
    };
    let mut events = Vec::new();
    while world.frame < cap && !world.is_game_over() {
        let inputs = [bots[0].next_input(&world), bots[1].next_input(&world)];
        events.clear();
        world.step(inputs, &mut events);
        for event in &events {
            tally(&mut run, event);
        }
    }
    run.frames = world.frame;
    run.game_over = world.is_game_over();
    run.wave = world.team.best_wave;
    run.team_score = world.team.score;
    run.bosses_defeated = u32::from(world.team.bosses_defeated);
    run.revives = world.players.iter().map(|p| u32::from(p.revives)).sum();
    run.bombs = world.players.iter().map(|p| u32::from(p.bombs_used)).sum();
    run.max_combo = u32::from(world.team.max_combo);
    run
}

fn tally(run: &mut Run, event: &Event) {
    match *event {
        Event::EnemySpawned { kind, .. } => {
            let kind = EnemyKind::from_u8(kind);
            run.kinds[kind as usize] += 1;
            if let Some(boss) = boss_index(kind) {
                run.boss_phases[boss][0] = true;
            }
        }
        Event::BossPhase { kind, phase, .. } => {
            if let Some(boss) = boss_index(EnemyKind::from_u8(kind)) {
                run.boss_phases[boss][usize::from(phase).min(2)] = true;
            }
        }
        Event::PickupTaken { kind, .. } => {
            run.pickups[PickupKind::from_u8(kind) as usize] += 1;
        }
        _ => {}
    }
}

fn boss_index(kind: EnemyKind) -> Option<usize> {
    match kind {
        EnemyKind::Warden => Some(0),
        EnemyKind::Hydra => Some(1),
        _ => None,
    }
}

/// The distribution over many seeds, against the targets of issue 57.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub seeds: usize,
    pub median_minutes: f64,
    pub p10_minutes: f64,
    pub p90_minutes: f64,
    pub median_wave: u32,
    /// Shares of seeds, in percent.
    pub cleared_wave_3: f64,
    pub beat_first_boss: f64,
    pub reached_wave_11: f64,
    pub with_a_revive: f64,
    pub min_wave: u32,
    pub max_wave: u32,
    pub pickups_taken: [u32; PickupKind::COUNT],
    pub kinds_seen: [u32; EnemyKind::COUNT],
    pub boss_phases_seen: [[bool; 3]; 2],
    pub bombs: u32,
}

pub fn report(runs: &[Run]) -> Report {
    let n = runs.len().max(1);
    let share =
        |f: &dyn Fn(&Run) -> bool| runs.iter().filter(|r| f(r)).count() as f64 * 100.0 / n as f64;
    let mut minutes: Vec<f64> = runs.iter().map(Run::minutes).collect();
    minutes.sort_by(f64::total_cmp);
    let mut waves: Vec<u32> = runs.iter().map(|r| r.wave).collect();
    waves.sort_unstable();
    let at = |v: &[f64], pct: usize| {
        v.get((v.len() * pct / 100).min(v.len().saturating_sub(1)))
            .copied()
            .unwrap_or(0.0)
    };
    let mut pickups = [0; PickupKind::COUNT];
    let mut kinds = [0; EnemyKind::COUNT];
    let mut phases = [[false; 3]; 2];
    for r in runs {
        for (a, b) in pickups.iter_mut().zip(r.pickups) {
            *a += b;
        }
        for (a, b) in kinds.iter_mut().zip(r.kinds) {
            *a += b;
        }
        for (a, b) in phases
            .iter_mut()
            .flatten()
            .zip(r.boss_phases.iter().flatten())
        {
            *a |= *b;
        }
    }
    Report {
        seeds: runs.len(),
        median_minutes: at(&minutes, 50),
        p10_minutes: at(&minutes, 10),
        p90_minutes: at(&minutes, 90),
        median_wave: waves.get(waves.len() / 2).copied().unwrap_or(0),
        // Wave 3 cleared: wave 4 reached. The first boss is wave 5's.
        cleared_wave_3: share(&|r| r.wave >= 4),
        beat_first_boss: share(&|r| r.bosses_defeated >= 1),
        reached_wave_11: share(&|r| r.wave >= 11),
        with_a_revive: share(&|r| r.revives >= 1),
        min_wave: waves.first().copied().unwrap_or(0),
        max_wave: waves.last().copied().unwrap_or(0),
        pickups_taken: pickups,
        kinds_seen: kinds,
        boss_phases_seen: phases,
        bombs: runs.iter().map(|r| r.bombs).sum(),
    }
}
