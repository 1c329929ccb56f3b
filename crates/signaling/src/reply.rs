//! The server's plain-text answers (a status and one line, never cached),
//! shared by the operator's endpoints (`server`) and a room's requests
//! (`room_requests`).

use axum::http::header::CACHE_CONTROL;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

pub(crate) fn plain(status: StatusCode, body: impl Into<String>) -> Response {
    let mut r = (status, body.into()).into_response();
    r.headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}
