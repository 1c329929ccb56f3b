//! The signaling server: our matchbox topology (rooms of two, quick match,
//! refusals before the upgrade) around the [`Registry`], and binding and
//! serving it.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use web_time::Instant;

use async_trait::async_trait;
use axum::extract::ws::Message;
use axum::response::IntoResponse;
use futures::StreamExt;
use matchbox_protocol::PeerRequest;
use matchbox_signaling::common_logic::parse_request;
use matchbox_signaling::{
    ClientRequestError, NoCallbacks, SignalingServerBuilder, SignalingState, SignalingTopology,
    WsStateMeta,
};
use tokio::sync::oneshot;
use tracing::{info, warn};

use super::registry::Registry;
use super::web::{self, WebClient};
use super::{MAX_SPECTATORS, ROOM_CAPACITY, Refusal, RoomCode, RoomRequest};

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
            Some(key) if matches!(request, RoomRequest::Watch(_)) => {
                let n = state.lock().spectators(key);
                info!(room = %key, peer = %peer_id, "watching ({n}/{MAX_SPECTATORS} spectators)");
            }
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

/// Binds the signaling server (`port` 0 picks a free one). Plain HTTP
/// `GET`s (no websocket upgrade) are answered from `web`, the web client,
/// or with 404 when there is none (see [`web::respond`]).
// The admission callback's `Result<bool, Response>` is matchbox's signature.
#[allow(clippy::result_large_err)]
pub fn bind(addr: SocketAddr, web: Option<WebClient>) -> Result<BoundServer, ServerError> {
    if let Some(web) = &web {
        info!(
            "web client from {}: {}",
            web.dir().display(),
            web.describe()
        );
    }
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
    // After matchbox's `/` and `/{path}` routes: the layer sees every request.
    .build_with(|router| router.layer(axum::middleware::from_fn_with_state(web, web::middleware)));
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

/// Binds and serves until `shutdown` resolves.
pub async fn serve(
    bind_addr: SocketAddr,
    web: Option<WebClient>,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServerError> {
    bind(bind_addr, web)?.serve(shutdown).await
}

#[cfg(test)]
mod tests {
    use web_time::Duration;

    use matchbox_protocol::PeerId;
    use matchbox_socket::WebRtcSocket;

    use super::*;
    use crate::net::signaling::{
        JoinError, classify_socket_error, client_builder, no_ice_servers, room_url,
    };

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
            let server = bind(SocketAddr::from(([127, 0, 0, 1], 0)), None).unwrap();
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
