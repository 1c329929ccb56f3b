//! Match rules that vary by preset. The config lives inside the world state,
//! so both peers simulate with the same rules and the checksum covers them.

use bytemuck::{Pod, Zeroable};

use crate::kinds::MAX_LIVES;
use crate::math::{Fx, fx, fx_ratio};

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct SimConfig {
    pub player_speed: Fx,
    pub player_focus_speed: Fx,
    pub player_bullet_speed: Fx,
    pub enemy_bullet_speed: Fx,
    pub wanderer_speed: Fx,
    pub shooter_speed: Fx,
    pub charger_dash_speed: Fx,
    pub lives: u16,
    pub respawn_frames: u16,
    pub invulnerable_frames: u16,
    /// Frames of calm between the end of a wave and the next.
    pub wave_pause: u16,
    /// 1 = players cannot be hit (stress preset and isolation tests).
    pub players_immortal: u16,
    /// Frames between basic shots while fire is held.
    pub fire_cooldown: u16,
    /// Frames between a shooter's shots: at least `min`, plus up to `jitter`.
    pub shooter_cooldown_min: u16,
    pub shooter_cooldown_jitter: u16,
    /// Lifetime of an enemy bullet in frames.
    pub enemy_bullet_ttl: u16,
    /// Bombs each life starts with.
    pub bombs_per_life: u16,
    /// Chance that a killed enemy drops a pickup, per mille.
    pub drop_permille: u16,
    /// Waves of play per extra hit point of every enemy, and the most
    /// hit points that growth adds (difficulty rises by variety and pace).
    pub hp_growth_waves: u16,
    pub hp_growth_cap: u16,
    /// Percent faster enemies move and fire on each loop of the wave table.
    pub loop_pace_pct: u16,
    /// The wave a match starts at (1: the table's first).
    pub start_wave: u16,
    /// `SCENARIO_WAVES`, or `SCENARIO_STRESS`: the heaviest state from frame 0.
    pub scenario: u16,
    /// Percent of the wave table's enemy counts and of how many it lets
    /// be alive at once.
    pub count_pct: u16,
    pub _pad: u16,
}
/// `SimConfig::scenario`: the waves of the table, or the stress test's
/// heaviest state from frame 0.
pub const SCENARIO_WAVES: u16 = 0;
pub const SCENARIO_STRESS: u16 = 1;

/// The largest speed rules may give anything, in units per frame (a
/// tenth of the arena's width; the presets stay under 11): positions near
/// the arena plus it stay far from `Fx`'s range.
pub const MAX_SPEED: Fx = fx(64);

/// Names accepted by `--preset`.
pub const PRESET_NAMES: [&str; 2] = ["default", "stress"];

/// A preset name that is not in [`PRESET_NAMES`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown preset '{0}' (presets: {names})", names = PRESET_NAMES.join(", "))]
pub struct UnknownPreset(pub String);

impl SimConfig {
    /// A normal match: the wave table from wave 1, three lives each.
    pub const DEFAULT: SimConfig = SimConfig {
        player_speed: fx(4),
        player_focus_speed: fx_ratio(3, 2),
        player_bullet_speed: fx(10),
        enemy_bullet_speed: fx_ratio(5, 2),
        wanderer_speed: fx_ratio(3, 2),
        shooter_speed: fx_ratio(1, 2),
        charger_dash_speed: fx(7),
        lives: 3,
        respawn_frames: 90,
        invulnerable_frames: 120,
        wave_pause: 360,
        players_immortal: 0,
        fire_cooldown: 6,
        shooter_cooldown_min: 60,
        shooter_cooldown_jitter: 60,
        enemy_bullet_ttl: 600,
        bombs_per_life: 2,
        drop_permille: 140,
        hp_growth_waves: 5,
        hp_growth_cap: 3,
        loop_pace_pct: 20,
        start_wave: 1,
        scenario: SCENARIO_WAVES,
        count_pct: 250,
        _pad: 0,
    };

    /// The heaviest state the rules make, for the benchmarks: a boss in
    /// its last phase, the enemy array full of shooters and spinners that
    /// keep the bullet pool full, ships that cannot die.
    pub const STRESS: SimConfig = SimConfig {
        shooter_cooldown_min: 12,
        shooter_cooldown_jitter: 6,
        enemy_bullet_speed: fx_ratio(1, 4),
        enemy_bullet_ttl: 1200,
        players_immortal: 1,
        scenario: SCENARIO_STRESS,
        ..SimConfig::DEFAULT
    };

    pub fn preset(name: &str) -> Option<SimConfig> {
        match name {
            "default" => Some(SimConfig::DEFAULT),
            "stress" => Some(SimConfig::STRESS),
            _ => None,
        }
    }

    /// The preset called `name`, or an error that lists the valid names.
    pub fn from_preset_name(name: &str) -> Result<SimConfig, UnknownPreset> {
        SimConfig::preset(name).ok_or_else(|| UnknownPreset(name.to_string()))
    }

    /// Whether the simulation can run these rules without overflowing:
    /// speeds in `0..=MAX_SPEED`, shooter cooldowns that fit a `u16`. The
    /// presets always can; a replay's header carries the raw bytes of its
    /// config, so the reader checks them (`replay::read_bytes`; the
    /// replay fuzzers found speeds that overflowed a position and a
    /// cooldown that overflowed its timer).
    pub fn check(&self) -> Result<(), String> {
        let speeds = [
            ("player_speed", self.player_speed),
            ("player_focus_speed", self.player_focus_speed),
            ("player_bullet_speed", self.player_bullet_speed),
            ("enemy_bullet_speed", self.enemy_bullet_speed),
            ("wanderer_speed", self.wanderer_speed),
            ("shooter_speed", self.shooter_speed),
            ("charger_dash_speed", self.charger_dash_speed),
        ];
        for (name, speed) in speeds {
            if speed < Fx::ZERO || speed > MAX_SPEED {
                return Err(format!("{name} {speed} is outside 0..={MAX_SPEED}"));
            }
        }
        if u32::from(self.shooter_cooldown_min) + u32::from(self.shooter_cooldown_jitter)
            > u32::from(u16::MAX)
        {
            return Err("shooter cooldowns over 65535 frames".into());
        }
        if self.scenario > SCENARIO_STRESS {
            return Err(format!("unknown scenario {}", self.scenario));
        }
        if self.drop_permille > 1000 || self.count_pct > 400 || self.start_wave > 1000 {
            return Err("drop rate, wave counts or start wave out of range".into());
        }
        if self.lives == 0 || self.lives > MAX_LIVES {
            return Err(format!("lives {} outside 1..={}", self.lives, MAX_LIVES));
        }
        Ok(())
    }

    /// The preset's name, if this config is one.
    pub fn preset_name(&self) -> Option<&'static str> {
        PRESET_NAMES
            .into_iter()
            .find(|name| SimConfig::preset(name).as_ref() == Some(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_pass_the_check_and_absurd_rules_do_not() {
        for name in PRESET_NAMES {
            assert_eq!(SimConfig::preset(name).unwrap().check(), Ok(()), "{name}");
        }
        let fast = SimConfig {
            player_speed: Fx::MAX,
            ..SimConfig::DEFAULT
        };
        assert!(fast.check().unwrap_err().contains("player_speed"));
        let backwards = SimConfig {
            player_bullet_speed: Fx::MIN,
            ..SimConfig::DEFAULT
        };
        assert!(backwards.check().is_err());
        let slow_guns = SimConfig {
            shooter_cooldown_min: u16::MAX,
            shooter_cooldown_jitter: 1,
            ..SimConfig::DEFAULT
        };
        assert!(slow_guns.check().is_err());
    }

    #[test]
    fn an_unknown_preset_names_the_valid_ones() {
        assert_eq!(SimConfig::from_preset_name("stress"), Ok(SimConfig::STRESS));
        let err = SimConfig::from_preset_name("nope").unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown preset 'nope' (presets: default, stress)"
        );
    }
}
