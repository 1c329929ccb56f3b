//! One client's websocket, from its upgrade to its leaving: seated in the
//! [`Registry`], its signals relayed, and its liveness checked.
//!
//! Liveness: the server pings three times per idle limit; a client that has
//! sent nothing at all (no pong, no keep-alive, no signal) for the idle
//! limit is gone, and its seat is freed. Browsers answer pings in their
//! network stack, so a tab in the background (whose timers are throttled to
//! one a minute) keeps its seat; native matchbox clients answer pings too
//! and also send a keep-alive every 10 s.
//!
//! [`Registry`]: crate::rooms::registry::Registry

use std::ops::ControlFlow;

use futures::{SinkExt, StreamExt};
use tokio::sync::{mpsc, watch};
use tokio::time::{Instant as TokioInstant, MissedTickBehavior, interval, timeout_at};
use tracing::{info, warn};
use web_time::{Duration, Instant};

use axum::extract::ws::{Message, WebSocket};
use matchbox_protocol::{JsonPeerEvent, PeerId, PeerRequest};
use matchbox_signaling::ClientRequestError;
use matchbox_signaling::common_logic::{SignalingChannel, parse_request, try_send};

use crate::http::shared::Shared;
use crate::ops::metrics::RefusalReason;
use crate::rooms::close::{CLOSE_GOING_AWAY, CLOSE_RESTARTING, close};
use crate::rooms::limits::AddressGuard;
use crate::rooms::registry::QuickTicket;
use twinstar_signaling_protocol::{ClientQuery, MAX_SPECTATORS, ROOM_CAPACITY, RoomRequest};

/// Default idle limit: 25 s, under the 30 s by which a dead seat must be
/// free again for the next pair, and over two keep-alives of matchbox
/// clients (every 10 s) and three of our pings (every third of the limit),
/// so that one lost or late answer on a slow link never costs a seat.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(25);

/// How often the server pings a client: three times per idle limit.
fn ping_interval(idle: Duration) -> Duration {
    (idle / 3).max(Duration::from_millis(200))
}

/// Runs one upgraded client until it leaves, goes silent, or the server
/// closes everything.
pub async fn run(
    socket: WebSocket,
    (request, query): (RoomRequest, ClientQuery),
    peer: PeerId,
    shared: Shared,
    address: AddressGuard,
) {
    let metrics = shared.metrics.clone();
    metrics.client_connected();
    let (sink, mut receiver) = socket.split();
    let (sender, outbox) = mpsc::unbounded_channel();
    let mut writer = tokio::spawn(write_loop(sink, outbox, metrics.clone()));
    let _ = try_send(
        &sender,
        Message::Text(JsonPeerEvent::IdAssigned(peer).to_string().into()),
    );
    let seated = seat(&shared, &request, &query, peer, sender.clone());
    if seated {
        shared.rooms.lock().set_address(peer, address.ip());
    }

    let mut client = Client {
        peer,
        seated,
        unreadable: 0,
        refused: 0,
    };
    let writer_done = relay(&mut receiver, &mut writer, &sender, &shared, &mut client).await;

    client.report();
    if let Some(key) = shared.rooms.lock().leave_at(peer, Instant::now()) {
        info!(room = %key, peer = %peer, "left");
    }
    // The writer ends once every sender is gone: ours here, the seat's in
    // the registry (removed by `leave`).
    drop(sender);
    if !writer_done {
        let _ = tokio::time::timeout(Duration::from_secs(2), writer).await;
    }
    metrics.client_disconnected();
}

/// Relays one seated (or refused) client's messages until it leaves, goes
/// silent, or the server closes: pings it meanwhile, and hears anything at
/// all, a pong included, as a sign of life. True when the writer ended
/// first (a close frame sent or a write failed), so there is no writer left
/// to wait for.
async fn relay(
    receiver: &mut futures::stream::SplitStream<WebSocket>,
    writer: &mut tokio::task::JoinHandle<()>,
    sender: &SignalingChannel,
    shared: &Shared,
    client: &mut Client,
) -> bool {
    let idle = shared.idle_timeout;
    let mut closing = shared.closing.clone();
    let mut pings = interval(ping_interval(idle));
    pings.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut last_heard = TokioInstant::now();
    let (metrics, peer) = (&shared.metrics, client.peer);
    loop {
        let message = tokio::select! {
            next = timeout_at(last_heard + idle, receiver.next()) => match next {
                Ok(Some(message)) => message,
                Ok(None) => return false,
                Err(_) => {
                    info!(peer = %peer, "silent for {} s: closing", idle.as_secs());
                    metrics.refused(RefusalReason::Silent);
                    let _ = try_send(sender, close(CLOSE_GOING_AWAY, "no answer to pings"));
                    return false;
                }
            },
            _ = pings.tick() => {
                let _ = try_send(sender, Message::Ping(Default::default()));
                continue;
            }
            _ = wait_closing(&mut closing) => {
                let _ = try_send(sender, close(CLOSE_RESTARTING, "the server is shutting down"));
                return false;
            }
            // The writer sent a close frame (a draining server's word to a
            // waiting player) or could not write: this client is done,
            // whether or not it answers the close.
            _ = &mut *writer => return true,
        };
        // Anything at all, a pong included, proves the client is there.
        last_heard = TokioInstant::now();
        if let Ok(Message::Text(text)) = &message {
            metrics.received(text.len());
        }
        if client.handle(shared, message).is_break() {
            return false;
        }
    }
}

/// What the connection knows of its client between messages. A confused
/// or hostile client is not a reason to drop it, nor to write a log line
/// per message it sends: the first of each kind is logged, the counts when
/// it leaves.
struct Client {
    peer: PeerId,
    seated: bool,
    unreadable: u64,
    refused: u64,
}

impl Client {
    /// One message: a signal relayed (within its room), a keep-alive, or
    /// something ignored; `Break` when the client closed.
    fn handle(
        &mut self,
        shared: &Shared,
        message: Result<Message, axum::Error>,
    ) -> ControlFlow<()> {
        let peer = self.peer;
        let request = match parse_request(message) {
            Ok(request) => request,
            // axum answers pings itself; pongs only prove liveness.
            Err(ClientRequestError::UnsupportedType(Message::Ping(_) | Message::Pong(_))) => {
                return ControlFlow::Continue(());
            }
            Err(ClientRequestError::Json(_) | ClientRequestError::UnsupportedType(_)) => {
                self.unreadable += 1;
                if self.unreadable == 1 {
                    warn!(peer = %peer, "ignoring an unreadable signaling message");
                }
                return ControlFlow::Continue(());
            }
            Err(ClientRequestError::Close | ClientRequestError::Axum(_)) => {
                return ControlFlow::Break(());
            }
        };
        match request {
            PeerRequest::Signal { receiver, data } if self.seated => {
                let answer = crate::rooms::registry::is_answer(&data);
                let mut rooms = shared.rooms.lock();
                match rooms.relay(peer, receiver, data) {
                    Ok(()) if answer => {
                        rooms.answered(peer, receiver, Instant::now());
                        shared.metrics.observed_all(rooms.take_observed());
                    }
                    Ok(()) => {}
                    Err(e) => {
                        self.refused += 1;
                        if self.refused == 1 {
                            warn!(peer = %peer, "signal not relayed: {e}");
                        }
                    }
                }
            }
            // Keeps proxies from closing idle websockets; nothing to do.
            PeerRequest::Signal { .. } | PeerRequest::KeepAlive => {}
        }
        ControlFlow::Continue(())
    }

    fn report(&self) {
        if self.unreadable > 1 || self.refused > 1 {
            warn!(
                peer = %self.peer,
                "ignored {} unreadable messages and {} signals it sent",
                self.unreadable,
                self.refused
            );
        }
    }
}

/// Seats the peer; false if its room filled up during the upgrade.
fn seat(
    shared: &Shared,
    request: &RoomRequest,
    query: &ClientQuery,
    peer: PeerId,
    sender: SignalingChannel,
) -> bool {
    let token = query.seat;
    let mut rooms = shared.rooms.lock();
    let taking_back = rooms.takes_back(request, token);
    let joined = match request {
        RoomRequest::Quick => {
            let ticket = QuickTicket {
                version: query.version.clone(),
                level: query.level.unwrap_or(0),
                rtt_ms: query.rtt_ms.unwrap_or(0),
                challenge: query.challenge.clone(),
            };
            Some(rooms.join_quick(peer, sender, ticket, Instant::now()))
        }
        _ => rooms.join_with(request, token, peer, sender, Instant::now()),
    };
    // A pairing (this arrival, or quick match's) is counted and timed.
    shared.metrics.observed_all(rooms.take_observed());
    let Some(key) = joined else {
        warn!(peer = %peer, "room filled up during the upgrade; not seated");
        return false;
    };
    if taking_back {
        info!(room = %key, peer = %peer, "took its seat back from a stale connection");
        shared.metrics.seat_taken_back();
        return true;
    }
    if matches!(request, RoomRequest::Watch(_)) {
        let n = rooms.spectators(&key);
        info!(room = %key, peer = %peer, "watching ({n}/{MAX_SPECTATORS} spectators)");
    } else {
        let n = rooms.members(&key);
        info!(room = %key, peer = %peer, "joined ({n}/{ROOM_CAPACITY})");
        if let (true, Some(name), Some(version)) = (query.public, &query.name, &query.version)
            && rooms.publish(
                &key,
                peer,
                name.clone(),
                version.clone(),
                crate::rooms::clock::unix_now(),
            )
        {
            info!(room = %key, host = %name, "listed in /rooms");
        }
    }
    true
}

/// Resolves once the server closes every connection.
async fn wait_closing(closing: &mut watch::Receiver<bool>) {
    while !*closing.borrow_and_update() {
        if closing.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// Writes what the registry and this task queue for the client, counting
/// it; ends after a close frame, a write error, or when all senders are gone.
async fn write_loop(
    mut sink: futures::stream::SplitSink<WebSocket, Message>,
    mut outbox: mpsc::UnboundedReceiver<Result<Message, axum::Error>>,
    metrics: crate::ops::metrics::Metrics,
) {
    while let Some(Ok(message)) = outbox.recv().await {
        if let Message::Text(text) = &message {
            metrics.sent(text.len());
        }
        let last = matches!(message, Message::Close(_));
        if sink.send(message).await.is_err() || last {
            break;
        }
    }
    let _ = sink.close().await;
}
