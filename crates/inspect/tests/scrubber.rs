//! The inspector's world at a frame is the world the replay re-simulates
//! to (the native `simulate_to`, as `twinstar replay` and `replay-diff`
//! use): the same checksum and the same entities, whichever way it seeks.

use twinstar_inspect::{Scrubber, drawn, read_replay, simulate_to};
use twinstar_netcode::replay::{Header, Writer};
use twinstar_sim::{GAME, Input, PLAYERS, SimConfig, Twinstar, World};

const FRAMES: u32 = 1500;

/// A recorded match of `FRAMES` frames: both ships move and fire in
/// turns, so enemies, bullets and scores appear.
fn recorded() -> Vec<u8> {
    let dir = std::env::temp_dir().join(format!("twinstar-inspect-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("scrub.tsr");
    let config = SimConfig::preset("default").unwrap();
    let header = Header::new::<Twinstar, PLAYERS>("local", 11, &config);
    let mut writer = Writer::<Input, PLAYERS>::create(&path, &GAME, &header).unwrap();
    let mut world = World::new(11, config);
    for f in 0..FRAMES {
        let moves = [Input::UP, Input::RIGHT, Input::DOWN, Input::LEFT];
        let bits = |p: u32| moves[((f / 40 + p) % 4) as usize] | Input::FIRE;
        let inputs = [Input(bits(0)), Input(bits(1))];
        world.step(inputs, &mut ());
        writer.frame(inputs, || world.checksum()).unwrap();
    }
    writer.finish(world.checksum(), "test").unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    bytes
}

#[test]
fn world_at_any_frame_is_the_resimulated_world_in_any_seek_order() {
    let bytes = recorded();
    let replay = read_replay(&bytes).unwrap();
    let scrubber = Scrubber::new(read_replay(&bytes).unwrap()).unwrap();
    assert_eq!(scrubber.frames(), FRAMES);
    let mut seen_enemies = false;
    for frame in [0, 1, 59, 60, 61, 1499, 1500, 777, 120, 900, 5000] {
        let ours = scrubber.world_at(frame);
        let native = simulate_to(&replay, frame).unwrap();
        assert_eq!(ours.frame, frame.min(FRAMES));
        assert_eq!(ours.checksum(), native.checksum(), "frame {frame}");
        assert_eq!(drawn(&ours), drawn(&native), "frame {frame}");
        let view = drawn(&ours);
        assert_eq!(view["frame"], frame.min(FRAMES));
        assert_eq!(view["players"].as_array().unwrap().len(), PLAYERS);
        seen_enemies |= !view["enemies"].as_array().unwrap().is_empty();
    }
    assert!(seen_enemies, "no enemy in any of the frames looked at");
    // Two frames a second apart draw different worlds.
    assert_ne!(
        drawn(&scrubber.world_at(600)),
        drawn(&scrubber.world_at(660))
    );
    // The inputs shown at a frame are those that led to it.
    assert_eq!(scrubber.inputs_at(0), None);
    let first = replay.inputs[0].map(|i| i.0);
    assert_eq!(scrubber.inputs_at(1), Some(first));
}
