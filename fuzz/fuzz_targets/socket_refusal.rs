//! What a client makes of a signaling server that refuses or closes:
//! `classify_socket_error` (what every connector calls when matchbox's
//! message loop ends) on an HTTP refusal with any status and body, and on
//! a close reason, as `native_client` reports them. A proxy's HTML page or
//! a hostile server's bytes must still give a one-line error of bounded
//! length, and our own server's refusals keep their meaning.
//!
//! Input: status (2 bytes, little-endian), flags (bit 0: the client named
//! room K7Q2XM; bit 1: a close reason instead of a refusal; bit 2: a
//! refusal without a body), then the body or reason.
#![no_main]

use libfuzzer_sys::fuzz_target;
use matchbox_socket::{Error, SignalingError};
use twinstar_netcode::RoomCode;
use twinstar_netcode::connect::JoinError;
use twinstar_netcode::testing::signaling::classify_socket_error;

/// What `native_client` appends to a close reason it reports.
const CLOSED_MARK: &str = " (closed by the server)";

fuzz_target!(|data: &[u8]| {
    let [lo, hi, flags, body @ ..] = data else {
        return;
    };
    let Ok(status) = http::StatusCode::from_u16(u16::from_le_bytes([*lo, *hi])) else {
        return;
    };
    let room = (flags & 1 == 1).then(|| RoomCode::parse("K7Q2XM").expect("a code"));
    let error = if flags & 2 == 0 {
        let mut response = http::Response::new((flags & 4 == 0).then(|| body.to_vec()));
        *response.status_mut() = status;
        Error::ConnectionFailed(SignalingError::WebSocket(tungstenite::Error::Http(
            Box::new(response),
        )))
    } else {
        let reason = String::from_utf8_lossy(body);
        Error::Disconnected(SignalingError::UserImplementationError(format!(
            "{reason}{CLOSED_MARK}"
        )))
    };
    let explained = classify_socket_error(&error, room.as_ref());
    let message = explained.to_string();
    assert!(!message.contains(char::is_control), "{message:?}");
    assert!(
        message.chars().count() <= 600,
        "{} chars",
        message.chars().count()
    );
    // Our server's words keep their meaning; the room is named as the
    // client spelled it when it named one, else as the server did.
    if flags & 6 == 0 && status == 409 && body == b"room K7Q2XM is full" {
        let expected = if flags & 1 == 1 { "K7Q-2XM" } else { "K7Q2XM" };
        assert!(
            matches!(&explained, JoinError::RoomFull(name) if name == expected),
            "{explained}"
        );
    }
});
