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

use super::{OnlineBackend, start_session};
use crate::net::delay::Retuner;
use crate::net::handshake::{Agreement, Claim, Hello};
use crate::net::rejoin::{History, encode_catch_up};
use crate::net::room::Output;
use crate::net::socket::GgrsSocket;
use crate::replay::EventKind;
use crate::session::SessionError;
use crate::session::frame_log::FrameLog;
use crate::session::simulation::Simulation;
use crate::sim::{Input, PLAYERS, SimConfig, World, hex_checksum};

/// A paused match waiting for its other player (who may come back is the
/// room's to decide: `net::room`, [`crate::net::room::Phase::Paused`]).
pub(in crate::session) struct Waiting {
    since: Instant,
    deadline: Instant,
}

impl OnlineBackend {
    /// A match in a room can be rejoined (a quick match has no code to
    /// rejoin by); a zero reconnect window keeps the old behaviour.
    pub(super) fn can_wait_for_rejoin(&self) -> bool {
        self.room.is_some() && !self.options.reconnect_window.is_zero()
    }

    pub(super) fn start_waiting_for_rejoin(&mut self, log: &mut FrameLog) {
        let now = Instant::now();
        let window = self.options.reconnect_window;
        let deadline = now + window;
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
        self.interrupted = Some((deadline, now));
        // Only the player holding this match's other seat may take it.
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
        self.control.pause(hello, self.options.delay);
        self.rejoin = Some(Waiting {
            since: now,
            deadline,
        });
    }

    /// One poll of a paused match: the room hears newcomers one by one
    /// until the player we wait for is agreed, or the window ends.
    pub(super) fn wait_for_rejoin(
        &mut self,
        sim: &mut Simulation,
        log: &mut FrameLog,
    ) -> Result<(), SessionError> {
        let Some(waiting) = &self.rejoin else {
            return Ok(());
        };
        if Instant::now() >= waiting.deadline {
            return Err(SessionError::PeerLost(format!(
                "lost the connection and did not rejoin within {} s",
                self.options.reconnect_window.as_secs()
            )));
        }
        self.control.pump();
        for event in self.room_events() {
            // Refusals and newcomers leaving are the room's to handle.
            if let Output::Agreed(peer, agreement) = event {
                return self.resume(peer, agreement, sim, log);
            }
        }
        Ok(())
    }

    /// The dropped player is back: send it the match so far, go back to the
    /// confirmed frame and start a new session from there.
    fn resume(
        &mut self,
        peer: PeerId,
        agreement: Agreement,
        sim: &mut Simulation,
        log: &mut FrameLog,
    ) -> Result<(), SessionError> {
        let waited = self
            .rejoin
            .as_ref()
            .map_or(Duration::ZERO, |w| w.since.elapsed());
        let frame = log.confirmed();
        let (inputs, checksums) = log
            .history()
            .map(|h| (h.inputs.as_slice(), h.checksums.as_slice()))
            .unwrap_or_default();
        let mut bytes = 0;
        for message in encode_catch_up(inputs, checksums, log.confirmed_checksum()) {
            bytes += message.encode().len();
            self.control.send(&message);
        }
        let world = resimulate(self.agreement.seed, self.agreement.config, inputs);
        if world.frame != frame || world.checksum() != log.confirmed_checksum() {
            return Err(SessionError::CatchUp {
                frame,
                ours: world.checksum(),
                theirs: log.confirmed_checksum(),
            });
        }
        sim.restart_from(world);
        self.restart_session(peer, &agreement, frame)?;
        self.rejoins += 1;
        self.catch_up_bytes += bytes as u64;
        let detail = format!(
            "player {} rejoined at frame {frame} after {} ms; sent {bytes} bytes of catch-up; input delay {}",
            self.remote + 1,
            waited.as_millis(),
            agreement.input_delay
        );
        tracing::info!("{detail}");
        log.event(EventKind::Rejoined, &detail);
        Ok(())
    }

    /// This peer rejoined: re-simulate the match so far, recording it and
    /// checking every chunk against the keeper's checksums.
    pub(super) fn catch_up(
        &mut self,
        history: History,
        sim: &mut Simulation,
        log: &mut FrameLog,
    ) -> Result<(), SessionError> {
        let started = Instant::now();
        let total = history.frames;
        // The simulation has not stepped yet: it starts from the match's
        // first frame, with the keeper's seed and preset.
        for chunk in &history.chunks {
            for inputs in &chunk.frames {
                let last = sim.world().frame + 1 == total;
                sim.step_known(*inputs, log, None, last);
            }
            let world = sim.world();
            if let Some(theirs) = chunk.checksum
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
        if world.checksum() != history.checksum {
            return Err(SessionError::CatchUp {
                frame: world.frame,
                ours: world.checksum(),
                theirs: history.checksum,
            });
        }
        let detail = format!(
            "rejoined as player {} at frame {total}: re-simulated {total} frames ({} bytes) in {} ms, checksum {}",
            self.local + 1,
            history.bytes,
            started.elapsed().as_millis(),
            hex_checksum(history.checksum)
        );
        tracing::info!("{detail}");
        log.event(EventKind::Rejoined, &detail);
        Ok(())
    }

    /// A new GGRS session with `peer`, whose frame 0 is `frame`.
    fn restart_session(
        &mut self,
        peer: PeerId,
        agreement: &Agreement,
        frame: crate::sim::Frame,
    ) -> Result<(), SessionError> {
        let socket = GgrsSocket::with_link(self.ggrs_channel.clone(), self.link, self.link_seed)
            .counting_into(&self.stats);
        self.session = start_session(agreement, peer, socket, &self.options)?;
        self.peer = peer;
        self.base = frame;
        self.input_delay = agreement.input_delay;
        self.retuner = Retuner::new(agreement.input_delay);
        self.rejoin = None;
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
