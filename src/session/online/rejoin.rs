//! A match outlives its connection. When the WebRTC connection to the peer
//! is lost mid-match (its game crashed or was killed, the data channel
//! closed), the match pauses and waits up to the reconnect window for that
//! player to come back into the room. The signaling server lets exactly one
//! player into the empty seat; the handshake admits only the dropped player
//! of this match (its rejoin ticket's claim, see `net::handshake`). Then:
//!
//! 1. the keeper sends the confirmed match so far (`net::rejoin`: replay
//!    chunks, about 2.5 KB a minute) and re-simulates it itself, back to
//!    the confirmed frame F (its predicted frames after F are dropped);
//! 2. the rejoiner re-simulates the same inputs, checking every chunk's
//!    checksum, and records them, so its replay covers the whole match;
//! 3. both start a new GGRS session whose frame 0 is frame F, with the
//!    input delay from the new handshake's latency probe.
//!
//! No state crosses the wire, only inputs, and both sides check they
//! arrived at the same world before playing on.

use web_time::{Duration, Instant};

use matchbox_socket::PeerId;

use super::stage::{Pause, Stage};
use super::{OnlineBackend, start_session};
use crate::net::connect::{open_room_socket, player_control};
use crate::net::delay::Retuner;
use crate::net::handshake::{Agreement, Claim, Hello};
use crate::net::rejoin::{CatchUpReceiver, History, encode_catch_up_after};
use crate::net::room::{Output, Room};
use crate::net::socket::{GgrsSocket, SharedChannel};
use crate::platform::tasks::NetRuntime;
use crate::replay::EventKind;
use crate::session::SessionError;
use crate::session::frame_log::FrameLog;
use crate::session::simulation::Simulation;
use crate::sim::{Frame, Input, PLAYERS, SimConfig, World, hex_checksum};

/// A paused match waiting for its other player (who may come back is the
/// room's to decide: `net::room`, [`crate::net::room::Phase::Paused`]).
pub(in crate::session) struct Waiting {
    since: Instant,
    deadline: Instant,
    /// The player that came back, until its catch-up has arrived.
    agreed: Option<(PeerId, Agreement)>,
    receiving: CatchUpReceiver,
    /// When our signaling may be reopened next (`reopen_room`).
    pub(super) next_reopen: Instant,
}

/// What a paused match does about one thing its room decided.
#[derive(Debug, PartialEq)]
pub(in crate::session) enum RoomSaid {
    /// The dropped player is back: send it our confirmed frames after the
    /// ones it has.
    SendCatchUp(Frame),
    /// The player agreed with left before its catch-up came: the room
    /// pauses again for the next try.
    WaitAgain,
    /// Nothing for the match (refusals and newcomers leaving are the
    /// room's own).
    Nothing,
}

impl Waiting {
    /// One of the room's outputs while paused, with the frames we have
    /// confirmed (the catch-up we then expect starts there).
    pub(in crate::session) fn room_said(
        &mut self,
        event: Output<PeerId>,
        confirmed: Frame,
    ) -> RoomSaid {
        match event {
            Output::Agreed(peer, agreement) if self.agreed.is_none() => {
                let known = agreement.peer_confirmed;
                self.agreed = Some((peer, agreement));
                self.receiving = CatchUpReceiver::after(confirmed);
                RoomSaid::SendCatchUp(known)
            }
            Output::PartnerLeft(peer) if self.agreed.as_ref().is_some_and(|(p, _)| *p == peer) => {
                self.agreed = None;
                self.receiving = CatchUpReceiver::default();
                RoomSaid::WaitAgain
            }
            _ => RoomSaid::Nothing,
        }
    }
}

/// How often a lost or unanswered signaling connection is reopened while
/// paused (a websocket is answered within a few round trips).
const REOPEN_EVERY: Duration = Duration::from_secs(2);

/// Whether a fresh socket the server has not answered yet is replaced when
/// due. Natively yes: a connect stuck in TCP's backoff during a cut is
/// dropped and a new one gets through as soon as the network is back. Not
/// in the browser: a dropped page websocket keeps connecting, and Chromium
/// lets only one connect to an address at a time, so replacements only
/// queue behind the stuck one and then arrive in a burst, each taking the
/// seat from the one before while player 2 handshakes (measured in
/// docs/nat-testbed.md, "A browser's own network cut").
const REPLACE_UNANSWERED: bool = !cfg!(target_arch = "wasm32");

impl OnlineBackend {
    /// A match in a room can be rejoined (a quick match has no code to
    /// rejoin by); a zero reconnect window keeps the old behaviour.
    pub(super) fn can_wait_for_rejoin(&self) -> bool {
        self.room.is_some() && !self.options.reconnect_window.is_zero()
    }

    pub(super) fn start_waiting_for_rejoin(&mut self, log: &mut FrameLog) {
        let now = Instant::now();
        let window = self.options.reconnect_window;
        // The window counts from when the packets stopped, if they did.
        let since = self.interrupted.map_or(now, |(_, since)| since);
        let deadline = since + window;
        let room = self
            .room
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
        tracing::warn!(
            "the connection to player {} was lost at frame {}; waiting up to {} s for them to rejoin (twinstar join {room})",
            self.remote + 1,
            log.confirmed(),
            window.as_secs()
        );
        log.event(
            EventKind::Interrupted,
            &format!(
                "connection to player {} lost at frame {}; waiting {} ms for a rejoin",
                self.remote + 1,
                log.confirmed(),
                window.as_millis()
            ),
        );
        self.interrupted = Some((deadline, since));
        self.control
            .pause(self.paused_hello(log), self.options.delay);
        self.stage = Stage::Paused(Pause::Keeping(Waiting {
            since: now,
            deadline,
            agreed: None,
            receiving: CatchUpReceiver::default(),
            next_reopen: now,
        }));
    }

    /// What a paused match says to newcomers: only the player holding this
    /// match's other seat may take it.
    fn paused_hello(&self, log: &FrameLog) -> Hello {
        let mut hello = Hello::new(
            self.role,
            self.agreement.seed,
            &self.agreement.preset,
            self.options.delay,
        );
        hello.resume = Some(Claim {
            match_id: self.agreement.match_id,
            player: self.local as u8 + 1,
        });
        hello.confirmed = log.confirmed();
        hello
    }

    /// Our own websocket died while paused (a cut longer than the server's
    /// liveness limit: it closed our seat): nobody could reach us through
    /// it, so open a fresh one in the same room, with our seat token, and
    /// wait there. Spectators were on the old one.
    fn reopen_room(&mut self, log: &FrameLog) -> Result<(), SessionError> {
        let now = Instant::now();
        let runtime = NetRuntime::new()
            .map_err(|e| SessionError::PeerLost(format!("cannot reconnect: {e}")))?;
        let mut options = self.connect_options.clone();
        options.link = self.link_for_new_connection(now);
        let (socket, message_loop, control, ggrs) = open_room_socket(&runtime, &options);
        let (Some(control), Some(ggrs)) = (control, ggrs) else {
            return Err(SessionError::PeerLost(
                "cannot reconnect: no channels".into(),
            ));
        };
        let hello = self.paused_hello(log);
        let room = Room::seeking(hello.clone(), self.options.delay);
        self.control = player_control(control, room, &options);
        self.control.pause(hello, self.options.delay);
        self.ggrs_channel = SharedChannel::new(ggrs);
        self.socket = socket;
        self._message_loop = message_loop;
        self._runtime = runtime;
        self.spectators = Default::default();
        self.signaling_lost = false;
        tracing::info!(
            "reopened our signaling connection (lost, unanswered, or cut with the rest)"
        );
        Ok(())
    }

    /// One poll of a paused match: the room hears newcomers one by one
    /// until the player we wait for is agreed and has sent what we lack,
    /// or the window ends.
    pub(super) fn wait_for_rejoin(
        &mut self,
        sim: &mut Simulation,
        log: &mut FrameLog,
    ) -> Result<(), SessionError> {
        let Some(waiting) = self.stage.waiting() else {
            return Ok(());
        };
        if Instant::now() >= waiting.deadline {
            return Err(SessionError::PeerLost(format!(
                "lost the connection and did not rejoin within {} s",
                self.options.reconnect_window.as_secs()
            )));
        }
        self.control.pump();
        let agreed = self.stage.waiting().is_some_and(|w| w.agreed.is_some());
        // A fresh socket tried during a cut may hang in TCP's backoff: one
        // the server has not given an id yet is replaced when due too.
        // (Not once a player is agreed: its data channel is on this one.)
        let unanswered = self.signaling_lost || (REPLACE_UNANSWERED && self.socket.id().is_none());
        if !agreed
            && unanswered
            && self
                .stage
                .waiting()
                .is_some_and(|w| Instant::now() >= w.next_reopen)
        {
            if let Some(waiting) = self.stage.waiting_mut() {
                waiting.next_reopen = Instant::now() + REOPEN_EVERY;
            }
            self.reopen_room(log)?;
        }
        for event in self.room_events() {
            let confirmed = log.confirmed();
            let Some(waiting) = self.stage.waiting_mut() else {
                break;
            };
            match waiting.room_said(event, confirmed) {
                RoomSaid::SendCatchUp(known) => self.send_catch_up(known, log),
                RoomSaid::WaitAgain => {
                    tracing::warn!(
                        "player {} left again before its catch-up arrived; waiting on for a rejoin",
                        self.remote + 1
                    );
                    self.control
                        .pause(self.paused_hello(log), self.options.delay);
                }
                RoomSaid::Nothing => {}
            }
        }
        if self.stage.waiting().is_some_and(|w| w.agreed.is_some()) {
            return self.receive_their_catch_up(sim, log);
        }
        Ok(())
    }

    /// The confirmed frames a peer that has confirmed `known` lacks (maybe
    /// none), and our end: the frame and checksum it checks against.
    pub(super) fn send_catch_up(&mut self, known: Frame, log: &FrameLog) {
        let (inputs, checksums) = log
            .history()
            .map(|h| (h.inputs.as_slice(), h.checksums.as_slice()))
            .unwrap_or_default();
        let messages = encode_catch_up_after(known, inputs, checksums, log.confirmed_checksum());
        for message in messages {
            self.tally.catch_up_bytes += message.encode().len() as u64;
            self.control.send(&message);
        }
    }

    /// Agreed: the other player's catch-up as it arrives; at its end, both
    /// sides hold the same confirmed frames and play on from there.
    fn receive_their_catch_up(
        &mut self,
        sim: &mut Simulation,
        log: &mut FrameLog,
    ) -> Result<(), SessionError> {
        let Some(waiting) = self.stage.waiting_mut() else {
            return Ok(());
        };
        let batch = self.control.receive();
        let read = (waiting.receiving.read(batch))
            .map_err(|e| SessionError::Protocol(format!("catch-up from the rejoiner: {e}")))?;
        let Some((history, after)) = read else {
            return Ok(());
        };
        // Its `Done` (a match paused at its end), a `Bye`, chat: for
        // `poll_control` once the match plays again.
        self.control.unread(after);
        let Some((peer, agreement)) = self.stage.waiting_mut().and_then(|w| w.agreed.take()) else {
            return Ok(());
        };
        let waited = self
            .stage
            .waiting()
            .map_or(Duration::ZERO, |w| w.since.elapsed());
        let path_before = self.connection.unwrap_or("unknown");
        self.catch_up(history, sim, log)?;
        let frame = sim.world().frame;
        self.restart_session(peer, &agreement, frame)?;
        self.tally.rejoins += 1;
        // A player that had confirmed frames was up all along: it
        // reconnected (`reconnect`); one that crashed knows none.
        let how = if agreement.peer_confirmed > 0 {
            self.tally.reconnects += 1;
            self.path_after_reconnect = true;
            format!("reconnected (path before: {path_before})")
        } else {
            "rejoined".to_string()
        };
        let detail = format!(
            "player {} {how} at frame {frame} after {} ms; sent {} bytes of catch-up; input delay {}",
            self.remote + 1,
            waited.as_millis(),
            self.tally.catch_up_bytes,
            agreement.input_delay
        );
        tracing::info!("{detail}");
        log.event(EventKind::Rejoined, &detail);
        Ok(())
    }

    /// The other side's confirmed frames (`history`, from the chunk that
    /// holds our confirmed frame on): those we have must agree with ours,
    /// the rest are re-simulated and recorded, every chunk's checksum
    /// checked. A live player first drops its predicted frames, back to
    /// its confirmed world; one that crashed starts at frame 0.
    pub(super) fn catch_up(
        &mut self,
        history: History,
        sim: &mut Simulation,
        log: &mut FrameLog,
    ) -> Result<(), SessionError> {
        let started = Instant::now();
        let known = log.confirmed();
        let ours: Vec<[Input; PLAYERS]> =
            log.history().map(|h| h.inputs.clone()).unwrap_or_default();
        if sim.world().frame != known {
            sim.restart_from(resimulate(
                self.agreement.seed,
                self.agreement.config,
                &ours,
            ));
        }
        for chunk in &history.chunks {
            for (frame, inputs) in (chunk.start..).zip(&chunk.frames) {
                if frame < known {
                    if ours.get(frame as usize) != Some(inputs) {
                        return Err(SessionError::Protocol(format!(
                            "the other player's confirmed inputs of frame {frame} differ from ours"
                        )));
                    }
                    continue;
                }
                let last = frame + 1 == history.frames;
                sim.step_known(*inputs, log, None, last);
            }
            let world = sim.world();
            if world.frame > known
                && let Some(theirs) = chunk.checksum
                && world.checksum() != theirs
            {
                return Err(SessionError::CatchUp {
                    frame: world.frame,
                    ours: world.checksum(),
                    theirs,
                });
            }
        }
        let world = sim.world();
        // Where both sides confirmed the same frames, or we lacked some:
        // our world must be theirs (else they check ours).
        if world.frame == history.frames && world.checksum() != history.checksum {
            return Err(SessionError::CatchUp {
                frame: world.frame,
                ours: world.checksum(),
                theirs: history.checksum,
            });
        }
        let frames = world.frame.saturating_sub(known);
        let detail = format!(
            "caught up as player {} at frame {}: re-simulated {frames} frames ({} bytes) in {} ms, checksum {}",
            self.local + 1,
            world.frame,
            history.bytes,
            started.elapsed().as_millis(),
            hex_checksum(world.checksum())
        );
        tracing::info!("{detail}");
        log.event(EventKind::Rejoined, &detail);
        Ok(())
    }

    /// A new GGRS session with `peer`, whose frame 0 is `frame`.
    pub(super) fn restart_session(
        &mut self,
        peer: PeerId,
        agreement: &Agreement,
        frame: crate::sim::Frame,
    ) -> Result<(), SessionError> {
        let link = self.link_for_new_connection(Instant::now());
        let socket = GgrsSocket::with_link(self.ggrs_channel.clone(), link, self.link_seed)
            .counting_into(&self.stats);
        self.session = start_session(agreement, peer, socket, &self.options)?;
        self.peer = peer;
        self.base = frame;
        self.input_delay = agreement.input_delay;
        self.retuner = Retuner::new(agreement.input_delay);
        self.stage.resume();
        self.interrupted = None;
        self.connection = None;
        self.skip_frames = 0;
        Ok(())
    }
}

/// The world after `inputs`, from the match's start.
fn resimulate(seed: u64, config: SimConfig, inputs: &[[Input; PLAYERS]]) -> Box<World> {
    let mut world = World::new(seed, config);
    for frame_inputs in inputs {
        world.step(*frame_inputs, &mut ());
    }
    world
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::handshake::HandshakeError;

    fn peer(n: u128) -> PeerId {
        PeerId(uuid::Uuid::from_u128(n))
    }

    fn waiting() -> Waiting {
        let now = Instant::now();
        Waiting {
            since: now,
            deadline: now + Duration::from_secs(30),
            agreed: None,
            receiving: CatchUpReceiver::default(),
            next_reopen: now,
        }
    }

    fn agreement(peer_confirmed: Frame) -> Agreement {
        Agreement {
            local_handle: 0,
            seed: 9,
            preset: "default".into(),
            config: SimConfig::preset("default").expect("default preset"),
            rtt_ms: 20.0,
            jitter_ms: 1.0,
            input_delay: 2,
            peer_version: "test".into(),
            match_id: 77,
            rejoin: true,
            peer_confirmed,
        }
    }

    #[test]
    fn a_rejoiner_that_leaves_before_its_catch_up_frees_the_seat_for_its_next_try() {
        let mut waiting = waiting();
        let back = peer(1);
        assert_eq!(
            waiting.room_said(Output::Agreed(back, agreement(300)), 540),
            RoomSaid::SendCatchUp(300)
        );
        // Someone else leaving, or a newcomer refused, is not this match's.
        assert_eq!(
            waiting.room_said(Output::PartnerLeft(peer(2)), 540),
            RoomSaid::Nothing
        );
        let refused = Output::Failed(peer(3), HandshakeError::Tie);
        assert_eq!(waiting.room_said(refused, 540), RoomSaid::Nothing);
        assert!(waiting.agreed.is_some());
        // It drops again (its game crashed, its handshake timed out).
        assert_eq!(
            waiting.room_said(Output::PartnerLeft(back), 540),
            RoomSaid::WaitAgain
        );
        assert!(waiting.agreed.is_none());
        // Its next try is agreed afresh.
        let again = peer(4);
        assert_eq!(
            waiting.room_said(Output::Agreed(again, agreement(300)), 540),
            RoomSaid::SendCatchUp(300)
        );
        assert_eq!(waiting.agreed.as_ref().map(|(p, _)| *p), Some(again));
    }
}
