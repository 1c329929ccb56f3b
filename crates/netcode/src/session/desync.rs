//! A desync that explains itself. When the checksums differ, each player
//! sends the other its evidence (`Message::DesyncState`): its world at the
//! desync frame and the inputs it confirmed for the frames before. With
//! both in hand a side names every field of the world that differs (the
//! names `replay-diff --state` uses) and whether the two sides even agree
//! on the inputs (if not, the network or the input path is at fault, not
//! the simulation). The report itself is written by the app (`app::desync`).

use crate::{Frame, Game, hex_checksum};
use serde_json::{Value, json};

use super::frame_log::FrameLog;
use super::simulation::Simulation;
use crate::net::protocol::{DesyncState, MAX_MESSAGE_BYTES};

/// Confirmed frames of inputs sent with the evidence (2 s of play).
pub(crate) const INPUT_FRAMES: Frame = 120;

/// The most bytes a peer's state may inflate to.
const MAX_STATE_BYTES: usize = 1 << 20;

/// One side's evidence.
pub struct Evidence<G: Game<N>, const N: usize> {
    /// The frame the evidence is of (the desync's).
    pub frame: Frame,
    /// That side's checksum at `frame`.
    pub checksum: u128,
    /// The world at `frame`, if that side kept a copy (`None`: it did not,
    /// or the copy it sent did not decode).
    pub world: Option<G::State>,
    /// Inputs of frames `inputs_from..inputs_from + inputs.len()`.
    pub inputs_from: Frame,
    /// Both players' confirmed inputs, one array per frame.
    pub inputs: Vec<[G::Input; N]>,
}

impl<G: Game<N>, const N: usize> Clone for Evidence<G, N> {
    fn clone(&self) -> Self {
        Evidence {
            frame: self.frame,
            checksum: self.checksum,
            world: self.world.clone(),
            inputs_from: self.inputs_from,
            inputs: self.inputs.clone(),
        }
    }
}

impl<G: Game<N>, const N: usize> std::fmt::Debug for Evidence<G, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Evidence")
            .field("frame", &self.frame)
            .field("checksum", &hex_checksum(self.checksum))
            .field(
                "world",
                &self.world.as_ref().map(G::checksum).map(hex_checksum),
            )
            .field("inputs_from", &self.inputs_from)
            .field("inputs", &self.inputs.len())
            .finish()
    }
}

impl<G: Game<N>, const N: usize> Evidence<G, N> {
    /// Ours: the world at `frame` as last hashed, and the last
    /// [`INPUT_FRAMES`] confirmed frames before it.
    pub(super) fn gather(
        frame: Frame,
        checksum: u128,
        sim: &Simulation<G, N>,
        log: &FrameLog<G::Input, N>,
    ) -> Self {
        let history = log.history().map_or(&[][..], |h| &h.inputs[..]);
        let to = frame.min(log.confirmed()).min(history.len() as Frame);
        let from = to.saturating_sub(INPUT_FRAMES);
        Evidence {
            frame,
            checksum,
            world: sim.world_at(frame).cloned(),
            inputs_from: from,
            inputs: history[from as usize..to as usize].to_vec(),
        }
    }

    /// For the wire: the world deflated (mostly zeroes: ~64 KiB becomes a
    /// few KiB, under the channel's message limit).
    pub fn to_message(&self) -> DesyncState {
        let bytes = self.world.as_ref().and_then(G::state_bytes);
        let world = bytes.map_or_else(Vec::new, |bytes| {
            let packed = miniz_oxide::deflate::compress_to_vec(&bytes, 6);
            // A world that does not pack small enough is left out rather
            // than refused by the peer as a whole message.
            if packed.len() > MAX_MESSAGE_BYTES / 2 {
                Vec::new()
            } else {
                packed
            }
        });
        DesyncState {
            frame: self.frame,
            checksum: self.checksum,
            world,
            inputs_from: self.inputs_from,
            inputs: bytemuck::cast_slice(&self.inputs[..]).to_vec(),
        }
    }

    /// The peer's, from the wire. A world that does not inflate to exactly
    /// one `World` is left out (said in the report), never trusted; inputs
    /// must be whole frames.
    pub fn from_message(state: DesyncState) -> Result<Self, String> {
        let frame_bytes = N * std::mem::size_of::<G::Input>();
        if !state.inputs.len().is_multiple_of(frame_bytes)
            || state.inputs.len() > INPUT_FRAMES as usize * frame_bytes
        {
            return Err(format!(
                "desync evidence with {} input bytes (whole frames of {frame_bytes}, at most {INPUT_FRAMES})",
                state.inputs.len()
            ));
        }
        let world = (!state.world.is_empty())
            .then(|| {
                miniz_oxide::inflate::decompress_to_vec_with_limit(&state.world, MAX_STATE_BYTES)
                    .ok()
            })
            .flatten()
            .and_then(|bytes| G::state_from_bytes(&bytes));
        Ok(Evidence {
            frame: state.frame,
            checksum: state.checksum,
            world,
            inputs_from: state.inputs_from,
            inputs: (state.inputs.chunks_exact(frame_bytes))
                .map(|frame| {
                    std::array::from_fn(|p| {
                        let size = std::mem::size_of::<G::Input>();
                        bytemuck::pod_read_unaligned(&frame[p * size..(p + 1) * size])
                    })
                })
                .collect(),
        })
    }
}

/// Both sides' evidence as the match ended: ours once we found or heard of
/// the desync, theirs once it arrived.
pub struct Forensics<G: Game<N>, const N: usize> {
    /// Our evidence, once we found or heard of the desync.
    pub ours: Option<Evidence<G, N>>,
    /// The other side's, once it arrived.
    pub theirs: Option<Evidence<G, N>>,
    /// The room's code, for the report's name (`None`: quick match).
    pub room: Option<String>,
    /// Our player index (a player's report).
    pub local: usize,
    /// A spectator's report: its name in the room (its evidence is the
    /// world as it simulated the stream, the other the streaming player's).
    pub spectator: Option<String>,
}

impl<G: Game<N>, const N: usize> Default for Forensics<G, N> {
    fn default() -> Self {
        Forensics {
            ours: None,
            theirs: None,
            room: None,
            local: 0,
            spectator: None,
        }
    }
}

impl<G: Game<N>, const N: usize> Forensics<G, N> {
    /// Ours is sent, theirs has not come yet.
    pub(crate) fn awaiting_theirs(&self) -> bool {
        self.ours.is_some() && self.theirs.is_none()
    }
}

/// What a report says, for the summary and the result panel as well as
/// the file.
#[derive(Clone, Debug)]
pub struct Report {
    /// The frame of the desync.
    pub frame: Frame,
    /// Every differing field's path (`players[0].score`), in world order.
    pub fields: Vec<String>,
    /// The whole report, as the desync file holds it.
    pub json: Value,
}

/// Explains a desync from both sides' evidence; `local` is our player index.
pub fn explain<G: Game<N>, const N: usize>(
    ours: &Evidence<G, N>,
    theirs: Option<&Evidence<G, N>>,
    local: usize,
) -> Report {
    let (fields, state) = match (ours.world.as_ref(), theirs.and_then(|t| t.world.as_ref())) {
        (Some(a), Some(b)) if theirs.is_some_and(|t| t.frame == ours.frame) => {
            let diffs = G::diff(a, b);
            let list: Vec<Value> = diffs
                .iter()
                .map(|d| json!({"field": d.path, "ours": d.a, "theirs": d.b}))
                .collect();
            (diffs.into_iter().map(|d| d.path).collect(), json!(list))
        }
        (None, _) => (
            Vec::new(),
            json!("this side kept no copy of the world at that frame"),
        ),
        (_, None) if theirs.is_none() => {
            (Vec::new(), json!("the other player's state did not arrive"))
        }
        _ => (
            Vec::new(),
            json!("the other player sent no usable world for that frame"),
        ),
    };
    let inputs = match theirs {
        None => json!(null),
        Some(t) => inputs_compared(ours, t),
    };
    let json = json!({
        "frame": ours.frame,
        "player": local + 1,
        "checksums": {
            "ours": hex_checksum(ours.checksum),
            "theirs": theirs.map(|t| hex_checksum(t.checksum)),
        },
        "differing_fields": state,
        "inputs": inputs,
    });
    Report {
        frame: ours.frame,
        fields,
        json,
    }
}

/// Over the frames both sides sent: per player, the first frame where
/// their confirmed inputs differ (`null` if they agree), so a report says
/// whether the peers even simulated the same match.
fn inputs_compared<G: Game<N>, const N: usize>(
    ours: &Evidence<G, N>,
    theirs: &Evidence<G, N>,
) -> Value {
    let from = ours.inputs_from.max(theirs.inputs_from);
    let end = |e: &Evidence<G, N>| e.inputs_from + e.inputs.len() as Frame;
    let to = end(ours).min(end(theirs));
    let at = |e: &Evidence<G, N>, f: Frame| e.inputs[(f - e.inputs_from) as usize];
    let players: Vec<Value> = (0..N)
        .map(|p| {
            let first = (from..to).find(|&f| at(ours, f)[p] != at(theirs, f)[p]);
            json!({"player": p + 1, "first_differing_frame": first})
        })
        .collect();
    json!({
        "frames": [from, to.max(from)],
        "agree": players.iter().all(|p| p["first_differing_frame"].is_null()),
        "players": players,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_game::{State, TestGame};

    type Evidence = super::Evidence<TestGame, 2>;

    fn evidence(sum: u64, inputs: Vec<[u8; 2]>) -> Evidence {
        let world = State {
            frame: 130,
            sum,
            weight: 1,
        };
        Evidence {
            frame: world.frame,
            checksum: TestGame::checksum(&world),
            world: Some(world),
            inputs_from: 10,
            inputs,
        }
    }

    /// Any game's evidence crosses the wire and back; bad bytes are left
    /// out or refused.
    #[test]
    fn evidence_crosses_the_wire_and_bad_bytes_do_not() {
        let ours = evidence(42, vec![[1, 2]; 120]);
        let back = Evidence::from_message(ours.to_message()).unwrap();
        assert_eq!((&back.world, &back.inputs), (&ours.world, &ours.inputs));
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

    /// The report names the game's differing fields (`Game::diff`) and the
    /// first frame whose inputs differ.
    #[test]
    fn the_report_names_the_fields_and_the_inputs_that_differ() {
        let mut their_inputs = vec![[0, 0]; 20];
        their_inputs[7][1] = 4;
        let ours = evidence(1, vec![[0, 0]; 20]);
        let theirs = evidence(6, their_inputs);
        let report = explain(&ours, Some(&theirs), 1);
        assert_eq!(report.fields, ["sum"]);
        assert_eq!(report.json["player"], 2);
        assert_eq!(report.json["inputs"]["agree"], false);
        assert_eq!(
            report.json["inputs"]["players"][1]["first_differing_frame"],
            17
        );
        assert!(explain(&ours, None, 0).fields.is_empty());
    }
}
