//! The rules of the second simulation version, one behaviour a test:
//! aim and strafing, the bomb, pickups, downed ships and revives, spawn
//! markers and grace, the combo, bosses' phases, the stress scenario.

use twinstar_sim::*;

/// A default world with the director held off (a wave announced and not
/// cleared), so a test places what it needs.
fn quiet() -> Box<World> {
    let mut world = World::new(7, SimConfig::DEFAULT);
    world.spawner.wave = 1;
    world.spawner.wave_done = WAVE_ANNOUNCED;
    world.team.best_wave = 1;
    world
}

fn enemy(world: &mut World, kind: EnemyKind, pos: Vec2, hp: u16) -> u32 {
    let i = world.enemy_count as usize;
    let id = 1000 + i as u32;
    world.enemies[i] = Enemy {
        pos,
        rng: Mwc::from_seed(u64::from(id)),
        id,
        hp,
        max_hp: hp,
        timer: 500,
        kind: kind as u8,
        ..Enemy::default()
    };
    world.enemy_count += 1;
    // Keep the director's clear check from firing on an empty arena.
    id
}

fn enemy_bullet(world: &mut World, pos: Vec2) {
    let i = world.bullet_count as usize;
    world.bullets[i] = Bullet {
        pos,
        ttl: 600,
        owner: OWNER_ENEMY,
        ..Bullet::default()
    };
    world.bullet_count += 1;
}

fn step(world: &mut World, inputs: [Input; 2]) -> Vec<Event> {
    let mut events = Vec::new();
    world.step(inputs, &mut events);
    events
}

const IDLE: [Input; 2] = [Input(0), Input(0)];

#[test]
fn a_ship_fires_where_it_aims_else_where_it_moved_and_focus_keeps_the_facing() {
    let mut world = quiet();
    enemy(
        &mut world,
        EnemyKind::Wanderer,
        Vec2::new(fx(600), fx(30)),
        100,
    );
    // Moving right turns the ship right; its shot flies right.
    step(&mut world, [Input(Input::RIGHT), Input(0)]);
    assert_eq!(world.players[0].facing, 0);
    // Focus held while moving left keeps facing right (strafing).
    step(
        &mut world,
        [Input(Input::LEFT | Input::FOCUS | Input::FIRE), Input(0)],
    );
    assert_eq!(world.players[0].facing, 0);
    let shot = world.bullets().iter().find(|b| b.owner == 0).unwrap();
    assert!(shot.vel.x > Fx::ZERO && shot.vel.y == Fx::ZERO, "{shot:?}");
    // An aim wins over the facing: aim 8 of 32 is straight down.
    world.players[0].pos.y = fx(100);
    for _ in 0..10 {
        step(&mut world, [Input(Input::FIRE).with_aim(Some(8)), Input(0)]);
    }
    assert_eq!(world.players[0].facing, 16);
    assert!(
        world
            .bullets()
            .iter()
            .any(|b| b.owner == 0 && b.vel.y > Fx::ZERO && b.vel.x == Fx::ZERO)
    );
}

#[test]
fn a_bomb_clears_bullets_in_reach_hurts_enemies_and_protects_once_per_press() {
    let mut world = quiet();
    let ship = world.players[0].pos;
    enemy_bullet(&mut world, Vec2::new(ship.x + fx(40), ship.y - fx(40)));
    enemy_bullet(&mut world, Vec2::new(ship.x, fx(20)));
    let near = enemy(
        &mut world,
        EnemyKind::Shooter,
        Vec2::new(ship.x - fx(60), ship.y - fx(30)),
        20,
    );
    enemy(
        &mut world,
        EnemyKind::Shooter,
        Vec2::new(fx(600), fx(20)),
        20,
    );
    let bombs = world.players[0].bombs;
    assert_eq!(bombs, 2, "a life starts with two bombs");
    let events = step(&mut world, [Input(Input::BOMB), Input(0)]);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::BombUsed { player: 0, .. }))
    );
    assert_eq!(world.players[0].bombs, bombs - 1);
    assert!(world.players[0].invulnerable >= BOMB_INVULNERABLE - 1);
    let left: Vec<_> = world
        .bullets()
        .iter()
        .filter(|b| b.owner == OWNER_ENEMY)
        .collect();
    assert_eq!(left.len(), 1, "only the far bullet is left");
    let hurt = world.enemies().iter().find(|e| e.id == near).unwrap();
    assert_eq!(hurt.hp, 20 - BOMB_DAMAGE);
    assert!(
        world.enemies().iter().any(|e| e.hp == 20),
        "the far one is untouched"
    );
    // Held, it does not go off again; pressed again, it does.
    step(&mut world, [Input(Input::BOMB), Input(0)]);
    assert_eq!(world.players[0].bombs, bombs - 1);
    step(&mut world, IDLE);
    step(&mut world, [Input(Input::BOMB), Input(0)]);
    assert_eq!(world.players[0].bombs, bombs - 2);
    step(&mut world, IDLE);
    step(&mut world, [Input(Input::BOMB), Input(0)]);
    assert_eq!(world.players[0].bombs, 0, "none left, none used");
    assert_eq!(world.players[0].bombs_used, 2);
}

#[test]
fn the_last_life_downs_a_ship_the_partner_revives_it_and_both_down_ends_the_match() {
    let mut world = quiet();
    world.players[0].lives = 1;
    let at = world.players[0].pos;
    enemy_bullet(&mut world, at);
    let events = step(&mut world, IDLE);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::PlayerDowned { player: 0, .. }))
    );
    assert!(world.players[0].is_downed() && !world.is_game_over());
    // The partner walks over and stands by it for REVIVE_FRAMES.
    world.players[1].pos = Vec2::new(at.x + fx(20), at.y);
    let mut revived = None;
    for f in 0..200 {
        let events = step(&mut world, IDLE);
        if events
            .iter()
            .any(|e| matches!(e, Event::PlayerRevived { player: 0, by: 1 }))
        {
            revived = Some(f + 1);
            break;
        }
    }
    assert_eq!(revived, Some(u32::from(REVIVE_FRAMES)));
    let p = world.players[0];
    assert_eq!((p.alive, p.downed, p.lives), (1, 0, 1));
    assert_eq!(world.players[1].revives, 1);
    // Both down at once: game over.
    for i in 0..2 {
        world.players[i].lives = 1;
        world.players[i].invulnerable = 0;
        let at = world.players[i].pos;
        enemy_bullet(&mut world, at);
    }
    let events = step(&mut world, IDLE);
    assert!(events.contains(&Event::GameOver));
    assert!(world.is_game_over());
}

#[test]
fn drops_come_from_the_dying_enemy_and_pickups_do_what_they_say() {
    let mut world = quiet();
    world.config.drop_permille = 1000;
    let ship = world.players[0].pos;
    let id = enemy(
        &mut world,
        EnemyKind::Wanderer,
        Vec2::new(ship.x, ship.y - fx(60)),
        1,
    );
    let mut dropped = None;
    for _ in 0..30 {
        let events = step(&mut world, [Input(Input::FIRE), Input(0)]);
        dropped = dropped.or(events.iter().find_map(|e| match e {
            Event::PickupDropped { kind, .. } => Some(*kind),
            _ => None,
        }));
        if world.enemies().iter().all(|e| e.id != id) {
            break;
        }
    }
    assert!(
        dropped.is_some() && world.pickups().len() == 1,
        "a certain drop"
    );
    // Each kind, walked over.
    for kind in PickupKind::ALL {
        let mut w = quiet();
        w.players[0].lives = w.config.lives;
        w.players[1].lives = 1;
        w.players[0].bombs = 1;
        w.pickups[0] = Pickup {
            pos: w.players[0].pos,
            ttl: PICKUP_FRAMES,
            kind: kind as u8,
            _pad: 0,
        };
        w.pickup_count = 1;
        let events = step(&mut w, IDLE);
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Event::PickupTaken { player: 0, .. })),
            "{kind:?}"
        );
        let p = w.players[0];
        match kind {
            PickupKind::Spread => assert_eq!(p.weapon(), Weapon::Spread),
            PickupKind::Rapid => assert_eq!(p.weapon(), Weapon::Rapid),
            PickupKind::Pierce => assert_eq!(p.weapon(), Weapon::Pierce),
            PickupKind::Shield => assert_eq!(p.shield, 1),
            PickupKind::Bomb => assert_eq!(p.bombs, 2),
            // Full: the partner gets it.
            PickupKind::Life => assert_eq!((p.lives, w.players[1].lives), (w.config.lives, 2)),
        }
        assert_eq!(p.pickups, 1);
    }
    // Left on the floor, a pickup fades.
    let mut w = quiet();
    w.pickups[0] = Pickup {
        pos: Vec2::new(fx(20), fx(20)),
        ttl: 3,
        kind: 0,
        _pad: 0,
    };
    w.pickup_count = 1;
    for _ in 0..3 {
        step(&mut w, IDLE);
    }
    assert!(w.pickups().is_empty());
}

#[test]
fn a_spread_shot_is_three_shots_and_a_piercing_one_goes_through() {
    let mut world = quiet();
    world.players[0].weapon = Weapon::Spread as u8;
    world.players[0].weapon_timer = 100;
    step(&mut world, [Input(Input::FIRE), Input(0)]);
    assert_eq!(world.bullets().iter().filter(|b| b.owner == 0).count(), 3);
    let mut world = quiet();
    world.players[0].weapon = Weapon::Pierce as u8;
    world.players[0].weapon_timer = 100;
    let ship = world.players[0].pos;
    let a = enemy(
        &mut world,
        EnemyKind::Charger,
        Vec2::new(ship.x, ship.y - fx(60)),
        50,
    );
    let b = enemy(
        &mut world,
        EnemyKind::Charger,
        Vec2::new(ship.x, ship.y - fx(120)),
        50,
    );
    let mut hit = Vec::new();
    for _ in 0..20 {
        for e in step(&mut world, [Input(Input::FIRE), Input(0)]) {
            if let Event::EnemyHit { id, .. } = e {
                hit.push(id);
            }
        }
    }
    assert!(hit.contains(&a) && hit.contains(&b), "{hit:?}");
}

#[test]
fn every_spawn_is_announced_and_a_fresh_enemy_is_harmless_at_first() {
    let mut world = World::new(3, SimConfig::DEFAULT);
    let mut marked = Vec::new();
    let mut spawned = Vec::new();
    for _ in 0..1500 {
        for e in step(&mut world, IDLE) {
            match e {
                Event::SpawnMarked { pos, .. } => marked.push((world.frame, pos)),
                Event::EnemySpawned { pos, id, .. } => spawned.push((world.frame, pos, id)),
                _ => {}
            }
        }
    }
    assert!(spawned.len() >= 6, "{}", spawned.len());
    for (frame, pos, _) in &spawned {
        let mark = marked
            .iter()
            .find(|(_, p)| p == pos)
            .expect("a marker before every enemy");
        // 0.6 s at least.
        assert!(frame - mark.0 >= 36, "marked {} spawned {frame}", mark.0);
    }
    // An enemy spawned on a ship does not kill it during its grace.
    let mut world = quiet();
    let ship = world.players[0].pos;
    let i = world.enemy_count as usize;
    world.enemies[i] = Enemy {
        pos: ship,
        hp: 5,
        max_hp: 5,
        kind: EnemyKind::Wanderer as u8,
        grace: SPAWN_GRACE,
        timer: 500,
        ..Enemy::default()
    };
    world.enemy_count += 1;
    world.players[0].invulnerable = 0;
    for _ in 0..(SPAWN_GRACE - 2) {
        step(&mut world, IDLE);
    }
    assert_eq!(world.players[0].lives, world.config.lives);
}

#[test]
fn quick_kills_grow_the_multiplier_and_a_hit_drops_it() {
    let mut world = quiet();
    world.team.combo = COMBO_STEP as u16 * 2;
    world.team.combo_timer = COMBO_FRAMES;
    assert_eq!(world.team.multiplier(), 3);
    // One far away keeps the wave (and its clear bonus) from ending.
    enemy(
        &mut world,
        EnemyKind::Wanderer,
        Vec2::new(fx(20), fx(20)),
        100,
    );
    let ship = world.players[0].pos;
    enemy(
        &mut world,
        EnemyKind::Wanderer,
        Vec2::new(ship.x, ship.y - fx(30)),
        1,
    );
    let mut points = None;
    for _ in 0..10 {
        for e in step(&mut world, [Input(Input::FIRE), Input(0)]) {
            if let Event::EnemyKilled { points: p, .. } = e {
                points = Some(p);
            }
        }
    }
    assert_eq!(points, Some(EnemyKind::Wanderer.points() * 3));
    assert_eq!(world.team.score, EnemyKind::Wanderer.points() * 3);
    world.players[0].invulnerable = 0;
    let at = world.players[0].pos;
    enemy_bullet(&mut world, at);
    let events = step(&mut world, IDLE);
    assert!(events.iter().any(|e| matches!(e, Event::ComboLost { .. })));
    assert_eq!(world.team.combo, 0);
}

#[test]
fn a_boss_changes_phase_at_each_third_of_its_health() {
    let mut world = quiet();
    let id = enemy(
        &mut world,
        EnemyKind::Warden,
        Vec2::new(fx(320), fx(70)),
        300,
    );
    world.enemies[0].timer = 0;
    let mut phases = Vec::new();
    for hp in [300u16, 199, 99] {
        world.enemies[0].hp = hp;
        for e in step(&mut world, IDLE) {
            if let Event::BossPhase { id: i, phase, .. } = e {
                assert_eq!(i, id);
                phases.push(phase);
            }
        }
    }
    assert_eq!(phases, [1, 2]);
    assert!(world.bullet_count > 0 || world.enemies[0].timer > 0);
}

#[test]
fn the_stress_preset_is_a_boss_in_its_last_phase_and_a_full_bullet_pool() {
    let mut world = World::new(1, SimConfig::STRESS);
    assert_eq!(world.enemy_count as usize, MAX_ENEMIES);
    let boss = world.boss().expect("a boss");
    assert_eq!(boss.phase, 2);
    for _ in 0..600 {
        step(&mut world, IDLE);
    }
    assert!(
        world.bullet_count as usize > MAX_BULLETS * 9 / 10,
        "{}",
        world.bullet_count
    );
}

#[test]
fn the_wave_table_escalates_by_kind_and_pace_with_bosses_every_fifth_wave() {
    assert!(is_boss_wave(5) && is_boss_wave(10) && !is_boss_wave(11));
    assert_eq!(wave_loop(20), 0);
    assert_eq!(wave_loop(21), 1);
    let mut world = quiet();
    let pace_1 = world.pace_pct();
    world.spawner.wave = 41;
    assert!(world.pace_pct() > pace_1);
}
