//! Twinstar's `--json` summary: one object, printed as the last stdout
//! line: the netcode's figures of the match
//! (`twinstar_netcode::session::MatchSummary`) and, beside them in the same
//! object, the world's at the end (wave, scores, restarts).

use std::ops::{Deref, DerefMut};

use serde::{Deserialize, Serialize};
use twinstar_netcode::session::MatchSummary;
use twinstar_netcode::signaling::Ranked;

use crate::sim::World;

/// Twinstar's summary: the match's figures and, in the same object, the
/// world's at the end.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Summary {
    #[serde(flatten)]
    pub netcode: MatchSummary,
    /// The highest wave reached.
    pub wave: u32,
    /// Each player's share of the team score (their kills' points).
    pub score: [u32; 2],
    /// The team's score (kills with the combo multiplier, wave bonuses):
    /// what the boards rank. `shared_score` is the same number under the
    /// name older readers know.
    pub team_score: u32,
    pub shared_score: u32,
    pub bosses_defeated: u32,
    /// Revives each player performed, summed.
    pub revives: u32,
    /// Pickups taken by both.
    pub pickups: u32,
    /// Bombs used by both.
    pub bombs: u32,
    /// The longest combo (kills in quick succession).
    pub max_combo: u32,
    /// Kills per player.
    pub kills: [u32; 2],
    pub restarts: u32,
    /// What became of the replay sent to be ranked (an online match's
    /// uploader only; absent when nothing was sent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upload: Option<UploadReport>,
}

/// Where an uploaded match ranked, with the link that plays it, or why it
/// was not ranked (`{"ranked": {...}}` or `{"refused": "why"}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UploadReport {
    Ranked {
        #[serde(flatten)]
        ranked: Ranked,
        /// The page that plays it (`https://SERVER/#replay=ID`).
        link: Option<String>,
    },
    Refused(String),
}

impl UploadReport {
    /// The report in words: where it ranked and the link, or why not.
    pub fn lines(&self) -> Vec<String> {
        match self {
            UploadReport::Refused(why) => vec![format!("not ranked: {why}")],
            UploadReport::Ranked { ranked, link } => {
                let r = &ranked.ranks;
                let mut places = Vec::new();
                places.extend(r.daily.map(|n| format!("#{n} in today's daily challenge")));
                places.push(format!("#{} this week", r.week));
                places.push(format!("#{} of all time", r.all));
                let mut lines = vec![format!(
                    "ranked {} (team score {}, wave {})",
                    places.join(", "),
                    ranked.score,
                    ranked.wave
                )];
                lines.extend(link.as_ref().map(|l| format!("watch it: {l}")));
                lines
            }
        }
    }
}

impl Summary {
    /// Twinstar's own fields, beside [`MatchSummary`]'s.
    pub const GAME_FIELDS: [&'static str; 12] = [
        "wave",
        "score",
        "team_score",
        "shared_score",
        "bosses_defeated",
        "revives",
        "pickups",
        "bombs",
        "max_combo",
        "kills",
        "restarts",
        "upload",
    ];

    /// A finished or running twinstar match's summary.
    pub fn of_driver(driver: &super::Driver) -> Summary {
        Summary::of(driver.match_summary(), driver.world())
    }

    /// The match's figures and `world`'s.
    pub fn of(netcode: MatchSummary, world: &World) -> Summary {
        Summary {
            netcode,
            wave: world.team.best_wave,
            score: world.players.map(|p| p.score),
            team_score: world.team.score,
            shared_score: world.shared_score(),
            bosses_defeated: u32::from(world.team.bosses_defeated),
            revives: world.players.iter().map(|p| u32::from(p.revives)).sum(),
            pickups: world.players.iter().map(|p| u32::from(p.pickups)).sum(),
            bombs: world.players.iter().map(|p| u32::from(p.bombs_used)).sum(),
            max_combo: u32::from(world.team.max_combo),
            kills: world.players.map(|p| p.kills),
            restarts: world.restarts,
            upload: None,
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
