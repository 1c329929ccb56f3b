//! One poll of the match: the machine's tick, then what its stage
//! listens to (GGRS's events, the partner's messages and the room while
//! playing; the room and the rejoiner's catch-up while keeping; the knock
//! while knocking), each fed to the machine as it comes.

use crate::Game;
use ggrs::GgrsEvent;
use matchbox_socket::{PeerId, PeerState};
use web_time::{Duration, Instant};

use super::machine::{Event, Paused, Seen};
use super::{OnlineBackend, OnlineConfig, REPLACE_UNANSWERED};
use crate::net::control::ControlChannel;
use crate::net::handshake::Message;
use crate::net::room::Output;
use crate::replay::EventKind;
use crate::session::SessionError;
use crate::session::frame_log::FrameLog;
use crate::session::simulation::Simulation;

/// What the machine hears of this side's own stops: a stall since the
/// last poll, and the page going to the background (which tells the
/// partner itself, since the loop stops with the page's frames).
#[derive(Default)]
pub(super) struct OwnStops {
    /// When the last poll began: the next one measures our stall from it,
    /// so a stop that lands inside a poll counts too. Measured from the
    /// last poll's end, such a stop went unnoticed (a CI run: "host did
    /// not notice its stop", the stop between a poll's start and its end).
    poll_started: Option<Instant>,
    /// The page's going to the background is armed to tell the partner.
    away_armed: bool,
}

impl OwnStops {
    /// How long since the last poll began, for the poll beginning `now`.
    fn stalled(&mut self, now: Instant) -> Duration {
        let stalled = self
            .poll_started
            .map_or(Duration::ZERO, |t| now.saturating_duration_since(t));
        self.poll_started = Some(now);
        stalled
    }

    /// While the match may pause (`can`), the page going to the
    /// background tells `peer` at once (`Away`) over `control`.
    fn arm_away(&mut self, can: bool, control: &ControlChannel, peer: PeerId) {
        if can != self.away_armed {
            self.away_armed = can;
            let action =
                can.then(|| Box::new(control.sender_of(peer, &Message::Away)) as Box<dyn FnMut()>);
            crate::visibility::when_hidden(action);
        }
    }
}

impl<G: Game<N>, const N: usize> OnlineBackend<G, N> {
    /// One poll: the machine's tick, then what its stage listens to.
    pub(super) fn poll_stage(
        &mut self,
        sim: &mut Simulation<G, N>,
        log: &mut FrameLog<G::Input, N>,
    ) -> Result<(), SessionError> {
        let now = Instant::now();
        let cut = self.noise.for_new_connection(now).outage;
        let seen = Seen {
            confirmed: log.confirmed(),
            spectators: !self.audience.spectators.is_empty(),
            signaling_unanswered: REPLACE_UNANSWERED
                && self.wire.transport.socket_mut().id().is_none(),
            // A simulated cut (`--sim-outage`) is the whole network's.
            network_cut: cut.filter(|o| o.after.is_zero()).map(|o| o.length),
            away_since: crate::visibility::take_hidden_since(),
            stalled: self.stops.stalled(now),
        };
        let polled =
            self.feed(Event::Tick(seen), sim, log)
                .and_then(|()| match self.machine.paused() {
                    Some(Paused::Knocking) => self.poll_attempt(sim, log),
                    Some(Paused::Keeping) => self.poll_keeping(sim, log),
                    None => self.poll_playing(sim, log),
                });
        let can = self.machine.can_go_away();
        (self.stops).arm_away(can, &self.wire.control, self.ggrs.peer);
        polled
    }

    /// GGRS's events, then the partner's messages (a peer that reported a
    /// desync or said goodbye and then closed the connection must be heard
    /// out), then the room.
    fn poll_playing(
        &mut self,
        sim: &mut Simulation<G, N>,
        log: &mut FrameLog<G::Input, N>,
    ) -> Result<(), SessionError> {
        self.ggrs.session.poll_remote_clients();
        self.wire.control.flush();
        let events: Vec<_> = self.ggrs.session.events().collect();
        for event in events {
            self.on_event(event, sim, log)?;
        }
        let read = self.wire.control.receive();
        self.feed(Event::Received(read), sim, log)?;
        for event in self.room_events() {
            self.feed(Event::Room(event), sim, log)?;
        }
        (self.path).note(self.wire.transport.socket(), self.ggrs.peer, log);
        Ok(())
    }

    /// A paused match keeping its seat: the room hears newcomers one by
    /// one until the player we wait for is agreed and has sent what we
    /// lack.
    fn poll_keeping(
        &mut self,
        sim: &mut Simulation<G, N>,
        log: &mut FrameLog<G::Input, N>,
    ) -> Result<(), SessionError> {
        self.wire.control.pump();
        for event in self.room_events() {
            self.feed(Event::Room(event), sim, log)?;
        }
        if self.machine.paused() == Some(Paused::Keeping) {
            let read = self.wire.control.receive();
            self.feed(Event::Received(read), sim, log)?;
        }
        Ok(())
    }

    fn on_event(
        &mut self,
        event: GgrsEvent<OnlineConfig<G, N>>,
        sim: &mut Simulation<G, N>,
        log: &mut FrameLog<G::Input, N>,
    ) -> Result<(), SessionError> {
        match event {
            GgrsEvent::Synchronizing { count, total, .. } => {
                tracing::debug!("synchronizing with the peer: {count}/{total}");
            }
            GgrsEvent::Synchronized { .. } => {
                self.timing.synced();
                tracing::info!("synchronized with the peer");
            }
            GgrsEvent::Disconnected { .. } => self.feed(Event::Disconnected, sim, log)?,
            GgrsEvent::NetworkInterrupted {
                disconnect_timeout, ..
            } => {
                let timeout = Duration::from_millis(disconnect_timeout as u64);
                self.feed(Event::Interrupted { timeout }, sim, log)?;
                tracing::warn!(
                    "connection to player {} interrupted; waiting up to {} s in all for it to come back ({disconnect_timeout} ms more)",
                    self.remote() + 1,
                    self.disconnect_timeout().as_secs_f64()
                );
                log.event(
                    EventKind::Interrupted,
                    &format!("{disconnect_timeout} ms to timeout"),
                );
            }
            GgrsEvent::NetworkResumed { .. } => self.feed(Event::Resumed, sim, log)?,
            GgrsEvent::WaitRecommendation { skip_frames } => {
                tracing::debug!("GGRS recommends waiting {skip_frames} frames");
                self.ggrs.skip_frames += skip_frames;
                self.tally.skipped_frames += u64::from(skip_frames);
            }
            GgrsEvent::DesyncDetected {
                frame,
                local_checksum,
                remote_checksum,
                ..
            } => {
                return Err(SessionError::Desync {
                    frame: self.ggrs.match_frame(frame),
                    ours: local_checksum,
                    theirs: remote_checksum,
                });
            }
        }
        Ok(())
    }

    /// matchbox's peer changes, to the spectators and the room; what the
    /// room decided since the last call.
    pub(super) fn room_events(&mut self) -> Vec<Output<PeerId>> {
        // Err: the signaling connection closed; the data channels may live on.
        let changes = match self.wire.transport.socket_mut().try_update_peers() {
            Ok(changes) => changes,
            Err(_) => {
                self.machine.handle(Instant::now(), Event::SignalingLost);
                Vec::new()
            }
        };
        for (peer, state) in changes {
            if state == PeerState::Disconnected && self.audience.spectators.drop_peer(peer) {
                tracing::info!("spectator {peer} left");
            }
            self.wire.control.peer_changed(peer, state);
        }
        self.wire.control.take_events()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_inside_a_poll_counts_as_a_stall() {
        let mut stops = OwnStops::default();
        let start = Instant::now();
        assert_eq!(stops.stalled(start), Duration::ZERO);
        // That poll was stopped for 5 s before it ended; the next one
        // began a millisecond after it ended.
        let next = start + Duration::from_secs(5) + Duration::from_millis(1);
        assert!(stops.stalled(next) >= Duration::from_secs(5));
        // Polls a millisecond apart stall nobody.
        let after = next + Duration::from_millis(1);
        assert_eq!(stops.stalled(after), Duration::from_millis(1));
    }
}
