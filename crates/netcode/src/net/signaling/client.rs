//! The client side of signaling: which URL a room lives at, a matchbox
//! socket builder set up for our server, and what its refusals mean.

use matchbox_socket::{RtcIceServerConfig, WebRtcSocket, WebRtcSocketBuilder};

use super::RoomCode;

/// A matchbox socket builder for a room URL, set up the way our clients need:
/// one connection attempt (matchbox's default of three, 3 s apart, would
/// delay a "room is full" by 6 s; our refusals are final) and the given ICE
/// servers (pass `no_ice_servers` on loopback and LAN tests). Natively
/// the websocket is ours (`native_client`): `wss://` checked
/// against the system's roots and `SSL_CERT_FILE`, and the server's reason
/// kept when it closes.
pub fn client_builder(url: &str, ice: RtcIceServerConfig) -> WebRtcSocketBuilder {
    let builder = WebRtcSocket::builder(url)
        .ice_server(ice)
        .reconnect_attempts(Some(1));
    super::platform::with_signaller(builder)
}

/// An empty ICE server list: host candidates only, which is all loopback
/// needs (matchbox's default points at public STUN servers).
#[cfg(test)]
pub(crate) fn no_ice_servers() -> RtcIceServerConfig {
    crate::net::ice::to_matchbox(&crate::net::ice::IceServers::default())
}

/// Why a client could not get into its room, for the user.
#[derive(Debug, thiserror::Error)]
pub enum JoinError {
    /// Exit 2: the user asked for a room that cannot take them.
    #[error("room {0} is full")]
    RoomFull(String),
    /// Exit 2: a spectator of a room that has all the spectators it takes.
    #[error("room {0} already has {n} spectators", n = super::MAX_SPECTATORS)]
    TooManySpectators(String),
    /// The server refused the room for another reason.
    #[error("the signaling server refused the room ({status}): {reason}")]
    Refused {
        /// The HTTP status of the refusal.
        status: u16,
        /// The server's words.
        reason: String,
    },
    /// No signaling server answered at the address.
    #[error("could not reach the signaling server: {0}")]
    Unreachable(String),
    /// Exit 2: a wss:// server whose certificate this machine does not trust.
    #[error(
        "the signaling server's TLS certificate is not trusted here ({0}); if a private CA signed it, set SSL_CERT_FILE to that CA's PEM file"
    )]
    Untrusted(String),
    /// The connection to the signaling server broke.
    #[error("lost the signaling server: {0}")]
    Disconnected(String),
    /// The server closed the connection and said why (it is restarting).
    #[error("the signaling server closed the connection: {0}")]
    Closed(String),
}

/// The longest piece of a server's text an error message quotes.
const MAX_QUOTED_CHARS: usize = 200;

/// A room request's answer (status and text): `Ok` for a 2xx, else what
/// the server said (quoted by the caller: [`quote_server_text`]), or the
/// status when it said nothing.
pub(crate) fn accepted_or_text(status: u16, text: String) -> Result<(), String> {
    if (200..300).contains(&status) {
        return Ok(());
    }
    Err(if text.trim().is_empty() {
        format!("HTTP {status}")
    } else {
        text
    })
}

/// Text a server sent (a refusal's body, a close reason), made fit for a
/// one-line error: control characters and runs of whitespace become one
/// space, and it is cut at `MAX_QUOTED_CHARS`. A proxy in front of the
/// server answers with a whole HTML page; a hostile server with anything.
pub(crate) fn quote_server_text(text: &str) -> String {
    let mut out = String::new();
    let words = text
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty());
    for word in words {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > MAX_QUOTED_CHARS {
            let cut: String = out.chars().take(MAX_QUOTED_CHARS).collect();
            return format!("{}...", cut.trim_end());
        }
    }
    out
}

/// Explains the error a matchbox socket's message loop ended with. `room`
/// is the code the client asked for (names the room in "room X is full").
/// Whatever the server said is quoted on one line (`quote_server_text`).
pub fn classify_socket_error(error: &matchbox_socket::Error, room: Option<&RoomCode>) -> JoinError {
    match classify(error, room) {
        JoinError::RoomFull(name) => JoinError::RoomFull(quote_server_text(&name)),
        JoinError::TooManySpectators(name) => {
            JoinError::TooManySpectators(quote_server_text(&name))
        }
        JoinError::Refused { status, reason } => JoinError::Refused {
            status,
            reason: quote_server_text(&reason),
        },
        JoinError::Unreachable(e) => JoinError::Unreachable(quote_server_text(&e)),
        JoinError::Untrusted(e) => JoinError::Untrusted(quote_server_text(&e)),
        JoinError::Disconnected(e) => JoinError::Disconnected(quote_server_text(&e)),
        JoinError::Closed(reason) => JoinError::Closed(quote_server_text(&reason)),
    }
}

fn classify(error: &matchbox_socket::Error, room: Option<&RoomCode>) -> JoinError {
    use matchbox_socket::Error;
    // Natively the refused upgrade's status and body are readable, and
    // our websocket keeps the server's reason for closing; a browser's
    // WebSocket hides both (it reports only a failure).
    if let Some(refused) = super::platform::refusal(error, room) {
        return refused;
    }
    match error {
        Error::ConnectionFailed(e) if e.to_string().contains("certificate") => {
            JoinError::Untrusted(e.to_string())
        }
        Error::ConnectionFailed(e) => JoinError::Unreachable(e.to_string()),
        Error::Disconnected(e) => JoinError::Disconnected(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_servers_text_is_quoted_on_one_line_and_cut() {
        let page = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
        assert_eq!(
            quote_server_text(page),
            "<html> <head><title>502 Bad Gateway</title></head> <body> <center><h1>502 Bad Gateway</h1></center> <hr><center>nginx</center> </body> </html>"
        );
        assert_eq!(
            quote_server_text("room K7Q2XM is full"),
            "room K7Q2XM is full"
        );
        assert_eq!(
            quote_server_text("a\u{1b}[31mred\0b\u{85}c"),
            "a [31mred b c"
        );
        let long = quote_server_text(&"word ".repeat(100));
        assert!(long.chars().count() <= MAX_QUOTED_CHARS + 3, "{long}");
        assert!(long.ends_with("..."));
        assert_eq!(quote_server_text(" \n\t "), "");
    }
}
