//! Which sound each simulation event makes, and the sound files. A new
//! player hears what happened without looking: their own ship's loss from
//! their partner's, each enemy kind's death, each pickup.

use crate::platform::assets::{Asset, asset};
use crate::sim::{EnemyKind, Event, PickupKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cue {
    Shot,
    Hit,
    ShieldBreak,
    /// A ship played on this machine lost a life.
    OwnDeath,
    /// The partner's ship (on the other machine, or the bot) lost a life.
    PartnerDeath,
    Downed,
    Revived,
    Respawn,
    KillWanderer,
    KillShooter,
    KillCharger,
    KillSniper,
    KillSplitter,
    KillSplitling,
    KillSpinner,
    /// A boss's death (the Warden's and the Hydra's sound alike: the
    /// fanfare of [`Cue::BossDefeated`] plays with it).
    BossExplodes,
    EnemyShot,
    Spawn,
    WindupCharge,
    WindupLaser,
    WindupRing,
    PickupSpread,
    PickupRapid,
    PickupPierce,
    PickupShield,
    PickupBomb,
    PickupLife,
    Bomb,
    ComboStep,
    ComboLost,
    BossPhase,
    BossDefeated,
    WaveStart,
    WaveCleared,
    GameOver,
    MenuMove,
    MenuSelect,
}

/// Every cue's sound file (`scripts/gen-assets.py` makes them; built in
/// natively, fetched by the page after its first frame), in the order
/// they load: the menu's first, then the commonest in a match.
pub const CUES: [(Cue, Asset); 37] = [
    (Cue::MenuMove, asset!("sounds/menu_move.wav")),
    (Cue::MenuSelect, asset!("sounds/menu_select.wav")),
    (Cue::Shot, asset!("sounds/shot.wav")),
    (Cue::Hit, asset!("sounds/hit.wav")),
    (Cue::ShieldBreak, asset!("sounds/shield_break.wav")),
    (Cue::OwnDeath, asset!("sounds/death.wav")),
    (Cue::PartnerDeath, asset!("sounds/partner_hit.wav")),
    (Cue::Downed, asset!("sounds/downed.wav")),
    (Cue::Revived, asset!("sounds/revived.wav")),
    (Cue::Respawn, asset!("sounds/respawn.wav")),
    (Cue::KillWanderer, asset!("sounds/kill_wanderer.wav")),
    (Cue::KillShooter, asset!("sounds/kill_shooter.wav")),
    (Cue::KillCharger, asset!("sounds/kill_charger.wav")),
    (Cue::KillSniper, asset!("sounds/kill_sniper.wav")),
    (Cue::KillSplitter, asset!("sounds/kill_splitter.wav")),
    (Cue::KillSplitling, asset!("sounds/kill_splitling.wav")),
    (Cue::KillSpinner, asset!("sounds/kill_spinner.wav")),
    (Cue::BossExplodes, asset!("sounds/boss_explodes.wav")),
    (Cue::EnemyShot, asset!("sounds/enemy_shot.wav")),
    (Cue::Spawn, asset!("sounds/spawn.wav")),
    (Cue::WindupCharge, asset!("sounds/windup_charge.wav")),
    (Cue::WindupLaser, asset!("sounds/windup_laser.wav")),
    (Cue::WindupRing, asset!("sounds/windup_ring.wav")),
    (Cue::PickupSpread, asset!("sounds/pickup_spread.wav")),
    (Cue::PickupRapid, asset!("sounds/pickup_rapid.wav")),
    (Cue::PickupPierce, asset!("sounds/pickup_pierce.wav")),
    (Cue::PickupShield, asset!("sounds/pickup_shield.wav")),
    (Cue::PickupBomb, asset!("sounds/pickup_bomb.wav")),
    (Cue::PickupLife, asset!("sounds/pickup_life.wav")),
    (Cue::Bomb, asset!("sounds/bomb.wav")),
    (Cue::ComboStep, asset!("sounds/combo_step.wav")),
    (Cue::ComboLost, asset!("sounds/combo_lost.wav")),
    (Cue::BossPhase, asset!("sounds/boss_phase.wav")),
    (Cue::BossDefeated, asset!("sounds/boss_defeated.wav")),
    (Cue::WaveStart, asset!("sounds/wave_start.wav")),
    (Cue::WaveCleared, asset!("sounds/wave_cleared.wav")),
    (Cue::GameOver, asset!("sounds/game_over.wav")),
];

/// The sound an event makes, if any. `local[p]` is whether player `p` is
/// played on this machine (a keyboard, pad or touch player): their ship's
/// loss is "own", the other's is the partner's. Both players of a local
/// match are own; a watcher has neither.
pub fn cue_for(event: &Event, local: [bool; 2]) -> Option<Cue> {
    let is_local = |player: &u8| local.get(usize::from(*player)).copied() == Some(true);
    match event {
        Event::PlayerShot { .. } => Some(Cue::Shot),
        Event::EnemyHit { .. } => Some(Cue::Hit),
        Event::ShieldBroken { .. } => Some(Cue::ShieldBreak),
        Event::PlayerKilled { player, .. } if is_local(player) => Some(Cue::OwnDeath),
        Event::PlayerKilled { .. } => Some(Cue::PartnerDeath),
        Event::PlayerDowned { .. } => Some(Cue::Downed),
        Event::PlayerRevived { .. } => Some(Cue::Revived),
        Event::PlayerRespawned { .. } => Some(Cue::Respawn),
        Event::EnemyKilled { kind, .. } => Some(kill_cue(EnemyKind::from_u8(*kind))),
        Event::EnemyShot { .. } => Some(Cue::EnemyShot),
        Event::SpawnMarked { .. } => Some(Cue::Spawn),
        Event::Windup { kind, .. } => Some(windup_cue(EnemyKind::from_u8(*kind))),
        Event::PickupTaken { kind, .. } => Some(pickup_cue(PickupKind::from_u8(*kind))),
        Event::BombUsed { .. } => Some(Cue::Bomb),
        Event::ComboStep { .. } => Some(Cue::ComboStep),
        Event::ComboLost { .. } => Some(Cue::ComboLost),
        Event::BossPhase { .. } => Some(Cue::BossPhase),
        Event::BossDefeated { .. } => Some(Cue::BossDefeated),
        Event::WaveStarted { .. } => Some(Cue::WaveStart),
        Event::WaveCleared { .. } => Some(Cue::WaveCleared),
        Event::GameOver => Some(Cue::GameOver),
        // The spawn marker already sounded (a splitter's fragments come
        // with its death's sound); a dropped pickup is seen, and taking
        // it is what sounds; a restart is the rematch, after the fanfare.
        Event::EnemySpawned { .. } | Event::PickupDropped { .. } | Event::Restarted => None,
    }
}

fn kill_cue(kind: EnemyKind) -> Cue {
    match kind {
        EnemyKind::Wanderer => Cue::KillWanderer,
        EnemyKind::Shooter => Cue::KillShooter,
        EnemyKind::Charger => Cue::KillCharger,
        EnemyKind::Sniper => Cue::KillSniper,
        EnemyKind::Splitter => Cue::KillSplitter,
        EnemyKind::Splitling => Cue::KillSplitling,
        EnemyKind::Spinner => Cue::KillSpinner,
        EnemyKind::Warden | EnemyKind::Hydra => Cue::BossExplodes,
    }
}

/// Windups by what comes next: a dash, a laser line, or a ring.
fn windup_cue(kind: EnemyKind) -> Cue {
    match kind {
        EnemyKind::Charger => Cue::WindupCharge,
        EnemyKind::Sniper | EnemyKind::Hydra => Cue::WindupLaser,
        EnemyKind::Spinner
        | EnemyKind::Warden
        | EnemyKind::Wanderer
        | EnemyKind::Shooter
        | EnemyKind::Splitter
        | EnemyKind::Splitling => Cue::WindupRing,
    }
}

fn pickup_cue(kind: PickupKind) -> Cue {
    match kind {
        PickupKind::Spread => Cue::PickupSpread,
        PickupKind::Rapid => Cue::PickupRapid,
        PickupKind::Pierce => Cue::PickupPierce,
        PickupKind::Shield => Cue::PickupShield,
        PickupKind::Bomb => Cue::PickupBomb,
        PickupKind::Life => Cue::PickupLife,
    }
}

#[cfg(test)]
#[path = "cues_tests.rs"]
mod tests;
