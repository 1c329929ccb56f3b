//! Where an online match stands, as one value: the flags it replaced
//! (`sent_done`, `peer_done`, `peer_gone`, and the two pause options) had
//! to agree with each other, and a peer "gone" before the end was a state
//! nothing prevented.

use super::{reconnect, rejoin};
use crate::sim::Frame;

/// The match's stage. GGRS runs only while [`Stage::Playing`].
// At most one per match at a time: the size of the knocking connector's
// variant costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
pub(super) enum Stage {
    /// Frames are played.
    Playing,
    /// Paused until the other player is back, or the window closes.
    Paused(Pause),
    /// A `--frames N` match reached its end on one side or both: the
    /// other player leaving is expected from here.
    Ending(Ending),
}

/// Why a match is paused, and that pause's own state.
#[allow(clippy::large_enum_variant)]
pub(super) enum Pause {
    /// Player 1 (or the player whose partner crashed) keeps the match in
    /// the room for the other player's claim (`rejoin`).
    Keeping(rejoin::Waiting),
    /// Player 2 opens fresh connections to player 1 (`reconnect`).
    Knocking(reconnect::Knocking),
}

/// What [`Stage::say_done`] decided about our `Done`.
#[derive(Debug, PartialEq)]
pub(super) enum SayDone {
    /// Send it now.
    Now,
    /// It went before.
    AlreadySaid,
    /// Hold it: the match is paused.
    NotWhilePaused,
}

/// Who has said the match is over.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Ending {
    /// We sent our `Done`.
    pub sent_done: bool,
    /// The peer's `Done`: (frame, checksum).
    pub peer_done: Option<(Frame, u128)>,
    /// The peer left since (its connection closed or went silent).
    pub peer_gone: bool,
}

impl Stage {
    /// Our last frame is confirmed: whether our `Done` goes now. Never
    /// while paused (the other player is away: it is said once the match
    /// plays again, and the end wait starts then), and only once.
    pub fn say_done(&mut self) -> SayDone {
        match self {
            Stage::Playing => {
                *self = Stage::Ending(Ending {
                    sent_done: true,
                    ..Ending::default()
                });
                SayDone::Now
            }
            Stage::Ending(ending) if ending.sent_done => SayDone::AlreadySaid,
            Stage::Ending(ending) => {
                ending.sent_done = true;
                SayDone::Now
            }
            Stage::Paused(_) => SayDone::NotWhilePaused,
        }
    }

    /// The peer's `Done` arrived (only heard while playing or ending).
    pub fn peer_done(&mut self, frame: Frame, checksum: u128) {
        match self {
            Stage::Playing => {
                *self = Stage::Ending(Ending {
                    peer_done: Some((frame, checksum)),
                    ..Ending::default()
                });
            }
            Stage::Ending(ending) => ending.peer_done = Some((frame, checksum)),
            Stage::Paused(_) => {}
        }
    }

    /// The peer left: expected (and recorded) only once the match is
    /// ending; `false` means it left mid-match.
    pub fn peer_left(&mut self) -> bool {
        match self {
            Stage::Ending(ending) => {
                ending.peer_gone = true;
                true
            }
            Stage::Playing | Stage::Paused(_) => false,
        }
    }

    pub fn ending(&self) -> Option<&Ending> {
        match self {
            Stage::Ending(ending) => Some(ending),
            Stage::Playing | Stage::Paused(_) => None,
        }
    }

    pub fn is_paused(&self) -> bool {
        matches!(self, Stage::Paused(_))
    }

    pub fn waiting(&self) -> Option<&rejoin::Waiting> {
        match self {
            Stage::Paused(Pause::Keeping(waiting)) => Some(waiting),
            _ => None,
        }
    }

    pub fn waiting_mut(&mut self) -> Option<&mut rejoin::Waiting> {
        match self {
            Stage::Paused(Pause::Keeping(waiting)) => Some(waiting),
            _ => None,
        }
    }

    pub fn knocking(&self) -> Option<&reconnect::Knocking> {
        match self {
            Stage::Paused(Pause::Knocking(knocking)) => Some(knocking),
            _ => None,
        }
    }

    pub fn knocking_mut(&mut self) -> Option<&mut reconnect::Knocking> {
        match self {
            Stage::Paused(Pause::Knocking(knocking)) => Some(knocking),
            _ => None,
        }
    }

    /// The pause is over: the match plays again.
    pub fn resume(&mut self) -> Option<Pause> {
        match std::mem::replace(self, Stage::Playing) {
            Stage::Paused(pause) => Some(pause),
            other => {
                *self = other;
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_end_is_said_once_and_the_peer_leaving_is_expected_only_after_it() {
        let mut stage = Stage::Playing;
        assert!(
            !stage.peer_left(),
            "a peer leaving mid-match is not the end"
        );
        assert!(stage.ending().is_none());
        stage.peer_done(540, 7);
        assert_eq!(stage.say_done(), SayDone::Now);
        assert_eq!(stage.say_done(), SayDone::AlreadySaid, "our Done goes once");
        assert!(stage.peer_left());
        assert_eq!(
            stage.ending(),
            Some(&Ending {
                sent_done: true,
                peer_done: Some((540, 7)),
                peer_gone: true,
            })
        );
    }

    #[test]
    fn resuming_a_match_that_is_not_paused_changes_nothing() {
        let mut stage = Stage::Playing;
        stage.say_done();
        assert!(stage.resume().is_none());
        assert!(stage.ending().is_some_and(|e| e.sent_done));
    }
}
