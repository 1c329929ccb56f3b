//! The moments of a room that `/metrics` times, kept by the registry
//! (which sees them happen, with the clock passed in) and handed to the
//! server as [`Observed`] events after each call that may make one:
//!
//! - a pairing: the room's second player arrives (joined by code, or put
//!   there by quick match). How long the first waited alone is the time to
//!   pair: a player reading a room code aloud, or quick match finding a
//!   partner. A room whose partner left and another came is counted as a
//!   match again but not timed (nobody waited from the start).
//! - the negotiation: from the pairing until the second player's WebRTC
//!   answer to the first's offer is relayed. That is the part of
//!   connecting this server can see; ICE's checks, and whether they end
//!   direct or through the TURN relay, happen between the peers.

use web_time::Instant;

use twinstar_signaling_protocol::ROOM_CAPACITY;

pub use crate::ops::observed::Observed;

/// At most this many events wait for the server to take them: it takes
/// them after every call, so this only bounds a caller that never does
/// (a test, a tool).
pub(super) const MAX_WAITING_EVENTS: usize = 1024;

/// A room's clock readings.
#[derive(Debug, Default)]
pub(super) struct RoomTimes {
    /// Since when its only player has waited, from that player's arrival.
    alone_since: Option<Instant>,
    /// When it was paired, until its answer is relayed.
    paired_at: Option<Instant>,
}

impl RoomTimes {
    /// A player arrived at `now`; the room has `players` now.
    pub(super) fn arrived(&mut self, players: usize, now: Instant) -> Option<Observed> {
        if players == 1 {
            self.alone_since = Some(now);
            return None;
        }
        if players != ROOM_CAPACITY {
            return None;
        }
        let waited = (self.alone_since.take()).map(|t| now.saturating_duration_since(t));
        self.paired_at = Some(now);
        Some(Observed::Paired { waited })
    }

    /// A player left: whoever stays was not alone from the start, and a
    /// negotiation in progress is void.
    pub(super) fn left(&mut self) {
        self.alone_since = None;
        self.paired_at = None;
    }

    /// An answer between the players was relayed at `now`.
    pub(super) fn answered(&mut self, now: Instant) -> Option<Observed> {
        let paired = self.paired_at.take()?;
        Some(Observed::Negotiated {
            took: now.saturating_duration_since(paired),
        })
    }
}

/// Whether a relayed signal is a WebRTC answer: matchbox's `PeerSignal`
/// as JSON, `{"Answer": SDP}` (an offer is `{"Offer": ...}`, a candidate
/// `{"IceCandidate": ...}`).
pub fn is_answer(data: &serde_json::Value) -> bool {
    data.as_object().is_some_and(|o| o.contains_key("Answer"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use web_time::Duration;

    #[test]
    fn a_pairing_is_timed_from_the_first_arrival_and_the_answer_from_the_pairing() {
        let t0 = Instant::now();
        let mut times = RoomTimes::default();
        assert_eq!(times.arrived(1, t0), None);
        let paired = times.arrived(2, t0 + Duration::from_secs(7));
        assert_eq!(
            paired,
            Some(Observed::Paired {
                waited: Some(Duration::from_secs(7))
            })
        );
        let answered = times.answered(t0 + Duration::from_millis(7250));
        assert_eq!(
            answered,
            Some(Observed::Negotiated {
                took: Duration::from_millis(250)
            })
        );
        // Only the first answer: a renegotiation is not a connect.
        assert_eq!(times.answered(t0 + Duration::from_secs(9)), None);
    }

    #[test]
    fn a_partner_who_came_back_is_a_match_but_not_a_wait() {
        let t0 = Instant::now();
        let mut times = RoomTimes::default();
        times.arrived(1, t0);
        times.arrived(2, t0);
        times.left();
        let again = times.arrived(2, t0 + Duration::from_secs(60));
        assert_eq!(again, Some(Observed::Paired { waited: None }));
    }

    #[test]
    fn only_an_answer_is_an_answer() {
        assert!(is_answer(&serde_json::json!({"Answer": "v=0"})));
        assert!(!is_answer(&serde_json::json!({"Offer": "v=0"})));
        assert!(!is_answer(&serde_json::json!({"IceCandidate": "{}"})));
        assert!(!is_answer(&serde_json::json!("Answer")));
    }
}
