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
    for (i, (cue, file)) in CUES.iter().enumerate() {
        assert!(
            !CUES[i + 1..].iter().any(|(c, _)| c == cue),
            "{cue:?} listed twice"
        );
        let bytes = file.at_hand().expect("native builds hold every sound");
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
