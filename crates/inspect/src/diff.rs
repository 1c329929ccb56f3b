//! Desync forensics: where two logs of "the same" match part ways, and how
//! the two worlds differ there, field by field.

use serde::Serialize;

use twinstar_sim::{FieldDiff, Frame, Input, PLAYERS, World, world_diff};

use crate::{Replay, simulate_to};

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Divergence {
    /// The logs start different matches (seed or rules).
    Header { field: String, a: String, b: String },
    /// The inputs of `frame` differ (they lead from state frame-1 to frame).
    Inputs {
        frame: Frame,
        a: [u16; PLAYERS],
        b: [u16; PLAYERS],
    },
    /// Same inputs, different recorded state: a determinism bug.
    Checksum { frame: Frame, a: String, b: String },
    /// One log goes on after the other ends; everything shared matches.
    Length { a_frames: Frame, b_frames: Frame },
}

impl Divergence {
    /// The first frame whose state differs, for `--state`.
    pub fn frame(&self) -> Frame {
        match self {
            Divergence::Header { .. } => 0,
            Divergence::Inputs { frame, .. } | Divergence::Checksum { frame, .. } => *frame,
            Divergence::Length { a_frames, b_frames } => (*a_frames).min(*b_frames),
        }
    }
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let bits = |i: &[u16; PLAYERS]| format!("{:#06x} {:#06x}", i[0], i[1]);
        match self {
            Divergence::Header { field, a, b } => {
                write!(f, "different matches: header {field} is {a} vs {b}")
            }
            Divergence::Inputs { frame, a, b } => write!(
                f,
                "inputs differ at frame {frame}: [{}] vs [{}]",
                bits(a),
                bits(b)
            ),
            Divergence::Checksum { frame, a, b } => write!(
                f,
                "same inputs, checksums differ at frame {frame}: {a} vs {b}"
            ),
            Divergence::Length { a_frames, b_frames } => {
                write!(
                    f,
                    "identical for {} frames; one log has {a_frames}, the other {b_frames}",
                    a_frames.min(b_frames)
                )
            }
        }
    }
}

/// The first place the two logs disagree, or `None` if they are identical.
pub fn first_divergence(a: &Replay, b: &Replay) -> Option<Divergence> {
    let (ha, hb) = (&a.header, &b.header);
    for (field, va, vb) in [
        ("seed", ha.seed.to_string(), hb.seed.to_string()),
        ("config", ha.config_hex.clone(), hb.config_hex.clone()),
    ] {
        if va != vb {
            return Some(Divergence::Header {
                field: field.into(),
                a: va,
                b: vb,
            });
        }
    }
    let first_input = a
        .inputs
        .iter()
        .zip(&b.inputs)
        .position(|(x, y)| x != y)
        .map(|i| i as u32 + 1);
    let first_checksum = first_checksum_difference(a, b);
    let by_inputs = first_input.map(|frame| {
        let raw = |r: &Replay| r.inputs[frame as usize - 1].map(|i: Input| i.0);
        Divergence::Inputs {
            frame,
            a: raw(a),
            b: raw(b),
        }
    });
    match (by_inputs, first_checksum) {
        (Some(i), Some(c)) => Some(if c.frame() < i.frame() { c } else { i }),
        (Some(d), None) | (None, Some(d)) => Some(d),
        (None, None) if a.frames() != b.frames() => Some(Divergence::Length {
            a_frames: a.frames(),
            b_frames: b.frames(),
        }),
        (None, None) => None,
    }
}

fn first_checksum_difference(a: &Replay, b: &Replay) -> Option<Divergence> {
    let mut bi = b.checksums.iter().peekable();
    for &(frame, ca) in &a.checksums {
        while bi.next_if(|(f, _)| *f < frame).is_some() {}
        if let Some(&&(fb, cb)) = bi.peek()
            && fb == frame
            && cb != ca
        {
            let hex = twinstar_sim::hex_checksum;
            return Some(Divergence::Checksum {
                frame,
                a: hex(ca),
                b: hex(cb),
            });
        }
    }
    None
}

/// The first frame from `from` on where the two replays' re-simulated
/// worlds differ, and those fields (`replay-diff --state`): none when the
/// worlds agree to the end of the shorter one. `None` when a header's
/// rules are unreadable.
pub fn first_state_difference(
    a: &Replay,
    b: &Replay,
    from: Frame,
) -> Option<(Frame, Vec<FieldDiff>)> {
    let mut wa: Box<World> = simulate_to(a, from)?;
    let mut wb: Box<World> = simulate_to(b, from)?;
    let shared = a.frames().min(b.frames());
    let mut fields = world_diff(&wa, &wb);
    while fields.is_empty() && wa.frame < shared {
        let f = wa.frame as usize;
        wa.step(a.inputs[f], &mut ());
        wb.step(b.inputs[f], &mut ());
        fields = world_diff(&wa, &wb);
    }
    Some((wa.frame, fields))
}
