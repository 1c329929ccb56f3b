//! Simulation costs for both presets: step, save (through GGRS's own
//! `GameStateCell`, as the driver does), load, checksum, an 8-frame
//! rollback, and a baseline that copies and hashes the same bytes.
//!
//! Run: `cargo bench --bench sim`. Targets: rollback 8 <= 1 ms (stress),
//! <= 0.2 ms (default); save+checksum <= 2x copy+hash.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use ggrs::GameStateCell;
use twinstar::input::ScriptBot;
use twinstar::sim::{Input, SimConfig, World};

/// A world mid-match with bot inputs, and the inputs for 8 more frames.
fn warmed(config: SimConfig, frames: u32) -> (Box<World>, Vec<[Input; 2]>) {
    let mut world = World::new(1, config);
    let mut bots = [ScriptBot::new(1, 0), ScriptBot::new(1, 1)];
    let mut next = || [bots[0].next_input(), bots[1].next_input()];
    for _ in 0..frames {
        world.step(next(), &mut ());
    }
    let inputs = (0..8).map(|_| next()).collect();
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
    eprintln!(
        "{name}: {} enemies, {} bullets, state {} bytes",
        world.enemies().len(),
        world.bullets().len(),
        world.as_bytes().len()
    );
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

fn benches(c: &mut Criterion) {
    bench_preset(c, "default", SimConfig::DEFAULT, 1_000);
    bench_preset(c, "stress", SimConfig::STRESS, 1_000);
}

criterion_group!(sim, benches);
criterion_main!(sim);
