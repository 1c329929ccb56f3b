//! Twinstar's `--json` summary: one object, printed as the last stdout
//! line: the netcode's figures of the match
//! (`twinstar_netcode::session::MatchSummary`) and, beside them in the same
//! object, the world's at the end (wave, scores, restarts).

use std::ops::{Deref, DerefMut};

use serde::{Deserialize, Serialize};
use twinstar_netcode::session::MatchSummary;

use crate::sim::World;

/// Twinstar's summary: the match's figures and, in the same object, the
/// world's at the end.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Summary {
    #[serde(flatten)]
    pub netcode: MatchSummary,
    pub wave: u32,
    pub score: [u32; 2],
    pub shared_score: u32,
    pub restarts: u32,
}

impl Summary {
    /// Twinstar's own fields, beside [`MatchSummary`]'s.
    pub const GAME_FIELDS: [&'static str; 4] = ["wave", "score", "shared_score", "restarts"];

    /// A finished or running twinstar match's summary.
    pub fn of_driver(driver: &super::Driver) -> Summary {
        Summary::of(driver.match_summary(), driver.world())
    }

    /// The match's figures and `world`'s.
    pub fn of(netcode: MatchSummary, world: &World) -> Summary {
        Summary {
            netcode,
            wave: world.spawner.wave,
            score: [world.players[0].score, world.players[1].score],
            shared_score: world.shared_score(),
            restarts: world.restarts,
        }
    }
}

impl Deref for Summary {
    type Target = MatchSummary;

    fn deref(&self) -> &MatchSummary {
        &self.netcode
    }
}

impl DerefMut for Summary {
    fn deref_mut(&mut self) -> &mut MatchSummary {
        &mut self.netcode
    }
}
