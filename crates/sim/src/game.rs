//! Twinstar as the netcode and a replay know it (the `Game` trait of
//! `twinstar-replay-format`, which the netcode re-exports): the world, step
//! and checksum, its identity and its presets. Here, beside the rules, so a
//! server re-simulates an upload by exactly the game's impl.

use twinstar_replay_format::{FieldDiff, Frame, Game, GameInfo};

use crate::{Event, FPS, Input, PLAYERS, PRESET_NAMES, SIM_VERSION, SimConfig, World};

/// The game, as a type the netcode is generic over.
pub struct Twinstar;

/// Twinstar as the netcode knows it: checked at every handshake, so builds
/// whose simulations differ never play each other.
pub const GAME: GameInfo = <Twinstar as Game<PLAYERS>>::INFO;

impl Game<PLAYERS> for Twinstar {
    const INFO: GameInfo = GameInfo {
        name: "twinstar",
        version: env!("CARGO_PKG_VERSION"),
        sim_version: SIM_VERSION,
        fps: FPS,
        presets: &PRESET_NAMES,
    };
    type Input = Input;
    type Config = SimConfig;
    type State = Box<World>;
    type Event = Event;

    fn preset(name: &str) -> Option<SimConfig> {
        SimConfig::preset(name)
    }

    fn preset_name(config: &SimConfig) -> Option<&'static str> {
        config.preset_name()
    }

    fn check_config(config: &SimConfig) -> Result<(), String> {
        config.check().map_err(|e| e.to_string())
    }

    fn start(seed: u64, config: &SimConfig) -> Box<World> {
        World::new(seed, *config)
    }

    fn step(world: &mut Box<World>, inputs: [Input; PLAYERS], events: &mut Vec<Event>) {
        world.step(inputs, events);
    }

    fn frame(world: &Box<World>) -> Frame {
        world.frame
    }

    fn checksum(world: &Box<World>) -> u128 {
        world.checksum()
    }

    fn state_bytes(world: &Box<World>) -> Option<Vec<u8>> {
        Some(bytemuck::bytes_of(&**world).to_vec())
    }

    fn state_from_bytes(bytes: &[u8]) -> Option<Box<World>> {
        let mut world: Box<World> = bytemuck::zeroed_box();
        let target = bytemuck::bytes_of_mut(&mut *world);
        (bytes.len() == target.len()).then(|| target.copy_from_slice(bytes))?;
        Some(world)
    }

    fn diff(ours: &Box<World>, theirs: &Box<World>) -> Vec<FieldDiff> {
        crate::world_diff(ours, theirs)
    }

    fn figures(world: &Box<World>) -> (u32, u64) {
        (world.team.best_wave, u64::from(world.team.score))
    }

    /// Player 1's score: a field every report names (`players[0].score`).
    fn inject_desync(world: &mut Box<World>, salt: u32) {
        let score = &mut world.players[0].score;
        *score = score.wrapping_add(salt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every preset the handshake may agree on resolves to rules, and
    /// names itself back.
    #[test]
    fn every_preset_resolves_and_names_itself() {
        for name in Twinstar::INFO.presets {
            let config = Twinstar::preset(name).expect("a preset");
            assert_eq!(Twinstar::preset_name(&config), Some(*name));
        }
        assert!(Twinstar::preset("nope").is_none());
    }

    /// The trait's step is the world's.
    #[test]
    fn the_trait_steps_the_world() {
        let config = SimConfig::DEFAULT;
        let mut a = Twinstar::start(5, &config);
        let mut b = World::new(5, config);
        let mut events = Vec::new();
        for i in 0..120u8 {
            let inputs = [Input(u16::from(i % 16)), Input(u16::from(i / 8 % 16))];
            Twinstar::step(&mut a, inputs, &mut events);
            b.step(inputs, &mut ());
        }
        assert_eq!(Twinstar::frame(&a), 120);
        assert_eq!(Twinstar::checksum(&a), b.checksum());
    }
}
