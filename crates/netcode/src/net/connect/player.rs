//! A player's seat in a room: the handshake with the partner the room
//! agrees on, refusals explained before leaving, and a rejoiner's
//! catch-up. Driven by [`super::Connector`].

use web_time::{Duration, Instant};

use matchbox_socket::{PeerId, PeerState, WebRtcChannel};

use super::{
    ConnectError, ConnectOptions, ConnectTimes, Connection, FailedAttempt, RoomLink,
    SIGNALING_TIMEOUT, Seat, Stage, Status, player_control, seat_url,
};
use crate::GameInput;
use crate::net::control::ControlChannel;
use crate::net::handshake::{Agreement, HandshakeError, Hello};
use crate::net::ice::IceServers;
use crate::net::rejoin::{CatchUpReceiver, History};
use crate::net::room::{Output, Room};
use crate::net::room_code::RoomCode;

/// Longest wait after a refusal for the peer to read our Hello and leave.
const REFUSAL_LINGER: Duration = Duration::from_millis(1500);
/// Longest stay after a `Busy` (see `linger_until_both_players_connected`):
/// connections open in well under a second on any link a match could use.
const BUSY_LINGER: Duration = Duration::from_secs(3);
/// How long after our end of a connection opens the far end may still be
/// opening its own (see docs/architecture/online.md, "Reliable is not
/// reliable at the very start").
const FAR_END_OPENING: Duration = Duration::from_millis(300);

/// A player's seat: the handshake with the partner the room agrees on
/// (`Room::seeking`), and a rejoiner's catch-up of `N` players' inputs `I`.
pub struct PlayerSeat<I, const N: usize> {
    /// These move into the [`Connection`] at the end.
    control: Option<ControlChannel>,
    ggrs: Option<WebRtcChannel>,
    options: ConnectOptions,
    stage: Stage,
    /// The peer being heard, and since when (the probe's timeout).
    hearing: Option<(PeerId, Instant)>,
    /// When the server gave us our id.
    signaled: Option<Instant>,
    failed_attempt: Option<FailedAttempt>,
    /// Refused or refusing: staying a moment before reporting `error`.
    leaving: Option<Leaving>,
    /// The partner and what was agreed with it.
    agreed: Option<(PeerId, Agreement)>,
    /// Rejoining: the match so far as it arrives, then all of it.
    catch_up: CatchUpReceiver<I, N>,
    history: Option<History<I, N>>,
}

/// After a refusal the connector stays a little (polled like the rest,
/// never blocking), so that both sides can explain it.
struct Leaving {
    until: Instant,
    wait_for: WaitFor,
    error: ConnectError,
}

enum WaitFor {
    /// Until our Hello has reached this peer and it has left (it refuses us
    /// too). Leaving at once raced with delivery.
    PeerToLeave(PeerId),
    /// Refused because a match is running (an uncapped server put us in a
    /// room with two players, and both open connections to us): until the
    /// connection to each player is open, plus a moment for the far end to
    /// open too. matchbox 0.15 panics in its message loop when a peer leaves
    /// while the handshake with it is still open ("Sender closed before
    /// channel was ready"), which takes that player's whole socket, and its
    /// match, down.
    BothPlayersConnected { all_open_at: Option<Instant> },
}

/// The latency probe must finish this soon after the peer connected.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

impl<I: GameInput, const N: usize> super::sealed::Sealed for PlayerSeat<I, N> {
    fn url(options: &<Self as Seat>::Options) -> String {
        seat_url(options)
    }

    fn ice(options: &<Self as Seat>::Options) -> &IceServers {
        &options.ice
    }

    fn new(
        options: <Self as Seat>::Options,
        control: Option<WebRtcChannel>,
        ggrs: Option<WebRtcChannel>,
    ) -> Self {
        let mut hello = Hello::new(
            &options.game,
            options.meeting.role,
            options.offer.seed,
            &options.offer.preset,
        );
        hello.protocol += options.protocol_skew;
        hello.rejoin = options.rejoin.claims.clone();
        hello.confirmed = options.rejoin.confirmed;
        hello.name = (options.lobby.name.as_ref()).map_or_else(String::new, |n| n.to_string());
        let control = control.map(|channel| {
            player_control(
                channel,
                Room::seeking(&options.game, hello, options.offer.delay),
                &options,
            )
        });
        PlayerSeat {
            control,
            ggrs,
            stage: Stage::Signaling,
            hearing: None,
            signaled: None,
            failed_attempt: None,
            leaving: None,
            agreed: None,
            catch_up: CatchUpReceiver::after(options.rejoin.confirmed),
            options,
            history: None,
        }
    }

    /// One poll: the room hears what arrived and who came and went, then
    /// the seat acts on what it decided.
    // Sealed: only the crate's Connector calls it (see `sealed`).
    #[allow(private_interfaces)]
    fn step(
        &mut self,
        link: &mut RoomLink,
        now: Instant,
    ) -> Result<Option<<Self as Seat>::Connection>, ConnectError> {
        if self.leaving.is_some() {
            return self.keep_leaving(link, now).map(|_| None);
        }
        let (changes, has_id) = link.poll(self.options.meeting.room.as_ref())?;
        let control = self.control.as_mut().ok_or(ConnectError::LoopGone)?;
        // Messages first: a peer that refused us (version mismatch) leaves
        // right after its Hello, which must be read before it is gone.
        control.pump();
        for (peer, state) in changes {
            control.peer_changed(peer, state);
        }
        let events = control.take_events();
        for event in events {
            self.on_event(event, link.started, now)?;
        }
        if self.leaving.is_some() {
            return Ok(None);
        }
        self.update_stage(link.started, now, has_id);
        self.check_timeouts(link.started, now)?;
        let done = match &self.agreed {
            Some((_, agreement)) if agreement.rejoin => self.receive_catch_up()?,
            Some(_) => true,
            None => false,
        };
        if done {
            self.finish(link).map(Some)
        } else {
            Ok(None)
        }
    }
}

impl<I: GameInput, const N: usize> Seat for PlayerSeat<I, N> {
    type Options = ConnectOptions;
    type Connection = Connection<I, N>;

    fn server(&self) -> &str {
        &self.options.meeting.server
    }

    fn room(&self) -> Option<&RoomCode> {
        self.options.meeting.room.as_ref()
    }

    fn status(&self) -> Status {
        let (probes, probes_wanted) = self.control.as_ref().map_or((0, 0), |c| c.room().probes());
        Status {
            stage: self.stage,
            probes,
            // Never fewer than the handshake's short probe, even before
            // it has begun (a window shows "0/5", not "0/0").
            probes_wanted: probes_wanted.max(crate::net::handshake::PROBES),
            failed_attempt: self.failed_attempt.clone(),
        }
    }
}

impl<I: GameInput, const N: usize> PlayerSeat<I, N> {
    /// A failed handshake as the user should read it.
    fn handshake_failed(&self, e: HandshakeError) -> ConnectError {
        match e {
            HandshakeError::MatchRunning => ConnectError::MatchRunning {
                room: self.options.meeting.room.clone(),
            },
            e => e.into(),
        }
    }

    fn note_failed_attempt(&mut self, peer: PeerId, started: Instant) {
        let attempt = FailedAttempt {
            room: self.options.meeting.room.clone(),
            count: self.failed_attempt.as_ref().map_or(0, |a| a.count) + 1,
            after: started.elapsed(),
        };
        tracing::warn!("{attempt} ({peer} left after no connection opened)");
        self.failed_attempt = Some(attempt);
    }

    /// Acts on what the room decided.
    fn on_event(
        &mut self,
        event: Output<PeerId>,
        started: Instant,
        now: Instant,
    ) -> Result<(), ConnectError> {
        match event {
            Output::Agreed(peer, agreement) => self.agreed = Some((peer, agreement)),
            // A busy peer plays on and never leaves; but its partner may
            // still be opening its connection to us.
            Output::Failed(_, HandshakeError::MatchRunning) => {
                let error = self.handshake_failed(HandshakeError::MatchRunning);
                let wait_for = WaitFor::BothPlayersConnected { all_open_at: None };
                self.leave_after(now + BUSY_LINGER, wait_for, error);
            }
            Output::Failed(peer, e) => {
                let error = self.handshake_failed(e);
                self.leave_after(now + REFUSAL_LINGER, WaitFor::PeerToLeave(peer), error);
            }
            Output::Malformed(_, e) => return Err(e.into()),
            Output::PartnerLeft(_) => {
                let outcome = self
                    .control
                    .as_ref()
                    .and_then(|c| c.room().candidate_outcome());
                return Err(match outcome {
                    Some(Err(e)) => self.handshake_failed(e.clone()),
                    _ => ConnectError::PeerLeft,
                });
            }
            Output::LeftUnconnected(peer) => self.note_failed_attempt(peer, started),
            _ => {}
        }
        Ok(())
    }

    /// Signaling until the server gives us an id; then connecting until a
    /// peer is heard, measuring while one is, catching up after a rejoin.
    fn update_stage(&mut self, started: Instant, now: Instant, has_id: bool) {
        if has_id {
            self.signaled.get_or_insert(now);
        }
        let partner = self.control.as_ref().and_then(ControlChannel::partner);
        if partner != self.hearing.map(|(p, _)| p) {
            self.hearing = partner.map(|p| (p, now));
            if let Some(peer) = partner {
                tracing::info!("hearing {peer} after {:?}", started.elapsed());
            }
        }
        self.stage = match (self.stage, &self.agreed, partner) {
            (Stage::Signaling, ..) if !has_id => Stage::Signaling,
            (_, Some(_), _) => Stage::CatchingUp,
            (_, None, Some(_)) => Stage::Measuring,
            (_, None, None) => Stage::Connecting,
        };
    }

    fn check_timeouts(&self, started: Instant, now: Instant) -> Result<(), ConnectError> {
        let waited = now.duration_since(started);
        let room = self.options.meeting.room.clone();
        match self.stage {
            Stage::Signaling if waited > SIGNALING_TIMEOUT => Err(ConnectError::SignalingTimeout {
                server: self.options.meeting.server.clone(),
                secs: SIGNALING_TIMEOUT.as_secs(),
            }),
            Stage::Connecting if waited > self.options.timeout => {
                let secs = self.options.timeout.as_secs();
                Err(if self.options.rejoin.claims.is_empty() {
                    ConnectError::NoPeer { room, secs }
                } else {
                    ConnectError::NothingToRejoin { room, secs }
                })
            }
            Stage::Measuring | Stage::CatchingUp
                if self
                    .hearing
                    .is_some_and(|(_, since)| now.duration_since(since) > HANDSHAKE_TIMEOUT) =>
            {
                Err(ConnectError::HandshakeTimeout)
            }
            _ => Ok(()),
        }
    }

    /// Rejoining: the keeper's match so far, after the agreement.
    fn receive_catch_up(&mut self) -> Result<bool, ConnectError> {
        let control = self.control.as_mut().ok_or(ConnectError::LoopGone)?;
        if let Some((history, after)) = self.catch_up.read(control.receive())? {
            // What the keeper said after (chat): for the match.
            control.unread(after);
            self.history = Some(history);
        }
        Ok(self.history.is_some())
    }

    fn leave_after(&mut self, until: Instant, wait_for: WaitFor, error: ConnectError) {
        self.leaving = Some(Leaving {
            until,
            wait_for,
            error,
        });
    }

    /// One poll while leaving (see [`WaitFor`]); the refusal once done.
    fn keep_leaving(&mut self, link: &mut RoomLink, now: Instant) -> Result<bool, ConnectError> {
        let done = self.leaving_done(link, now);
        match self.leaving.take() {
            Some(leaving) if done => Err(leaving.error),
            Some(leaving) => {
                self.leaving = Some(leaving);
                Ok(false)
            }
            None => Err(ConnectError::LoopGone),
        }
    }

    fn leaving_done(&mut self, link: &mut RoomLink, now: Instant) -> bool {
        let (Some(leaving), Some(socket), Some(control)) =
            (&mut self.leaving, link.socket_mut(), self.control.as_mut())
        else {
            return true;
        };
        if now >= leaving.until {
            return true;
        }
        let Ok(changes) = socket.try_update_peers() else {
            return true;
        };
        // Sends what is delayed, reads (and drops) what arrives.
        drop(control.receive());
        match &mut leaving.wait_for {
            WaitFor::PeerToLeave(peer) => changes.contains(&(*peer, PeerState::Disconnected)),
            WaitFor::BothPlayersConnected { all_open_at } => {
                for (peer, state) in changes {
                    control.peer_changed(peer, state);
                }
                drop(control.take_events());
                control.room().connected_count() >= N
                    && now.duration_since(*all_open_at.get_or_insert(now)) >= FAR_END_OPENING
            }
        }
    }

    fn finish(&mut self, link: &mut RoomLink) -> Result<Connection<I, N>, ConnectError> {
        let (peer, agreement) = self.agreed.take().ok_or(ConnectError::LoopGone)?;
        let control = self.control.take().ok_or(ConnectError::LoopGone)?;
        let ggrs_channel = self.ggrs.take().ok_or(ConnectError::LoopGone)?;
        let transport = link.take()?;
        tracing::info!(
            "agreed: player {}, seed {}, preset {}, rtt {:.1} ms, jitter {:.1} ms, input delay {}",
            agreement.local_handle + 1,
            agreement.seed,
            agreement.preset,
            agreement.rtt_ms,
            agreement.jitter_ms,
            agreement.input_delay
        );
        Ok(Connection {
            ggrs_channel,
            control,
            peer,
            agreement,
            times: ConnectTimes {
                started: link.started,
                signaled: self.signaled,
                channel_open: self.hearing.map(|(_, since)| since),
                agreed: Instant::now(),
            },
            history: self.history.take(),
            options: self.options.clone(),
            transport,
        })
    }
}
