//! Raw websocket clients of the signaling server, speaking matchbox's
//! protocol directly (no WebRTC): what a test needs to see who the server
//! introduces to whom.

use std::time::Duration;

use futures::StreamExt;
use matchbox_protocol::{JsonPeerEvent, PeerId};
use tokio::time::timeout;
use tokio_tungstenite::tungstenite::Message;

pub type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Connects and reads the id the server assigns.
pub async fn connect(url: &str) -> (Ws, PeerId) {
    let (mut ws, _) = tokio_tungstenite::connect_async(url)
        .await
        .unwrap_or_else(|e| panic!("connect to {url}: {e}"));
    match next_event(&mut ws, Duration::from_secs(10)).await {
        Some(JsonPeerEvent::IdAssigned(id)) => (ws, id),
        other => panic!("{url}: expected an id, got {other:?}"),
    }
}

pub async fn next_event(ws: &mut Ws, limit: Duration) -> Option<JsonPeerEvent> {
    loop {
        match timeout(limit, ws.next()).await {
            Ok(Some(Ok(Message::Text(text)))) => return text.as_str().parse().ok(),
            Ok(Some(Ok(_))) => continue,
            _ => return None,
        }
    }
}

/// Every `NewPeer` a client is told within `limit`.
pub async fn introductions(ws: &mut Ws, limit: Duration) -> Vec<PeerId> {
    let mut seen = Vec::new();
    let until = tokio::time::Instant::now() + limit;
    while let Ok(Some(event)) = timeout(
        until.saturating_duration_since(tokio::time::Instant::now()),
        next_event(ws, limit),
    )
    .await
    {
        if let JsonPeerEvent::NewPeer(peer) = event {
            seen.push(peer);
        }
    }
    seen
}
