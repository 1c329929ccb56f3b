//! The whole simulation state: one plain-old-data struct with fixed-capacity
//! arrays, so a save is a memcpy and the checksum is a hash of its bytes.
//!
//! Everything a frontend draws or plays a sound for is here or an event
//! (DESIGN.md, decision 4): spawn markers, wind-up timers and their targets,
//! boss phases, revive progress, weapon time left.

use bytemuck::{Pod, Zeroable};

use crate::Frame;
use crate::config::{SCENARIO_STRESS, SimConfig};
use crate::event::{Event, EventSink};
use crate::math::{Fx, Vec2, fx};
use crate::rng::Mwc;

pub use crate::kinds::*;

pub const ARENA_WIDTH: Fx = fx(640);
pub const ARENA_HEIGHT: Fx = fx(360);
pub const PLAYERS: usize = 2;
pub const MAX_ENEMIES: usize = 320;
pub const MAX_BULLETS: usize = 2560;
pub const MAX_PICKUPS: usize = 32;
pub const MAX_MARKERS: usize = 64;

pub const PHASE_PLAYING: u32 = 0;
pub const PHASE_GAME_OVER: u32 = 1;

/// Facing of a fresh ship: straight up (index into the 64-direction table).
pub const FACING_UP: u8 = 48;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Player {
    pub pos: Vec2,
    /// Points this player's kills earned (with the team's multiplier).
    pub score: u32,
    pub kills: u32,
    pub lives: u16,
    /// Frames until a dead ship returns (if it has lives left).
    pub respawn_timer: u16,
    /// Frames of invulnerability left (respawn, revive, bomb, shield).
    pub invulnerable: u16,
    pub fire_cooldown: u16,
    /// Frames the current weapon pickup lasts (0: the basic gun).
    pub weapon_timer: u16,
    /// Downed: frames the partner has stood by this ship (revives at
    /// `REVIVE_FRAMES`).
    pub revive_progress: u16,
    /// Partners this ship revived.
    pub revives: u16,
    /// Hits taken (shield hits included).
    pub hits: u16,
    pub bombs_used: u16,
    pub pickups: u16,
    /// Last frame's buttons, so a bomb goes off once per press.
    pub held: u16,
    /// 1 while the ship is in play.
    pub alive: u8,
    /// 1 while the ship is out of lives and waits for its partner.
    pub downed: u8,
    /// Direction the ship faces and fires (0..64, the direction table).
    pub facing: u8,
    pub bombs: u8,
    /// A `Weapon` (`weapon_timer` frames left unless it is `Basic`).
    pub weapon: u8,
    /// 1 while a shield would absorb the next hit.
    pub shield: u8,
}

impl Player {
    pub fn weapon(&self) -> Weapon {
        Weapon::from_u8(self.weapon)
    }

    /// Out of lives and waiting for a revive.
    pub fn is_downed(&self) -> bool {
        self.downed == 1
    }
}

/// States an enemy's `state` takes. Chargers, snipers and spinners wind up
/// (`aim` is then the target of the attack the frontend draws).
pub const STATE_IDLE: u8 = 0;
pub const STATE_WINDUP: u8 = 1;
pub const STATE_DASH: u8 = 2;
/// Kept under the old names: the human-like bot and the frontend read them.
pub const CHARGER_IDLE: u8 = STATE_IDLE;
pub const CHARGER_WINDUP: u8 = STATE_WINDUP;
pub const CHARGER_DASH: u8 = STATE_DASH;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Enemy {
    pub pos: Vec2,
    pub vel: Vec2,
    /// Where a wind-up will strike (a dash's or a shot's target).
    pub aim: Vec2,
    /// This enemy's own random stream.
    pub rng: Mwc,
    /// Unique for the match; survives reordering of the array.
    pub id: u32,
    pub hp: u16,
    pub max_hp: u16,
    /// Frames until the next decision (turn, shot, phase change).
    pub timer: u16,
    /// A pattern's turning angle (spirals), in direction-table steps.
    pub angle: u16,
    pub kind: u8,
    /// `STATE_*`: idle, winding up, dashing.
    pub state: u8,
    /// Player an attack is after.
    pub target: u8,
    /// A boss's phase (0, 1, 2).
    pub phase: u8,
    /// Frames it cannot yet hurt anyone (just spawned).
    pub grace: u8,
    /// 1 for an elite variant (later loops of the wave table).
    pub elite: u8,
    /// Shots left in a burst.
    pub burst: u8,
    pub _pad: u8,
}

impl Enemy {
    pub fn kind(&self) -> EnemyKind {
        EnemyKind::from_u8(self.kind)
    }
}

/// Bullet owners: player index, or this for enemy bullets.
pub const OWNER_ENEMY: u8 = 2;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Bullet {
    pub pos: Vec2,
    pub vel: Vec2,
    /// The last enemy a piercing shot went through (so it hits it once).
    pub hit_id: u32,
    pub ttl: u16,
    pub owner: u8,
    /// Enemies a piercing shot may still pass through.
    pub pierce: u8,
}

/// Something a dead enemy dropped, waiting on the floor.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Pickup {
    pub pos: Vec2,
    /// Frames until it fades.
    pub ttl: u16,
    pub kind: u8,
    pub _pad: u8,
}

impl Pickup {
    pub fn kind(&self) -> PickupKind {
        PickupKind::from_u8(self.kind)
    }
}

/// An announced spawn: the enemy appears at `pos` when `timer` reaches 0.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Marker {
    pub pos: Vec2,
    /// The coming enemy's random stream (drawn from the director's).
    pub rng: Mwc,
    pub timer: u16,
    pub kind: u8,
    pub elite: u8,
}

impl Marker {
    pub fn kind(&self) -> EnemyKind {
        EnemyKind::from_u8(self.kind)
    }
}

/// The wave director: the root of every enemy's random stream, and where
/// the current wave of the table is.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Spawner {
    pub rng: Mwc,
    /// The wave in play (1-based; 0 before the first).
    pub wave: u32,
    /// Frames of calm until the next wave starts.
    pub pause: u32,
    /// The group of the wave being announced, and how many of it so far.
    pub group: u16,
    pub group_spawned: u16,
    /// Frames until the next marker of the group.
    pub group_timer: u16,
    /// Frames until another wind-up may start (attacks are staggered).
    pub windup_gate: u16,
    /// 1 once a ship was hit this wave (no no-hit bonus).
    pub wave_hit: u8,
    /// `WAVE_ANNOUNCING`, `WAVE_ANNOUNCED` (waiting for the arena to
    /// clear) or `WAVE_PAUSING` (calm before the next).
    pub wave_done: u8,
    pub _pad: [u8; 2],
}

/// `Spawner::wave_done`'s states.
pub const WAVE_ANNOUNCING: u8 = 0;
pub const WAVE_ANNOUNCED: u8 = 1;
pub const WAVE_PAUSING: u8 = 2;

/// The team's score and its multiplier.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Team {
    pub score: u32,
    /// Kills in quick succession (either player); the multiplier grows
    /// with it and it drops to 0 on any hit taken.
    pub combo: u16,
    /// Frames until the combo lapses without another kill.
    pub combo_timer: u16,
    pub max_combo: u16,
    pub bosses_defeated: u16,
    /// The highest wave this match reached.
    pub best_wave: u32,
}

impl Team {
    /// The score multiplier the combo gives: 1 + combo / 8, at most 8.
    pub fn multiplier(&self) -> u32 {
        (1 + u32::from(self.combo) / COMBO_STEP).min(MAX_MULTIPLIER)
    }
}

/// Kills per multiplier step, and the top multiplier.
pub const COMBO_STEP: u32 = 8;
pub const MAX_MULTIPLIER: u32 = 8;

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct World {
    pub config: SimConfig,
    /// Frames simulated since the match began.
    pub frame: Frame,
    pub phase: u32,
    pub next_id: u32,
    /// Restarts after a game over.
    pub restarts: u32,
    pub spawner: Spawner,
    pub team: Team,
    pub players: [Player; PLAYERS],
    pub enemy_count: u32,
    pub bullet_count: u32,
    pub pickup_count: u32,
    pub marker_count: u32,
    /// Live enemies are `enemies[..enemy_count]`, in spawn order; the rest
    /// are zeroed.
    pub enemies: [Enemy; MAX_ENEMIES],
    /// Live bullets are `bullets[..bullet_count]`, in spawn order.
    pub bullets: [Bullet; MAX_BULLETS],
    pub pickups: [Pickup; MAX_PICKUPS],
    pub markers: [Marker; MAX_MARKERS],
}

impl World {
    /// A fresh match. Boxed: the world is ~80 KB, too big to pass around on
    /// small thread stacks.
    pub fn new(seed: u64, config: SimConfig) -> Box<World> {
        let mut world: Box<World> = bytemuck::zeroed_box();
        world.config = config;
        world.spawner.rng = Mwc::from_seed(seed);
        world.reset_match();
        world
    }

    /// Puts ships and the director back to the start of a match, keeping
    /// the config, the frame counter and the random streams running.
    pub(crate) fn reset_match(&mut self) {
        self.phase = PHASE_PLAYING;
        self.enemy_count = 0;
        self.bullet_count = 0;
        self.pickup_count = 0;
        self.marker_count = 0;
        self.enemies = [Enemy::zeroed(); MAX_ENEMIES];
        self.bullets = [Bullet::zeroed(); MAX_BULLETS];
        self.pickups = [Pickup::zeroed(); MAX_PICKUPS];
        self.markers = [Marker::zeroed(); MAX_MARKERS];
        self.team = Team::zeroed();
        let rng = self.spawner.rng;
        self.spawner = Spawner {
            rng,
            wave: u32::from(self.config.start_wave.max(1)) - 1,
            pause: u32::from(self.config.wave_pause) / 2,
            wave_done: WAVE_PAUSING,
            ..Spawner::zeroed()
        };
        for (i, p) in self.players.iter_mut().enumerate() {
            *p = Player {
                pos: spawn_point(i),
                lives: self.config.lives,
                alive: 1,
                facing: FACING_UP,
                bombs: self.config.bombs_per_life as u8,
                ..Player::zeroed()
            };
        }
        if self.config.scenario == SCENARIO_STRESS {
            self.fill_stress_scenario();
        }
    }

    pub fn enemies(&self) -> &[Enemy] {
        &self.enemies[..self.enemy_count as usize]
    }

    pub fn bullets(&self) -> &[Bullet] {
        &self.bullets[..self.bullet_count as usize]
    }

    pub fn pickups(&self) -> &[Pickup] {
        &self.pickups[..self.pickup_count as usize]
    }

    pub fn markers(&self) -> &[Marker] {
        &self.markers[..self.marker_count as usize]
    }

    /// The boss in play, if any.
    pub fn boss(&self) -> Option<&Enemy> {
        self.enemies().iter().find(|e| e.kind().is_boss())
    }

    /// The team's score: what the boards rank.
    pub fn shared_score(&self) -> u32 {
        self.team.score
    }

    pub fn is_game_over(&self) -> bool {
        self.phase == PHASE_GAME_OVER
    }

    pub fn as_bytes(&self) -> &[u8] {
        bytemuck::bytes_of(self)
    }

    /// The state checksum: XXH3-128 of the state's bytes.
    pub fn checksum(&self) -> u128 {
        xxhash_rust::xxh3::xxh3_128(self.as_bytes())
    }

    /// Removes the enemy with this id as if it had died, without score or
    /// events. For tests and tools that need "the same run, minus one".
    pub fn remove_enemy(&mut self, id: u32) -> bool {
        let before = self.enemy_count;
        self.retain_enemies(|e| e.id != id);
        self.enemy_count != before
    }

    pub(crate) fn retain_enemies(&mut self, keep: impl Fn(&Enemy) -> bool) {
        let n = self.enemy_count as usize;
        self.enemy_count = compact(&mut self.enemies[..n], keep) as u32;
    }

    pub(crate) fn retain_bullets(&mut self, keep: impl Fn(&Bullet) -> bool) {
        let n = self.bullet_count as usize;
        self.bullet_count = compact(&mut self.bullets[..n], keep) as u32;
    }

    pub(crate) fn retain_pickups(&mut self, keep: impl Fn(&Pickup) -> bool) {
        let n = self.pickup_count as usize;
        self.pickup_count = compact(&mut self.pickups[..n], keep) as u32;
    }

    pub(crate) fn retain_markers(&mut self, keep: impl Fn(&Marker) -> bool) {
        let n = self.marker_count as usize;
        self.marker_count = compact(&mut self.markers[..n], keep) as u32;
    }

    pub(crate) fn spawn_bullet(&mut self, bullet: Bullet) -> bool {
        let n = self.bullet_count as usize;
        if n == MAX_BULLETS {
            return false;
        }
        self.bullets[n] = bullet;
        self.bullet_count += 1;
        true
    }

    /// Adds an enemy (no room: nothing). Returns its id.
    pub(crate) fn spawn_enemy(&mut self, enemy: Enemy) -> Option<u32> {
        let n = self.enemy_count as usize;
        if n == MAX_ENEMIES {
            return None;
        }
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        self.enemies[n] = Enemy { id, ..enemy };
        self.enemy_count += 1;
        Some(id)
    }

    /// [`World::spawn_enemy`], telling `events` when it found room.
    pub(crate) fn spawn_announced(&mut self, enemy: Enemy, events: &mut impl EventSink) {
        if let Some(id) = self.spawn_enemy(enemy) {
            events.emit(Event::EnemySpawned {
                id,
                kind: enemy.kind,
                pos: enemy.pos,
            });
        }
    }

    pub(crate) fn spawn_marker(&mut self, marker: Marker) -> bool {
        let n = self.marker_count as usize;
        if n == MAX_MARKERS {
            return false;
        }
        self.markers[n] = marker;
        self.marker_count += 1;
        true
    }

    pub(crate) fn spawn_pickup(&mut self, pickup: Pickup) -> bool {
        let n = self.pickup_count as usize;
        if n == MAX_PICKUPS {
            return false;
        }
        self.pickups[n] = pickup;
        self.pickup_count += 1;
        true
    }
}

/// Stable in-place filter that zeroes the freed tail, so dead slots hash
/// the same on every machine. Returns the new length.
fn compact<T: Pod>(items: &mut [T], keep: impl Fn(&T) -> bool) -> usize {
    let mut kept = 0;
    for i in 0..items.len() {
        if keep(&items[i]) {
            items[kept] = items[i];
            kept += 1;
        }
    }
    for slot in &mut items[kept..] {
        *slot = T::zeroed();
    }
    kept
}

pub fn spawn_point(player: usize) -> Vec2 {
    let x = if player == 0 { fx(240) } else { fx(400) };
    Vec2::new(x, fx(320))
}
