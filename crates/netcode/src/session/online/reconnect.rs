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
//! When to knock, keep, retry and give up is the machine's
//! (`machine.rs`); this file makes the fresh connections.
//!
//! Until the threshold the old path is given its chance (GGRS resumes by
//! itself when packets come back, as after any hiccup); once player 2
//! knocks, the match continues on the new connection only, since player
//! 1 drops the old one when the seat is taken back.

use crate::{Game, GameInput};
use std::task::Poll;
use web_time::{Duration, Instant};

use matchbox_socket::PeerId;

use super::OnlineBackend;
use super::machine::{Event, Knock};
use super::wire::Wire;
use crate::net::connect::Connection;
use crate::net::connect::{ConnectOptions, Connector, PlayerConnector};
use crate::net::handshake::{Agreement, Claim};
use crate::net::rejoin::History;
use crate::net::socket::SharedChannel;
use crate::replay::EventKind;
use crate::session::frame_log::FrameLog;
use crate::session::simulation::Simulation;
use crate::session::{PeerGone, SessionError};
use crate::tasks::NetRuntime;

/// What a knock's connection brings besides its sockets: the peer, the
/// agreement, and the other side's catch-up.
pub(super) type Adopted<I, const N: usize> = (PeerId, Agreement, Option<History<I, N>>);

/// How a fresh connection to this match is made: like the first one
/// (its options, room and our role in it), and the knock under way.
pub(super) struct Redial<I: GameInput, const N: usize> {
    /// What the first connection was made with; a reconnect reuses it.
    pub(super) options: ConnectOptions,
    /// Knocking: the fresh connection being made, by number.
    pub(super) attempt: Option<(u32, PlayerConnector<I, N>)>,
}

impl<I: GameInput, const N: usize> Redial<I, N> {
    pub(super) fn new(options: ConnectOptions) -> Self {
        Redial {
            options,
            attempt: None,
        }
    }
}

impl<G: Game<N>, const N: usize> OnlineBackend<G, N> {
    /// The machine paused to knock after `silent` without packets.
    pub(super) fn note_knocking(&mut self, silent: Duration, log: &mut FrameLog<G::Input, N>) {
        let (player, frame) = (self.remote() + 1, log.confirmed());
        // After its `Away` the silence has barely begun: say why instead.
        let detail = if self.machine.partner_away() {
            format!(
                "player {player}'s game went to the background at frame {frame}: reconnecting through the server once it runs again"
            )
        } else {
            format!(
                "no packets from player {player} for {} ms at frame {frame}: reconnecting through the server",
                silent.as_millis()
            )
        };
        tracing::warn!("{detail}");
        log.event(EventKind::Interrupted, &detail);
    }

    /// Starts knock number `attempt`: through the server with our seat
    /// token and a claim of our slot of this match.
    pub(super) fn start_attempt(
        &mut self,
        attempt: u32,
        timeout: Duration,
        log: &FrameLog<G::Input, N>,
    ) -> Result<(), SessionError> {
        let mut options = self.redial.options.clone();
        options.rejoin.claims = vec![Claim {
            match_id: self.agreement.match_id,
            player: self.local as u8 + 1,
        }];
        options.rejoin.confirmed = log.confirmed();
        options.link.config = self.noise.for_new_connection(Instant::now());
        options.timeout = timeout;
        let runtime =
            NetRuntime::new().map_err(|e| SessionError::PeerLost(PeerGone::NoRuntime(e.kind())))?;
        tracing::info!("reconnect attempt {attempt}");
        self.redial.attempt = Some((attempt, Connector::start(runtime, options)));
        Ok(())
    }

    /// One poll while knocking: the attempt under way, and what the
    /// machine makes of its end.
    pub(super) fn poll_attempt(
        &mut self,
        sim: &mut Simulation<G, N>,
        log: &mut FrameLog<G::Input, N>,
    ) -> Result<(), SessionError> {
        let Some((number, attempt)) = &mut self.redial.attempt else {
            return Ok(());
        };
        let number = *number;
        let (knock, connection) = match attempt.poll() {
            Poll::Pending => return Ok(()),
            Poll::Ready(Ok(connection)) => {
                let knock = Knock::Agreed {
                    rejoin: connection.agreement.rejoin,
                    match_id: connection.agreement.match_id,
                    peer_confirmed: connection.agreement.peer_confirmed,
                };
                (knock, Some(connection))
            }
            Poll::Ready(Err(e)) => {
                tracing::info!("reconnect attempt {number} failed: {e}");
                (Knock::Failed, None)
            }
        };
        self.redial.attempt = None;
        let agreed = connection.is_some();
        let outputs = self.machine.handle(Instant::now(), Event::Knocked(knock));
        if agreed && self.machine.paused().is_some() {
            tracing::info!("reconnect attempt {number} met another match");
        }
        self.perform(outputs, connection, sim, log)
    }

    /// A knock agreed on this match: its connection replaces the old one
    /// (the old socket, its loop and its runtime go together: the loop
    /// must outlive the socket's channels).
    pub(super) fn adopt(&mut self, connection: Connection<G::Input, N>) -> Adopted<G::Input, N> {
        let Connection::<G::Input, N> {
            transport,
            ggrs_channel,
            control,
            peer,
            agreement,
            history,
            ..
        } = connection;
        self.ggrs.channel = SharedChannel::new(ggrs_channel);
        self.wire = Wire { control, transport };
        (peer, agreement, history)
    }

    /// Agreed over a fresh connection, our catch-up sent: theirs, then a
    /// new session from the later confirmed frame.
    pub(super) fn reconnected(
        &mut self,
        (peer, agreement, history): Adopted<G::Input, N>,
        attempts: u32,
        silent: Duration,
        sim: &mut Simulation<G, N>,
        log: &mut FrameLog<G::Input, N>,
    ) -> Result<(), SessionError> {
        let frame_before = log.confirmed();
        let path_before = self.path.kind;
        if let Some(history) = history {
            self.catch_up(history, sim, log)?;
        }
        let frame = G::frame(sim.world());
        self.restart_session(peer, &agreement, frame)?;
        self.tally.reconnects += 1;
        self.path.log_next = true;
        let detail = format!(
            "reconnected to player {} after {} ms without packets (attempt {attempts}), from frame {frame_before} to {frame}; path before: {}; {} bytes of catch-up sent; input delay {}",
            self.remote() + 1,
            silent.as_millis(),
            path_before.unwrap_or("unknown"),
            self.tally.catch_up_bytes,
            agreement.input_delay
        );
        tracing::info!("{detail}");
        let confirmed = log.confirmed();
        if let Some(t) = log.telemetry() {
            t.event(
                confirmed,
                "reconnect",
                &format!(
                    "attempt {attempts}, {} ms without packets",
                    silent.as_millis()
                ),
            );
        }
        log.event(EventKind::Resumed, &detail);
        Ok(())
    }
}
