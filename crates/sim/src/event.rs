//! What happened during a step, for frontends (sounds, effects, HUD) and
//! tests. Events never feed back into the simulation.

use crate::math::Vec2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    PlayerShot {
        player: u8,
    },
    /// An enemy fired (a shot, a fan, a ring or a burst's step).
    EnemyShot {
        id: u32,
        kind: u8,
    },
    /// An enemy began winding up an attack at `target`, striking in
    /// `frames` frames (a charger's dash, a sniper's shot, a spinner's
    /// ring, the Hydra's laser).
    Windup {
        id: u32,
        kind: u8,
        target: Vec2,
        frames: u16,
    },
    /// A spawn was announced: an enemy of `kind` appears at `pos` in
    /// `MARKER_FRAMES` frames.
    SpawnMarked {
        kind: u8,
        pos: Vec2,
    },
    EnemySpawned {
        id: u32,
        kind: u8,
        pos: Vec2,
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
        /// Points the kill gave the team (with the multiplier).
        points: u32,
    },
    /// A ship lost a life (it respawns if it has lives left).
    PlayerKilled {
        player: u8,
        pos: Vec2,
    },
    /// A ship's shield took a hit instead of it.
    ShieldBroken {
        player: u8,
    },
    /// A ship lost its last life and waits for its partner.
    PlayerDowned {
        player: u8,
        pos: Vec2,
    },
    /// `by` stood by the downed `player` long enough.
    PlayerRevived {
        player: u8,
        by: u8,
    },
    PlayerRespawned {
        player: u8,
    },
    BombUsed {
        player: u8,
        pos: Vec2,
    },
    PickupDropped {
        kind: u8,
        pos: Vec2,
    },
    PickupTaken {
        player: u8,
        kind: u8,
        pos: Vec2,
    },
    /// The team's multiplier went up to `multiplier`.
    ComboStep {
        multiplier: u32,
    },
    /// A hit reset a combo of `combo` kills.
    ComboLost {
        combo: u16,
    },
    BossPhase {
        id: u32,
        kind: u8,
        phase: u8,
    },
    BossDefeated {
        kind: u8,
        pos: Vec2,
    },
    WaveStarted {
        wave: u32,
    },
    WaveCleared {
        wave: u32,
        bonus: u32,
        no_hit: bool,
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
