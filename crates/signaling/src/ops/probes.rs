//! The probes an orchestrator asks, with Kubernetes' meanings:
//!
//! - `GET /livez`: the process serves. 200 as long as it answers at all,
//!   draining included: a liveness probe that failed during a drain would
//!   get the pod killed in the middle of the matches it is letting finish.
//! - `GET /readyz`: send new players here. 503 while draining, so load
//!   balancers (HAProxy's health check, a Kubernetes Service) move new
//!   rooms elsewhere; 200 otherwise. The server has no global client limit
//!   (only `--max-per-address`, which concerns one address, not the node),
//!   so draining is the one state in which it cannot admit players.
//! - `GET /healthz`: the same as `/readyz`, kept for one release for the
//!   load balancers and scripts that ask it; deprecated.

use std::sync::atomic::Ordering;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;

use crate::http::reply::plain;
use crate::http::shared::Shared;

pub(crate) async fn livez() -> Response {
    plain(StatusCode::OK, "ok\n")
}

pub(crate) async fn readyz(State(shared): State<Shared>) -> Response {
    match not_ready(&shared) {
        Some(why) => plain(StatusCode::SERVICE_UNAVAILABLE, format!("{why}\n")),
        None => plain(StatusCode::OK, "ok\n"),
    }
}

/// Why this node admits no new players now, if it does not.
fn not_ready(shared: &Shared) -> Option<&'static str> {
    shared.draining.load(Ordering::SeqCst).then_some("draining")
}
