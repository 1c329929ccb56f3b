//! Twinstar as the netcode knows it (`twinstar_netcode::Game`): the
//! simulation's world, step and checksum, its identity and its presets.

use twinstar_netcode::game::FieldDiff;
use twinstar_netcode::{Frame, Game, GameInfo};

use crate::sim::{Event, FPS, Input, PLAYERS, PRESET_NAMES, SIM_VERSION, SimConfig, World};

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
        crate::sim::world_diff(ours, theirs)
    }

    fn figures(world: &Box<World>) -> (u32, u64) {
        let score = world.players.iter().map(|p| u64::from(p.score)).sum();
        (world.spawner.wave, score)
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
            let inputs = [Input(i % 16), Input(i / 8 % 16)];
            Twinstar::step(&mut a, inputs, &mut events);
            b.step(inputs, &mut ());
        }
        assert_eq!(Twinstar::frame(&a), 120);
        assert_eq!(Twinstar::checksum(&a), b.checksum());
    }
}

#[cfg(test)]
mod desync_tests {
    //! Twinstar's desync evidence: its world's bytes and field names
    //! through the netcode's reports.
    use super::*;
    use crate::net::protocol::MAX_MESSAGE_BYTES;
    use crate::sim::Input;
    use serde_json::Value;
    use twinstar_netcode::session::desync::explain;

    type Evidence = twinstar_netcode::session::desync::Evidence<Twinstar, PLAYERS>;

    fn evidence(world: Box<World>, inputs: Vec<[Input; PLAYERS]>) -> Evidence {
        Evidence {
            frame: world.frame,
            checksum: world.checksum(),
            world: Some(world),
            inputs_from: 10,
            inputs,
        }
    }

    #[test]
    fn evidence_crosses_the_wire_unchanged_and_small() {
        let mut world = World::new(7, SimConfig::preset("default").expect("default preset"));
        world.frame = 130;
        world.players[1].score = 42;
        let ours = evidence(world, vec![[Input(1), Input(2)]; 120]);
        let message = ours.to_message();
        assert!(
            message.world.len() < 8 * 1024,
            "{} bytes",
            message.world.len()
        );
        let encoded = crate::net::protocol::encode(&crate::net::protocol::Message::DesyncState(
            message.clone(),
        ));
        assert!(encoded.len() <= MAX_MESSAGE_BYTES);
        let back = Evidence::from_message(message).unwrap();
        assert_eq!((back.world, back.inputs), (ours.world, ours.inputs));
    }

    #[test]
    fn a_bad_world_is_left_out_and_bad_inputs_refused() {
        let ours = evidence(
            World::new(1, SimConfig::preset("default").expect("default preset")),
            vec![],
        );
        let mut message = ours.to_message();
        message.world = vec![1, 2, 3];
        assert!(
            Evidence::from_message(message.clone())
                .unwrap()
                .world
                .is_none()
        );
        message.inputs = vec![0; 3];
        assert!(Evidence::from_message(message).is_err());
    }

    #[test]
    fn the_report_names_the_changed_field_and_the_inputs_that_differ() {
        let a = World::new(3, SimConfig::preset("default").expect("default preset"));
        let mut b = a.clone();
        b.players[0].score += 5;
        let mut their_inputs = vec![[Input(0), Input(0)]; 20];
        their_inputs[7][1] = Input(4);
        let ours = evidence(a, vec![[Input(0), Input(0)]; 20]);
        let theirs = evidence(b, their_inputs);
        let report = explain(&ours, Some(&theirs), 1);
        assert_eq!(report.fields, ["players[0].score"]);
        assert_eq!(report.json["player"], 2);
        assert_eq!(report.json["inputs"]["agree"], false);
        assert_eq!(
            report.json["inputs"]["players"][0]["first_differing_frame"],
            Value::Null
        );
        assert_eq!(
            report.json["inputs"]["players"][1]["first_differing_frame"],
            17
        );
        // Without the other side's state the report says so.
        let alone = explain(&ours, None, 0);
        assert!(alone.fields.is_empty());
        assert!(
            alone.json["differing_fields"]
                .as_str()
                .unwrap()
                .contains("did not arrive")
        );
    }
}
