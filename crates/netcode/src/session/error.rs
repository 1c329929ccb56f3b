use std::time::Duration;

use thiserror::Error;

use crate::net::protocol::HandshakeError;
use crate::net::rejoin::CatchUpReadError;
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
    PeerLost(PeerGone),

    /// The other player sent something our protocol does not allow.
    #[error("the other player broke the protocol: {0}")]
    Protocol(ProtocolError),

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

    /// GGRS refused a request.
    #[error("GGRS: {0}")]
    Ggrs(GgrsFailure),

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

/// How the other player was lost mid-match ([`SessionError::PeerLost`]);
/// each reads after "the other player".
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum PeerGone {
    /// No packet came for GGRS's disconnect timeout.
    #[error("stopped responding (no packets for {} s)", .0.as_secs_f64())]
    StoppedResponding(Duration),
    /// Its connection dropped and it did not rejoin within the reconnect
    /// window.
    #[error("lost the connection and did not rejoin within {} s", .0.as_secs())]
    DidNotRejoin(Duration),
    /// Our connection dropped and we could not reconnect to it within the
    /// reconnect window.
    #[error("lost the connection and could not reconnect within {} s", .0.as_secs())]
    CouldNotReconnect(Duration),
    /// It closed the connection in a match that cannot pause (no
    /// reconnect window).
    #[error("closed the connection")]
    Closed,
    /// It said goodbye, with its reason.
    #[error("left the match ({reason})")]
    Left {
        /// The reason its `Bye` gave.
        reason: String,
    },
    /// It ended its match and left before our last frames were confirmed
    /// (its last inputs never came).
    #[error("left after its last frame, before our frame {frame} was confirmed")]
    LeftBeforeConfirmed {
        /// Our first unconfirmed frame.
        frame: Frame,
    },
    /// Watching: the player streaming the match closed its connection.
    #[error("streaming the match to us closed the connection")]
    StreamClosed,
    /// A reconnect could not start: no runtime for its connection.
    #[error("cannot reconnect: {0}")]
    NoRuntime(std::io::ErrorKind),
    /// A reconnect could not start: the new socket has no channels.
    #[error("cannot reconnect: no channels")]
    NoChannels,
}

/// What the other player sent that our protocol does not allow
/// ([`SessionError::Protocol`]).
#[derive(Clone, Debug, Error, PartialEq)]
pub enum ProtocolError {
    /// A control message that does not decode.
    #[error("control message: {0}")]
    Control(HandshakeError),
    /// Watching: a message of the match stream that does not decode, or
    /// frames in it that cannot be read.
    #[error("match stream: {0}")]
    Stream(CatchUpReadError),
    /// A rejoiner's catch-up (the frames it confirmed) that cannot be read.
    #[error("catch-up from the rejoiner: {0}")]
    CatchUp(CatchUpReadError),
    /// Watching: the player gave us a name that is no chat name.
    #[error("the player named us {0:?}, which is not a chat name")]
    BadName(String),
    /// The agreed rules' preset is not one of this game's.
    #[error("unknown preset {0}")]
    UnknownPreset(String),
    /// A catch-up's confirmed inputs of a frame differ from our own
    /// confirmed ones.
    #[error("the other player's confirmed inputs of frame {frame} differ from ours")]
    InputsDiffer {
        /// The first frame that differs.
        frame: Frame,
    },
    /// Watching: the streaming player refused to stream, with its reason.
    #[error("{reason}")]
    WatchRefused {
        /// The reason it gave (its own text, from the wire).
        reason: String,
    },
}

/// What GGRS refused ([`SessionError::Ggrs`]): GGRS's error kinds, mirrored
/// so that no ggrs type is in this crate's API; each reads as GGRS words it.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum GgrsFailure {
    /// The prediction threshold was reached (a stall, where it is not
    /// handled as one).
    #[error("Prediction threshold is reached, cannot proceed without catching up.")]
    PredictionThreshold,
    /// A request GGRS found invalid.
    #[error("Invalid Request: {info}")]
    InvalidRequest {
        /// GGRS's explanation.
        info: String,
    },
    /// GGRS's synctest found resimulated frames with other checksums.
    #[error(
        "Detected checksum mismatch during rollback on frame {current_frame}, mismatched frames: {mismatched_frames:?}"
    )]
    MismatchedChecksum {
        /// The frame being simulated.
        current_frame: i32,
        /// The frames whose checksums differed.
        mismatched_frames: Vec<i32>,
    },
    /// The session is not synchronized with its peer yet.
    #[error("The session is not yet synchronized with all remote sessions.")]
    NotSynchronized,
    /// A GGRS spectator fell too far behind its host.
    #[error("The spectator got so far behind the host that catching up is impossible.")]
    SpectatorTooFarBehind,
    /// Network statistics asked for too early.
    #[error("Not enough data has been collected yet. Retry after at least one second.")]
    NotEnoughData,
}

impl From<ggrs::GgrsError> for GgrsFailure {
    fn from(error: ggrs::GgrsError) -> Self {
        use ggrs::GgrsError as E;
        match error {
            E::PredictionThreshold => GgrsFailure::PredictionThreshold,
            E::InvalidRequest { info } => GgrsFailure::InvalidRequest { info },
            E::MismatchedChecksum {
                current_frame,
                mismatched_frames,
            } => GgrsFailure::MismatchedChecksum {
                current_frame,
                mismatched_frames,
            },
            E::NotSynchronized => GgrsFailure::NotSynchronized,
            E::SpectatorTooFarBehind => GgrsFailure::SpectatorTooFarBehind,
            E::NotEnoughData => GgrsFailure::NotEnoughData,
        }
    }
}

impl SessionError {
    /// GGRS's error, as this crate reports it.
    pub(crate) fn ggrs(error: ggrs::GgrsError) -> Self {
        SessionError::Ggrs(error.into())
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

    /// The integration tests and the docs quote these lines.
    #[test]
    fn a_lost_peer_reads_as_it_always_did() {
        let lost = |gone| SessionError::PeerLost(gone).to_string();
        assert_eq!(
            lost(PeerGone::StoppedResponding(Duration::from_secs(3))),
            "the other player stopped responding (no packets for 3 s)"
        );
        assert_eq!(
            lost(PeerGone::DidNotRejoin(Duration::from_secs(8))),
            "the other player lost the connection and did not rejoin within 8 s"
        );
        assert_eq!(
            lost(PeerGone::StreamClosed),
            "the other player streaming the match to us closed the connection"
        );
        let refused = ProtocolError::WatchRefused {
            reason: "another version".into(),
        };
        assert_eq!(
            SessionError::Protocol(refused).to_string(),
            "the other player broke the protocol: another version"
        );
        let ggrs = ggrs::GgrsError::InvalidRequest { info: "no".into() };
        assert_eq!(
            SessionError::ggrs(ggrs.clone()).to_string(),
            format!("GGRS: {ggrs}")
        );
    }

    #[test]
    fn a_failure_the_peer_cannot_know_of_is_told_and_one_it_knows_is_not() {
        let truncated = HandshakeError::Malformed { bytes: 3 };
        let told = SessionError::Protocol(ProtocolError::Control(truncated)).reason_for_peer();
        assert_eq!(
            told.as_deref(),
            Some(
                "it could not follow our messages: control message: the other player sent a 3-byte message that is not a twinstar handshake (another program or an incompatible version?)"
            )
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
            SessionError::PeerLost(PeerGone::Closed).reason_for_peer(),
            None
        );
    }
}
