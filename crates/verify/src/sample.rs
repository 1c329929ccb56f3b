//! A sample online match as its host would record it, for tests, fuzz
//! seeds and benchmarks: two scripted players firing while they circle,
//! recorded with the replay format's writer. Not a bot of the game (those
//! live in the game's crate); enough to score and to reach waves.

use twinstar_replay_format::Game;
use twinstar_replay_format::replay::{Header, Writer};
use twinstar_sim::{GAME, Input, PLAYERS, SimConfig, Twinstar};

/// What the sample match is played as.
#[derive(Clone, Debug)]
pub struct SampleMatch {
    pub seed: u64,
    pub frames: u32,
    pub preset: &'static str,
    /// The room code as the netcode records it (`K7Q-2XM`).
    pub room: Option<String>,
    /// The peer ids it names.
    pub peers: Vec<String>,
    /// Frames each turn of the players lasts: another value, another match.
    pub turn_frames: u32,
}

impl SampleMatch {
    /// `frames` frames from `seed` in room `room` with peer `peer`.
    pub fn new(seed: u64, frames: u32, room: &str, peer: &str) -> SampleMatch {
        SampleMatch {
            seed,
            frames,
            preset: "default",
            room: Some(room.to_owned()),
            peers: vec![peer.to_owned()],
            turn_frames: 40,
        }
    }

    /// The replay's bytes, its header edited by `edit` first, and the
    /// team score the match ended with.
    pub fn record_with(&self, edit: impl FnOnce(&mut Header)) -> std::io::Result<(Vec<u8>, u64)> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static MADE: AtomicU64 = AtomicU64::new(0);
        let rules = SimConfig::preset(self.preset)
            .ok_or_else(|| std::io::Error::other(format!("no preset {}", self.preset)))?;
        let mut header = Header::new::<Twinstar, PLAYERS>("host", self.seed, &rules);
        header.room = self.room.clone();
        header.peers = self.peers.clone();
        edit(&mut header);
        let path = std::env::temp_dir().join(format!(
            "twinstar-sample-{}-{}.tsr",
            std::process::id(),
            MADE.fetch_add(1, Ordering::SeqCst)
        ));
        let mut writer = Writer::<Input, PLAYERS>::create(&path, &GAME, &header)?;
        let mut world = Twinstar::start(self.seed, &rules);
        let mut events = Vec::new();
        let turns = [Input::UP, Input::RIGHT, Input::DOWN, Input::LEFT];
        for f in 0..self.frames {
            let turn = turns[(f / self.turn_frames.max(1) % 4) as usize];
            let other = turns[(f / self.turn_frames.max(1) / 2 % 4) as usize];
            let inputs = [Input(Input::FIRE | turn), Input(Input::FIRE | other)];
            Twinstar::step(&mut world, inputs, &mut events);
            events.clear();
            writer.frame(inputs, || Twinstar::checksum(&world))?;
        }
        writer.finish(Twinstar::checksum(&world), "ended")?;
        let bytes = std::fs::read(&path);
        let _ = std::fs::remove_file(&path);
        Ok((bytes?, u64::from(world.shared_score())))
    }

    /// [`SampleMatch::record_with`] with the header as it is.
    pub fn record(&self) -> std::io::Result<(Vec<u8>, u64)> {
        self.record_with(|_| {})
    }
}
