//! The rules: one call advances the world by one frame (1/60 s). The
//! order within a frame: ships (move, aim, fire, bomb), revives, the
//! director (markers, waves), enemies, bullets, pickups, collisions, the
//! combo's clock, the game-over check.

use crate::event::{Event, EventSink};
use crate::grid::EnemyGrid;
use crate::input::Input;
use crate::math::{Fx, Vec2, fx, fx_ratio};
use crate::world::*;

pub(crate) const PLAYER_RADIUS: Fx = fx(6);
const PLAYER_BULLET_RADIUS: Fx = fx(3);
const ENEMY_BULLET_RADIUS: Fx = fx(4);
const PICKUP_RADIUS: Fx = fx(14);
const PLAYER_BULLET_TTL: u16 = 60;
/// 1/sqrt(2), so diagonal movement is no faster than straight movement.
const DIAGONAL: Fx = fx_ratio(46341, 65536);
/// How far outside the arena a bullet may go before it is removed.
const BULLET_MARGIN: Fx = fx(8);
/// Invulnerability after a shield takes a hit.
const SHIELD_INVULNERABLE: u16 = 60;

/// The facing (direction-table index) of each way to hold the direction
/// keys, indexed by `dx + 1 + 3 * (dy + 1)`; the middle (none) is unused.
const MOVE_FACING: [u8; 9] = [40, 48, 56, 32, 0, 0, 24, 16, 8];

impl World {
    /// Advances one frame with both players' inputs.
    pub fn step(&mut self, inputs: [Input; PLAYERS], events: &mut impl EventSink) {
        self.frame = self.frame.wrapping_add(1);
        if self.phase == PHASE_GAME_OVER {
            if inputs.iter().all(|i| i.has(Input::START)) {
                self.restarts += 1;
                self.reset_match();
                events.emit(Event::Restarted);
            }
            return;
        }
        for (i, input) in inputs.into_iter().enumerate() {
            self.update_player(i, input, events);
        }
        self.update_revives(events);
        self.update_director(events);
        self.update_enemies(events);
        self.update_bullets();
        self.update_pickups(events);
        self.resolve_collisions(events);
        self.update_combo();
        if self.players.iter().all(|p| p.is_downed()) {
            self.phase = PHASE_GAME_OVER;
            events.emit(Event::GameOver);
        }
    }

    fn update_player(&mut self, i: usize, input: Input, events: &mut impl EventSink) {
        let cfg = self.config;
        let p = &mut self.players[i];
        let pressed = |bit: u16| input.has(bit) && p.held & bit == 0;
        let bomb = pressed(Input::BOMB);
        p.held = input.0;
        if p.is_downed() {
            return;
        }
        if p.alive == 0 {
            p.respawn_timer = p.respawn_timer.saturating_sub(1);
            if p.respawn_timer == 0 {
                p.alive = 1;
                p.pos = spawn_point(i);
                p.invulnerable = cfg.invulnerable_frames;
                p.bombs = p.bombs.max(cfg.bombs_per_life as u8);
                events.emit(Event::PlayerRespawned { player: i as u8 });
            }
            return;
        }
        p.invulnerable = p.invulnerable.saturating_sub(1);
        p.fire_cooldown = p.fire_cooldown.saturating_sub(1);
        p.weapon_timer = p.weapon_timer.saturating_sub(1);
        if p.weapon_timer == 0 {
            p.weapon = Weapon::Basic as u8;
        }
        let axis = |neg: u16, pos: u16| input.has(pos) as i32 - input.has(neg) as i32;
        let (dx, dy) = (
            axis(Input::LEFT, Input::RIGHT),
            axis(Input::UP, Input::DOWN),
        );
        let focus = input.has(Input::FOCUS);
        let mut speed = if focus {
            cfg.player_focus_speed
        } else {
            cfg.player_speed
        };
        if dx != 0 && dy != 0 {
            speed *= DIAGONAL;
        }
        p.pos.x =
            (p.pos.x + speed * Fx::from_num(dx)).clamp(PLAYER_RADIUS, ARENA_WIDTH - PLAYER_RADIUS);
        p.pos.y =
            (p.pos.y + speed * Fx::from_num(dy)).clamp(PLAYER_RADIUS, ARENA_HEIGHT - PLAYER_RADIUS);
        // An aim (mouse, stick) wins; else the ship faces where it moves,
        // unless focus holds the facing (strafing).
        if let Some(aim) = input.aim() {
            p.facing = (aim * 2) as u8;
        } else if !focus && (dx, dy) != (0, 0) {
            p.facing = MOVE_FACING[(dx + 1 + 3 * (dy + 1)) as usize];
        }
        if bomb && p.bombs > 0 {
            self.bomb(i, events);
        }
        let p = self.players[i];
        if input.has(Input::FIRE) && p.fire_cooldown == 0 {
            self.fire_weapon(i, events);
        }
    }

    fn fire_weapon(&mut self, i: usize, events: &mut impl EventSink) {
        let cfg = self.config;
        let p = self.players[i];
        let weapon = p.weapon();
        let (cooldown, spread, pierce) = match weapon {
            Weapon::Basic => (cfg.fire_cooldown, 0u32, 0u8),
            Weapon::Spread => (cfg.fire_cooldown + 1, 3, 0),
            Weapon::Rapid => (cfg.fire_cooldown.div_ceil(2), 0, 0),
            Weapon::Pierce => (cfg.fire_cooldown, 0, 3),
        };
        self.players[i].fire_cooldown = cooldown;
        let facing = u32::from(p.facing);
        let shots = if spread > 0 { 3 } else { 1 };
        let mut fired = false;
        for k in 0..shots {
            let dir = facing + 64 + k * spread - spread * (shots - 1) / 2;
            let d = Vec2::direction(dir);
            fired |= self.spawn_bullet(Bullet {
                pos: p.pos.saturating_add(d.scaled(fx(8))),
                vel: d.scaled(cfg.player_bullet_speed),
                hit_id: u32::MAX,
                ttl: PLAYER_BULLET_TTL,
                owner: i as u8,
                pierce,
            });
        }
        if fired {
            events.emit(Event::PlayerShot { player: i as u8 });
        }
    }

    /// Clears enemy bullets near the ship, hurts enemies near it, and
    /// makes it briefly untouchable.
    fn bomb(&mut self, i: usize, events: &mut impl EventSink) {
        let p = &mut self.players[i];
        p.bombs -= 1;
        p.bombs_used += 1;
        p.invulnerable = p.invulnerable.max(BOMB_INVULNERABLE);
        let pos = p.pos;
        events.emit(Event::BombUsed {
            player: i as u8,
            pos,
        });
        self.retain_bullets(|b| b.owner != OWNER_ENEMY || !b.pos.within(pos, BOMB_RADIUS));
        for ei in 0..self.enemy_count as usize {
            let e = self.enemies[ei];
            if e.hp > 0 && e.pos.within(pos, BOMB_RADIUS + e.kind().radius()) {
                self.damage_enemy(ei, i as u8, BOMB_DAMAGE, events);
            }
        }
    }

    /// A downed ship with its partner beside it comes back after
    /// `REVIVE_FRAMES`; progress fades while the partner is away.
    fn update_revives(&mut self, events: &mut impl EventSink) {
        for i in 0..PLAYERS {
            if !self.players[i].is_downed() {
                continue;
            }
            let by = (i + 1) % PLAYERS;
            let partner = self.players[by];
            let p = &mut self.players[i];
            if partner.alive == 1 && partner.pos.within(p.pos, REVIVE_RADIUS) {
                p.revive_progress += 1;
            } else {
                p.revive_progress = p.revive_progress.saturating_sub(2);
            }
            if p.revive_progress >= REVIVE_FRAMES {
                p.revive_progress = 0;
                p.downed = 0;
                p.alive = 1;
                p.lives = 1;
                p.invulnerable = self.config.invulnerable_frames;
                p.bombs = p.bombs.max(self.config.bombs_per_life as u8);
                self.players[by].revives += 1;
                events.emit(Event::PlayerRevived {
                    player: i as u8,
                    by: by as u8,
                });
            }
        }
    }

    fn update_bullets(&mut self) {
        let n = self.bullet_count as usize;
        for b in &mut self.bullets[..n] {
            b.pos = b.pos.saturating_add(b.vel);
            b.ttl = b.ttl.saturating_sub(1);
            let outside = b.pos.x < -BULLET_MARGIN
                || b.pos.y < -BULLET_MARGIN
                || b.pos.x > ARENA_WIDTH + BULLET_MARGIN
                || b.pos.y > ARENA_HEIGHT + BULLET_MARGIN;
            if outside {
                b.ttl = 0;
            }
        }
    }

    fn resolve_collisions(&mut self, events: &mut impl EventSink) {
        let grid = EnemyGrid::build(self.enemies());
        let n_bullets = self.bullet_count as usize;
        for bi in 0..n_bullets {
            let b = self.bullets[bi];
            if b.ttl == 0 {
                continue;
            }
            if b.owner == OWNER_ENEMY {
                for pi in 0..PLAYERS {
                    if self.vulnerable(pi)
                        && b.pos
                            .within(self.players[pi].pos, PLAYER_RADIUS + ENEMY_BULLET_RADIUS)
                    {
                        self.bullets[bi].ttl = 0;
                        self.hit_player(pi, events);
                        break;
                    }
                }
                continue;
            }
            // The lowest-index live enemy in reach takes the hit, whatever
            // order the grid visits cells in.
            let mut hit = usize::MAX;
            grid.for_each_near(b.pos, |ei| {
                let e = &self.enemies[ei];
                if ei < hit
                    && e.hp > 0
                    && e.id != b.hit_id
                    && b.pos
                        .within(e.pos, e.kind().radius() + PLAYER_BULLET_RADIUS)
                {
                    hit = ei;
                }
            });
            if hit != usize::MAX {
                let bullet = &mut self.bullets[bi];
                if bullet.pierce > 0 {
                    bullet.pierce -= 1;
                    bullet.hit_id = self.enemies[hit].id;
                } else {
                    bullet.ttl = 0;
                }
                self.damage_enemy(hit, b.owner, 1, events);
            }
        }
        for ei in 0..self.enemy_count as usize {
            let e = self.enemies[ei];
            if e.hp == 0 || e.grace > 0 {
                continue;
            }
            for pi in 0..PLAYERS {
                if self.vulnerable(pi)
                    && e.pos
                        .within(self.players[pi].pos, PLAYER_RADIUS + e.kind().radius())
                {
                    self.hit_player(pi, events);
                }
            }
        }
        self.retain_enemies(|e| e.hp > 0);
        self.retain_bullets(|b| b.ttl > 0);
    }

    /// `damage` to enemy `ei` from `player`; a kill scores, may drop a
    /// pickup (by the enemy's own generator) and splits a splitter.
    fn damage_enemy(&mut self, ei: usize, player: u8, damage: u16, events: &mut impl EventSink) {
        let e = &mut self.enemies[ei];
        e.hp = e.hp.saturating_sub(damage);
        events.emit(Event::EnemyHit { id: e.id, player });
        if e.hp > 0 {
            return;
        }
        let mut e = *e;
        let kind = e.kind();
        let team = &mut self.team;
        team.combo = team.combo.saturating_add(1);
        team.max_combo = team.max_combo.max(team.combo);
        team.combo_timer = COMBO_FRAMES;
        if team.combo > 1 && u32::from(team.combo).is_multiple_of(COMBO_STEP) {
            events.emit(Event::ComboStep {
                multiplier: team.multiplier(),
            });
        }
        let points = kind.points() * team.multiplier();
        team.score = team.score.saturating_add(points);
        let killer = &mut self.players[player as usize % PLAYERS];
        killer.score = killer.score.saturating_add(points);
        killer.kills += 1;
        events.emit(Event::EnemyKilled {
            id: e.id,
            kind: e.kind,
            player,
            pos: e.pos,
            points,
        });
        if kind.is_boss() {
            self.team.bosses_defeated += 1;
            // The boss's escort stops coming: what is alive is the rest.
            if self.spawner.wave_done == WAVE_ANNOUNCING {
                self.spawner.wave_done = WAVE_ANNOUNCED;
            }
            events.emit(Event::BossDefeated {
                kind: e.kind,
                pos: e.pos,
            });
            for k in 0..3 {
                let offset = Vec2::new(fx(30) * (k - 1), fx(20));
                let at = e.pos.saturating_add(offset);
                self.drop_pickup(&mut e, at, events);
            }
        } else if e.rng.below(1000) < u32::from(self.config.drop_permille) {
            let at = e.pos;
            self.drop_pickup(&mut e, at, events);
        }
        if kind == EnemyKind::Splitter {
            self.split(&mut e, events);
        }
        self.enemies[ei].rng = e.rng;
    }

    /// Three splitlings flying apart, seeded from the splitter.
    fn split(&mut self, e: &mut Enemy, events: &mut impl EventSink) {
        let hp = self.spawn_hp(EnemyKind::Splitling, false);
        let first = e.rng.below(64);
        for k in 0..3 {
            let vel = Vec2::direction(first + k * 21).scaled(fx(2));
            let child = Enemy {
                pos: e.pos,
                vel,
                rng: e.rng.spawn_child(),
                hp,
                max_hp: hp,
                timer: 20,
                kind: EnemyKind::Splitling as u8,
                grace: SPAWN_GRACE,
                ..Enemy::default()
            };
            self.spawn_announced(child, events);
        }
    }

    fn drop_pickup(&mut self, e: &mut Enemy, pos: Vec2, events: &mut impl EventSink) {
        let total: u32 = PickupKind::WEIGHTS.iter().sum();
        let mut roll = e.rng.below(total);
        let mut kind = PickupKind::Spread;
        for (k, w) in PickupKind::ALL.into_iter().zip(PickupKind::WEIGHTS) {
            if roll < w {
                kind = k;
                break;
            }
            roll -= w;
        }
        let r = fx(8);
        let pos = Vec2::new(
            pos.x.clamp(r, ARENA_WIDTH - r),
            pos.y.clamp(r, ARENA_HEIGHT - r),
        );
        if self.spawn_pickup(Pickup {
            pos,
            ttl: PICKUP_FRAMES,
            kind: kind as u8,
            _pad: 0,
        }) {
            events.emit(Event::PickupDropped {
                kind: kind as u8,
                pos,
            });
        }
    }

    /// Pickups fade, and the first ship (in player order) touching one
    /// takes it.
    fn update_pickups(&mut self, events: &mut impl EventSink) {
        for k in 0..self.pickup_count as usize {
            let item = self.pickups[k];
            let taker = (0..PLAYERS).find(|&i| {
                let p = &self.players[i];
                p.alive == 1 && p.pos.within(item.pos, PICKUP_RADIUS)
            });
            match taker {
                Some(i) => {
                    self.take_pickup(i, item.kind(), events);
                    events.emit(Event::PickupTaken {
                        player: i as u8,
                        kind: item.kind,
                        pos: item.pos,
                    });
                    self.pickups[k].ttl = 0;
                }
                None => self.pickups[k].ttl = item.ttl.saturating_sub(1),
            }
        }
        self.retain_pickups(|p| p.ttl > 0);
    }

    fn take_pickup(&mut self, i: usize, kind: PickupKind, _events: &mut impl EventSink) {
        let full = self.config.lives;
        let p = &mut self.players[i];
        p.pickups += 1;
        if let Some(weapon) = kind.weapon() {
            p.weapon = weapon as u8;
            p.weapon_timer = WEAPON_FRAMES;
            return;
        }
        match kind {
            PickupKind::Shield => p.shield = 1,
            PickupKind::Bomb => p.bombs = (p.bombs + 1).min(MAX_BOMBS),
            _ => {
                // A life: this ship's, or the partner's when this one is full.
                if p.lives < full {
                    p.lives += 1;
                } else {
                    let partner = &mut self.players[(i + 1) % PLAYERS];
                    if !partner.is_downed() {
                        partner.lives = (partner.lives + 1).min(MAX_LIVES);
                    }
                }
            }
        }
    }

    fn update_combo(&mut self) {
        let team = &mut self.team;
        team.combo_timer = team.combo_timer.saturating_sub(1);
        if team.combo_timer == 0 {
            team.combo = 0;
        }
    }

    fn vulnerable(&self, player: usize) -> bool {
        let p = &self.players[player];
        p.alive == 1 && p.invulnerable == 0 && self.config.players_immortal == 0
    }

    /// A hit: the shield takes it, or the ship loses a life (its last one
    /// downs it). Either way the combo and the wave's no-hit bonus go.
    fn hit_player(&mut self, player: usize, events: &mut impl EventSink) {
        self.spawner.wave_hit = 1;
        let combo = self.team.combo;
        if combo > 0 {
            events.emit(Event::ComboLost { combo });
        }
        self.team.combo = 0;
        let respawn = self.config.respawn_frames;
        let p = &mut self.players[player];
        p.hits += 1;
        if p.shield == 1 {
            p.shield = 0;
            p.invulnerable = SHIELD_INVULNERABLE;
            events.emit(Event::ShieldBroken {
                player: player as u8,
            });
            return;
        }
        p.alive = 0;
        p.lives = p.lives.saturating_sub(1);
        p.weapon = Weapon::Basic as u8;
        p.weapon_timer = 0;
        p.respawn_timer = respawn;
        events.emit(Event::PlayerKilled {
            player: player as u8,
            pos: p.pos,
        });
        if p.lives == 0 {
            p.downed = 1;
            p.revive_progress = 0;
            events.emit(Event::PlayerDowned {
                player: player as u8,
                pos: p.pos,
            });
        }
    }
}
