//! The kinds of things in the arena and their fixed traits: enemy sizes,
//! hit points and points, pickups, weapons.

use crate::math::{Fx, fx};

#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum EnemyKind {
    /// Drifts and turns to a random direction every so often.
    Wanderer = 0,
    /// Drifts slowly and fires aimed shots (fans of three later on).
    Shooter = 1,
    /// Idles, picks a ship, winds up (its target shown), then dashes.
    Charger = 2,
    /// Keeps its distance; a long wind-up with a laser line, then one fast
    /// shot along it.
    Sniper = 3,
    /// Walks at the nearest ship; breaks into three splitlings when killed.
    Splitter = 4,
    /// A splitter's fragment: small, quick, one hit point.
    Splitling = 5,
    /// Stops, winds up and fires a ring (and spiral bursts later on).
    Spinner = 6,
    /// Boss: rings, then spirals, then both with aimed fans.
    Warden = 7,
    /// Boss: aimed fans, then summons and rings, then a laser burst.
    Hydra = 8,
}

impl EnemyKind {
    pub const ALL: [EnemyKind; 9] = [
        EnemyKind::Wanderer,
        EnemyKind::Shooter,
        EnemyKind::Charger,
        EnemyKind::Sniper,
        EnemyKind::Splitter,
        EnemyKind::Splitling,
        EnemyKind::Spinner,
        EnemyKind::Warden,
        EnemyKind::Hydra,
    ];
    pub const COUNT: usize = EnemyKind::ALL.len();

    pub fn from_u8(v: u8) -> EnemyKind {
        EnemyKind::ALL[v as usize % EnemyKind::COUNT]
    }

    pub fn name(self) -> &'static str {
        match self {
            EnemyKind::Wanderer => "wanderer",
            EnemyKind::Shooter => "shooter",
            EnemyKind::Charger => "charger",
            EnemyKind::Sniper => "sniper",
            EnemyKind::Splitter => "splitter",
            EnemyKind::Splitling => "splitling",
            EnemyKind::Spinner => "spinner",
            EnemyKind::Warden => "warden",
            EnemyKind::Hydra => "hydra",
        }
    }

    pub fn is_boss(self) -> bool {
        matches!(self, EnemyKind::Warden | EnemyKind::Hydra)
    }

    /// Points a kill is worth before the multiplier.
    pub fn points(self) -> u32 {
        match self {
            EnemyKind::Wanderer => 100,
            EnemyKind::Shooter => 150,
            EnemyKind::Charger => 200,
            EnemyKind::Sniper => 250,
            EnemyKind::Splitter => 200,
            EnemyKind::Splitling => 50,
            EnemyKind::Spinner => 300,
            EnemyKind::Warden => 5000,
            EnemyKind::Hydra => 7500,
        }
    }

    /// Hit points on the first loop of the wave table, before growth.
    pub fn base_hp(self) -> u16 {
        match self {
            EnemyKind::Wanderer => 2,
            EnemyKind::Shooter => 3,
            EnemyKind::Charger => 4,
            EnemyKind::Sniper => 3,
            EnemyKind::Splitter => 5,
            EnemyKind::Splitling => 1,
            EnemyKind::Spinner => 8,
            EnemyKind::Warden => 1400,
            EnemyKind::Hydra => 900,
        }
    }

    /// Collision radius. Below the broad phase's cell size minus a
    /// bullet's radius (`grid.rs`).
    pub fn radius(self) -> Fx {
        match self {
            EnemyKind::Splitling => fx(6),
            EnemyKind::Splitter | EnemyKind::Spinner => fx(12),
            EnemyKind::Warden | EnemyKind::Hydra => fx(26),
            _ => fx(10),
        }
    }
}

/// What a dead enemy may drop.
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PickupKind {
    /// Three shots in a fan, for a while.
    Spread = 0,
    /// Twice the rate of fire, for a while.
    Rapid = 1,
    /// Shots pass through up to three enemies, for a while.
    Pierce = 2,
    /// Absorbs the next hit.
    Shield = 3,
    /// One more bomb (up to `MAX_BOMBS`).
    Bomb = 4,
    /// One more life; when full, the partner's.
    Life = 5,
}

impl PickupKind {
    pub const ALL: [PickupKind; 6] = [
        PickupKind::Spread,
        PickupKind::Rapid,
        PickupKind::Pierce,
        PickupKind::Shield,
        PickupKind::Bomb,
        PickupKind::Life,
    ];
    pub const COUNT: usize = PickupKind::ALL.len();
    /// Relative odds of each kind in a drop, in `ALL`'s order.
    pub const WEIGHTS: [u32; 6] = [20, 20, 18, 16, 16, 10];

    pub fn from_u8(v: u8) -> PickupKind {
        PickupKind::ALL[v as usize % PickupKind::COUNT]
    }

    pub fn name(self) -> &'static str {
        match self {
            PickupKind::Spread => "spread",
            PickupKind::Rapid => "rapid",
            PickupKind::Pierce => "pierce",
            PickupKind::Shield => "shield",
            PickupKind::Bomb => "bomb",
            PickupKind::Life => "life",
        }
    }

    /// The weapon this pickup gives, if it is one.
    pub fn weapon(self) -> Option<Weapon> {
        match self {
            PickupKind::Spread => Some(Weapon::Spread),
            PickupKind::Rapid => Some(Weapon::Rapid),
            PickupKind::Pierce => Some(Weapon::Pierce),
            _ => None,
        }
    }
}

/// What a ship's gun does.
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weapon {
    Basic = 0,
    Spread = 1,
    Rapid = 2,
    Pierce = 3,
}

impl Weapon {
    pub const ALL: [Weapon; 4] = [Weapon::Basic, Weapon::Spread, Weapon::Rapid, Weapon::Pierce];

    pub fn from_u8(v: u8) -> Weapon {
        Weapon::ALL[v as usize % Weapon::ALL.len()]
    }

    pub fn name(self) -> &'static str {
        match self {
            Weapon::Basic => "basic",
            Weapon::Spread => "spread",
            Weapon::Rapid => "rapid",
            Weapon::Pierce => "pierce",
        }
    }
}

/// Bombs a ship may carry.
pub const MAX_BOMBS: u8 = 3;
/// Lives a ship may hold (extra lives past it go to the partner).
pub const MAX_LIVES: u16 = 5;
/// Frames the partner stands by a downed ship to revive it (1.5 s).
pub const REVIVE_FRAMES: u16 = 90;
/// How near the partner must stand to revive.
pub const REVIVE_RADIUS: Fx = fx(36);
/// Frames a weapon pickup lasts.
pub const WEAPON_FRAMES: u16 = 720;
/// Frames a pickup stays on the floor.
pub const PICKUP_FRAMES: u16 = 540;
/// Frames between a spawn marker and its enemy (0.75 s).
pub const MARKER_FRAMES: u16 = 45;
/// Frames a fresh enemy cannot hurt a ship or fire.
pub const SPAWN_GRACE: u8 = 30;
/// A bomb's reach, damage and the invulnerability it gives.
pub const BOMB_RADIUS: Fx = fx(110);
pub const BOMB_DAMAGE: u16 = 8;
pub const BOMB_INVULNERABLE: u16 = 90;
/// Frames without a kill before the combo lapses.
pub const COMBO_FRAMES: u16 = 150;
