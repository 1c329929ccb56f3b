//! A live match whose path died. Both games are still up, but no packet has
//! crossed for [`RECONNECT_AFTER`]: a cut, a changed address (Wi-Fi to 4G),
//! a NAT that forgot its mapping. Waiting cannot fix the last two, so
//! player 2 *knocks*: it goes back through the signaling server with a
//! fresh socket (its seat token takes its seat back from the stale
//! websocket at once, see `net::signaling::seat`) and a `Hello` claiming
//! its slot of this match, as a crashed player rejoining would. Player 1
//! *keeps*: the server tells it the old peer left, so it pauses the room
//! (`rejoin`) and admits only that claim.
//!
//! After the handshake both sides send each other the confirmed frames the
//! other lacks (each `Hello` says how many it has) and both resume from the
//! later one with a new GGRS session over the new connection: nothing that
//! was not confirmed is kept, nothing received is trusted unchecked, and
//! the replays stay whole and identical (see `rejoin::catch_up`).
//!
//! Until the threshold the old path is given its chance (GGRS resumes by
//! itself when packets come back, as after any hiccup); once player 2
//! knocks, the match continues on the new connection only, since player
//! 1 drops the old one when the seat is taken back.

use std::task::Poll;
use web_time::{Duration, Instant};

use super::OnlineBackend;
use super::stage::{Pause, Stage};
use crate::net::connect::{Connection, Connector, PlayerConnector};
use crate::net::handshake::Claim;
use crate::net::socket::SharedChannel;
use crate::platform::tasks::NetRuntime;
use crate::replay::EventKind;
use crate::session::SessionError;
use crate::session::frame_log::FrameLog;
use crate::session::simulation::Simulation;

/// Silence after which player 2 opens a fresh connection. GGRS notices
/// silence after 0.5 s; WebRTC's own retransmissions back off from 1 s
/// (then 3, 7, 15 s), so a path that comes back by itself mostly does so
/// within the first second or two. Past that, a fresh connection (about
/// 1 s to agree on a loopback, a few round trips more over the internet)
/// is the faster way back.
pub(super) const RECONNECT_AFTER: Duration = Duration::from_secs(2);
/// Player 1 reopens its signaling this long after player 2 knocks (both
/// count from their own first silence, which a cut starts within a round
/// trip on both sides).
const KEEPER_REOPENS_AFTER: Duration = Duration::from_secs(1);
/// Pause between a failed attempt (server unreachable, no path yet) and
/// the next.
const RETRY_AFTER: Duration = Duration::from_secs(1);
/// An attempt that has not agreed by then is replaced by a fresh one (the
/// WebRTC connection it negotiated during the cut may never open).
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);

pub(in crate::session) struct Knocking {
    /// When the packets stopped.
    since: Instant,
    deadline: Instant,
    attempt: Option<PlayerConnector>,
    next_attempt: Instant,
    pub(super) attempts: u32,
    /// The path the match was on (direct, relay, ...).
    path_before: Option<&'static str>,
}

impl OnlineBackend {
    /// Player 2 of a room match with a reconnect window knocks once the
    /// partner has been silent for [`RECONNECT_AFTER`].
    pub(super) fn should_knock(&self) -> bool {
        self.local == 1
            && self.can_wait_for_rejoin()
            && !self.stage.is_paused()
            && !self.peer_said_done()
            && (self.interrupted).is_some_and(|(_, since)| since.elapsed() >= RECONNECT_AFTER)
    }

    /// Player 1 of such a match keeps it: at the same threshold it pauses
    /// the room for player 2's claim and, unless spectators watch through
    /// its socket, reopens its own signaling connection too. A websocket
    /// that was cut with the rest of its network sits in TCP's backoff
    /// after the network is back (4.3 s after a 15 s cut, measured); a
    /// fresh one, tried every second, is there within about one.
    pub(super) fn should_keep(&self) -> bool {
        self.local == 0
            && self.can_wait_for_rejoin()
            && !self.stage.is_paused()
            && !self.peer_said_done()
            && (self.interrupted).is_some_and(|(_, since)| since.elapsed() >= RECONNECT_AFTER)
    }

    pub(super) fn start_keeping(&mut self, log: &mut FrameLog) {
        self.start_waiting_for_rejoin(log);
        if self.spectators.is_empty() {
            self.signaling_lost = true;
            // After player 2 has begun to knock: taking our seat back tells
            // it our old connection left, and player 2 would then keep too
            // (as after our crash) if it had not knocked yet.
            if let Some(waiting) = self.stage.waiting_mut() {
                waiting.next_reopen = Instant::now() + KEEPER_REOPENS_AFTER;
            }
        }
    }

    pub(super) fn start_knocking(&mut self, log: &mut FrameLog) {
        let now = Instant::now();
        let since = self.interrupted.map_or(now, |(_, since)| since);
        let detail = format!(
            "no packets from player {} for {} ms at frame {}: reconnecting through the server",
            self.remote + 1,
            since.elapsed().as_millis(),
            log.confirmed()
        );
        tracing::warn!("{detail}");
        log.event(EventKind::Interrupted, &detail);
        self.stage = Stage::Paused(Pause::Knocking(Knocking {
            since,
            deadline: since + self.options.reconnect_window,
            attempt: None,
            next_attempt: now,
            attempts: 0,
            path_before: self.connection,
        }));
    }

    /// One poll while knocking: start an attempt when due, poll it, and on
    /// its agreement resume the match over it.
    pub(super) fn knock(
        &mut self,
        sim: &mut Simulation,
        log: &mut FrameLog,
    ) -> Result<(), SessionError> {
        let now = Instant::now();
        let link = self.link_for_new_connection(now);
        let Some(knocking) = self.stage.knocking_mut() else {
            return Ok(());
        };
        if now >= knocking.deadline {
            return Err(SessionError::PeerLost(format!(
                "lost the connection and could not reconnect within {} s",
                self.options.reconnect_window.as_secs()
            )));
        }
        // A simulated cut (`--sim-outage`) is the whole network's: no
        // fresh connection gets through it either.
        if let Some(cut) = link.outage.filter(|o| o.after.is_zero()) {
            knocking.next_attempt = knocking.next_attempt.max(now + cut.length.min(RETRY_AFTER));
        }
        if knocking.attempt.is_none() && now >= knocking.next_attempt {
            let mut options = self.connect_options.clone();
            options.rejoin = vec![Claim {
                match_id: self.agreement.match_id,
                player: self.local as u8 + 1,
            }];
            options.confirmed = log.confirmed();
            options.link = link;
            options.timeout = (knocking.deadline - now).min(ATTEMPT_TIMEOUT);
            let runtime = NetRuntime::new()
                .map_err(|e| SessionError::PeerLost(format!("cannot reconnect: {e}")))?;
            knocking.attempts += 1;
            tracing::info!("reconnect attempt {}", knocking.attempts);
            knocking.attempt = Some(Connector::start(runtime, options));
        }
        let Some(attempt) = &mut knocking.attempt else {
            return Ok(());
        };
        match attempt.poll() {
            Poll::Pending => Ok(()),
            // Only this match, resumed: a restarted player 1 that claims
            // its own slot meets a knocking player 2 as a new match.
            Poll::Ready(Ok(connection))
                if connection.agreement.rejoin
                    && connection.agreement.match_id == self.agreement.match_id =>
            {
                self.reconnected(connection, sim, log)
            }
            Poll::Ready(Ok(_)) => {
                tracing::info!("reconnect attempt {} met another match", knocking.attempts);
                knocking.attempt = None;
                knocking.next_attempt = now + RETRY_AFTER;
                Ok(())
            }
            Poll::Ready(Err(e)) => {
                tracing::info!("reconnect attempt {} failed: {e}", knocking.attempts);
                knocking.attempt = None;
                knocking.next_attempt = now + RETRY_AFTER;
                Ok(())
            }
        }
    }

    /// Agreed over a fresh connection: it replaces the old one, then both
    /// sides' catch-ups and a new session from the later confirmed frame.
    fn reconnected(
        &mut self,
        connection: Connection,
        sim: &mut Simulation,
        log: &mut FrameLog,
    ) -> Result<(), SessionError> {
        let Some(Pause::Knocking(knocking)) = self.stage.resume() else {
            return Ok(());
        };
        let Connection {
            runtime,
            socket,
            message_loop,
            ggrs_channel,
            control,
            peer,
            agreement,
            history,
            ..
        } = connection;
        // The old socket, its loop and its runtime go together (the loop
        // must outlive the socket's channels).
        self.control = control;
        self.ggrs_channel = SharedChannel::new(ggrs_channel);
        self.socket = socket;
        self._message_loop = message_loop;
        self._runtime = runtime;
        let frame_before = log.confirmed();
        self.send_catch_up(agreement.peer_confirmed, log);
        if let Some(history) = history {
            self.catch_up(history, sim, log)?;
        }
        let frame = sim.world().frame;
        self.restart_session(peer, &agreement, frame)?;
        self.tally.reconnects += 1;
        self.path_after_reconnect = true;
        let detail = format!(
            "reconnected to player {} after {} ms without packets (attempt {}), from frame {frame_before} to {frame}; path before: {}; {} bytes of catch-up sent; input delay {}",
            self.remote + 1,
            knocking.since.elapsed().as_millis(),
            knocking.attempts,
            knocking.path_before.unwrap_or("unknown"),
            self.tally.catch_up_bytes,
            agreement.input_delay
        );
        tracing::info!("{detail}");
        log.event(EventKind::Resumed, &detail);
        Ok(())
    }
}
