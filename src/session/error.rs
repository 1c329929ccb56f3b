use thiserror::Error;

#[derive(Debug, Error)]
pub enum SessionError {
    /// Re-simulating a frame gave other bits than simulating it the first
    /// time: the simulation is not deterministic.
    #[error(
        "synctest mismatch at frame {frame}: first simulation {first}, re-simulation {resimulated}",
        first = super::hex_checksum(*first),
        resimulated = super::hex_checksum(*resimulated)
    )]
    Mismatch {
        frame: i32,
        first: u128,
        resimulated: u128,
    },

    /// GGRS's own synctest check fired before ours; it reports frames only.
    #[error("synctest mismatch at frame {frame} (reported by GGRS, which gives no checksums)")]
    GgrsMismatch { frame: i32 },

    /// Both peers simulated the same confirmed frame to different states.
    #[error(
        "desync at frame {frame}: our checksum {ours}, the other player's {theirs}",
        ours = super::hex_checksum(*ours),
        theirs = super::hex_checksum(*theirs)
    )]
    Desync {
        frame: i32,
        ours: u128,
        theirs: u128,
    },

    /// The other player is gone mid-match.
    #[error("the other player {0}")]
    PeerLost(String),

    #[error("GGRS: {0}")]
    Ggrs(#[from] ggrs::GgrsError),

    #[error("GGRS asked to load frame {0}, which was never saved")]
    MissingState(i32),
}
