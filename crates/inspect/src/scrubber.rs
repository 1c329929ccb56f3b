//! The world at any frame of a recording, re-simulated from its inputs:
//! a saved world every `interval` frames (60, more on a long match so at
//! most 256 are kept, 20 MB), so a seek restores the nearest one at or
//! before the frame and steps at most `interval - 1` frames. The replay
//! viewer (src/frontend/replay_view.rs) seeks the same way.

use serde_json::{Value, json};
use twinstar_sim::{Frame, Fx, PLAYERS, Vec2, World};

use crate::{Replay, simulate_to};

/// The most saved worlds kept (each is ~80 KB).
const MAX_KEYFRAMES: u32 = 256;

/// A recording's worlds, frame by frame.
pub struct Scrubber {
    replay: Replay,
    interval: u32,
    /// The world at frame `k * interval`, for each k up to the end.
    keyframes: Vec<Box<World>>,
}

impl Scrubber {
    /// Re-simulates the whole recording once, keeping the saved worlds;
    /// `None` when its header's rules are unreadable.
    pub fn new(replay: Replay) -> Option<Scrubber> {
        let frames = replay.frames();
        let interval = 60 * frames.div_ceil(60 * MAX_KEYFRAMES).max(1);
        let mut world = simulate_to(&replay, 0)?;
        let mut keyframes = vec![world.clone()];
        for inputs in &replay.inputs {
            world.step(*inputs, &mut ());
            if world.frame % interval == 0 {
                keyframes.push(world.clone());
            }
        }
        Some(Scrubber {
            replay,
            interval,
            keyframes,
        })
    }

    /// The recording's length in frames.
    pub fn frames(&self) -> Frame {
        self.replay.frames()
    }

    /// The world after `frame` frames (clamped to the recording).
    pub fn world_at(&self, frame: Frame) -> Box<World> {
        let frame = frame.min(self.frames());
        let k = ((frame / self.interval) as usize).min(self.keyframes.len() - 1);
        let mut world = self.keyframes[k].clone();
        while world.frame < frame {
            world.step(self.replay.inputs[world.frame as usize], &mut ());
        }
        world
    }

    /// The players' inputs that led to `frame` (those of frame `frame - 1`
    /// to `frame`), as their 16 bits; none at frame 0.
    pub fn inputs_at(&self, frame: Frame) -> Option<[u16; PLAYERS]> {
        let i = frame.checked_sub(1)? as usize;
        self.replay.inputs.get(i).map(|inputs| inputs.map(|x| x.0))
    }
}

/// A position in whole arena pixels (0..640, 0..360).
fn xy(v: Vec2) -> [i32; 2] {
    let px = |f: Fx| f.to_num::<i32>();
    [px(v.x), px(v.y)]
}

/// What to draw of a world: its frame, score and wave, the players
/// (`x`, `y`, `alive`, `downed`, `facing`, `lives`, `score`, `shield`),
/// and `[x, y, ...]` rows: enemies (`kind`, `hp`, `state`), bullets
/// (`owner`: a player's index or 2 for an enemy's), pickups (`kind`) and
/// spawn markers (`kind`).
pub fn drawn(world: &World) -> Value {
    let players: Vec<Value> = (world.players.iter())
        .map(|p| {
            let [x, y] = xy(p.pos);
            json!({"x": x, "y": y, "alive": p.alive != 0, "downed": p.downed != 0,
                "facing": p.facing, "lives": p.lives, "score": p.score, "shield": p.shield})
        })
        .collect();
    let enemies = &world.enemies[..world.enemy_count as usize];
    let bullets = &world.bullets[..world.bullet_count as usize];
    let pickups = &world.pickups[..world.pickup_count as usize];
    let markers = &world.markers[..world.marker_count as usize];
    let row = |v: Vec2, rest: &[u32]| {
        let [x, y] = xy(v);
        let mut r = vec![json!(x), json!(y)];
        r.extend(rest.iter().map(|n| json!(n)));
        Value::Array(r)
    };
    json!({
        "frame": world.frame,
        "score": world.team.score,
        "wave": world.spawner.wave,
        "game_over": world.phase != twinstar_sim::PHASE_PLAYING,
        "players": players,
        "enemies": (enemies.iter()).map(|e| row(e.pos, &[e.kind.into(), e.hp.into(), e.state.into()])).collect::<Vec<_>>(),
        "bullets": (bullets.iter()).map(|b| row(b.pos, &[b.owner.into()])).collect::<Vec<_>>(),
        "pickups": (pickups.iter()).map(|p| row(p.pos, &[p.kind.into()])).collect::<Vec<_>>(),
        "markers": (markers.iter()).map(|m| row(m.pos, &[m.kind.into()])).collect::<Vec<_>>(),
    })
}
