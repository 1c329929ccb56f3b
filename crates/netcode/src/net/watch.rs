//! From a room code to a spectator's stream: signaling (`watch-CODE`), the
//! WebRTC connection to the player the server introduces us to (the
//! room's first player, once both players are in), `Watch` repeated until
//! that player answers with `Streaming` (the seed and preset). A seat of
//! the one [`super::connect::Connector`]; it ends with the streaming
//! peer and whatever of the match so far has arrived with the answer
//! (`session`'s spectator backend takes the rest as it comes).

use web_time::{Duration, Instant};

use matchbox_socket::{PeerId, PeerState, WebRtcChannel};

use super::connect::Transport;
use super::connect::{ConnectError, RoomLink, SIGNALING_TIMEOUT, Seat, Stage, Status};
use super::control::ControlChannel;
use super::handshake::{HandshakeError, Message, Watch};
use super::ice::IceServers;
use super::link_sim::LinkConfig;
use super::protocol::phase::{Heard, Spectating};
use super::rejoin::CatchUpReceiver;
use super::room::Room;
use super::room_code::RoomCode;
use super::signaling::{ClientQuery, PlayerName, SeatToken, watch_url};
use crate::{Frame, GameInfo, GameInput};

/// How often `Watch` is repeated until the player answers: a message sent
/// before the far end's channel has opened is lost (docs/architecture/online.md,
/// "Reliable is not reliable at the very start").
pub(crate) const WATCH_RESEND: Duration = Duration::from_millis(500);

/// What a spectator's connection attempt asks for ([`WatchOptions::new`] fills the defaults).
#[derive(Clone, Debug)]
pub struct WatchOptions {
    /// The game watched: the player checks it against its own.
    pub game: GameInfo,
    /// `ws://host:port`, without a room path.
    pub server: String,
    /// The room to watch.
    pub room: RoomCode,
    /// STUN and TURN servers for ICE: none by default, as for a player.
    pub ice: IceServers,
    /// Give up when no player streams to us by then.
    pub timeout: Duration,
    /// Debug aid for tests ([`crate::testing::skew_protocol`]): claim
    /// another protocol version.
    pub(crate) protocol_skew: u32,
    /// The name the spectator asks to be called in the room's chat.
    pub name: Option<PlayerName>,
    /// The spectator's seat token (its room URL's `seat`): it proves the
    /// spectator's requests to the server (a report) and marks it if the
    /// host removes it.
    pub seat: SeatToken,
}

impl WatchOptions {
    /// A spectator of `game` asking `server` for the match in `room`,
    /// giving up after 20 s without a player to stream it.
    pub fn new(game: GameInfo, server: &str, room: RoomCode) -> Self {
        WatchOptions {
            game,
            server: server.to_string(),
            room,
            ice: IceServers::default(),
            timeout: Duration::from_secs(20),
            protocol_skew: 0,
            name: None,
            seat: SeatToken::random(),
        }
    }
}

/// A spectator connected to the player who streams the match (of `N`
/// players whose inputs are `I`).
pub struct WatchConnection<I, const N: usize> {
    /// The GGRS channel: unused by a spectator, kept open because the
    /// player's side of the connection has it.
    pub(crate) ggrs_channel: WebRtcChannel,
    pub(crate) control: ControlChannel,
    pub(crate) peer: PeerId,
    pub(crate) seed: u64,
    /// The match's rule preset, one of the game's.
    pub(crate) preset: String,
    /// Frames in the match so far when the player answered.
    pub(crate) so_far: Frame,
    /// Our name in the room's chat, given by the player (`S1`, or the
    /// name we asked for, made unique).
    pub(crate) name: String,
    /// The players' names in the chat, player 1's first (as the streaming
    /// player sent them: checked by the spectator's chat).
    pub(crate) players: Vec<String>,
    /// The match so far, as far as it came with the answer.
    pub(crate) received: CatchUpReceiver<I, N>,
    /// Other messages that came with it (the chat so far, an early `Done`
    /// or `Bye`).
    pub(crate) early: Vec<Spectating>,
    pub(crate) started: Instant,
    pub(crate) room: RoomCode,
    pub(crate) server: String,
    pub(crate) seat: SeatToken,
    // Last: dropped after the channels above.
    pub(crate) transport: Transport,
}

impl<I, const N: usize> WatchConnection<I, N> {
    /// The match's seed, as the streaming player sent it.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The match's rule preset, one of the game's.
    pub fn preset(&self) -> &str {
        &self.preset
    }

    /// The room being watched.
    pub fn room(&self) -> &RoomCode {
        &self.room
    }
}

/// A spectator's seat: the room's first player, asked with `Watch` until
/// it answers (`Room::watching`).
pub struct SpectatorSeat<I, const N: usize> {
    options: WatchOptions,
    stage: Stage,
    /// The socket's channels until the player connects.
    channels: Option<(WebRtcChannel, WebRtcChannel)>,
    peer: Option<(PeerId, ControlChannel, WebRtcChannel)>,
    last_watch: Option<Instant>,
    inputs: std::marker::PhantomData<[I; N]>,
}

impl<I: GameInput, const N: usize> super::connect::sealed::Sealed for SpectatorSeat<I, N> {
    fn url(options: &<Self as Seat>::Options) -> String {
        let query = ClientQuery {
            seat: Some(options.seat),
            ..ClientQuery::default()
        };
        let url = watch_url(&options.server, &options.room);
        match query.to_query() {
            Some(query) => format!("{url}?{query}"),
            None => url,
        }
    }

    fn ice(options: &<Self as Seat>::Options) -> &IceServers {
        &options.ice
    }

    fn new(
        options: <Self as Seat>::Options,
        control: Option<WebRtcChannel>,
        ggrs: Option<WebRtcChannel>,
    ) -> Self {
        SpectatorSeat {
            options,
            stage: Stage::Signaling,
            channels: control.zip(ggrs),
            peer: None,
            last_watch: None,
            inputs: std::marker::PhantomData,
        }
    }

    // Sealed: only the crate's Connector calls it (see `sealed`).
    #[allow(private_interfaces)]
    fn step(
        &mut self,
        link: &mut RoomLink,
        now: Instant,
    ) -> Result<Option<<Self as Seat>::Connection>, ConnectError> {
        let (changes, has_id) = link.poll(Some(&self.options.room))?;
        let mut peer_left = false;
        for (peer, state) in changes {
            match state {
                PeerState::Connected if self.peer.is_none() => {
                    self.take_peer(peer, link.started)?
                }
                PeerState::Connected => {}
                PeerState::Disconnected => {
                    peer_left |= self.peer.as_ref().is_some_and(|p| p.0 == peer);
                }
            }
        }
        if self.stage == Stage::Signaling && has_id {
            self.stage = Stage::WaitingForPlayers;
        }
        let waited = now.duration_since(link.started);
        if self.stage == Stage::Signaling && waited > SIGNALING_TIMEOUT {
            return Err(ConnectError::SignalingTimeout {
                server: self.options.server.clone(),
                secs: SIGNALING_TIMEOUT.as_secs(),
            });
        }
        if waited > self.options.timeout {
            return Err(ConnectError::NothingToWatch {
                room: self.options.room.clone(),
                secs: self.options.timeout.as_secs(),
            });
        }
        let Some((peer, control, _)) = &mut self.peer else {
            return Ok(None);
        };
        let (streaming, received, early) = hear_player(control)?;
        if let Some((seed, preset, so_far, name)) = streaming {
            if !self.options.game.has_preset(&preset) {
                return Err(HandshakeError::UnknownPreset(preset).into());
            }
            let peer = *peer;
            tracing::info!(
                "watching room {}: {peer} streams the match (seed {seed}, preset {preset})",
                self.options.room
            );
            let answer = (seed, preset, so_far, name);
            return self.finish(link, peer, answer, received, early).map(Some);
        }
        if peer_left {
            return Err(ConnectError::PeerLeft);
        }
        if self.last_watch.is_none_or(|t| now >= t + WATCH_RESEND) {
            self.last_watch = Some(now);
            let mut watch = Watch::this_build(&self.options.game);
            watch.protocol += self.options.protocol_skew;
            watch.name = (self.options.name.as_ref()).map_or_else(String::new, |n| n.to_string());
            control.send(&Message::Watch(watch));
        }
        Ok(None)
    }
}

impl<I: GameInput, const N: usize> Seat for SpectatorSeat<I, N> {
    type Options = WatchOptions;
    type Connection = WatchConnection<I, N>;

    fn server(&self) -> &str {
        &self.options.server
    }

    fn room(&self) -> Option<&RoomCode> {
        Some(&self.options.room)
    }

    fn status(&self) -> Status {
        Status {
            stage: self.stage,
            probes: 0,
            probes_wanted: 0,
            failed_attempt: None,
        }
    }
}

impl<I: GameInput, const N: usize> SpectatorSeat<I, N> {
    fn take_peer(&mut self, peer: PeerId, started: Instant) -> Result<(), ConnectError> {
        let (control, ggrs) = self.channels.take().ok_or(ConnectError::LoopGone)?;
        let control = ControlChannel::new(control, Room::watching(peer), LinkConfig::default(), 0);
        tracing::info!("connected to player {peer} after {:?}", started.elapsed());
        self.peer = Some((peer, control, ggrs));
        self.stage = Stage::Asking;
        Ok(())
    }

    fn finish(
        &mut self,
        link: &mut RoomLink,
        peer: PeerId,
        (seed, preset, so_far, (name, players)): (u64, String, Frame, (String, Vec<String>)),
        received: CatchUpReceiver<I, N>,
        early: Vec<Spectating>,
    ) -> Result<WatchConnection<I, N>, ConnectError> {
        let (_, control, ggrs_channel) = self.peer.take().ok_or(ConnectError::LoopGone)?;
        let transport = link.take()?;
        Ok(WatchConnection {
            ggrs_channel,
            control,
            peer,
            seed,
            preset,
            so_far,
            name,
            received,
            early,
            started: link.started,
            room: self.options.room.clone(),
            server: self.options.server.clone(),
            seat: self.options.seat,
            players,
            transport,
        })
    }
}

/// What the player said to our `Watch` so far: its answer (seed, preset,
/// frames so far, our chat name), the frames that came with it, and the
/// messages after them (the chat so far, an early `Done` or `Bye`).
type Answer<I, const N: usize> = (
    Option<(u64, String, Frame, (String, Vec<String>))>,
    CatchUpReceiver<I, N>,
    Vec<Spectating>,
);

fn hear_player<I: GameInput, const N: usize>(
    control: &mut ControlChannel,
) -> Result<Answer<I, N>, ConnectError> {
    let mut streaming = None;
    let mut received = CatchUpReceiver::default();
    let mut early = Vec::new();
    for message in control.receive() {
        // A player's connector that took us for its partner says
        // `Hello` until it hears our `Watch`: not for us.
        let Heard::Expected(message) = message?.heard_as::<Spectating>() else {
            continue;
        };
        match message {
            Spectating::Streaming {
                seed,
                preset,
                frame,
                name,
                players,
            } => streaming = Some((seed, preset, frame, (name, players))),
            Spectating::CatchUp { chunks } => {
                if streaming.is_some() {
                    received.add(&chunks)?;
                }
            }
            Spectating::WatchRefused { reason } => {
                return Err(ConnectError::WatchRefused(reason));
            }
            message @ (Spectating::Done { .. }
            | Spectating::Bye { .. }
            | Spectating::Relayed { .. }
            | Spectating::DesyncState(_)) => {
                if streaming.is_some() {
                    early.push(message);
                }
            }
        }
    }
    Ok((streaming, received, early))
}
