//! The server's plain-text answers (a status and one line, never cached),
//! shared by the operator's endpoints (`server`) and a room's requests
//! (`room_requests`), and the status a refused client gets.

use axum::http::header::CACHE_CONTROL;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use twinstar_signaling_protocol::Refusal;

pub(crate) fn plain(status: StatusCode, body: impl Into<String>) -> Response {
    let mut r = (status, body.into()).into_response();
    r.headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// The HTTP status a refused client gets before its websocket upgrade.
pub fn refusal_status(refusal: &Refusal) -> StatusCode {
    match refusal {
        Refusal::RoomFull(_) | Refusal::TooManySpectators(_) => StatusCode::CONFLICT,
        Refusal::BadRoom(_)
        | Refusal::BadSeat(_)
        | Refusal::BadQuery(_)
        | Refusal::PublicNeedsName => StatusCode::BAD_REQUEST,
        Refusal::Kicked { .. } => StatusCode::FORBIDDEN,
    }
}
