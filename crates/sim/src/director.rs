//! The wave director: a table of hand-written waves (which kinds, how many,
//! how fast, from where), looped endlessly with faster, tougher, elite
//! enemies. Every spawn is announced by a marker `MARKER_FRAMES` ahead, and
//! a fresh enemy spends `SPAWN_GRACE` frames harmless.

use crate::config::SCENARIO_STRESS;
use crate::event::{Event, EventSink};
use crate::math::{Fx, Vec2, fx};
use crate::world::*;

/// Where a group's enemies appear.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Formation {
    /// Anywhere in the top third.
    Random,
    /// A row across the top, left to right.
    Line,
    /// Alternately at the left and right edges.
    Sides,
    /// On an ellipse around the arena's centre.
    Ring,
    /// The four corners in turn.
    Corners,
    /// Top centre (bosses).
    Top,
}

/// Some enemies of one kind, announced `every` frames apart.
#[derive(Clone, Copy, Debug)]
struct Group {
    kind: EnemyKind,
    count: u8,
    every: u8,
    formation: Formation,
}

/// One wave: its groups in order, and how many enemies (alive or
/// announced) it allows at once before the next marker waits.
#[derive(Clone, Copy, Debug)]
struct Wave {
    groups: &'static [Group],
    max_alive: u8,
}

const fn g(kind: EnemyKind, count: u8, every: u8, formation: Formation) -> Group {
    Group {
        kind,
        count,
        every,
        formation,
    }
}

use EnemyKind::*;
use Formation::*;

/// The table. Bosses every fifth wave, alternating; each wave after the
/// first brings a kind or a combination the one before did not.
const WAVES: [Wave; 20] = [
    // 1: wanderers only, one at a time.
    Wave {
        groups: &[g(Wanderer, 8, 60, Random)],
        max_alive: 5,
    },
    // 2: a line of wanderers, then shooters.
    Wave {
        groups: &[g(Wanderer, 6, 30, Line), g(Shooter, 3, 80, Random)],
        max_alive: 8,
    },
    // 3: shooters from the sides, the first chargers.
    Wave {
        groups: &[g(Shooter, 5, 60, Sides), g(Charger, 2, 120, Random)],
        max_alive: 6,
    },
    // 4: a ring of wanderers around the ships, chargers.
    Wave {
        groups: &[g(Wanderer, 8, 20, Ring), g(Charger, 3, 100, Random)],
        max_alive: 10,
    },
    // 5: the Warden.
    Wave {
        groups: &[g(Warden, 1, 1, Top), g(Charger, 6, 150, Sides)],
        max_alive: 3,
    },
    // 6: snipers behind a screen of wanderers.
    Wave {
        groups: &[g(Wanderer, 6, 20, Random), g(Sniper, 2, 60, Line)],
        max_alive: 6,
    },
    // 7: splitters, shooters from the sides.
    Wave {
        groups: &[g(Splitter, 3, 70, Random), g(Shooter, 4, 40, Sides)],
        max_alive: 6,
    },
    // 8: spinners' rings, chargers.
    Wave {
        groups: &[g(Spinner, 2, 40, Line), g(Charger, 3, 70, Random)],
        max_alive: 5,
    },
    // 9: snipers, splitters, a ring of wanderers.
    Wave {
        groups: &[
            g(Sniper, 3, 40, Line),
            g(Splitter, 3, 50, Sides),
            g(Wanderer, 6, 10, Ring),
        ],
        max_alive: 8,
    },
    // 10: the Hydra.
    Wave {
        groups: &[g(Hydra, 1, 1, Top), g(Shooter, 4, 180, Sides)],
        max_alive: 4,
    },
    // 11: chargers from the sides, shooters.
    Wave {
        groups: &[g(Charger, 6, 45, Sides), g(Shooter, 6, 40, Random)],
        max_alive: 8,
    },
    // 12: spinners and snipers.
    Wave {
        groups: &[g(Spinner, 3, 50, Random), g(Sniper, 3, 50, Line)],
        max_alive: 6,
    },
    // 13: a ring of splitters, wanderers.
    Wave {
        groups: &[g(Splitter, 5, 20, Ring), g(Wanderer, 10, 20, Random)],
        max_alive: 12,
    },
    // 14: snipers in the corners, chargers, spinners.
    Wave {
        groups: &[
            g(Sniper, 4, 30, Corners),
            g(Charger, 4, 50, Sides),
            g(Spinner, 2, 60, Line),
        ],
        max_alive: 9,
    },
    // 15: the Warden again, with shooters.
    Wave {
        groups: &[g(Warden, 1, 1, Top), g(Shooter, 6, 150, Sides)],
        max_alive: 5,
    },
    // 16: a tight ring of wanderers, spinners.
    Wave {
        groups: &[g(Wanderer, 16, 6, Ring), g(Spinner, 3, 60, Line)],
        max_alive: 16,
    },
    // 17: splitters, snipers, chargers.
    Wave {
        groups: &[
            g(Splitter, 4, 40, Sides),
            g(Sniper, 4, 40, Line),
            g(Charger, 4, 50, Random),
        ],
        max_alive: 10,
    },
    // 18: spinners in a ring, shooters from the sides.
    Wave {
        groups: &[g(Spinner, 4, 30, Ring), g(Shooter, 8, 30, Sides)],
        max_alive: 10,
    },
    // 19: everything.
    Wave {
        groups: &[
            g(Charger, 4, 40, Random),
            g(Sniper, 4, 40, Corners),
            g(Splitter, 4, 40, Sides),
            g(Spinner, 3, 50, Line),
        ],
        max_alive: 12,
    },
    // 20: the Hydra, with snipers.
    Wave {
        groups: &[g(Hydra, 1, 1, Top), g(Sniper, 4, 200, Corners)],
        max_alive: 5,
    },
];

/// Waves in the table (then it loops, harder).
pub const TABLE_WAVES: u32 = WAVES.len() as u32;

/// Frames between the last marker of a group and the first of the next.
const GROUP_GAP: u16 = 50;

/// The loop of the table a wave is in (0 for waves 1-20).
pub fn wave_loop(wave: u32) -> u32 {
    wave.saturating_sub(1) / TABLE_WAVES
}

/// Whether `wave` is a boss wave.
pub fn is_boss_wave(wave: u32) -> bool {
    wave > 0 && wave.is_multiple_of(5)
}

fn table_wave(wave: u32) -> &'static Wave {
    &WAVES[(wave.saturating_sub(1) % TABLE_WAVES) as usize]
}

impl World {
    /// How fast enemies move and fire on this wave, in percent.
    pub fn pace_pct(&self) -> u32 {
        let l = wave_loop(self.spawner.wave);
        (100 + u32::from(self.config.loop_pace_pct) * l).min(250)
    }

    /// Hit points of a fresh enemy of `kind` on the current wave.
    pub(crate) fn spawn_hp(&self, kind: EnemyKind, elite: bool) -> u16 {
        let wave = self.spawner.wave.max(1);
        let l = wave_loop(wave);
        let base = u32::from(kind.base_hp());
        let hp = if kind.is_boss() {
            base * (2 + l) / 2
        } else {
            // No growth when `hp_growth_waves` is 0.
            let growth = (wave - 1)
                .checked_div(u32::from(self.config.hp_growth_waves))
                .unwrap_or(0)
                .min(u32::from(self.config.hp_growth_cap));
            let hp = base + growth + l;
            if elite { hp * 3 / 2 } else { hp }
        };
        hp.clamp(1, u32::from(u16::MAX)) as u16
    }

    /// One frame of the director: markers count down to their enemies,
    /// the current wave's groups are announced, a cleared wave pays its
    /// bonuses and the next begins after a pause.
    pub(crate) fn update_director(&mut self, events: &mut impl EventSink) {
        self.spawn_from_markers(events);
        self.spawner.windup_gate = self.spawner.windup_gate.saturating_sub(1);
        if self.config.scenario == SCENARIO_STRESS {
            return;
        }
        match self.spawner.wave_done {
            WAVE_ANNOUNCING => self.announce(events),
            WAVE_ANNOUNCED => {
                if self.enemy_count == 0 && self.marker_count == 0 {
                    self.clear_wave(events);
                    self.spawner.wave_done = WAVE_PAUSING;
                    self.spawner.pause = u32::from(self.config.wave_pause);
                }
            }
            _ => {
                self.spawner.pause = self.spawner.pause.saturating_sub(1);
                if self.spawner.pause == 0 {
                    self.start_wave(events);
                }
            }
        }
    }

    fn clear_wave(&mut self, events: &mut impl EventSink) {
        let wave = self.spawner.wave;
        let mut bonus = 250 * wave;
        if self.spawner.wave_hit == 0 {
            bonus += 500 * wave;
        }
        self.team.score = self.team.score.saturating_add(bonus);
        events.emit(Event::WaveCleared {
            wave,
            bonus,
            no_hit: self.spawner.wave_hit == 0,
        });
    }

    fn start_wave(&mut self, events: &mut impl EventSink) {
        let s = &mut self.spawner;
        s.wave += 1;
        s.group = 0;
        s.group_spawned = 0;
        s.group_timer = 0;
        s.wave_hit = 0;
        s.wave_done = WAVE_ANNOUNCING;
        self.team.best_wave = self.team.best_wave.max(s.wave);
        events.emit(Event::WaveStarted { wave: s.wave });
    }

    /// Announces the current group's next enemy when its time has come and
    /// the wave's limit allows.
    fn announce(&mut self, events: &mut impl EventSink) {
        let wave = table_wave(self.spawner.wave);
        let s = &mut self.spawner;
        if s.group_timer > 0 {
            s.group_timer -= 1;
            return;
        }
        let Some(group) = wave.groups.get(s.group as usize) else {
            s.wave_done = WAVE_ANNOUNCED;
            return;
        };
        let max_alive = (u32::from(wave.max_alive) * u32::from(self.config.count_pct) / 100).max(1);
        if self.enemy_count + self.marker_count >= max_alive {
            return;
        }
        let l = wave_loop(s.wave);
        // A boss is one boss, whatever the counts' scale.
        let count = if group.kind.is_boss() {
            u32::from(group.count)
        } else {
            (u32::from(group.count) * u32::from(self.config.count_pct) / 100) * (100 + 15 * l) / 100
        };
        let count = count.clamp(1, 200) as u16;
        let k = s.group_spawned;
        let pos = self.formation_pos(group.formation, k, count);
        let s = &mut self.spawner;
        let elite = l > 0 && !group.kind.is_boss() && s.rng.below(100) < 25 * l;
        let rng = s.rng.spawn_child();
        s.group_spawned += 1;
        s.group_timer = u16::from(group.every);
        if s.group_spawned >= count {
            s.group += 1;
            s.group_spawned = 0;
            s.group_timer = GROUP_GAP;
        }
        let marker = Marker {
            pos,
            rng,
            timer: MARKER_FRAMES,
            kind: group.kind as u8,
            elite: elite as u8,
        };
        if self.spawn_marker(marker) {
            events.emit(Event::SpawnMarked {
                kind: group.kind as u8,
                pos,
            });
        }
    }

    /// Where enemy `k` of `n` of a formation appears, kept away from ships.
    fn formation_pos(&mut self, formation: Formation, k: u16, n: u16) -> Vec2 {
        let rng = &mut self.spawner.rng;
        let (k, n) = (u32::from(k), u32::from(n).max(1));
        let pos = match formation {
            Random => Vec2::new(
                Fx::from_num(rng.range(30, 610)),
                Fx::from_num(rng.range(30, 150)),
            ),
            Line => Vec2::new(
                Fx::from_num(50 + 540 * (k % 12) / (n.min(12) - 1).max(1)),
                Fx::from_num(50 + 30 * (k / 12)),
            ),
            Sides => Vec2::new(
                if k.is_multiple_of(2) { fx(30) } else { fx(610) },
                Fx::from_num(rng.range(40, 220)),
            ),
            Ring => {
                let d = Vec2::direction(k * 64 / n);
                Vec2::new(fx(320) + d.x * 250, fx(180) + d.y * 140)
            }
            Corners => {
                let corners = [(40, 40), (600, 40), (600, 300), (40, 300)];
                let (x, y) = corners[(k % 4) as usize];
                Vec2::new(Fx::from_num(x), Fx::from_num(y))
            }
            Top => Vec2::new(fx(320), fx(70)),
        };
        self.away_from_ships(pos)
    }

    /// `pos`, moved to the far side of the arena when a ship is near it.
    fn away_from_ships(&self, pos: Vec2) -> Vec2 {
        let near = |p: Vec2| {
            self.players
                .iter()
                .any(|s| s.alive == 1 && p.within(s.pos, fx(90)))
        };
        if !near(pos) {
            return pos;
        }
        let mirrored = Vec2::new(ARENA_WIDTH - pos.x, fx(40));
        if !near(mirrored) {
            return mirrored;
        }
        Vec2::new(pos.x, fx(30))
    }

    fn spawn_from_markers(&mut self, events: &mut impl EventSink) {
        for i in 0..self.marker_count as usize {
            let m = &mut self.markers[i];
            m.timer = m.timer.saturating_sub(1);
            if m.timer > 0 {
                continue;
            }
            let m = *m;
            let kind = m.kind();
            let hp = self.spawn_hp(kind, m.elite == 1);
            let mut rng = m.rng;
            let timer = first_timer(kind, &mut rng);
            let enemy = Enemy {
                pos: m.pos,
                rng,
                hp,
                max_hp: hp,
                timer,
                kind: m.kind,
                grace: SPAWN_GRACE,
                elite: m.elite,
                ..Enemy::default()
            };
            self.spawn_announced(enemy, events);
        }
        self.retain_markers(|m| m.timer > 0);
    }

    /// The stress preset's state: the Warden in its last phase and the
    /// enemy array full of fast-firing shooters and spinners.
    pub(crate) fn fill_stress_scenario(&mut self) {
        self.spawner.wave = 15;
        self.spawner.wave_done = WAVE_ANNOUNCED;
        self.team.best_wave = 15;
        let mut rng = self.spawner.rng.spawn_child();
        let boss = Enemy {
            pos: Vec2::new(fx(320), fx(70)),
            rng: rng.spawn_child(),
            hp: 20_000,
            max_hp: u16::MAX,
            timer: 10,
            kind: EnemyKind::Warden as u8,
            phase: 2,
            ..Enemy::default()
        };
        self.spawn_enemy(boss);
        for i in 1..MAX_ENEMIES as u32 {
            let kind = if i % 4 == 0 { Spinner } else { Shooter };
            let pos = Vec2::new(
                Fx::from_num(rng.range(20, 620)),
                Fx::from_num(rng.range(20, 200)),
            );
            let mut child = rng.spawn_child();
            let timer = child.range(5, 40) as u16;
            self.spawn_enemy(Enemy {
                pos,
                rng: child,
                hp: 400,
                max_hp: 400,
                timer,
                kind: kind as u8,
                ..Enemy::default()
            });
        }
    }
}

/// A fresh enemy's first decision: attackers wait a while (staggered, so a
/// new wave's chargers never strike together).
fn first_timer(kind: EnemyKind, rng: &mut crate::rng::Mwc) -> u16 {
    let (lo, hi) = match kind {
        Charger | Sniper => (90, 240),
        Spinner | Shooter => (60, 150),
        Warden | Hydra => (90, 90),
        _ => (10, 60),
    };
    rng.range(lo, hi) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_bosses_every_fifth_wave_alternating() {
        let mut bosses = Vec::new();
        for wave in 1..=TABLE_WAVES {
            let w = table_wave(wave);
            let boss = w.groups.iter().find(|g| g.kind.is_boss()).map(|g| g.kind);
            assert_eq!(boss.is_some(), is_boss_wave(wave), "wave {wave}");
            bosses.extend(boss);
        }
        assert_eq!(bosses, [Warden, Hydra, Warden, Hydra]);
    }

    #[test]
    fn every_kind_but_the_fragment_is_in_the_table() {
        for kind in EnemyKind::ALL {
            let listed = WAVES
                .iter()
                .any(|w| w.groups.iter().any(|g| g.kind == kind));
            assert_eq!(listed, kind != Splitling, "{kind:?}");
        }
    }

    #[test]
    fn loops_are_tougher_but_hit_points_stay_in_a_band() {
        let mut world = World::new(1, crate::SimConfig::DEFAULT);
        world.spawner.wave = 1;
        assert_eq!(world.spawn_hp(Wanderer, false), 2);
        world.spawner.wave = 20;
        let late = world.spawn_hp(Wanderer, false);
        world.spawner.wave = 60;
        let looped = world.spawn_hp(Wanderer, false);
        assert!(late <= 2 + 3 && looped <= 2 + 3 + 2, "{late} {looped}");
        assert!(world.pace_pct() > 100);
    }
}
