use thiserror::Error;

use crate::sim::{Frame, hex_checksum};

#[derive(Debug, Error)]
pub enum SessionError {
    /// Re-simulating a frame gave other bits than simulating it the first
    /// time: the simulation is not deterministic.
    #[error(
        "synctest mismatch at frame {frame}: first simulation {first}, re-simulation {resimulated}",
        first = hex_checksum(*first),
        resimulated = hex_checksum(*resimulated)
    )]
    Mismatch {
        frame: Frame,
        first: u128,
        resimulated: u128,
    },

    /// GGRS's own synctest check fired before ours; it reports frames only.
    #[error("synctest mismatch at frame {frame} (reported by GGRS, which gives no checksums)")]
    GgrsMismatch { frame: Frame },

    /// Both peers simulated the same confirmed frame to different states.
    #[error(
        "desync at frame {frame}: our checksum {ours}, the other player's {theirs}",
        ours = hex_checksum(*ours),
        theirs = hex_checksum(*theirs)
    )]
    Desync {
        frame: Frame,
        ours: u128,
        theirs: u128,
    },

    /// The other player is gone mid-match.
    #[error("the other player {0}")]
    PeerLost(String),

    /// The other player sent something our protocol does not allow.
    #[error("the other player broke the protocol: {0}")]
    Protocol(String),

    /// A rejoin's catch-up does not re-simulate to the checksums it carries.
    #[error(
        "the match sent to catch up on does not re-simulate: at frame {frame} ours is {ours}, the other player's {theirs}",
        ours = hex_checksum(*ours),
        theirs = hex_checksum(*theirs)
    )]
    CatchUp {
        frame: Frame,
        ours: u128,
        theirs: u128,
    },

    /// A spectator's re-simulation of the streamed frames does not give
    /// the players' checksum.
    #[error(
        "out of sync with the players at frame {frame}: our checksum {ours}, theirs {theirs}",
        ours = hex_checksum(*ours),
        theirs = hex_checksum(*theirs)
    )]
    OutOfSync {
        frame: Frame,
        ours: u128,
        theirs: u128,
    },

    #[error("GGRS: {0}")]
    Ggrs(#[from] ggrs::GgrsError),

    #[error("GGRS asked to load frame {0}, which was never saved")]
    MissingState(Frame),

    #[error("GGRS asked for frame {0}, which does not exist")]
    NegativeFrame(i32),
}
