//! Players' reports of how their match connected (`POST
//! /rooms/CODE/connected`, the protocol's `ConnectReport`), on the
//! registry: only a player seated in the room may report, once per player
//! per match (a match being a pairing: the room's second player arriving),
//! and only once the room has paired.
//!
//! What a report adds to the metrics:
//! - the match's path, from the match's first report, whoever sends it.
//!   Both players see the same candidate pair (one side's relay candidate
//!   is the other's remote), so either report says it; waiting for both
//!   would lose every match whose other report never comes (an older
//!   client, a crash, a lost request). The host's alone would lose those
//!   whose host runs an older client or failed to post.
//! - the connect time of the player who paired the room (the second to
//!   arrive) only. The first player's figure counts from opening its room,
//!   so it holds its wait for the partner, which is
//!   `twinstar_time_to_pair_seconds`' to tell; the second player came to a
//!   waiting partner, so its figure is connecting and nothing else.

use web_time::Duration;

use super::{ModerationError, Registry};
use crate::ops::observed::ConnectCounted;
use twinstar_signaling_protocol::{ConnectReport, ROOM_CAPACITY, RoomCode};

/// A room's reports since its last pairing.
#[derive(Debug, Default)]
pub(super) struct MatchReports {
    /// The room has paired at least once (a lone host has no match to
    /// report).
    paired: bool,
    /// Which seats (first player, second) have reported this match.
    reported: [bool; ROOM_CAPACITY],
}

impl MatchReports {
    /// The room's second player arrived: a new match, nothing reported.
    pub(super) fn paired(&mut self) {
        *self = MatchReports {
            paired: true,
            ..MatchReports::default()
        };
    }

    /// The player in seat `index` (0: the first to arrive) reports
    /// `report`; refused if the room never paired or that seat reported
    /// this match already.
    fn take(
        &mut self,
        code: &RoomCode,
        index: usize,
        report: &ConnectReport,
    ) -> Result<ConnectCounted, ModerationError> {
        if !self.paired {
            return Err(ModerationError::NotPaired(code.clone()));
        }
        let first = !self.reported.contains(&true);
        let Some(done) = self.reported.get_mut(index) else {
            return Err(ModerationError::NotSeated(code.clone()));
        };
        if *done {
            return Err(ModerationError::AlreadyReported);
        }
        *done = true;
        Ok(ConnectCounted {
            path: first.then_some(report.path),
            connect: (index == 1).then(|| Duration::from_millis(u64::from(report.connect_ms))),
        })
    }
}

impl Registry {
    /// A player of room `code`, proven by its seat `token`, reports how its
    /// match connected (checked for range before).
    pub fn connect_report(
        &mut self,
        code: &RoomCode,
        report: &ConnectReport,
    ) -> Result<ConnectCounted, ModerationError> {
        let room = (self.rooms.get_mut(code.canonical()))
            .filter(|r| !r.members.is_empty())
            .ok_or_else(|| ModerationError::NoRoom(code.clone()))?;
        let peers = &self.peers;
        let holds = |peer: &_| {
            peers
                .get(peer)
                .is_some_and(|s| s.token == Some(report.seat))
        };
        let index = (room.members.iter().position(holds))
            .ok_or_else(|| ModerationError::NotSeated(code.clone()))?;
        room.reports.take(code, index, report)
    }
}

#[cfg(test)]
mod tests {
    use tokio::sync::mpsc;
    use web_time::Instant;

    use super::*;
    use twinstar_signaling_protocol::{ConnectPath, RoomRequest, SeatToken};

    type Outbox = mpsc::UnboundedReceiver<Result<axum::extract::ws::Message, axum::Error>>;

    fn code() -> RoomCode {
        RoomCode::parse("K7Q-2XM").unwrap()
    }

    fn seat(
        registry: &mut Registry,
        request: &RoomRequest,
        token: SeatToken,
    ) -> (matchbox_protocol::PeerId, Outbox) {
        let (sender, outbox) = mpsc::unbounded_channel();
        let id = matchbox_protocol::PeerId(uuid::Uuid::new_v4());
        let now = Instant::now();
        registry.admit_with(request, Some(token), now).unwrap();
        registry
            .join_with(request, Some(token), id, sender, now)
            .unwrap();
        (id, outbox)
    }

    fn report(seat: SeatToken, connect_ms: u32, path: ConnectPath) -> ConnectReport {
        ConnectReport {
            seat,
            connect_ms,
            path,
        }
    }

    #[test]
    fn the_first_report_counts_the_path_and_the_second_player_times_the_connect() {
        let mut registry = Registry::default();
        let [host, joiner] = [(); 2].map(|_| SeatToken::random());
        let play = RoomRequest::Code(code());
        let _a = seat(&mut registry, &play, host);
        // Alone, the host has no match to report.
        assert_eq!(
            registry.connect_report(&code(), &report(host, 900, ConnectPath::Direct)),
            Err(ModerationError::NotPaired(code()))
        );
        let _b = seat(&mut registry, &play, joiner);
        assert_eq!(
            registry.connect_report(&code(), &report(host, 30_000, ConnectPath::Direct)),
            Ok(ConnectCounted {
                path: Some(ConnectPath::Direct),
                connect: None,
            })
        );
        // The joiner's path is the same match's: not counted again.
        assert_eq!(
            registry.connect_report(&code(), &report(joiner, 800, ConnectPath::Direct)),
            Ok(ConnectCounted {
                path: None,
                connect: Some(Duration::from_millis(800)),
            })
        );
        for token in [host, joiner] {
            assert_eq!(
                registry.connect_report(&code(), &report(token, 1, ConnectPath::Relay)),
                Err(ModerationError::AlreadyReported)
            );
        }
    }

    #[test]
    fn only_the_rooms_players_report_and_a_new_pairing_is_a_new_match() {
        let mut registry = Registry::default();
        let [host, joiner, viewer, next] = [(); 4].map(|_| SeatToken::random());
        let play = RoomRequest::Code(code());
        let _a = seat(&mut registry, &play, host);
        let _b = seat(&mut registry, &play, joiner);
        let _c = seat(&mut registry, &RoomRequest::Watch(code()), viewer);
        let other = RoomCode::parse("ABC-DEF").unwrap();
        assert_eq!(
            registry.connect_report(&other, &report(host, 1, ConnectPath::Direct)),
            Err(ModerationError::NoRoom(other))
        );
        for stranger in [viewer, SeatToken::random()] {
            assert_eq!(
                registry.connect_report(&code(), &report(stranger, 1, ConnectPath::Direct)),
                Err(ModerationError::NotSeated(code()))
            );
        }
        // The joiner reports relay first: that is the match's path.
        let counted = registry.connect_report(&code(), &report(joiner, 2_000, ConnectPath::Relay));
        assert_eq!(counted.map(|c| c.path), Ok(Some(ConnectPath::Relay)));
        // A seat taken back is the same match: no second report.
        let (joiner_now, _b2) = seat(&mut registry, &play, joiner);
        assert_eq!(
            registry.connect_report(&code(), &report(joiner, 1, ConnectPath::Relay)),
            Err(ModerationError::AlreadyReported)
        );
        // The joiner leaves and another player comes: a new match.
        registry.leave(joiner_now);
        let _d = seat(&mut registry, &play, next);
        let counted = registry.connect_report(&code(), &report(host, 5, ConnectPath::Direct));
        assert_eq!(counted.map(|c| c.path), Ok(Some(ConnectPath::Direct)));
        let counted = registry.connect_report(&code(), &report(next, 700, ConnectPath::Direct));
        assert_eq!(
            counted.map(|c| c.connect),
            Ok(Some(Duration::from_millis(700)))
        );
    }
}
