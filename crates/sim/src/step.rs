//! The rules: one call advances the world by one frame (1/60 s).

use crate::config::SimConfig;
use crate::event::{Event, EventSink};
use crate::grid::EnemyGrid;
use crate::input::Input;
use crate::math::{Fx, Vec2, fx, fx_ratio, nearest_direction};
use crate::world::*;

const PLAYER_RADIUS: Fx = fx(6);
const ENEMY_RADIUS: Fx = fx(10);
const PLAYER_BULLET_RADIUS: Fx = fx(3);
const ENEMY_BULLET_RADIUS: Fx = fx(4);
const PLAYER_BULLET_TTL: u16 = 60;
/// 1/sqrt(2), so diagonal movement is no faster than straight movement.
const DIAGONAL: Fx = fx_ratio(46341, 65536);
/// How far outside the arena a bullet may go before it is removed.
const BULLET_MARGIN: Fx = fx(8);
const CHARGER_WINDUP_FRAMES: u16 = 30;
const CHARGER_DASH_FRAMES: u16 = 40;

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
        self.update_players(inputs, events);
        self.update_spawner(events);
        self.update_enemies(events);
        self.update_bullets();
        self.resolve_collisions(events);
        if self.players.iter().all(|p| p.alive == 0 && p.lives == 0) {
            self.phase = PHASE_GAME_OVER;
            events.emit(Event::GameOver);
        }
    }

    fn update_players(&mut self, inputs: [Input; PLAYERS], events: &mut impl EventSink) {
        let cfg = self.config;
        for (i, input) in inputs.into_iter().enumerate() {
            let p = &mut self.players[i];
            if p.alive == 0 {
                p.respawn_timer = p.respawn_timer.saturating_sub(1);
                if p.lives > 0 && p.respawn_timer == 0 {
                    p.alive = 1;
                    p.pos = spawn_point(i);
                    p.invulnerable = cfg.invulnerable_frames;
                    events.emit(Event::PlayerRespawned { player: i as u8 });
                }
                continue;
            }
            p.invulnerable = p.invulnerable.saturating_sub(1);
            p.fire_cooldown = p.fire_cooldown.saturating_sub(1);
            let axis = |neg: u8, pos: u8| input.has(pos) as i32 - input.has(neg) as i32;
            let (dx, dy) = (
                axis(Input::LEFT, Input::RIGHT),
                axis(Input::UP, Input::DOWN),
            );
            let mut speed = if input.has(Input::FOCUS) {
                cfg.player_focus_speed
            } else {
                cfg.player_speed
            };
            if dx != 0 && dy != 0 {
                speed *= DIAGONAL;
            }
            p.pos.x = (p.pos.x + speed * Fx::from_num(dx))
                .clamp(PLAYER_RADIUS, ARENA_WIDTH - PLAYER_RADIUS);
            p.pos.y = (p.pos.y + speed * Fx::from_num(dy))
                .clamp(PLAYER_RADIUS, ARENA_HEIGHT - PLAYER_RADIUS);
            if input.has(Input::FIRE) && p.fire_cooldown == 0 {
                p.fire_cooldown = cfg.fire_cooldown;
                let bullet = Bullet {
                    pos: Vec2::new(p.pos.x, p.pos.y - fx(8)),
                    vel: Vec2::new(Fx::ZERO, -cfg.player_bullet_speed),
                    ttl: PLAYER_BULLET_TTL,
                    owner: i as u8,
                    _pad: 0,
                };
                if self.spawn_bullet(bullet) {
                    events.emit(Event::PlayerShot { player: i as u8 });
                }
            }
        }
    }

    fn spawn_bullet(&mut self, bullet: Bullet) -> bool {
        let n = self.bullet_count as usize;
        if n == MAX_BULLETS {
            return false;
        }
        self.bullets[n] = bullet;
        self.bullet_count += 1;
        true
    }

    fn update_spawner(&mut self, events: &mut impl EventSink) {
        if self.enemy_count > 0 {
            return;
        }
        if self.spawner.pause > 0 {
            self.spawner.pause -= 1;
            return;
        }
        let cfg = self.config;
        let s = &mut self.spawner;
        s.wave += 1;
        let later_waves = s.wave - 1;
        let count = (cfg.wave_base as u32 + cfg.wave_growth as u32 * later_waves)
            .min(cfg.wave_max as u32)
            .min(MAX_ENEMIES as u32);
        let hp = (cfg.enemy_hp as u32 + cfg.enemy_hp_growth as u32 * later_waves)
            .min(u16::MAX as u32) as u16;
        for slot in 0..count as usize {
            let kind = s.rng.below(3) as u8;
            let pos = Vec2::new(
                Fx::from_num(s.rng.range(20, 620)),
                Fx::from_num(s.rng.range(20, 140)),
            );
            let mut rng = s.rng.spawn_child();
            let timer = rng.range(10, 60) as u16;
            self.enemies[slot] = Enemy {
                pos,
                vel: Vec2::ZERO,
                rng,
                id: self.next_id,
                hp,
                kind,
                state: 0,
                timer,
                target: 0,
                _pad: 0,
            };
            self.next_id = self.next_id.wrapping_add(1);
        }
        self.enemy_count = count;
        s.pause = cfg.wave_pause as u32;
        events.emit(Event::WaveStarted { wave: s.wave });
    }

    fn update_enemies(&mut self, events: &mut impl EventSink) {
        let cfg = self.config;
        for i in 0..self.enemy_count as usize {
            // Work on a copy: shots need `&mut self` to spawn bullets.
            let mut e = self.enemies[i];
            e.timer = e.timer.saturating_sub(1);
            match e.kind() {
                EnemyKind::Wanderer => {
                    if e.timer == 0 {
                        e.vel = Vec2::direction(e.rng.below(64)).scaled(cfg.wanderer_speed);
                        e.timer = e.rng.range(30, 90) as u16;
                    }
                }
                EnemyKind::Shooter => {
                    if e.timer == 0 {
                        let direction = e.rng.below(64);
                        e.vel = Vec2::direction(e.rng.below(64)).scaled(cfg.shooter_speed);
                        e.timer = cfg.shooter_cooldown_min
                            + e.rng.below(cfg.shooter_cooldown_jitter as u32 + 1) as u16;
                        events.emit(Event::EnemyShot {
                            id: e.id,
                            direction,
                        });
                        self.spawn_bullet(Bullet {
                            pos: e.pos,
                            vel: Vec2::direction(direction).scaled(cfg.enemy_bullet_speed),
                            ttl: cfg.enemy_bullet_ttl,
                            owner: OWNER_ENEMY,
                            _pad: 0,
                        });
                    }
                }
                EnemyKind::Charger => self.update_charger(&mut e, &cfg),
            }
            e.pos = e.pos.saturating_add(e.vel);
            bounce(
                &mut e.pos.x,
                &mut e.vel.x,
                ENEMY_RADIUS,
                ARENA_WIDTH - ENEMY_RADIUS,
            );
            bounce(
                &mut e.pos.y,
                &mut e.vel.y,
                ENEMY_RADIUS,
                ARENA_HEIGHT - ENEMY_RADIUS,
            );
            self.enemies[i] = e;
        }
    }

    fn update_charger(&self, e: &mut Enemy, cfg: &SimConfig) {
        if e.timer > 0 {
            return;
        }
        match e.state {
            CHARGER_IDLE => {
                let alive: AliveTargets = alive_players(&self.players);
                if alive.count == 0 {
                    e.timer = 30;
                    return;
                }
                e.target = alive.index[e.rng.below(alive.count) as usize];
                e.state = CHARGER_WINDUP;
                e.timer = CHARGER_WINDUP_FRAMES;
                e.vel = Vec2::ZERO;
            }
            CHARGER_WINDUP => {
                let target = self.players[e.target as usize % PLAYERS].pos;
                let dir = nearest_direction(target.x - e.pos.x, target.y - e.pos.y);
                e.vel = Vec2::direction(dir).scaled(cfg.charger_dash_speed);
                e.state = CHARGER_DASH;
                e.timer = CHARGER_DASH_FRAMES;
            }
            _ => {
                e.state = CHARGER_IDLE;
                e.vel = Vec2::direction(e.rng.below(64)).scaled(cfg.wanderer_speed / 2);
                e.timer = e.rng.range(60, 150) as u16;
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
                        self.kill_player(pi, events);
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
                if ei < hit && e.hp > 0 && b.pos.within(e.pos, ENEMY_RADIUS + PLAYER_BULLET_RADIUS)
                {
                    hit = ei;
                }
            });
            if hit != usize::MAX {
                self.bullets[bi].ttl = 0;
                let player = b.owner;
                let e = &mut self.enemies[hit];
                e.hp -= 1;
                events.emit(Event::EnemyHit { id: e.id, player });
                if e.hp == 0 {
                    let (id, kind, pos) = (e.id, e.kind, e.pos);
                    self.players[player as usize % PLAYERS].score += e.kind().points();
                    events.emit(Event::EnemyKilled {
                        id,
                        kind,
                        player,
                        pos,
                    });
                }
            }
        }
        for ei in 0..self.enemy_count as usize {
            let e = self.enemies[ei];
            for pi in 0..PLAYERS {
                if e.hp > 0
                    && self.vulnerable(pi)
                    && e.pos
                        .within(self.players[pi].pos, PLAYER_RADIUS + ENEMY_RADIUS)
                {
                    self.kill_player(pi, events);
                }
            }
        }
        self.retain_enemies(|e| e.hp > 0);
        self.retain_bullets(|b| b.ttl > 0);
    }

    fn vulnerable(&self, player: usize) -> bool {
        let p = &self.players[player];
        p.alive == 1 && p.invulnerable == 0 && self.config.players_immortal == 0
    }

    fn kill_player(&mut self, player: usize, events: &mut impl EventSink) {
        let respawn = self.config.respawn_frames;
        let p = &mut self.players[player];
        p.alive = 0;
        p.lives = p.lives.saturating_sub(1);
        p.respawn_timer = respawn;
        events.emit(Event::PlayerKilled {
            player: player as u8,
            pos: p.pos,
        });
    }
}

/// Keeps `pos` inside `lo..=hi`, reflecting the velocity off the wall.
fn bounce(pos: &mut Fx, vel: &mut Fx, lo: Fx, hi: Fx) {
    if *pos < lo {
        *pos = lo;
        *vel = vel.abs();
    } else if *pos > hi {
        *pos = hi;
        *vel = -vel.abs();
    }
}

struct AliveTargets {
    index: [u8; PLAYERS],
    count: u32,
}

fn alive_players(players: &[Player; PLAYERS]) -> AliveTargets {
    let mut t = AliveTargets {
        index: [0; PLAYERS],
        count: 0,
    };
    for (i, p) in players.iter().enumerate() {
        if p.alive == 1 {
            t.index[t.count as usize] = i as u8;
            t.count += 1;
        }
    }
    t
}
