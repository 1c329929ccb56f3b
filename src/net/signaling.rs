//! The signaling server that pairs players by room code, and the client-side
//! helpers to reach it and explain its refusals.
//!
//! Built on `matchbox_signaling` with our own topology: matchbox's full-mesh
//! topology lets any number of peers into a room, we need rooms of two.
//!
//! - `ws://HOST:PORT/K7Q2XM` joins room K7Q2XM (any spelling `RoomCode`
//!   parses; the canonical form is the room). The first two get in; a third
//!   is refused with HTTP 409 *before* the websocket upgrade.
//! - `ws://HOST:PORT/` or `/quick` is a quick match: paired with the next
//!   client that also asked for one.
//! - Anything else is refused with HTTP 400.
//!
//! Why refuse before the upgrade: after it, matchbox clients have no way to
//! learn why the server closed (a close frame ends their socket future with
//! `Ok(())`), while a refused upgrade surfaces on the client as a
//! `tungstenite::Error::Http` carrying our status and body, which
//! [`classify_socket_error`] turns into "room CODE is full".
//!
//! The admission check and the join are separate steps in matchbox (a
//! callback before the upgrade, a task after it), so admission *reserves* a
//! seat under the same lock that counts the members; two clients racing for
//! the last seat cannot both get it. A reservation whose upgrade never
//! completes expires after [`RESERVATION_TTL`].

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use axum::extract::ws::Message;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use futures::StreamExt;
use matchbox_protocol::{JsonPeerEvent, PeerId, PeerRequest};
use matchbox_signaling::common_logic::{SignalingChannel, parse_request, try_send};
use matchbox_signaling::{
    ClientRequestError, NoCallbacks, SignalingServerBuilder, SignalingState, SignalingTopology,
    WsStateMeta,
};
use matchbox_socket::{RtcIceServerConfig, WebRtcSocket, WebRtcSocketBuilder};
use tokio::sync::oneshot;
use tracing::{info, warn};

use super::room_code::{RoomCode, RoomCodeError};

/// Players per room.
pub const ROOM_CAPACITY: usize = 2;
/// How long an admitted client may take to finish its websocket upgrade.
pub const RESERVATION_TTL: Duration = Duration::from_secs(10);
/// Default port of `twinstar serve`.
pub const DEFAULT_PORT: u16 = 3536;
/// The URL path asking for a quick match.
pub const QUICK_PATH: &str = "quick";
/// Largest signal relayed, as sent to the receiver. An SDP offer is a few
/// KiB, an ICE candidate a few hundred bytes.
pub const MAX_SIGNAL_BYTES: usize = 64 * 1024;
/// Bytes of signals one peer may have relayed over its whole connection. A
/// WebRTC negotiation needs a few tens of KiB; the cap bounds what a client
/// can pile up in the server's queue towards a partner that does not read
/// (queues to clients are unbounded channels in matchbox).
pub const RELAY_BUDGET_BYTES: usize = 1024 * 1024;

/// What a client asked for, from its URL path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RoomRequest {
    Code(RoomCode),
    Quick,
}

impl RoomRequest {
    /// `None` is the root path (matchbox names that room "world").
    pub fn from_path(path: Option<&str>) -> Result<Self, RoomCodeError> {
        match path.map(str::trim) {
            None | Some("") => Ok(RoomRequest::Quick),
            Some(p) if p.eq_ignore_ascii_case(QUICK_PATH) || p == "world" => Ok(RoomRequest::Quick),
            Some(p) => RoomCode::parse(p).map(RoomRequest::Code),
        }
    }
}

/// The URL a client connects to: `server` is `ws://host:port` (a trailing
/// slash is fine), `room` `None` for a quick match.
pub fn room_url(server: &str, room: Option<&RoomCode>) -> String {
    let base = server.trim_end_matches('/');
    match room {
        Some(code) => format!("{base}/{}", code.canonical()),
        None => format!("{base}/{QUICK_PATH}"),
    }
}

/// Why the server turned a client away, as the server says it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("room {0} is full")]
    RoomFull(RoomCode),
    #[error("invalid room: {0}")]
    BadRoom(RoomCodeError),
}

impl Refusal {
    pub fn status(&self) -> StatusCode {
        match self {
            Refusal::RoomFull(_) => StatusCode::CONFLICT,
            Refusal::BadRoom(_) => StatusCode::BAD_REQUEST,
        }
    }
}

/// Why a signal was not relayed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RelayError {
    #[error("the sender is not seated")]
    NotSeated,
    #[error("unknown receiver {0}")]
    UnknownReceiver(PeerId),
    #[error("{to} is not in room {room}")]
    OtherRoom { to: PeerId, room: String },
    #[error("signal of {0} bytes is over the {MAX_SIGNAL_BYTES}-byte limit")]
    TooLarge(usize),
    #[error("relay budget of {RELAY_BUDGET_BYTES} bytes used up")]
    BudgetExhausted,
    #[error("the receiver's queue is closed")]
    Closed,
}

#[derive(Debug)]
struct Seat {
    room: String,
    channel: SignalingChannel,
    /// Bytes relayed from this peer so far.
    relayed: usize,
}

#[derive(Debug, Default)]
struct Room {
    members: Vec<PeerId>,
    /// Admission times of clients let in but not yet upgraded.
    reservations: Vec<Instant>,
}

impl Room {
    fn prune(&mut self, now: Instant) {
        self.reservations
            .retain(|t| now.saturating_duration_since(*t) < RESERVATION_TTL);
    }

    fn is_unused(&self) -> bool {
        self.members.is_empty() && self.reservations.is_empty()
    }
}

/// Rooms and members. Pure bookkeeping with the clock passed in, so its
/// rules are unit-tested without sockets.
#[derive(Debug, Default)]
pub struct Registry {
    /// Keyed by canonical code, or `quick-N` for quick matches.
    rooms: HashMap<String, Room>,
    peers: HashMap<PeerId, Seat>,
    /// The quick-match room whose single member waits for a partner.
    quick_waiting: Option<String>,
    quick_rooms_made: u64,
}

impl Registry {
    /// Before the upgrade: may this client in? Reserves its seat if so.
    pub fn admit(&mut self, request: &RoomRequest, now: Instant) -> Result<(), Refusal> {
        let RoomRequest::Code(code) = request else {
            // A quick match always finds a place: a waiting room or a new one.
            return Ok(());
        };
        // Forget rooms whose only trace was an expired reservation, so
        // clients that never finish their upgrade cannot grow the map.
        self.rooms.retain(|_, room| {
            room.prune(now);
            !room.is_unused()
        });
        let room = self.rooms.entry(code.canonical().to_owned()).or_default();
        if room.members.len() + room.reservations.len() >= ROOM_CAPACITY {
            return Err(Refusal::RoomFull(code.clone()));
        }
        room.reservations.push(now);
        Ok(())
    }

    /// After the upgrade: seats the peer and introduces it to the member
    /// already there (matchbox's protocol: the member gets `NewPeer` and
    /// sends the WebRTC offer). Returns the room key, or `None` if the room
    /// filled up meanwhile (only possible past an expired reservation).
    pub fn join(
        &mut self,
        request: &RoomRequest,
        peer: PeerId,
        sender: SignalingChannel,
        now: Instant,
    ) -> Option<String> {
        let key = match request {
            RoomRequest::Code(code) => {
                let room = self.rooms.entry(code.canonical().to_owned()).or_default();
                room.prune(now);
                if !room.reservations.is_empty() {
                    room.reservations.remove(0);
                }
                if room.members.len() >= ROOM_CAPACITY {
                    return None;
                }
                code.canonical().to_owned()
            }
            RoomRequest::Quick => match self.quick_waiting.take() {
                Some(key) if self.rooms.contains_key(&key) => key,
                _ => {
                    self.quick_rooms_made += 1;
                    let key = format!("quick-{}", self.quick_rooms_made);
                    self.quick_waiting = Some(key.clone());
                    key
                }
            },
        };
        let room = self.rooms.entry(key.clone()).or_default();
        let event = Message::Text(JsonPeerEvent::NewPeer(peer).to_string().into());
        for member in &room.members {
            if let Some(seat) = self.peers.get(member) {
                if let Err(e) = try_send(&seat.channel, event.clone()) {
                    warn!("could not tell {member} about {peer}: {e}");
                }
            }
        }
        room.members.push(peer);
        self.peers.insert(
            peer,
            Seat {
                room: key.clone(),
                channel: sender,
                relayed: 0,
            },
        );
        Some(key)
    }

    /// Removes the peer and tells whoever is left in its room.
    pub fn leave(&mut self, peer: PeerId) -> Option<String> {
        let key = self.peers.remove(&peer)?.room;
        let room = self.rooms.get_mut(&key)?;
        room.members.retain(|m| *m != peer);
        let event = Message::Text(JsonPeerEvent::PeerLeft(peer).to_string().into());
        for member in &room.members {
            if let Some(seat) = self.peers.get(member) {
                // The member may be leaving too; nothing to do about it.
                let _ = try_send(&seat.channel, event.clone());
            }
        }
        if room.is_unused() {
            self.rooms.remove(&key);
            if self.quick_waiting.as_deref() == Some(key.as_str()) {
                self.quick_waiting = None;
            }
        }
        Some(key)
    }

    /// Forwards a WebRTC signal (offer, answer, ICE candidate), but only
    /// between members of the same room: rooms never cross. Signals over
    /// [`MAX_SIGNAL_BYTES`], and any once the sender has had
    /// [`RELAY_BUDGET_BYTES`] relayed, are dropped.
    pub fn relay(
        &mut self,
        from: PeerId,
        to: PeerId,
        data: serde_json::Value,
    ) -> Result<(), RelayError> {
        let sender = self.peers.get(&from).ok_or(RelayError::NotSeated)?;
        let receiver = self.peers.get(&to).ok_or(RelayError::UnknownReceiver(to))?;
        if sender.room != receiver.room {
            return Err(RelayError::OtherRoom {
                to,
                room: sender.room.clone(),
            });
        }
        let text = JsonPeerEvent::Signal { sender: from, data }.to_string();
        if text.len() > MAX_SIGNAL_BYTES {
            return Err(RelayError::TooLarge(text.len()));
        }
        if sender.relayed + text.len() > RELAY_BUDGET_BYTES {
            return Err(RelayError::BudgetExhausted);
        }
        let len = text.len();
        try_send(&receiver.channel, Message::Text(text.into())).map_err(|_| RelayError::Closed)?;
        if let Some(sender) = self.peers.get_mut(&from) {
            sender.relayed += len;
        }
        Ok(())
    }

    /// Members of a room, for logs and tests.
    pub fn members(&self, key: &str) -> usize {
        self.rooms.get(key).map_or(0, |r| r.members.len())
    }

    /// Rooms that have members or reservations.
    pub fn room_count(&self) -> usize {
        self.rooms.len()
    }
}

/// The shared registry, cloned into every connection task by matchbox.
#[derive(Clone, Debug, Default)]
pub struct RoomState(Arc<Mutex<Registry>>);

impl SignalingState for RoomState {}

impl RoomState {
    fn lock(&self) -> MutexGuard<'_, Registry> {
        // A panic while holding the lock leaves bookkeeping that is still
        // usable (every update is a few map operations); keep serving.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Our topology: rooms of two, quick match, refusals before the upgrade.
#[derive(Debug, Default)]
pub struct RoomTopology;

#[async_trait]
impl SignalingTopology<NoCallbacks, RoomState> for RoomTopology {
    async fn state_machine(upgrade: WsStateMeta<NoCallbacks, RoomState>) {
        let WsStateMeta {
            room,
            peer_id,
            sender,
            mut receiver,
            state,
            ..
        } = upgrade;
        // matchbox names the root path's room "world".
        let path = (room != "world").then_some(room.as_str());
        let Ok(request) = RoomRequest::from_path(path) else {
            // Admission already refused such paths; nothing to seat.
            warn!("{peer_id} reached the room task with invalid room {room:?}");
            return;
        };
        let seated = state.lock().join(&request, peer_id, sender, Instant::now());
        match &seated {
            Some(key) => {
                let n = state.lock().members(key);
                info!(room = %key, peer = %peer_id, "joined ({n}/{ROOM_CAPACITY})");
            }
            None => warn!(peer = %peer_id, "room {room} filled up during the upgrade; not seated"),
        }

        // A confused or hostile client is not a reason to drop it, nor to
        // write a log line per message it sends: the first of each kind is
        // logged, the counts when it leaves.
        let (mut unreadable, mut refused) = (0u64, 0u64);
        while let Some(message) = receiver.next().await {
            let request = match parse_request(message) {
                Ok(request) => request,
                // axum answers pings itself.
                Err(ClientRequestError::UnsupportedType(Message::Ping(_) | Message::Pong(_))) => {
                    continue;
                }
                Err(ClientRequestError::Json(_) | ClientRequestError::UnsupportedType(_)) => {
                    unreadable += 1;
                    if unreadable == 1 {
                        warn!(peer = %peer_id, "ignoring an unreadable signaling message");
                    }
                    continue;
                }
                Err(ClientRequestError::Close | ClientRequestError::Axum(_)) => break,
            };
            match request {
                PeerRequest::Signal { receiver, data } => {
                    if seated.is_some() {
                        if let Err(e) = state.lock().relay(peer_id, receiver, data) {
                            refused += 1;
                            if refused == 1 {
                                warn!(peer = %peer_id, "signal not relayed: {e}");
                            }
                        }
                    }
                }
                // Keeps proxies from closing idle websockets; nothing to do.
                PeerRequest::KeepAlive => {}
            }
        }

        if unreadable > 1 || refused > 1 {
            warn!(
                peer = %peer_id,
                "ignored {unreadable} unreadable messages and {refused} signals it sent"
            );
        }
        if let Some(key) = state.lock().leave(peer_id) {
            info!(room = %key, peer = %peer_id, "left");
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("could not bind the signaling server: {0}")]
    Bind(std::io::Error),
    #[error("signaling server failed: {0}")]
    Serve(matchbox_signaling::Error),
}

/// A signaling server bound to its port, not serving yet. Binding first lets
/// callers (tests, `twinstar host`) learn the port before anyone connects.
pub struct BoundServer {
    server: matchbox_signaling::SignalingServer,
    addr: SocketAddr,
    shutdown_tx: oneshot::Sender<()>,
    state: RoomState,
}

/// Binds the signaling server (`port` 0 picks a free one).
// The admission callback's `Result<bool, Response>` is matchbox's signature.
#[allow(clippy::result_large_err)]
pub fn bind(addr: SocketAddr) -> Result<BoundServer, ServerError> {
    let state = RoomState::default();
    let admission = state.clone();
    let (shutdown_tx, shutdown_rx) = oneshot::channel();
    let mut server = SignalingServerBuilder::<RoomTopology, NoCallbacks, RoomState>::new(
        addr,
        RoomTopology,
        state.clone(),
    )
    .on_connection_request(move |meta| {
        let verdict = RoomRequest::from_path(meta.path.as_deref())
            .map_err(Refusal::BadRoom)
            .and_then(|req| admission.lock().admit(&req, Instant::now()));
        match verdict {
            Ok(()) => Ok(true),
            Err(refusal) => {
                info!(origin = %meta.origin, path = ?meta.path, "refused: {refusal}");
                Err((refusal.status(), refusal.to_string()).into_response())
            }
        }
    })
    .with_shutdown(shutdown_rx)
    .build();
    let addr = server.bind().map_err(|e| match e {
        matchbox_signaling::Error::Bind(io) => ServerError::Bind(io),
        other => ServerError::Serve(other),
    })?;
    Ok(BoundServer {
        server,
        addr,
        shutdown_tx,
        state,
    })
}

impl BoundServer {
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The room bookkeeping (for status displays and tests).
    pub fn state(&self) -> RoomState {
        self.state.clone()
    }

    /// Serves until `shutdown` resolves, then closes every client's
    /// websocket (matchbox waits up to 5 s for them) and returns.
    pub async fn serve(self, shutdown: impl Future<Output = ()>) -> Result<(), ServerError> {
        info!("signaling server listening on ws://{}", self.addr);
        let serving = self.server.serve();
        tokio::pin!(serving);
        tokio::select! {
            result = &mut serving => return result.map_err(ServerError::Serve),
            () = shutdown => {
                info!("signaling server shutting down");
                let _ = self.shutdown_tx.send(());
            }
        }
        serving.await.map_err(ServerError::Serve)
    }
}

impl RoomState {
    /// Members of the room with this code.
    pub fn members_of(&self, code: &RoomCode) -> usize {
        self.lock().members(code.canonical())
    }

    pub fn room_count(&self) -> usize {
        self.lock().room_count()
    }
}

/// Binds and serves until `shutdown` resolves (`twinstar serve`).
pub async fn serve(
    bind_addr: SocketAddr,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServerError> {
    bind(bind_addr)?.serve(shutdown).await
}

/// A matchbox socket builder for a room URL, set up the way our clients need:
/// one connection attempt (matchbox's default of three, 3 s apart, would
/// delay a "room is full" by 6 s; our refusals are final) and the given ICE
/// servers (pass [`no_ice_servers`] on loopback and LAN tests).
pub fn client_builder(url: &str, ice: RtcIceServerConfig) -> WebRtcSocketBuilder {
    WebRtcSocket::builder(url)
        .ice_server(ice)
        .reconnect_attempts(Some(1))
}

/// An empty ICE server list: host candidates only, which is all loopback
/// needs (matchbox's default points at public STUN servers).
pub fn no_ice_servers() -> RtcIceServerConfig {
    RtcIceServerConfig {
        urls: Vec::new(),
        username: None,
        credential: None,
    }
}

/// Why a client could not get into its room, for the user.
#[derive(Debug, thiserror::Error)]
pub enum JoinError {
    /// Exit 2: the user asked for a room that cannot take them.
    #[error("room {0} is full")]
    RoomFull(String),
    #[error("the signaling server refused the room ({status}): {reason}")]
    Refused { status: u16, reason: String },
    #[error("could not reach the signaling server: {0}")]
    Unreachable(String),
    #[error("lost the signaling server: {0}")]
    Disconnected(String),
}

/// Explains the error a matchbox socket's message loop ended with. `room`
/// is the code the client asked for (names the room in "room X is full").
pub fn classify_socket_error(error: &matchbox_socket::Error, room: Option<&RoomCode>) -> JoinError {
    use matchbox_socket::{Error, SignalingError};
    match error {
        Error::ConnectionFailed(SignalingError::WebSocket(tungstenite::Error::Http(response))) => {
            let status = response.status().as_u16();
            let reason = response
                .body()
                .as_deref()
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .unwrap_or_default();
            if status == StatusCode::CONFLICT.as_u16() {
                // Our server's body is "room CODE is full"; another server's
                // may be anything, so fall back to the whole body.
                let name = room.map_or_else(
                    || {
                        reason
                            .strip_prefix("room ")
                            .and_then(|r| r.strip_suffix(" is full"))
                            .unwrap_or(&reason)
                            .to_owned()
                    },
                    |r| r.to_string(),
                );
                JoinError::RoomFull(name)
            } else {
                JoinError::Refused { status, reason }
            }
        }
        Error::ConnectionFailed(e) => JoinError::Unreachable(e.to_string()),
        Error::Disconnected(e) => JoinError::Disconnected(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::mpsc;

    type Inbox = mpsc::UnboundedReceiver<Result<Message, axum::Error>>;

    fn peer(n: u128) -> PeerId {
        PeerId(uuid::Uuid::from_u128(n))
    }

    fn channel() -> (SignalingChannel, Inbox) {
        mpsc::unbounded_channel()
    }

    fn events(inbox: &mut Inbox) -> Vec<JsonPeerEvent> {
        let mut out = Vec::new();
        while let Ok(Ok(Message::Text(text))) = inbox.try_recv() {
            out.push(text.as_str().parse().unwrap());
        }
        out
    }

    fn code(s: &str) -> RoomRequest {
        RoomRequest::Code(RoomCode::parse(s).unwrap())
    }

    #[test]
    fn paths_map_to_requests() {
        assert_eq!(RoomRequest::from_path(None), Ok(RoomRequest::Quick));
        assert_eq!(
            RoomRequest::from_path(Some("quick")),
            Ok(RoomRequest::Quick)
        );
        assert_eq!(
            RoomRequest::from_path(Some("QUICK")),
            Ok(RoomRequest::Quick)
        );
        assert_eq!(RoomRequest::from_path(Some("k7q-2xm")), Ok(code("K7Q2XM")));
        assert!(RoomRequest::from_path(Some("admin")).is_err());
        let c = RoomCode::parse("K7Q2XM").unwrap();
        assert_eq!(room_url("ws://h:1/", Some(&c)), "ws://h:1/K7Q2XM");
        assert_eq!(room_url("ws://h:1", None), "ws://h:1/quick");
    }

    #[test]
    fn a_room_seats_two_and_refuses_the_third() {
        let mut reg = Registry::default();
        let t = Instant::now();
        let room = code("K7Q2XM");
        assert_eq!(reg.admit(&room, t), Ok(()));
        assert_eq!(reg.admit(&room, t), Ok(()));
        let refusal = reg.admit(&room, t).unwrap_err();
        assert_eq!(refusal.to_string(), "room K7Q-2XM is full");
        assert_eq!(refusal.status(), StatusCode::CONFLICT);

        let (a_tx, mut a_rx) = channel();
        let (b_tx, mut b_rx) = channel();
        assert_eq!(reg.join(&room, peer(1), a_tx, t).as_deref(), Some("K7Q2XM"));
        assert_eq!(reg.join(&room, peer(2), b_tx, t).as_deref(), Some("K7Q2XM"));
        // The first member is told about the second; the second about no one.
        assert_eq!(events(&mut a_rx), vec![JsonPeerEvent::NewPeer(peer(2))]);
        assert!(events(&mut b_rx).is_empty());
        assert!(reg.admit(&room, t).is_err(), "seated members fill the room");

        // When one leaves, the other hears it and the seat frees up.
        reg.leave(peer(1));
        assert_eq!(events(&mut b_rx), vec![JsonPeerEvent::PeerLeft(peer(1))]);
        assert_eq!(reg.admit(&room, t), Ok(()));
        reg.leave(peer(2));
        let (c_tx, _c_rx) = channel();
        reg.join(&room, peer(3), c_tx, t);
        reg.leave(peer(3));
        assert_eq!(reg.room_count(), 0, "empty rooms are forgotten");
    }

    #[test]
    fn stale_reservations_expire() {
        let mut reg = Registry::default();
        let t = Instant::now();
        let room = code("ABCDEF");
        reg.admit(&room, t).unwrap();
        reg.admit(&room, t).unwrap();
        assert!(reg.admit(&room, t + Duration::from_secs(1)).is_err());
        // Neither upgrade completed: after the TTL the seats are free again.
        assert!(reg.admit(&room, t + RESERVATION_TTL).is_ok());
    }

    #[test]
    fn signals_never_cross_rooms() {
        let mut reg = Registry::default();
        let t = Instant::now();
        let (a_tx, mut a_rx) = channel();
        let (b_tx, mut b_rx) = channel();
        let (c_tx, mut c_rx) = channel();
        reg.join(&code("AAAAAA"), peer(1), a_tx, t);
        reg.join(&code("AAAAAA"), peer(2), b_tx, t);
        reg.join(&code("BBBBBB"), peer(3), c_tx, t);
        let data = serde_json::json!({"Offer": "sdp"});
        assert!(reg.relay(peer(3), peer(1), data.clone()).is_err());
        assert!(reg.relay(peer(1), peer(3), data.clone()).is_err());
        assert!(reg.relay(peer(9), peer(1), data.clone()).is_err());
        assert!(events(&mut c_rx).is_empty());
        events(&mut a_rx);
        reg.relay(peer(2), peer(1), data.clone()).unwrap();
        assert_eq!(
            events(&mut a_rx),
            vec![JsonPeerEvent::Signal {
                sender: peer(2),
                data
            }]
        );
        assert!(events(&mut b_rx).is_empty());
    }

    #[test]
    fn oversized_signals_and_floods_are_not_relayed() {
        let mut reg = Registry::default();
        let t = Instant::now();
        let (a_tx, mut a_rx) = channel();
        let (b_tx, mut b_rx) = channel();
        reg.join(&code("AAAAAA"), peer(1), a_tx, t);
        reg.join(&code("AAAAAA"), peer(2), b_tx, t);
        let big = serde_json::json!("x".repeat(MAX_SIGNAL_BYTES));
        assert!(matches!(
            reg.relay(peer(1), peer(2), big),
            Err(RelayError::TooLarge(_))
        ));
        assert!(events(&mut b_rx).is_empty());
        // 32 KiB signals (plus a small envelope) until the budget is spent.
        let chunk = serde_json::json!("y".repeat(MAX_SIGNAL_BYTES / 2));
        let mut relayed = 0;
        while reg.relay(peer(1), peer(2), chunk.clone()).is_ok() {
            relayed += 1;
            assert!(relayed < 100, "no budget");
        }
        assert_eq!(relayed, RELAY_BUDGET_BYTES / (MAX_SIGNAL_BYTES / 2) - 1);
        assert_eq!(
            reg.relay(peer(1), peer(2), chunk),
            Err(RelayError::BudgetExhausted)
        );
        assert_eq!(events(&mut b_rx).len(), relayed);
        // The other direction has its own budget.
        events(&mut a_rx);
        let answer = serde_json::json!({"Answer": "sdp"});
        assert_eq!(reg.relay(peer(2), peer(1), answer.clone()), Ok(()));
        assert_eq!(
            events(&mut a_rx),
            vec![JsonPeerEvent::Signal {
                sender: peer(2),
                data: answer
            }]
        );
    }

    #[test]
    fn quick_match_pairs_clients_in_arrival_order() {
        let mut reg = Registry::default();
        let t = Instant::now();
        let quick = RoomRequest::Quick;
        let mut inboxes = Vec::new();
        let mut keys = Vec::new();
        for n in 1..=5 {
            assert_eq!(reg.admit(&quick, t), Ok(()));
            let (tx, rx) = channel();
            inboxes.push(rx);
            keys.push(reg.join(&quick, peer(n), tx, t).unwrap());
        }
        assert_eq!(keys[0], keys[1]);
        assert_eq!(keys[2], keys[3]);
        assert_ne!(keys[1], keys[2]);
        assert_ne!(keys[3], keys[4]);
        assert_eq!(reg.members(&keys[4]), 1);
        assert_eq!(
            events(&mut inboxes[2]),
            vec![JsonPeerEvent::NewPeer(peer(4))]
        );

        // The waiting one gives up: the next quick client starts afresh
        // instead of landing in a dead room.
        reg.leave(peer(5));
        let (tx, _rx) = channel();
        let key = reg.join(&quick, peer(6), tx, t).unwrap();
        assert_ne!(key, keys[4]);
        assert_eq!(reg.members(&key), 1);
    }

    // ---- live sockets on loopback: server, WebRTC, refusals ----

    use matchbox_socket::{MessageLoopFuture, PeerState};
    use tokio::time::{sleep, timeout};

    /// Everything a live test does must finish well within this.
    const LIVE_LIMIT: Duration = Duration::from_secs(40);

    struct TestServer {
        base: String,
        stop: Option<oneshot::Sender<()>>,
        task: tokio::task::JoinHandle<Result<(), ServerError>>,
        state: RoomState,
    }

    impl TestServer {
        fn start() -> Self {
            let server = bind(SocketAddr::from(([127, 0, 0, 1], 0))).unwrap();
            let base = format!("ws://{}", server.local_addr());
            let state = server.state();
            let (stop, stopped) = oneshot::channel::<()>();
            let task = tokio::spawn(server.serve(async {
                let _ = stopped.await;
            }));
            TestServer {
                base,
                stop: Some(stop),
                task,
                state,
            }
        }

        async fn stop(mut self) {
            if let Some(stop) = self.stop.take() {
                let _ = stop.send(());
            }
            self.task.await.unwrap().unwrap();
        }
    }

    fn client(
        url: &str,
    ) -> (
        WebRtcSocket,
        tokio::task::JoinHandle<Result<(), matchbox_socket::Error>>,
    ) {
        let (socket, message_loop): (WebRtcSocket, MessageLoopFuture) =
            client_builder(url, no_ice_servers())
                .add_unreliable_channel()
                .build();
        (socket, tokio::spawn(message_loop))
    }

    /// Polls until every socket has exactly one connected peer.
    async fn until_paired(sockets: &mut [&mut WebRtcSocket]) {
        loop {
            let mut done = true;
            for s in sockets.iter_mut() {
                for (peer, state) in s.try_update_peers().unwrap_or_default() {
                    if state == PeerState::Disconnected {
                        panic!("{peer} disconnected while pairing");
                    }
                }
                done &= s.connected_peers().count() == 1;
            }
            if done {
                return;
            }
            sleep(Duration::from_millis(20)).await;
        }
    }

    fn partner(s: &WebRtcSocket) -> PeerId {
        s.connected_peers().next().unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn two_clients_meet_in_a_room_and_a_third_is_told_it_is_full() {
        timeout(LIVE_LIMIT, async {
            let server = TestServer::start();
            let code = RoomCode::parse("k7q-2xm").unwrap();
            let url = room_url(&server.base, Some(&code));
            let started = Instant::now();
            let (mut a, _a_loop) = client(&url);
            let (mut b, _b_loop) = client(&url);
            until_paired(&mut [&mut a, &mut b]).await;
            eprintln!("paired over WebRTC in {:?}", started.elapsed());
            assert_eq!(Some(partner(&a)), b.id());
            assert_eq!(Some(partner(&b)), a.id());
            assert_eq!(server.state.members_of(&code), 2);

            // Typed differently, same room: refused before any WebRTC.
            let (_c, c_loop) = client(&format!("{}/K7Q-2XM", server.base));
            let err = c_loop.await.unwrap().expect_err("third client got in");
            let why = classify_socket_error(&err, Some(&code));
            assert!(matches!(why, JoinError::RoomFull(_)), "{why:?}");
            assert_eq!(why.to_string(), "room K7Q-2XM is full");

            // Without the code at hand, the server's own words name the room.
            let (_d, d_loop) = client(&url);
            let err = d_loop.await.unwrap().expect_err("fourth client got in");
            assert_eq!(
                classify_socket_error(&err, None).to_string(),
                "room K7Q-2XM is full"
            );

            // A path that is no room code is refused as such.
            let (_e, e_loop) = client(&format!("{}/not-a-room", server.base));
            let err = e_loop.await.unwrap().expect_err("bad room accepted");
            let why = classify_socket_error(&err, None);
            assert!(
                matches!(why, JoinError::Refused { status: 400, .. }),
                "{why:?}"
            );

            // The pair is untouched by the refusals.
            assert_eq!(a.connected_peers().count(), 1);
            assert_eq!(server.state.members_of(&code), 2);
            drop((a, b));
            server.stop().await;
        })
        .await
        .expect("test timed out");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn rooms_never_cross_and_quick_match_pairs_its_own() {
        timeout(LIVE_LIMIT, async {
            let server = TestServer::start();
            let x = RoomCode::parse("XXXXXXX").unwrap();
            let y = RoomCode::parse("YYYYYYY").unwrap();
            let (mut x1, _l1) = client(&room_url(&server.base, Some(&x)));
            let (mut y1, _l2) = client(&room_url(&server.base, Some(&y)));
            let (mut q1, _l3) = client(&room_url(&server.base, None));
            // Root path: also quick match.
            let (mut q2, _l4) = client(&format!("{}/", server.base));
            let (mut x2, _l5) = client(&room_url(&server.base, Some(&x)));
            let (mut y2, _l6) = client(&room_url(&server.base, Some(&y)));
            until_paired(&mut [&mut x1, &mut x2, &mut y1, &mut y2, &mut q1, &mut q2]).await;
            // Give stray offers time to show up if the server leaked any.
            sleep(Duration::from_millis(500)).await;
            for s in [&mut x1, &mut x2, &mut y1, &mut y2, &mut q1, &mut q2] {
                let _ = s.try_update_peers();
                assert_eq!(s.connected_peers().count(), 1);
            }
            assert_eq!(Some(partner(&x1)), x2.id());
            assert_eq!(Some(partner(&y1)), y2.id());
            assert_eq!(Some(partner(&q1)), q2.id());
            assert_eq!(server.state.room_count(), 3);
            drop((x1, x2, y1, y2, q1, q2));
            server.stop().await;
        })
        .await
        .expect("test timed out");
    }
}
