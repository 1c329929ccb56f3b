//! Live tests of the signaling server: real sockets on loopback, matchbox
//! clients and raw websockets, every one bounded by [`LIVE_LIMIT`].
use web_time::Duration;

use matchbox_protocol::PeerId;
use matchbox_socket::WebRtcSocket;

use crate::net::signaling::{
    JoinError, classify_socket_error, client_builder, no_ice_servers, room_url,
};
use std::net::SocketAddr;
use tokio::sync::oneshot;
use twinstar_signaling::*;
use web_time::Instant;

use matchbox_socket::{MessageLoopFuture, PeerState};
use tokio::time::{sleep, timeout};

/// Everything a live test does must finish well within this.
const LIVE_LIMIT: Duration = Duration::from_secs(40);

struct TestServer {
    base: String,
    /// `http://ADDR/metrics`: its metrics listener's (the public port
    /// answers /metrics with 404).
    metrics: String,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Result<(), ServerError>>,
    state: RoomState,
}

impl TestServer {
    fn start() -> Self {
        Self::start_with(ServeOptions::new(None))
    }

    fn start_with(mut options: ServeOptions) -> Self {
        options.metrics.bind = Some(SocketAddr::from(([127, 0, 0, 1], 0)));
        let server = bind_with(SocketAddr::from(([127, 0, 0, 1], 0)), options).unwrap();
        let base = format!("ws://{}", server.local_addr());
        let metrics = format!("http://{}/metrics", server.metrics_addr().unwrap());
        let state = server.state();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(server.serve(async {
            let _ = stopped.await;
        }));
        TestServer {
            base,
            metrics,
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

/// A raw websocket client (no WebRTC): what a silent or greedy client is.
type Raw =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn raw(url: &str) -> Result<Raw, tokio_tungstenite::tungstenite::Error> {
    tokio_tungstenite::connect_async(url)
        .await
        .map(|(ws, _)| ws)
}

/// The HTTP status of a refused upgrade.
fn refused_status(e: &tokio_tungstenite::tungstenite::Error) -> Option<u16> {
    match e {
        tokio_tungstenite::tungstenite::Error::Http(r) => Some(r.status().as_u16()),
        _ => None,
    }
}

/// A plain HTTP GET (status, body) with ureq, off the runtime's threads.
async fn http_get(url: String) -> (u16, String) {
    tokio::task::spawn_blocking(move || {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        let mut r = agent.get(&url).call().unwrap();
        (r.status().as_u16(), r.body_mut().read_to_string().unwrap())
    })
    .await
    .unwrap()
}

fn http_base(ws_base: &str) -> String {
    ws_base.replacen("ws://", "http://", 1)
}

/// A quick-match ticket's round trip to the server: loopback, so a few ms
/// at most; none when nothing answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_round_trip_to_the_server_is_measured() {
    timeout(LIVE_LIMIT, async {
        let server = TestServer::start();
        let base = server.base.clone();
        let rtt = tokio::task::spawn_blocking(move || super::round_trip_ms(&base))
            .await
            .unwrap();
        assert!(rtt.is_some_and(|ms| (1..1000).contains(&ms)), "{rtt:?}");
        let nobody = tokio::task::spawn_blocking(|| super::round_trip_ms("ws://127.0.0.1:9"))
            .await
            .unwrap();
        assert_eq!(nobody, None);
        server.stop().await;
    })
    .await
    .expect("test timed out");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_metrics_and_ice_offers_answer_plain_gets() {
    timeout(LIVE_LIMIT, async {
        let mut options = ServeOptions::new(None);
        options.ice = twinstar_signaling::turn::IcePolicy::new(
            vec!["stun:198.51.100.1:3478".into()],
            vec!["turn:198.51.100.1:3478?transport=udp".into()],
            twinstar_signaling::turn::TurnSecret::new("north"),
            Duration::from_secs(3600),
        )
        .unwrap();
        let server = TestServer::start_with(options);
        let http = http_base(&server.base);
        assert_eq!(
            http_get(format!("{http}/healthz")).await,
            (200, "ok\n".into())
        );

        let (status, body) = http_get(format!("{http}/ice")).await;
        assert_eq!(status, 200, "{body}");
        let offer: crate::net::ice::IceOffer = serde_json::from_str(&body).unwrap();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let expires = offer.expires.unwrap();
        assert!(
            (now + 3590..=now + 3610).contains(&expires),
            "{expires} vs {now}"
        );
        let user = offer.username.clone().unwrap();
        assert!(user.starts_with(&format!("{expires}:")), "{user}");
        let secret = twinstar_signaling::turn::TurnSecret::new("north").unwrap();
        let name = user.split_once(':').unwrap().1;
        assert_eq!(
            offer.credential.as_deref(),
            Some(
                twinstar_signaling::turn::turn_rest_credential(&secret, name, expires)
                    .1
                    .as_str()
            )
        );
        // Two clients get two names.
        let (_, second) = http_get(format!("{http}/ice")).await;
        assert_ne!(second, body);

        // A pair in a room, then the counters.
        let code = RoomCode::parse("K7Q2XM").unwrap();
        let url = room_url(&server.base, Some(&code));
        let a = raw(&url).await.unwrap();
        let b = raw(&url).await.unwrap();
        let refused = raw(&url).await.unwrap_err();
        assert_eq!(refused_status(&refused), Some(409));
        sleep(Duration::from_millis(200)).await;
        assert_eq!(http_get(format!("{http}/metrics")).await.0, 404);
        let (status, metrics) = http_get(server.metrics.clone()).await;
        assert_eq!(status, 200);
        assert_eq!(sample(&metrics, "twinstar_clients"), Some(2.0), "{metrics}");
        assert_eq!(
            sample(&metrics, r#"twinstar_rooms{state="full"}"#),
            Some(1.0)
        );
        assert_eq!(
            sample(&metrics, "twinstar_matches_started_total"),
            Some(1.0)
        );
        assert_eq!(
            sample(&metrics, r#"twinstar_refusals_total{reason="room_full"}"#),
            Some(1.0)
        );
        assert_eq!(
            sample(&metrics, "twinstar_turn_credentials_issued_total"),
            Some(2.0)
        );
        // IdAssigned to each, NewPeer to the first.
        assert!(sample(&metrics, r#"twinstar_ws_messages_total{direction="out"}"#) >= Some(3.0));
        assert!(!metrics.contains("north"), "the secret never shows");
        drop((a, b));
        server.stop().await;
    })
    .await
    .expect("test timed out");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_client_loses_its_seat_and_the_room_takes_a_new_pair() {
    timeout(LIVE_LIMIT, async {
        let mut options = ServeOptions::new(None);
        options.idle_timeout = Duration::from_secs(3);
        let server = TestServer::start_with(options);
        let code = RoomCode::parse("Q4R7VXK").unwrap();
        let url = room_url(&server.base, Some(&code));
        // Two clients that open the room and then never read again: they
        // answer no ping (tungstenite answers only while read).
        let silent = [raw(&url).await.unwrap(), raw(&url).await.unwrap()];
        let started = Instant::now();
        assert_eq!(refused_status(&raw(&url).await.unwrap_err()), Some(409));
        while server.state.members_of(&code) > 0 {
            assert!(
                started.elapsed() < Duration::from_secs(8),
                "seats not freed"
            );
            sleep(Duration::from_millis(100)).await;
        }
        let freed = started.elapsed();
        assert!(
            freed >= Duration::from_secs(2),
            "freed too early: {freed:?}"
        );
        // A real pair now meets there.
        let (mut a, _la) = client(&url);
        let (mut b, _lb) = client(&url);
        until_paired(&mut [&mut a, &mut b]).await;
        // A client that reads (and so answers pings) keeps its seat past the limit.
        sleep(Duration::from_secs(4)).await;
        let _ = a.try_update_peers();
        assert_eq!(a.connected_peers().count(), 1);
        assert_eq!(server.state.members_of(&code), 2);
        drop((silent, a, b));
        server.stop().await;
    })
    .await
    .expect("test timed out");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_holds_at_most_its_share_of_websockets() {
    timeout(LIVE_LIMIT, async {
        let mut options = ServeOptions::new(None);
        options.max_per_address = 2;
        let server = TestServer::start_with(options);
        let x = room_url(&server.base, Some(&RoomCode::parse("XXXXXXX").unwrap()));
        let y = room_url(&server.base, Some(&RoomCode::parse("YYYYYYY").unwrap()));
        let first = raw(&x).await.unwrap();
        let second = raw(&y).await.unwrap();
        let third = raw(&y).await.unwrap_err();
        assert_eq!(refused_status(&third), Some(429), "{third}");
        drop(first);
        // Its share comes back once the server has seen it leave.
        let started = Instant::now();
        let again = loop {
            match raw(&y).await {
                Ok(ws) => break ws,
                Err(_) if started.elapsed() < Duration::from_secs(5) => {
                    sleep(Duration::from_millis(100)).await
                }
                Err(e) => panic!("share not returned: {e}"),
            }
        };
        drop((second, again));
        server.stop().await;
    })
    .await
    .expect("test timed out");
}

/// Reads a raw client's messages until the server closes it; the close
/// frame's code and reason.
async fn read_until_closed(ws: &mut Raw) -> Option<(u16, String)> {
    use futures::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    while let Some(message) = ws.next().await {
        if let Ok(Message::Close(frame)) = message {
            return frame.map(|f| (u16::from(f.code), f.reason.to_string()));
        }
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draining_tells_the_waiting_refuses_newcomers_and_ends_with_the_rooms() {
    timeout(LIVE_LIMIT, async {
        let mut options = ServeOptions::new(None);
        options.drain_timeout = Duration::from_secs(30);
        let server = TestServer::start_with(options);
        let http = http_base(&server.base);
        let waiting_url = room_url(&server.base, Some(&RoomCode::parse("WWWWWWW").unwrap()));
        let playing_url = room_url(&server.base, Some(&RoomCode::parse("PPPPPPP").unwrap()));
        let mut waiting = raw(&waiting_url).await.unwrap();
        // A pair that keeps reading (answers pings): a match in progress.
        let pair: Vec<_> = [
            raw(&playing_url).await.unwrap(),
            raw(&playing_url).await.unwrap(),
        ]
        .into_iter()
        .map(|mut ws| tokio::spawn(async move { read_until_closed(&mut ws).await }))
        .collect();
        sleep(Duration::from_millis(200)).await;

        let TestServer {
            stop, task, state, ..
        } = server;
        let _ = stop.unwrap().send(());
        let (code, reason) = read_until_closed(&mut waiting)
            .await
            .expect("a close frame");
        assert_eq!(code, 1012);
        assert!(reason.contains("restarting"), "{reason}");
        assert_eq!(http_get(format!("{http}/healthz")).await.0, 503);
        let refused = raw(&room_url(&http.replacen("http", "ws", 1), None))
            .await
            .unwrap_err();
        assert_eq!(refused_status(&refused), Some(503));
        assert!(!task.is_finished(), "a match is still in a room");
        assert_eq!(state.members_of(&RoomCode::parse("PPPPPPP").unwrap()), 2);
        // The match ends: the server goes, long before its drain timeout.
        let ended = Instant::now();
        for p in pair {
            p.abort();
        }
        task.await.unwrap().unwrap();
        assert!(
            ended.elapsed() < Duration::from_secs(5),
            "{:?}",
            ended.elapsed()
        );
    })
    .await
    .expect("test timed out");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_finishes_its_request_is_cut_off() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    timeout(LIVE_LIMIT, async {
        let mut options = ServeOptions::new(None);
        options.handshake_timeout = Duration::from_secs(1);
        let server = TestServer::start_with(options);
        let addr = server.base.trim_start_matches("ws://").to_owned();
        // Half a request, then nothing: a slow-loris client.
        let mut slow = tokio::net::TcpStream::connect(&addr).await.unwrap();
        slow.write_all(b"GET /K7Q2XM HTTP/1.1\r\nHost: x\r\n")
            .await
            .unwrap();
        let started = Instant::now();
        let mut buf = [0u8; 512];
        // The server answers (408) or closes; either way the read ends.
        let n = timeout(Duration::from_secs(5), slow.read(&mut buf))
            .await
            .expect("the half-sent request was still open after 5 s")
            .unwrap_or(0);
        let cut = started.elapsed();
        assert!(cut >= Duration::from_millis(800), "cut after {cut:?}");
        let said = String::from_utf8_lossy(&buf[..n]);
        assert!(n == 0 || said.starts_with("HTTP/1.1 408"), "{said}");
        // Others are served meanwhile.
        let (_ok, _) = tokio_tungstenite::connect_async(format!("{}/K7Q2XM", server.base))
            .await
            .unwrap();
        server.stop().await;
    })
    .await
    .expect("test timed out");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_token_takes_a_stale_seat_back_at_once_and_nothing_else() {
    use crate::net::signaling::SeatToken;
    timeout(LIVE_LIMIT, async {
        let server = TestServer::start();
        let code = RoomCode::parse("S3ATTKN").unwrap();
        let url = room_url(&server.base, Some(&code));
        let (host, join) = (SeatToken::random(), SeatToken::random());
        let seat = |token: SeatToken| format!("{url}?seat={token}");
        // Two players that went silent (a cut: their websockets stay open).
        let _host = raw(&seat(host)).await.unwrap();
        let mut stale = raw(&seat(join)).await.unwrap();
        // Anyone else, a guessed token or a broken one, is refused.
        let refused = |r: Result<Raw, _>| refused_status(&r.unwrap_err());
        assert_eq!(refused(raw(&url).await), Some(409));
        assert_eq!(refused(raw(&seat(SeatToken::random())).await), Some(409));
        assert_eq!(refused(raw(&format!("{url}?seat=guess")).await), Some(400));
        // The joiner's new connection takes its seat back at once, without
        // waiting for the liveness limit; the stale one is closed.
        let started = Instant::now();
        let _fresh = raw(&seat(join)).await.unwrap();
        let (code_closed, reason) = read_until_closed(&mut stale).await.unwrap();
        assert_eq!(code_closed, 4000, "{reason}");
        assert!(started.elapsed() < Duration::from_secs(2));
        assert_eq!(server.state.members_of(&code), 2);
        let (status, metrics) = http_get(server.metrics.clone()).await;
        assert_eq!(status, 200);
        assert_eq!(
            sample(&metrics, "twinstar_seats_taken_back_total"),
            Some(1.0)
        );
        assert_eq!(
            sample(&metrics, "twinstar_refusals_total{reason=\"bad_seat\"}"),
            Some(1.0)
        );
        server.stop().await;
    })
    .await
    .expect("test timed out");
}

/// `GET /rooms` as JSON.
async fn rooms_page(http: &str, query: &str) -> (u16, String) {
    http_get(format!("{http}/rooms{query}")).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_public_room_is_listed_at_once_and_a_private_one_never() {
    timeout(LIVE_LIMIT, async {
        let server = TestServer::start();
        let http = http_base(&server.base);
        let public = "?public=1&name=Ana%20Mar%C3%ADa&version=6.3";
        let host = raw(&format!("{}/K7Q2XM{public}", server.base))
            .await
            .unwrap();
        let private = raw(&format!("{}/ABC2345?name=Bo&version=6.3", server.base))
            .await
            .unwrap();
        // Seated after the upgrade, on the server's task: give it a moment.
        let started = Instant::now();
        let page: crate::net::signaling::RoomsPage = loop {
            let (status, body) = rooms_page(&http, "").await;
            assert_eq!(status, 200, "{body}");
            let page: crate::net::signaling::RoomsPage = serde_json::from_str(&body).unwrap();
            if !page.rooms.is_empty() || started.elapsed() > Duration::from_secs(2) {
                break page;
            }
            sleep(Duration::from_millis(20)).await;
        };
        assert_eq!(page.rooms.len(), 1, "{page:?}");
        let room = &page.rooms[0];
        assert_eq!(
            (room.code.as_str(), room.host.as_str()),
            ("K7Q-2XM", "Ana María")
        );
        assert_eq!(room.state, crate::net::signaling::RoomStatus::Waiting);
        let join = raw(&format!("{}/K7Q2XM", server.base)).await.unwrap();
        let started = Instant::now();
        loop {
            let (_, body) = rooms_page(&http, "?version=6.3").await;
            if body.contains(r#""state":"playing""#) {
                break;
            }
            assert!(started.elapsed() < Duration::from_secs(2), "{body}");
            sleep(Duration::from_millis(20)).await;
        }
        let (_, other) = rooms_page(&http, "?version=6.2").await;
        assert_eq!(other, r#"{"rooms":[]}"#);
        let (status, bad) = rooms_page(&http, "?cursor=x").await;
        assert_eq!(status, 400, "{bad}");
        let (_, metrics) = http_get(server.metrics.clone()).await;
        assert_eq!(
            sample(&metrics, "twinstar_public_rooms"),
            Some(1.0),
            "{metrics}"
        );
        assert!(
            !metrics.contains("K7Q") && !metrics.contains("ABC"),
            "{metrics}"
        );
        // A public room needs a name and a version; a bad name is refused
        // before the upgrade, in one line.
        for bad in ["?public=1", "?public=1&name=Ana", "?name=%3Cb%3E"] {
            let e = raw(&format!("{}/XYZ2345{bad}", server.base))
                .await
                .unwrap_err();
            assert_eq!(refused_status(&e), Some(400), "{bad}: {e}");
        }
        drop((host, private, join));
        server.stop().await;
    })
    .await
    .expect("test timed out");
}
