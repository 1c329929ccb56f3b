//! Re-simulates a replay and compares every recorded checksum.

use super::reader::Replay;
use crate::sim::{Frame, World};

#[derive(Debug)]
pub struct Verification {
    /// Frames re-simulated.
    pub frames: Frame,
    /// Recorded checksums compared (all matched, unless `first_mismatch`).
    pub checked: u32,
    /// (frame, recorded, re-simulated) of the first checksum that differs.
    pub first_mismatch: Option<(u32, u128, u128)>,
    /// The world after the last re-simulated frame.
    pub world: Box<World>,
}

/// The world at the start of the replay's match. `None` if the header's
/// config is unreadable (the reader refuses such files).
pub fn initial_world(replay: &Replay) -> Option<Box<World>> {
    Some(World::new(replay.header.seed, replay.header.config()?))
}

/// Re-simulates the whole log, stopping at the first checksum mismatch.
pub fn verify(replay: &Replay) -> Option<Verification> {
    let mut world = initial_world(replay)?;
    let mut expected = replay
        .checksums
        .iter()
        .copied()
        .chain(replay.end.as_ref().map(|e| (e.frame, e.checksum)))
        .peekable();
    let mut checked = 0;
    // A checksum for frame 0 would only check the header; none is recorded.
    for inputs in &replay.inputs {
        world.step(*inputs, &mut ());
        while let Some(&(frame, recorded)) = expected.peek() {
            if frame != world.frame {
                break;
            }
            expected.next();
            checked += 1;
            let actual = world.checksum();
            if actual != recorded {
                return Some(Verification {
                    frames: world.frame,
                    checked,
                    first_mismatch: Some((frame, recorded, actual)),
                    world,
                });
            }
        }
    }
    Some(Verification {
        frames: world.frame,
        checked,
        first_mismatch: None,
        world,
    })
}

/// The world after `frame` frames of the replay (clamped to its length).
pub fn simulate_to(replay: &Replay, frame: Frame) -> Option<Box<World>> {
    let mut world = initial_world(replay)?;
    for inputs in replay.inputs.iter().take(frame as usize) {
        world.step(*inputs, &mut ());
    }
    Some(world)
}
