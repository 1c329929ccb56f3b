use thiserror::Error;

use crate::{Frame, hex_checksum};

/// Why a match stopped: what went wrong, in one line.
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
        /// The frame simulated twice.
        frame: Frame,
        /// Its checksum the first time.
        first: u128,
        /// Its checksum re-simulated.
        resimulated: u128,
    },

    /// GGRS's own synctest check fired before ours; it reports frames only.
    #[error("synctest mismatch at frame {frame} (reported by GGRS, which gives no checksums)")]
    GgrsMismatch {
        /// The frame GGRS reported.
        frame: Frame,
    },

    /// Both peers simulated the same confirmed frame to different states.
    #[error(
        "desync at frame {frame}: our checksum {ours}, the other player's {theirs}",
        ours = hex_checksum(*ours),
        theirs = hex_checksum(*theirs)
    )]
    Desync {
        /// The frame compared.
        frame: Frame,
        /// Our checksum there.
        ours: u128,
        /// The other side's.
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
        /// The frame compared.
        frame: Frame,
        /// Our checksum there.
        ours: u128,
        /// The other side's.
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
        /// The frame compared.
        frame: Frame,
        /// Our checksum there.
        ours: u128,
        /// The other side's.
        theirs: u128,
    },

    /// GGRS refused a request (its error as text: no ggrs type in this
    /// crate's API).
    #[error("GGRS: {0}")]
    Ggrs(String),

    /// GGRS asked to load a frame that was never saved.
    #[error("GGRS asked to load frame {0}, which was never saved")]
    MissingState(Frame),

    /// GGRS asked for a frame before the first.
    #[error("GGRS asked for frame {0}, which does not exist")]
    NegativeFrame(i32),

    /// The world at the match's last confirmed frame, rebuilt at its end
    /// to drop the frames simulated past it, does not hash to that frame's
    /// confirmed checksum (a bug in this crate, not in the game).
    #[error(
        "the world at the last confirmed frame {frame} could not be rebuilt: it hashes to {rebuilt}, the confirmed checksum is {confirmed}",
        rebuilt = hex_checksum(*rebuilt),
        confirmed = hex_checksum(*confirmed)
    )]
    Unsettled {
        /// The last confirmed frame.
        frame: Frame,
        /// The rebuilt world's checksum.
        rebuilt: u128,
        /// The checksum confirmed for that frame.
        confirmed: u128,
    },
}

impl SessionError {
    /// GGRS's error, as this crate reports it.
    pub(crate) fn ggrs(error: ggrs::GgrsError) -> Self {
        SessionError::Ggrs(error.to_string())
    }

    /// What the other player is told when this ends our match (the
    /// reason of our `Bye`), so it stops at once instead of waiting out a
    /// reconnect window; it reads it as "the other player left the match
    /// (...)". `None` where it knows already or cannot hear: a desync is
    /// told with `Desync`, a lost peer is gone, local checks have no peer.
    pub(crate) fn reason_for_peer(&self) -> Option<String> {
        match self {
            SessionError::Protocol(what) => {
                Some(format!("it could not follow our messages: {what}"))
            }
            SessionError::CatchUp { frame, .. } => Some(format!(
                "our catch-up did not re-simulate on its side at frame {frame}"
            )),
            SessionError::Ggrs(e) => Some(format!("its rollback session failed: {e}")),
            SessionError::MissingState(_) | SessionError::NegativeFrame(_) => {
                Some(format!("its rollback failed: {self}"))
            }
            SessionError::Desync { .. }
            | SessionError::PeerLost(_)
            | SessionError::Mismatch { .. }
            | SessionError::GgrsMismatch { .. }
            | SessionError::OutOfSync { .. }
            | SessionError::Unsettled { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_the_peer_cannot_know_of_is_told_and_one_it_knows_is_not() {
        let told = SessionError::Protocol("control message: truncated".into()).reason_for_peer();
        assert_eq!(
            told.as_deref(),
            Some("it could not follow our messages: control message: truncated")
        );
        let catch_up = SessionError::CatchUp {
            frame: 300,
            ours: 1,
            theirs: 2,
        };
        assert!(
            catch_up
                .reason_for_peer()
                .is_some_and(|r| r.contains("frame 300"))
        );
        assert!(SessionError::MissingState(7).reason_for_peer().is_some());
        let desync = SessionError::Desync {
            frame: 60,
            ours: 1,
            theirs: 2,
        };
        assert_eq!(desync.reason_for_peer(), None, "told with Desync");
        assert_eq!(
            SessionError::PeerLost("left".into()).reason_for_peer(),
            None
        );
    }
}
