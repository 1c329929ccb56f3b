//! The whole simulation state: one plain-old-data struct with fixed-capacity
//! arrays, so a save is a memcpy and the checksum is a hash of its bytes.

use bytemuck::{Pod, Zeroable};

use crate::Frame;
use crate::config::SimConfig;
use crate::math::{Fx, Vec2, fx};
use crate::rng::Mwc;

pub const ARENA_WIDTH: Fx = fx(640);
pub const ARENA_HEIGHT: Fx = fx(360);
pub const PLAYERS: usize = 2;
pub const MAX_ENEMIES: usize = 320;
pub const MAX_BULLETS: usize = 2560;

pub const PHASE_PLAYING: u32 = 0;
pub const PHASE_GAME_OVER: u32 = 1;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Player {
    pub pos: Vec2,
    pub score: u32,
    pub lives: u16,
    /// Frames until a dead ship returns (if it has lives left).
    pub respawn_timer: u16,
    /// Frames of invulnerability left after a respawn.
    pub invulnerable: u16,
    pub fire_cooldown: u16,
    /// 1 while the ship is in play.
    pub alive: u8,
    pub _pad: [u8; 3],
}

#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnemyKind {
    /// Drifts and turns to a random direction every so often.
    Wanderer = 0,
    /// Drifts slowly and fires bullets in random directions.
    Shooter = 1,
    /// Idles, picks a player, winds up, then dashes at them.
    Charger = 2,
}

impl EnemyKind {
    pub const ALL: [EnemyKind; 3] = [EnemyKind::Wanderer, EnemyKind::Shooter, EnemyKind::Charger];

    pub fn from_u8(v: u8) -> EnemyKind {
        EnemyKind::ALL[v as usize % 3]
    }

    pub fn points(self) -> u32 {
        match self {
            EnemyKind::Wanderer => 100,
            EnemyKind::Shooter => 150,
            EnemyKind::Charger => 200,
        }
    }
}

/// Charger states (`Enemy::state`).
pub const CHARGER_IDLE: u8 = 0;
pub const CHARGER_WINDUP: u8 = 1;
pub const CHARGER_DASH: u8 = 2;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Enemy {
    pub pos: Vec2,
    pub vel: Vec2,
    /// This enemy's own random stream.
    pub rng: Mwc,
    /// Unique for the match; survives reordering of the array.
    pub id: u32,
    pub hp: u16,
    pub kind: u8,
    /// Kind-specific state (charger phase).
    pub state: u8,
    /// Frames until the next decision (turn, shot, phase change).
    pub timer: u16,
    /// Player a charger is after.
    pub target: u8,
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
    pub ttl: u16,
    pub owner: u8,
    pub _pad: u8,
}

/// The wave spawner: the root of every enemy's random stream.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Spawner {
    pub rng: Mwc,
    pub wave: u32,
    /// Frames until the next wave once the arena is clear.
    pub pause: u32,
}

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
    pub players: [Player; PLAYERS],
    pub enemy_count: u32,
    pub bullet_count: u32,
    /// Live enemies are `enemies[..enemy_count]`, in spawn order; the rest
    /// are zeroed.
    pub enemies: [Enemy; MAX_ENEMIES],
    /// Live bullets are `bullets[..bullet_count]`, in spawn order.
    pub bullets: [Bullet; MAX_BULLETS],
}

impl World {
    /// A fresh match. Boxed: the world is ~64 KB, too big to pass around on
    /// small thread stacks.
    pub fn new(seed: u64, config: SimConfig) -> Box<World> {
        let mut world: Box<World> = bytemuck::zeroed_box();
        world.config = config;
        world.spawner.rng = Mwc::from_seed(seed);
        world.reset_match();
        world
    }

    /// Puts ships and the spawner back to the start of a match, keeping the
    /// config, the frame counter and the random streams running.
    pub(super) fn reset_match(&mut self) {
        self.phase = PHASE_PLAYING;
        self.enemy_count = 0;
        self.bullet_count = 0;
        self.enemies = [Enemy::zeroed(); MAX_ENEMIES];
        self.bullets = [Bullet::zeroed(); MAX_BULLETS];
        self.spawner.wave = 0;
        self.spawner.pause = self.config.wave_pause as u32 / 2;
        for (i, p) in self.players.iter_mut().enumerate() {
            *p = Player {
                pos: spawn_point(i),
                lives: self.config.lives,
                alive: 1,
                ..Player::zeroed()
            };
        }
    }

    pub fn enemies(&self) -> &[Enemy] {
        &self.enemies[..self.enemy_count as usize]
    }

    pub fn bullets(&self) -> &[Bullet] {
        &self.bullets[..self.bullet_count as usize]
    }

    pub fn shared_score(&self) -> u32 {
        self.players.iter().map(|p| p.score).sum()
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

    pub(super) fn retain_enemies(&mut self, keep: impl Fn(&Enemy) -> bool) {
        let n = self.enemy_count as usize;
        self.enemy_count = compact(&mut self.enemies[..n], keep) as u32;
    }

    pub(super) fn retain_bullets(&mut self, keep: impl Fn(&Bullet) -> bool) {
        let n = self.bullet_count as usize;
        self.bullet_count = compact(&mut self.bullets[..n], keep) as u32;
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
