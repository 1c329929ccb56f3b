//! Rollback-safe presentation: under synctest every frame is rolled back
//! and re-simulated 7 times, yet the effect ledger fires each simulation
//! event exactly once, identical to a plain run without any rollback.

use twinstar::frontend::effects::EventLedger;
use twinstar::input::ScriptBot;
use twinstar::session::Driver;
use twinstar::sim::{Event, SimConfig, World};
use twinstar_netcode::testing;

const FRAMES: u32 = 1500;
const SEED: u64 = 21;

fn bots() -> [ScriptBot; 2] {
    [ScriptBot::new(SEED, 0), ScriptBot::new(SEED, 1)]
}

#[test]
fn synctest_rollbacks_fire_each_event_once() {
    // Reference: a plain run, events straight from the simulation.
    let mut world = World::new(SEED, SimConfig::DEFAULT);
    let mut expected: Vec<(u32, Event)> = Vec::new();
    let mut bots_a = bots();
    for _ in 0..FRAMES {
        let mut events = Vec::new();
        world.step(
            [bots_a[0].next_input(), bots_a[1].next_input()],
            &mut events,
        );
        expected.extend(events.into_iter().map(|e| (world.frame, e)));
    }
    assert!(
        expected.len() > 100,
        "too few events to prove anything: {}",
        expected.len()
    );

    let mut driver = Driver::synctest(SEED, SimConfig::DEFAULT, 7).unwrap();
    let mut ledger = EventLedger::new();
    let mut fired = Vec::new();
    let mut cancelled = Vec::new();
    let mut resimulated = 0;
    let mut bots_b = bots();
    for _ in 0..FRAMES {
        let given = [bots_b[0].next_input(), bots_b[1].next_input()];
        let report = testing::advance(&mut driver, given).unwrap();
        // The newest frame ran on this frame's inputs, whatever was re-run
        // before it (the result panel shows who holds start from these).
        assert_eq!(report.inputs, Some(given));
        resimulated += report.resimulated;
        let changes = ledger.apply(&report);
        fired.extend(changes.fired);
        cancelled.extend(changes.cancelled);
    }
    assert!(
        resimulated > FRAMES * 5,
        "synctest should re-simulate a lot: {resimulated}"
    );
    assert!(
        cancelled.is_empty(),
        "nothing was really erased: {cancelled:?}"
    );
    assert_eq!(fired, expected);
}
