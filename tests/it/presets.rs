//! The stress preset reaches the load it promises.

use twinstar::input::ScriptBot;
use twinstar::sim::{OWNER_ENEMY, SimConfig, World};

#[test]
fn stress_holds_256_enemies_and_2048_bullets_at_once() {
    let mut world = World::new(1, SimConfig::STRESS);
    let mut bots = [ScriptBot::new(1, 0), ScriptBot::new(1, 1)];
    let mut peak = (0, 0);
    for _ in 0..1_200 {
        world.step([bots[0].next_input(), bots[1].next_input()], &mut ());
        let enemies = world.enemies().len();
        let bullets = world.bullets().len();
        if enemies >= 256 && bullets >= 2048 {
            peak = (enemies, bullets);
            break;
        }
        peak = peak.max((enemies, bullets));
    }
    assert!(
        peak.0 >= 256 && peak.1 >= 2048,
        "peak only {} enemies, {} bullets",
        peak.0,
        peak.1
    );
    assert!(
        world
            .bullets()
            .iter()
            .filter(|b| b.owner == OWNER_ENEMY)
            .count()
            > 1000
    );
}

#[test]
fn presets_are_named_and_distinct() {
    assert_eq!(SimConfig::preset("default"), Some(SimConfig::DEFAULT));
    assert_eq!(SimConfig::preset("stress"), Some(SimConfig::STRESS));
    assert_eq!(SimConfig::STRESS.preset_name(), Some("stress"));
    assert_eq!(SimConfig::preset("nope"), None);
    let a = World::new(1, SimConfig::DEFAULT).checksum();
    let b = World::new(1, SimConfig::STRESS).checksum();
    assert_ne!(a, b, "the config must be part of the hashed state");
}
