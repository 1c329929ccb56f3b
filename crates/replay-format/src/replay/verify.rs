//! Re-simulates a replay and compares every recorded checksum.

use super::reader::Replay;
use crate::{Frame, Game};

/// What a replay re-simulated to: the final state and whether every recorded checksum matched.
#[derive(Debug)]
pub struct Verification<S> {
    /// Frames re-simulated.
    pub frames: Frame,
    /// Recorded checksums compared (all matched, unless `first_mismatch`).
    pub checked: u32,
    /// (frame, recorded, re-simulated) of the first checksum that differs.
    pub first_mismatch: Option<(u32, u128, u128)>,
    /// The state after the last re-simulated frame.
    pub state: S,
}

/// The state at the start of the replay's match. `None` if the header's
/// config is unreadable (the reader refuses such files).
pub(crate) fn initial_state<G: Game<N>, const N: usize>(
    replay: &Replay<G::Input, N>,
) -> Option<G::State> {
    Some(G::start(replay.header.seed, &replay.header.config()?))
}

/// Re-simulates the whole log, stopping at the first checksum mismatch.
pub fn verify<G: Game<N>, const N: usize>(
    replay: &Replay<G::Input, N>,
) -> Option<Verification<G::State>> {
    let mut state = initial_state::<G, N>(replay)?;
    let mut expected = replay
        .checksums
        .iter()
        .copied()
        .chain(replay.end.as_ref().map(|e| (e.frame, e.checksum)))
        .peekable();
    let mut checked = 0;
    let mut events = Vec::new();
    // A checksum for frame 0 would only check the header; none is recorded.
    for inputs in &replay.inputs {
        G::step(&mut state, *inputs, &mut events);
        events.clear();
        let at = G::frame(&state);
        while let Some(&(frame, recorded)) = expected.peek() {
            if frame != at {
                break;
            }
            expected.next();
            checked += 1;
            let actual = G::checksum(&state);
            if actual != recorded {
                return Some(Verification {
                    frames: at,
                    checked,
                    first_mismatch: Some((frame, recorded, actual)),
                    state,
                });
            }
        }
    }
    Some(Verification {
        frames: G::frame(&state),
        checked,
        first_mismatch: None,
        state,
    })
}

/// The state after `frame` frames of the replay (clamped to its length).
pub fn simulate_to<G: Game<N>, const N: usize>(
    replay: &Replay<G::Input, N>,
    frame: Frame,
) -> Option<G::State> {
    let mut state = initial_state::<G, N>(replay)?;
    let mut events = Vec::new();
    for inputs in replay.inputs.iter().take(frame as usize) {
        G::step(&mut state, *inputs, &mut events);
        events.clear();
    }
    Some(state)
}
