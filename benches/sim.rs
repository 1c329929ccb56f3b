//! Simulation costs for both presets: step, save (through GGRS's own
//! `GameStateCell`, as the driver does), load, checksum, an 8-frame
//! rollback, and a baseline that copies and hashes the same bytes.
//!
//! Also the step cost against the number of live entities (the `scaling`
//! group: the stress scenario cut to 5 enemy counts).
//!
//! Run: `cargo bench --bench sim`. Targets: rollback 8 <= 1 ms (stress),
//! <= 0.2 ms (default); save+checksum <= 2x copy+hash. `scripts/bench.sh`
//! runs it and reads criterion's estimates; it also reads the `bench-meta`
//! lines printed on stderr (entity counts and state size).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ggrs::GameStateCell;
use twinstar::input::ScriptBot;
use twinstar::sim::{Input, SimConfig, World};

/// The busiest world (most enemies + bullets) of the first `frames` frames
/// of a bot match, and the inputs for 8 more frames: a normal match is
/// between waves much of the time, and an empty arena would flatter `step`.
fn warmed(config: SimConfig, frames: u32) -> (Box<World>, Vec<[Input; 2]>) {
    warmed_with(config, frames, twinstar::sim::MAX_ENEMIES)
}

/// [`warmed`], with the enemies cut to the first `enemies` at the start.
fn warmed_with(config: SimConfig, frames: u32, enemies: usize) -> (Box<World>, Vec<[Input; 2]>) {
    let play = |until: u32| {
        let mut world = World::new(1, config);
        if world.enemy_count as usize > enemies {
            world.enemies[enemies..].fill(Default::default());
            world.enemy_count = enemies as u32;
        }
        let mut bots = [ScriptBot::new(1, 0), ScriptBot::new(1, 1)];
        let mut next = || [bots[0].next_input(), bots[1].next_input()];
        let mut busiest = (0, 0);
        for frame in 1..=until {
            world.step(next(), &mut ());
            let load = world.enemies().len() + world.bullets().len();
            if load > busiest.0 {
                busiest = (load, frame);
            }
        }
        let inputs: Vec<_> = (0..8).map(|_| next()).collect();
        (world, inputs, busiest.1)
    };
    let (_, _, busiest) = play(frames);
    let (world, inputs, _) = play(busiest);
    (world, inputs)
}

fn save(cell: &GameStateCell<Box<World>>, world: &World) {
    cell.save(
        world.frame as i32,
        Some(Box::new(*world)),
        Some(world.checksum()),
    );
}

fn bench_preset(c: &mut Criterion, name: &str, config: SimConfig, warmup: u32) {
    let (world, inputs) = warmed(config, warmup);
    meta(name, &world);
    let mut group = c.benchmark_group(name);
    group.bench_function("step", |b| {
        b.iter_batched_ref(
            || world.clone(),
            |w| w.step(inputs[0], &mut ()),
            criterion::BatchSize::SmallInput,
        )
    });
    let cell = GameStateCell::<Box<World>>::default();
    group.bench_function("save", |b| {
        b.iter(|| cell.save(world.frame as i32, Some(black_box(&world).clone()), None))
    });
    group.bench_function("checksum", |b| b.iter(|| black_box(&world).checksum()));
    group.bench_function("save+checksum", |b| {
        b.iter(|| save(&cell, black_box(&world)))
    });
    save(&cell, &world);
    let mut target = world.clone();
    group.bench_function("load", |b| b.iter(|| *target = **cell.data().unwrap()));
    group.bench_function("rollback8", |b| {
        let cells: Vec<GameStateCell<Box<World>>> =
            (0..8).map(|_| GameStateCell::default()).collect();
        let mut w = world.clone();
        b.iter(|| {
            *w = **cell.data().unwrap();
            for (input, slot) in inputs.iter().zip(&cells) {
                w.step(*input, &mut ());
                save(slot, &w);
            }
        })
    });
    let bytes = world.as_bytes().to_vec();
    let mut copy = vec![0u8; bytes.len()];
    group.bench_function("baseline_copy+hash", |b| {
        b.iter(|| {
            copy.copy_from_slice(black_box(&bytes));
            xxhash_rust::xxh3::xxh3_128(&copy)
        })
    });
    group.finish();
}

/// One JSON line on stderr describing the world a group measures.
fn meta(name: &str, world: &World) {
    eprintln!(
        "bench-meta {{\"name\":\"{name}\",\"enemies\":{},\"bullets\":{},\"state_bytes\":{}}}",
        world.enemies().len(),
        world.bullets().len(),
        world.as_bytes().len()
    );
}

/// Step cost against the number of live entities: the stress scenario
/// (enemies that shoot often and never die quickly) cut to each size.
fn bench_scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("scaling");
    for enemies in [18usize, 36, 72, 144, 288] {
        let (world, inputs) = warmed_with(SimConfig::STRESS, 600, enemies);
        meta(&format!("scaling/step/{enemies}"), &world);
        group.bench_with_input(BenchmarkId::new("step", enemies), &world, |b, world| {
            b.iter_batched_ref(
                || world.clone(),
                |w| w.step(inputs[0], &mut ()),
                criterion::BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    bench_preset(c, "default", SimConfig::DEFAULT, 3_600);
    bench_preset(c, "stress", SimConfig::STRESS, 1_200);
    bench_scaling(c);
}

criterion_group!(sim, benches);
criterion_main!(sim);
