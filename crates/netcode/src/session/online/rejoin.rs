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
//!
//! Who may come back, and when the wait is over, are decided by the room
//! (`net::room`) and the machine (`machine.rs`); this file does the I/O.

use crate::Game;
use web_time::{Duration, Instant};

use matchbox_socket::PeerId;

use super::OnlineBackend;
use super::wire::Wire;
use crate::net::connect::{open_room_socket, player_control};
use crate::net::handshake::{Agreement, Claim, Hello};
use crate::net::rejoin::History;
use crate::net::rejoin::encode_catch_up_after;
use crate::net::room::Room;
use crate::net::socket::SharedChannel;
use crate::replay::EventKind;
use crate::session::frame_log::FrameLog;
use crate::session::simulation::Simulation;
use crate::session::{PeerGone, ProtocolError, SessionError};
use crate::tasks::NetRuntime;
use crate::{Frame, hex_checksum};

impl<G: Game<N>, const N: usize> OnlineBackend<G, N> {
    /// The machine paused to keep the match: the room admits only the
    /// player holding this match's other seat (`again`: the one agreed
    /// left before its catch-up came).
    pub(super) fn keep(&mut self, again: bool, log: &mut FrameLog<G::Input, N>) {
        if again {
            tracing::warn!(
                "player {} left again before its catch-up arrived; waiting on for a rejoin",
                self.remote() + 1
            );
        } else {
            let window = self.machine.settings().reconnect_window;
            let room = (self.redial.options.meeting.room.as_ref())
                .map(ToString::to_string)
                .unwrap_or_default();
            tracing::warn!(
                "the connection to player {} was lost at frame {}; waiting up to {} s for them to rejoin (twinstar join {room})",
                self.remote() + 1,
                log.confirmed(),
                window.as_secs()
            );
            log.event(
                EventKind::Interrupted,
                &format!(
                    "connection to player {} lost at frame {}; waiting {} ms for a rejoin",
                    self.remote() + 1,
                    log.confirmed(),
                    window.as_millis()
                ),
            );
        }
        let hello = self.paused_hello(log);
        self.wire.control.pause(hello, self.tuning.setting);
    }

    /// What a paused match says to newcomers: only the player holding this
    /// match's other seat may take it.
    fn paused_hello(&self, log: &FrameLog<G::Input, N>) -> Hello {
        let mut hello = Hello::new(
            &G::INFO,
            self.redial.options.meeting.role,
            self.agreement.seed,
            &self.agreement.preset,
        );
        hello.resume = Some(Claim {
            match_id: self.agreement.match_id,
            player: self.local as u8 + 1,
        });
        hello.confirmed = log.confirmed();
        hello.name =
            (self.redial.options.lobby.name.as_ref()).map_or_else(String::new, |n| n.to_string());
        hello
    }

    /// Our own websocket died while paused (a cut longer than the server's
    /// liveness limit: it closed our seat): nobody could reach us through
    /// it, so open a fresh one in the same room, with our seat token, and
    /// wait there. Spectators were on the old one.
    pub(super) fn reopen_room(&mut self, log: &FrameLog<G::Input, N>) -> Result<(), SessionError> {
        let now = Instant::now();
        let runtime =
            NetRuntime::new().map_err(|e| SessionError::PeerLost(PeerGone::NoRuntime(e.kind())))?;
        let mut options = self.redial.options.clone();
        options.link.config = self.noise.for_new_connection(now);
        let (transport, channels) = open_room_socket(runtime, &options);
        let (Some(control), Some(ggrs)) = (channels.control, channels.ggrs) else {
            return Err(SessionError::PeerLost(PeerGone::NoChannels));
        };
        let hello = self.paused_hello(log);
        let delay = self.tuning.setting;
        let mut control = player_control(
            control,
            Room::seeking(&G::INFO, hello.clone(), delay),
            &options,
        );
        control.pause(hello, delay);
        self.ggrs.channel = SharedChannel::new(ggrs);
        self.wire = Wire { control, transport };
        self.audience.spectators = Default::default();
        tracing::info!(
            "reopened our signaling connection (lost, unanswered, or cut with the rest)"
        );
        Ok(())
    }

    /// The confirmed frames a peer that has confirmed `known` lacks (maybe
    /// none), and our end: the frame and checksum it checks against.
    pub(super) fn send_catch_up(&mut self, known: Frame, log: &FrameLog<G::Input, N>) {
        let (inputs, checksums) = log
            .history()
            .map(|h| (h.inputs.as_slice(), h.checksums.as_slice()))
            .unwrap_or_default();
        let messages = encode_catch_up_after(known, inputs, checksums, log.confirmed_checksum());
        for message in messages {
            self.tally.catch_up_bytes += message.encode().len() as u64;
            self.wire.control.send(&message);
        }
    }

    /// The player we kept the match for is back and has caught us up:
    /// its frames re-simulated, both sides hold the same confirmed frames
    /// and play on from there.
    pub(super) fn rejoined(
        &mut self,
        peer: PeerId,
        agreement: &Agreement,
        history: History<G::Input, N>,
        waited: Duration,
        sim: &mut Simulation<G, N>,
        log: &mut FrameLog<G::Input, N>,
    ) -> Result<(), SessionError> {
        let path_before = self.path.kind.unwrap_or("unknown");
        self.catch_up(history, sim, log)?;
        let frame = G::frame(sim.world());
        self.restart_session(peer, agreement, frame)?;
        self.tally.rejoins += 1;
        // A player that had confirmed frames was up all along: it
        // reconnected (`reconnect`); one that crashed knows none.
        let how = if agreement.peer_confirmed > 0 {
            self.tally.reconnects += 1;
            self.path.log_next = true;
            let confirmed = log.confirmed();
            if let Some(t) = log.telemetry() {
                t.event(confirmed, "reconnect", "the peer's game kept its frames");
            }
            format!("reconnected (path before: {path_before})")
        } else {
            "rejoined".to_string()
        };
        let detail = format!(
            "player {} {how} at frame {frame} after {} ms; sent {} bytes of catch-up; input delay {}",
            self.remote() + 1,
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
        history: History<G::Input, N>,
        sim: &mut Simulation<G, N>,
        log: &mut FrameLog<G::Input, N>,
    ) -> Result<(), SessionError> {
        let started = Instant::now();
        let known = log.confirmed();
        let ours: Vec<[G::Input; N]> = log.history().map(|h| h.inputs.clone()).unwrap_or_default();
        if G::frame(sim.world()) != known {
            let rules = G::preset(&self.agreement.preset).ok_or_else(|| {
                let preset = self.agreement.preset.clone();
                SessionError::Protocol(ProtocolError::UnknownPreset(preset))
            })?;
            sim.restart_from(resimulate::<G, N>(self.agreement.seed, rules, &ours));
        }
        for chunk in &history.chunks {
            for (frame, inputs) in (chunk.start..).zip(&chunk.frames) {
                if frame < known {
                    if ours.get(frame as usize) != Some(inputs) {
                        let differ = ProtocolError::InputsDiffer { frame };
                        return Err(SessionError::Protocol(differ));
                    }
                    continue;
                }
                let last = frame + 1 == history.frames;
                sim.step_known(*inputs, log, None, last);
            }
            let world = sim.world();
            if G::frame(world) > known
                && let Some(theirs) = chunk.checksum
                && G::checksum(world) != theirs
            {
                return Err(SessionError::CatchUp {
                    frame: G::frame(world),
                    ours: G::checksum(world),
                    theirs,
                });
            }
        }
        let world = sim.world();
        // Where both sides confirmed the same frames, or we lacked some:
        // our world must be theirs (else they check ours).
        if G::frame(world) == history.frames && G::checksum(world) != history.checksum {
            return Err(SessionError::CatchUp {
                frame: G::frame(world),
                ours: G::checksum(world),
                theirs: history.checksum,
            });
        }
        let frames = G::frame(world).saturating_sub(known);
        let detail = format!(
            "caught up as player {} at frame {}: re-simulated {frames} frames ({} bytes) in {} ms, checksum {}",
            self.local + 1,
            G::frame(world),
            history.bytes,
            started.elapsed().as_millis(),
            hex_checksum(G::checksum(world))
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
        frame: Frame,
    ) -> Result<(), SessionError> {
        let timeout = self.disconnect_timeout();
        (self.ggrs).restart(peer, agreement, frame, &self.noise, timeout)?;
        self.tuning.restart(agreement.input_delay, G::INFO.fps);
        self.path.restart();
        Ok(())
    }
}

/// The world after `inputs`, from the match's start.
fn resimulate<G: Game<N>, const N: usize>(
    seed: u64,
    config: G::Config,
    inputs: &[[G::Input; N]],
) -> G::State {
    let mut world = G::start(seed, &config);
    let mut events = Vec::new();
    for frame_inputs in inputs {
        G::step(&mut world, *frame_inputs, &mut events);
        events.clear();
    }
    world
}
