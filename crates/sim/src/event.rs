//! What happened during a step, for frontends (sounds, effects, HUD) and
//! tests. Events never feed back into the simulation.

use crate::math::Vec2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    PlayerShot {
        player: u8,
    },
    EnemyShot {
        id: u32,
        direction: u32,
    },
    EnemyHit {
        id: u32,
        player: u8,
    },
    EnemyKilled {
        id: u32,
        kind: u8,
        player: u8,
        pos: Vec2,
    },
    PlayerKilled {
        player: u8,
        pos: Vec2,
    },
    PlayerRespawned {
        player: u8,
    },
    WaveStarted {
        wave: u32,
    },
    GameOver,
    Restarted,
}

/// Where a step sends its events. `()` discards them at no cost, which is
/// what re-simulation during rollback uses.
pub trait EventSink {
    fn emit(&mut self, event: Event);
}

impl EventSink for () {
    #[inline]
    fn emit(&mut self, _: Event) {}
}

impl EventSink for Vec<Event> {
    fn emit(&mut self, event: Event) {
        self.push(event);
    }
}
