//! `POST /rooms/<CODE>/<action>`: what a room's members ask the server
//! beside their websocket (`twinstar_signaling_protocol`'s moderation
//! requests). The host's figures go into its listing, a kick closes a
//! spectator and bans it from the room (the registry decides both), a
//! report is appended to the reports file, and a player's connect report
//! goes into the metrics (`registry::connect_reports`). Each answer is a status and, when
//! refused, one line saying why; each is counted in `/metrics`.

use axum::body::Bytes;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use matchbox_protocol::PeerId;
use std::net::SocketAddr;
use tracing::{info, warn};
use web_time::Instant;

use crate::http::reply::plain;
use crate::http::shared::Shared;
use crate::ops::reports::ReportEntry;
use crate::rooms::limits::client_ip;
use crate::rooms::registry::{ModerationError, Reporter};
use twinstar_signaling_protocol::{
    ConnectReport, HostStats, KickRequest, ReportRequest, RoomAction, RoomCode, RoomRequestError,
    decode_room_request,
};

/// Why a room request was not done.
enum Refused {
    BadRequest(RoomRequestError),
    Registry(ModerationError),
    NoReports,
    Failed(String),
}

pub(crate) async fn room_request(
    State(shared): State<Shared>,
    ConnectInfo(peer_addr): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    uri: Uri,
    body: Bytes,
) -> Response {
    let Some((code, action)) = RoomAction::parse_path(uri.path()) else {
        return plain(
            StatusCode::NOT_FOUND,
            "no such room request (POST /rooms/CODE/stats, /kick, /report or /connected)\n",
        );
    };
    let result = match action {
        RoomAction::Stats => stats(&shared, &code, &body),
        RoomAction::Kick => kick(&shared, &code, &body),
        RoomAction::Report => report(&shared, &code, &body).await,
        RoomAction::Connected => connected(&shared, &code, &body),
    };
    let metrics = &shared.metrics;
    let why = match result {
        Ok(()) => {
            metrics.room_request(action.word(), "ok");
            return plain(StatusCode::NO_CONTENT, "");
        }
        Err(why) => why,
    };
    let ip = client_ip(peer_addr.ip(), &headers, shared.trust_forwarded);
    let (status, outcome, text) = match why {
        Refused::BadRequest(e) => (StatusCode::BAD_REQUEST, "bad_request", e.to_string()),
        Refused::Registry(e) => (
            StatusCode::from_u16(e.status()).unwrap_or(StatusCode::FORBIDDEN),
            "refused",
            e.to_string(),
        ),
        Refused::NoReports => (
            StatusCode::NOT_FOUND,
            "refused",
            "this server takes no reports (its operator did not give it --reports)".to_owned(),
        ),
        Refused::Failed(e) => (StatusCode::INTERNAL_SERVER_ERROR, "failed", e),
    };
    metrics.room_request(action.word(), outcome);
    info!(origin = %ip, room = %code, "{} refused: {text}", action.word());
    plain(status, format!("{text}\n"))
}

fn stats(shared: &Shared, code: &RoomCode, body: &[u8]) -> Result<(), Refused> {
    let stats: HostStats = decode_room_request(body).map_err(Refused::BadRequest)?;
    let figures = (stats.wave, stats.score, stats.elapsed_s);
    (shared.rooms.lock())
        .host_figures(code, stats.seat, figures, Instant::now())
        .map_err(Refused::Registry)
}

fn connected(shared: &Shared, code: &RoomCode, body: &[u8]) -> Result<(), Refused> {
    let report: ConnectReport = decode_room_request(body).map_err(Refused::BadRequest)?;
    let counted = (shared.rooms.lock())
        .connect_report(code, &report)
        .map_err(Refused::Registry)?;
    shared.metrics.connect_reported(counted);
    Ok(())
}

fn kick(shared: &Shared, code: &RoomCode, body: &[u8]) -> Result<(), Refused> {
    let kick: KickRequest = decode_room_request(body).map_err(Refused::BadRequest)?;
    let spectator = kick.spectator.parse::<uuid::Uuid>().map_err(|_| {
        Refused::Registry(ModerationError::NoSpectator(
            code.clone(),
            kick.spectator.clone(),
        ))
    })?;
    (shared.rooms.lock())
        .kick(code, kick.seat, PeerId(spectator), Instant::now())
        .map_err(Refused::Registry)?;
    info!(room = %code, peer = %spectator, "the host removed a spectator");
    Ok(())
}

async fn report(shared: &Shared, code: &RoomCode, body: &[u8]) -> Result<(), Refused> {
    let file = shared.reports.clone().ok_or(Refused::NoReports)?;
    let report: ReportRequest = decode_room_request(body).map_err(Refused::BadRequest)?;
    let reporter = (shared.rooms.lock())
        .may_report(code, report.seat, Instant::now())
        .map_err(Refused::Registry)?;
    let entry = ReportEntry {
        time_s: crate::rooms::clock::unix_now(),
        room: code.to_string(),
        reporter: match reporter {
            Reporter::Player(n) => format!("player {n}"),
            Reporter::Spectator => "spectator".to_owned(),
        },
        name: report.name,
        reason: report.reason,
        lines: report.lines,
    };
    let written = tokio::task::spawn_blocking(move || file.append(&entry)).await;
    match written {
        Ok(Ok(())) => {
            info!(room = %code, "report filed");
            Ok(())
        }
        Ok(Err(e)) => {
            warn!("could not write a report: {e}");
            Err(Refused::Failed(format!(
                "the server could not keep the report: {e}"
            )))
        }
        Err(e) => Err(Refused::Failed(format!(
            "the server could not keep the report: {e}"
        ))),
    }
}
