//! The client side of signaling: which URL a room lives at, a matchbox
//! socket builder set up for our server, and what its refusals mean.

use axum::http::StatusCode;
use matchbox_socket::{RtcIceServerConfig, WebRtcSocket, WebRtcSocketBuilder};

use super::{QUICK_PATH, RoomCode};

/// The URL a client connects to: `server` is `ws://host:port` (a trailing
/// slash is fine), `room` `None` for a quick match.
pub fn room_url(server: &str, room: Option<&RoomCode>) -> String {
    let base = server.trim_end_matches('/');
    match room {
        Some(code) => format!("{base}/{}", code.canonical()),
        None => format!("{base}/{QUICK_PATH}"),
    }
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
