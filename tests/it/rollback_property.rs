//! Rollback's contract with the simulation: restoring a saved copy and
//! replaying the same inputs gives the same bits, for any inputs.

use proptest::prelude::*;
use twinstar::sim::{Input, SimConfig, World};

fn inputs() -> impl Strategy<Value = Vec<[u16; 2]>> {
    prop::collection::vec(any::<[u16; 2]>(), 1..200)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn save_load_resimulate_is_exact(seed in any::<u64>(), warmup in inputs(), tail in inputs(), stress in any::<bool>()) {
        let config = if stress { SimConfig::STRESS } else { SimConfig::DEFAULT };
        let mut world = World::new(seed, config);
        for [a, b] in &warmup {
            world.step([Input(*a), Input(*b)], &mut ());
        }
        let saved: World = *world;
        let saved_checksum = saved.checksum();
        for [a, b] in &tail {
            world.step([Input(*a), Input(*b)], &mut ());
        }
        let mut replayed: Box<World> = Box::new(saved);
        prop_assert_eq!(replayed.checksum(), saved_checksum);
        for [a, b] in &tail {
            replayed.step([Input(*a), Input(*b)], &mut ());
        }
        prop_assert_eq!(replayed.checksum(), world.checksum());
        prop_assert!(*replayed == *world);
    }

    #[test]
    fn any_input_word_is_safe(seed in any::<u64>(), raw in prop::collection::vec(any::<[u16; 2]>(), 1..400)) {
        // Inputs come from the network: the reserved top bits and
        // contradictory directions must not break anything.
        let mut world = World::new(seed, SimConfig::DEFAULT);
        for [a, b] in raw {
            world.step([Input(a), Input(b)], &mut ());
        }
        prop_assert!(world.enemies().len() <= twinstar::sim::MAX_ENEMIES);
    }
}
