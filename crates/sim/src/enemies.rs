//! How each kind of enemy moves and attacks. Every attack worth dodging
//! winds up first: `state` is `STATE_WINDUP`, `timer` counts down to the
//! strike and `aim` holds its target, so the frontend draws the telegraph
//! from the world. Random draws come from each enemy's own generator.

use crate::event::{Event, EventSink};
use crate::math::{Fx, Vec2, fx, fx_ratio, nearest_direction};
use crate::rng::Mwc;
use crate::world::*;

/// Wind-up lengths (frames): what a player has to read the attack.
const CHARGER_WINDUP_FRAMES: u16 = 40;
const CHARGER_DASH_FRAMES: u16 = 40;
const SNIPER_WINDUP_FRAMES: u16 = 60;
const SPINNER_WINDUP_FRAMES: u16 = 30;
const HYDRA_WINDUP_FRAMES: u16 = 45;
/// Frames after one wind-up starts before another may (staggered attacks).
const WINDUP_GATE: u16 = 25;
const SNIPER_SHOT_SPEED: Fx = fx(6);

/// `v` scaled by `pct` percent.
fn pct_of(v: Fx, pct: u32) -> Fx {
    Fx::from_bits((i64::from(v.to_bits()) * i64::from(pct) / 100) as i32)
}

/// A cooldown shortened by pace `pct` (100: as given).
fn paced(frames: u32, pct: u32) -> u16 {
    (frames * 100 / pct.max(1)).clamp(1, u32::from(u16::MAX)) as u16
}

/// Direction-table index from `from` toward `to`.
fn toward(from: Vec2, to: Vec2) -> u32 {
    nearest_direction(to.x - from.x, to.y - from.y)
}

impl World {
    pub(crate) fn update_enemies(&mut self, events: &mut impl EventSink) {
        let pace = self.pace_pct();
        for i in 0..self.enemy_count as usize {
            // Work on a copy: shots need `&mut self` to spawn bullets.
            let mut e = self.enemies[i];
            e.timer = e.timer.saturating_sub(1);
            e.grace = e.grace.saturating_sub(1);
            let pace = pace + 20 * u32::from(e.elite);
            match e.kind() {
                EnemyKind::Wanderer => self.wanderer(&mut e, pace),
                EnemyKind::Shooter => self.shooter(&mut e, pace, events),
                EnemyKind::Charger => self.charger(&mut e, pace, events),
                EnemyKind::Sniper => self.sniper(&mut e, pace, events),
                EnemyKind::Splitter => self.chase(&mut e, pct_of(fx_ratio(4, 5), pace), 40),
                EnemyKind::Splitling => self.chase(&mut e, pct_of(fx(2), pace), 30),
                EnemyKind::Spinner => self.spinner(&mut e, pace, events),
                EnemyKind::Warden => self.warden(&mut e, pace, events),
                EnemyKind::Hydra => self.hydra(&mut e, pace, events),
            }
            e.pos = e.pos.saturating_add(e.vel);
            let r = e.kind().radius();
            bounce(&mut e.pos.x, &mut e.vel.x, r, ARENA_WIDTH - r);
            bounce(&mut e.pos.y, &mut e.vel.y, r, ARENA_HEIGHT - r);
            self.enemies[i] = e;
        }
    }

    fn wanderer(&self, e: &mut Enemy, pace: u32) {
        if e.timer == 0 {
            e.vel =
                Vec2::direction(e.rng.below(64)).scaled(pct_of(self.config.wanderer_speed, pace));
            e.timer = e.rng.range(30, 90) as u16;
        }
    }

    fn shooter(&mut self, e: &mut Enemy, pace: u32, events: &mut impl EventSink) {
        if e.timer > 0 {
            return;
        }
        let cfg = self.config;
        e.vel = Vec2::direction(e.rng.below(64)).scaled(pct_of(cfg.shooter_speed, pace));
        e.timer = paced(
            u32::from(cfg.shooter_cooldown_min)
                + e.rng.below(u32::from(cfg.shooter_cooldown_jitter) + 1),
            pace,
        );
        if e.grace > 0 {
            return;
        }
        let Some(target) = self.pick_target(&mut e.rng) else {
            return;
        };
        // Aimed, give or take a step of the table; fans from wave 6.
        let dir = toward(e.pos, self.players[target].pos) + 64 + e.rng.below(3) - 1;
        let speed = pct_of(cfg.enemy_bullet_speed, pace);
        if self.spawner.wave >= 6 || e.elite == 1 {
            self.fan(e.pos, dir, 3, 3, speed);
        } else {
            self.fire(e.pos, dir, speed);
        }
        events.emit(Event::EnemyShot {
            id: e.id,
            kind: e.kind,
        });
    }

    fn charger(&mut self, e: &mut Enemy, pace: u32, events: &mut impl EventSink) {
        if e.timer > 0 {
            return;
        }
        match e.state {
            STATE_IDLE => {
                if !self.start_windup(e, CHARGER_WINDUP_FRAMES, events) {
                    return;
                }
                e.vel = Vec2::ZERO;
            }
            STATE_WINDUP => {
                // At where the target stood when the wind-up began: a ship
                // that moves away is missed.
                let dir = toward(e.pos, e.aim);
                e.vel = Vec2::direction(dir).scaled(pct_of(self.config.charger_dash_speed, pace));
                e.state = STATE_DASH;
                e.timer = CHARGER_DASH_FRAMES;
            }
            _ => {
                e.state = STATE_IDLE;
                e.vel = Vec2::direction(e.rng.below(64)).scaled(self.config.wanderer_speed / 2);
                e.timer = paced(e.rng.range(90, 180), pace);
            }
        }
    }

    fn sniper(&mut self, e: &mut Enemy, pace: u32, events: &mut impl EventSink) {
        if e.timer > 0 {
            return;
        }
        if e.state == STATE_WINDUP {
            self.fire(e.pos, toward(e.pos, e.aim), pct_of(SNIPER_SHOT_SPEED, pace));
            events.emit(Event::EnemyShot {
                id: e.id,
                kind: e.kind,
            });
            e.state = STATE_IDLE;
            // Drift along the top while it reloads.
            let dir = if e.rng.below(2) == 0 { 0 } else { 32 };
            e.vel = Vec2::direction(dir).scaled(fx_ratio(1, 2));
            if e.pos.y > fx(140) {
                e.vel.y = -fx_ratio(1, 2);
            }
            e.timer = paced(e.rng.range(150, 240), pace);
        } else if self.start_windup(e, SNIPER_WINDUP_FRAMES, events) {
            e.vel = Vec2::ZERO;
        }
    }

    /// Walks at the nearest ship, re-aiming every `every` frames.
    fn chase(&self, e: &mut Enemy, speed: Fx, every: u16) {
        if e.timer > 0 {
            return;
        }
        e.timer = every;
        if let Some(p) = self.nearest_ship(e.pos) {
            let dir = toward(e.pos, self.players[p].pos) + 64 + e.rng.below(9) - 4;
            e.vel = Vec2::direction(dir).scaled(speed);
        }
    }

    fn spinner(&mut self, e: &mut Enemy, pace: u32, events: &mut impl EventSink) {
        if e.timer > 0 {
            return;
        }
        let speed = pct_of(self.config.enemy_bullet_speed, pace) * 4 / 5;
        match e.state {
            STATE_IDLE => {
                if e.grace > 0 || !self.start_windup(e, SPINNER_WINDUP_FRAMES, events) {
                    return;
                }
                e.vel = Vec2::ZERO;
            }
            STATE_WINDUP => {
                let n = if self.spawner.wave >= 12 || e.elite == 1 {
                    14
                } else {
                    10
                };
                self.ring(e.pos, n, u32::from(e.angle), speed);
                events.emit(Event::EnemyShot {
                    id: e.id,
                    kind: e.kind,
                });
                e.angle = e.angle.wrapping_add(3);
                e.state = STATE_DASH;
                // Spiral bursts from wave 8.
                e.burst = if self.spawner.wave >= 8 { 6 } else { 0 };
                e.timer = 8;
            }
            _ => {
                if e.burst > 0 {
                    e.burst -= 1;
                    self.ring(e.pos, 3, u32::from(e.angle), speed);
                    e.angle = e.angle.wrapping_add(5);
                    e.timer = 6;
                } else {
                    e.state = STATE_IDLE;
                    e.vel = Vec2::direction(e.rng.below(64)).scaled(fx_ratio(1, 3));
                    e.timer = paced(e.rng.range(110, 170), pace);
                }
            }
        }
    }

    /// Begins a wind-up at a ship, when no other began just now. Returns
    /// false (and retries soon) when the gate is shut or no ship is in play.
    fn start_windup(&mut self, e: &mut Enemy, frames: u16, events: &mut impl EventSink) -> bool {
        let target = if self.spawner.windup_gate == 0 {
            self.pick_target(&mut e.rng)
        } else {
            None
        };
        let Some(target) = target else {
            e.timer = e.rng.range(10, 30) as u16;
            return false;
        };
        self.spawner.windup_gate = WINDUP_GATE;
        e.target = target as u8;
        e.aim = self.players[target].pos;
        e.state = STATE_WINDUP;
        e.timer = frames;
        events.emit(Event::Windup {
            id: e.id,
            kind: e.kind,
            target: e.aim,
            frames,
        });
        true
    }

    /// The Warden: rings, then two-armed spirals with aimed fans, then
    /// three-armed spirals with rings.
    fn warden(&mut self, e: &mut Enemy, pace: u32, events: &mut impl EventSink) {
        self.boss_phase(e, events);
        if e.vel.x == Fx::ZERO {
            e.vel = Vec2::new(fx_ratio(4, 5), Fx::ZERO);
        }
        // From its second phase it sways down into the arena and back,
        // taking room from the ships.
        if e.phase == 0 {
            e.vel.y = Fx::ZERO;
        } else if e.pos.y <= fx(70) {
            e.vel.y = fx_ratio(1, 2);
        } else if e.pos.y >= fx(190) {
            e.vel.y = -fx_ratio(1, 2);
        } else if e.vel.y == Fx::ZERO {
            e.vel.y = fx_ratio(1, 2);
        }
        if e.timer > 0 {
            return;
        }
        let speed = pct_of(self.config.enemy_bullet_speed, pace * 13 / 10);
        match e.phase {
            0 => {
                self.ring(e.pos, 20, u32::from(e.angle), speed);
                e.angle = e.angle.wrapping_add(2);
                e.timer = paced(50, pace);
            }
            1 => {
                self.ring(e.pos, 2, u32::from(e.angle), speed);
                e.angle = e.angle.wrapping_add(5);
                e.burst = e.burst.wrapping_add(1);
                if e.burst.is_multiple_of(10)
                    && let Some(t) = self.pick_target(&mut e.rng)
                {
                    let dir = toward(e.pos, self.players[t].pos);
                    self.fan(e.pos, dir, 7, 2, speed * 5 / 4);
                }
                e.timer = paced(5, pace);
            }
            _ => {
                self.ring(e.pos, 3, u32::from(e.angle), speed);
                e.angle = e.angle.wrapping_add(7);
                e.burst = e.burst.wrapping_add(1);
                if e.burst.is_multiple_of(8) {
                    self.ring(e.pos, 24, u32::from(e.angle) / 2, speed);
                }
                e.timer = paced(4, pace);
            }
        }
        events.emit(Event::EnemyShot {
            id: e.id,
            kind: e.kind,
        });
    }

    /// The Hydra: aimed fans at each ship in turn, then rings and summoned
    /// splitlings, then a telegraphed laser burst between fans.
    fn hydra(&mut self, e: &mut Enemy, pace: u32, events: &mut impl EventSink) {
        self.boss_phase(e, events);
        // Hovers over its target.
        let tx = self.players[e.target as usize % PLAYERS].pos.x;
        e.vel.x = if tx > e.pos.x + fx(8) {
            fx_ratio(3, 5)
        } else if tx < e.pos.x - fx(8) {
            -fx_ratio(3, 5)
        } else {
            Fx::ZERO
        };
        e.vel.y = Fx::ZERO;
        if e.state == STATE_WINDUP {
            e.vel.x = Fx::ZERO;
        }
        if e.timer > 0 {
            return;
        }
        let speed = pct_of(self.config.enemy_bullet_speed, pace);
        match (e.phase, e.state) {
            (0, _) => {
                let Some(t) = self.pick_target(&mut e.rng) else {
                    e.timer = 30;
                    return;
                };
                e.target = t as u8;
                self.fan(e.pos, toward(e.pos, self.players[t].pos), 5, 3, speed);
                e.timer = paced(50, pace);
            }
            (1, _) => {
                self.ring(e.pos, 12, u32::from(e.angle), speed * 4 / 5);
                e.angle = e.angle.wrapping_add(3);
                e.burst = e.burst.wrapping_add(1);
                if e.burst.is_multiple_of(4) {
                    self.summon_splitlings(e, events);
                }
                e.timer = paced(60, pace);
            }
            (_, STATE_WINDUP) => {
                e.state = STATE_DASH;
                e.burst = 7;
                e.timer = 1;
            }
            (_, STATE_DASH) => {
                if e.burst > 0 {
                    e.burst -= 1;
                    self.fire(e.pos, toward(e.pos, e.aim), speed * 2);
                    e.timer = 4;
                } else {
                    e.state = STATE_IDLE;
                    e.timer = paced(40, pace);
                    if let Some(t) = self.pick_target(&mut e.rng) {
                        self.fan(e.pos, toward(e.pos, self.players[t].pos), 7, 2, speed);
                    }
                }
            }
            _ => {
                self.start_windup(e, HYDRA_WINDUP_FRAMES, events);
                return;
            }
        }
        events.emit(Event::EnemyShot {
            id: e.id,
            kind: e.kind,
        });
    }

    /// The Hydra's second phase, every fourth ring: a splitling marked on
    /// each side of it.
    fn summon_splitlings(&mut self, e: &mut Enemy, events: &mut impl EventSink) {
        for side in [-1, 1] {
            let pos = Vec2::new(e.pos.x + fx(40) * side, e.pos.y + fx(30));
            let marker = Marker {
                pos,
                rng: e.rng.spawn_child(),
                timer: MARKER_FRAMES,
                kind: EnemyKind::Splitling as u8,
                elite: 0,
            };
            if self.spawn_marker(marker) {
                events.emit(Event::SpawnMarked {
                    kind: marker.kind,
                    pos,
                });
            }
        }
    }

    /// A boss's phase follows its hit points (above 2/3, above 1/3, the
    /// rest); entering one is an event and a breath before the pattern.
    fn boss_phase(&self, e: &mut Enemy, events: &mut impl EventSink) {
        let (hp, max) = (u32::from(e.hp) * 3, u32::from(e.max_hp));
        let phase = if hp > 2 * max {
            0
        } else if hp > max {
            1
        } else {
            2
        };
        if phase > e.phase {
            e.phase = phase;
            e.state = STATE_IDLE;
            e.burst = 0;
            e.timer = 60;
            events.emit(Event::BossPhase {
                id: e.id,
                kind: e.kind,
                phase,
            });
        }
    }

    /// A ship in play, drawn from `rng`.
    fn pick_target(&self, rng: &mut Mwc) -> Option<usize> {
        let mut alive = [0usize; PLAYERS];
        let mut n = 0;
        for (i, p) in self.players.iter().enumerate() {
            if p.alive == 1 {
                alive[n] = i;
                n += 1;
            }
        }
        (n > 0).then(|| alive[rng.below(n as u32) as usize])
    }

    /// The ship in play nearest `pos` (the first on a tie).
    pub(crate) fn nearest_ship(&self, pos: Vec2) -> Option<usize> {
        (0..PLAYERS)
            .filter(|&i| self.players[i].alive == 1)
            .min_by_key(|&i| self.players[i].pos.dist2_raw(pos))
    }

    fn fire(&mut self, pos: Vec2, dir: u32, speed: Fx) {
        self.spawn_bullet(Bullet {
            pos,
            vel: Vec2::direction(dir).scaled(speed),
            ttl: self.config.enemy_bullet_ttl,
            owner: OWNER_ENEMY,
            ..Bullet::default()
        });
    }

    /// `n` shots evenly around, the first at direction `offset`.
    fn ring(&mut self, pos: Vec2, n: u32, offset: u32, speed: Fx) {
        for k in 0..n {
            self.fire(pos, offset + k * 64 / n, speed);
        }
    }

    /// `n` shots centred on `dir`, `step` table directions apart.
    fn fan(&mut self, pos: Vec2, dir: u32, n: u32, step: u32, speed: Fx) {
        let first = dir + 64 - step * (n - 1) / 2;
        for k in 0..n {
            self.fire(pos, first + k * step, speed);
        }
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
