//! Which sound each simulation event makes, and the sound files. A new
//! player hears what happened without looking: their own ship's loss from
//! their partner's, each enemy kind's death, each pickup.

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

macro_rules! sound {
    ($file:literal) => {
        include_bytes!(concat!("../../assets/sounds/", $file, ".wav"))
    };
}

/// Every cue's sound file (`scripts/gen-assets.py` makes them), in the
/// order they load: the menu's first, then the commonest in a match.
pub const CUES: [(Cue, &[u8]); 37] = [
    (Cue::MenuMove, sound!("menu_move")),
    (Cue::MenuSelect, sound!("menu_select")),
    (Cue::Shot, sound!("shot")),
    (Cue::Hit, sound!("hit")),
    (Cue::ShieldBreak, sound!("shield_break")),
    (Cue::OwnDeath, sound!("death")),
    (Cue::PartnerDeath, sound!("partner_hit")),
    (Cue::Downed, sound!("downed")),
    (Cue::Revived, sound!("revived")),
    (Cue::Respawn, sound!("respawn")),
    (Cue::KillWanderer, sound!("kill_wanderer")),
    (Cue::KillShooter, sound!("kill_shooter")),
    (Cue::KillCharger, sound!("kill_charger")),
    (Cue::KillSniper, sound!("kill_sniper")),
    (Cue::KillSplitter, sound!("kill_splitter")),
    (Cue::KillSplitling, sound!("kill_splitling")),
    (Cue::KillSpinner, sound!("kill_spinner")),
    (Cue::BossExplodes, sound!("boss_explodes")),
    (Cue::EnemyShot, sound!("enemy_shot")),
    (Cue::Spawn, sound!("spawn")),
    (Cue::WindupCharge, sound!("windup_charge")),
    (Cue::WindupLaser, sound!("windup_laser")),
    (Cue::WindupRing, sound!("windup_ring")),
    (Cue::PickupSpread, sound!("pickup_spread")),
    (Cue::PickupRapid, sound!("pickup_rapid")),
    (Cue::PickupPierce, sound!("pickup_pierce")),
    (Cue::PickupShield, sound!("pickup_shield")),
    (Cue::PickupBomb, sound!("pickup_bomb")),
    (Cue::PickupLife, sound!("pickup_life")),
    (Cue::Bomb, sound!("bomb")),
    (Cue::ComboStep, sound!("combo_step")),
    (Cue::ComboLost, sound!("combo_lost")),
    (Cue::BossPhase, sound!("boss_phase")),
    (Cue::BossDefeated, sound!("boss_defeated")),
    (Cue::WaveStart, sound!("wave_start")),
    (Cue::WaveCleared, sound!("wave_cleared")),
    (Cue::GameOver, sound!("game_over")),
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
mod tests {
    use super::*;
    use crate::sim::Vec2;

    const ONLINE_P1: [bool; 2] = [true, false];

    fn kill(kind: EnemyKind) -> Event {
        Event::EnemyKilled {
            id: 1,
            kind: kind as u8,
            player: 0,
            pos: Vec2::default(),
            points: 100,
        }
    }

    #[test]
    fn every_event_makes_its_intended_sound() {
        let pos = Vec2::default();
        let table = [
            (Event::PlayerShot { player: 1 }, Some(Cue::Shot)),
            (Event::EnemyShot { id: 3, kind: 1 }, Some(Cue::EnemyShot)),
            (
                Event::Windup {
                    id: 3,
                    kind: EnemyKind::Charger as u8,
                    target: pos,
                    frames: 30,
                },
                Some(Cue::WindupCharge),
            ),
            (Event::SpawnMarked { kind: 0, pos }, Some(Cue::Spawn)),
            (
                Event::EnemySpawned {
                    id: 3,
                    kind: 0,
                    pos,
                },
                None,
            ),
            (Event::EnemyHit { id: 3, player: 0 }, Some(Cue::Hit)),
            (kill(EnemyKind::Wanderer), Some(Cue::KillWanderer)),
            (Event::PlayerKilled { player: 0, pos }, Some(Cue::OwnDeath)),
            (
                Event::PlayerKilled { player: 1, pos },
                Some(Cue::PartnerDeath),
            ),
            (Event::ShieldBroken { player: 1 }, Some(Cue::ShieldBreak)),
            (Event::PlayerDowned { player: 1, pos }, Some(Cue::Downed)),
            (
                Event::PlayerRevived { player: 1, by: 0 },
                Some(Cue::Revived),
            ),
            (Event::PlayerRespawned { player: 0 }, Some(Cue::Respawn)),
            (Event::BombUsed { player: 0, pos }, Some(Cue::Bomb)),
            (Event::PickupDropped { kind: 0, pos }, None),
            (
                Event::PickupTaken {
                    player: 0,
                    kind: PickupKind::Life as u8,
                    pos,
                },
                Some(Cue::PickupLife),
            ),
            (Event::ComboStep { multiplier: 2 }, Some(Cue::ComboStep)),
            (Event::ComboLost { combo: 9 }, Some(Cue::ComboLost)),
            (
                Event::BossPhase {
                    id: 3,
                    kind: 7,
                    phase: 1,
                },
                Some(Cue::BossPhase),
            ),
            (
                Event::BossDefeated { kind: 7, pos },
                Some(Cue::BossDefeated),
            ),
            (Event::WaveStarted { wave: 2 }, Some(Cue::WaveStart)),
            (
                Event::WaveCleared {
                    wave: 2,
                    bonus: 0,
                    no_hit: false,
                },
                Some(Cue::WaveCleared),
            ),
            (Event::GameOver, Some(Cue::GameOver)),
            (Event::Restarted, None),
        ];
        for (event, want) in table {
            assert_eq!(cue_for(&event, ONLINE_P1), want, "{event:?}");
        }
    }

    #[test]
    fn own_and_partner_losses_follow_who_plays_here() {
        let lost = |player| Event::PlayerKilled {
            player,
            pos: Vec2::default(),
        };
        // Online as player 2: player 2's loss is ours.
        assert_eq!(cue_for(&lost(1), [false, true]), Some(Cue::OwnDeath));
        assert_eq!(cue_for(&lost(0), [false, true]), Some(Cue::PartnerDeath));
        // Local co-op: both ships are played here.
        assert_eq!(cue_for(&lost(1), [true, true]), Some(Cue::OwnDeath));
        // Watching: neither is.
        assert_eq!(cue_for(&lost(0), [false, false]), Some(Cue::PartnerDeath));
    }

    #[test]
    fn each_kind_dies_with_its_own_sound_and_bosses_with_theirs() {
        let cues: Vec<Cue> = EnemyKind::ALL
            .iter()
            .filter(|k| !k.is_boss())
            .map(|k| cue_for(&kill(*k), ONLINE_P1).unwrap())
            .collect();
        for (i, a) in cues.iter().enumerate() {
            assert!(!cues[i + 1..].contains(a), "{a:?} is shared by two kinds");
        }
        for boss in [EnemyKind::Warden, EnemyKind::Hydra] {
            let cue = cue_for(&kill(boss), ONLINE_P1).unwrap();
            assert_eq!(cue, Cue::BossExplodes);
            assert!(!cues.contains(&cue));
        }
    }

    #[test]
    fn each_pickup_kind_has_its_own_sound() {
        let cues: Vec<Cue> = PickupKind::ALL.iter().map(|k| pickup_cue(*k)).collect();
        for (i, a) in cues.iter().enumerate() {
            assert!(!cues[i + 1..].contains(a), "{a:?} is shared by two pickups");
        }
    }

    #[test]
    fn chargers_and_snipers_wind_up_differently() {
        assert_ne!(
            windup_cue(EnemyKind::Charger),
            windup_cue(EnemyKind::Sniper)
        );
        assert_ne!(
            windup_cue(EnemyKind::Sniper),
            windup_cue(EnemyKind::Spinner)
        );
    }

    #[test]
    fn every_cue_has_one_sound_file_and_every_file_is_a_wav() {
        for (i, (cue, bytes)) in CUES.iter().enumerate() {
            assert!(
                !CUES[i + 1..].iter().any(|(c, _)| c == cue),
                "{cue:?} listed twice"
            );
            assert_eq!(&bytes[0..4], b"RIFF", "{cue:?}");
            assert_eq!(&bytes[8..12], b"WAVE", "{cue:?}");
        }
        // Every cue an event can make is loaded.
        let events = EnemyKind::ALL
            .iter()
            .map(|k| kill(*k))
            .chain(PickupKind::ALL.iter().map(|k| Event::PickupTaken {
                player: 0,
                kind: *k as u8,
                pos: Vec2::default(),
            }))
            .chain(EnemyKind::ALL.iter().map(|k| Event::Windup {
                id: 0,
                kind: *k as u8,
                target: Vec2::default(),
                frames: 1,
            }));
        for event in events {
            let cue = cue_for(&event, ONLINE_P1).unwrap();
            assert!(CUES.iter().any(|(c, _)| *c == cue), "{cue:?} has no file");
        }
    }
}
