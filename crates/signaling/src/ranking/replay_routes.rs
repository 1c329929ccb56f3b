//! The HTTP side of ranked replays (`replays` says what they are):
//!
//! - `POST /replays[?score=N&wave=W]`, body = the `.tsr` bytes: 201
//!   `{"id","board","ranks":{"daily","week","all"},"score","wave"}`, or a
//!   refusal `{"reason"}` with 400 (not a replay, truncated, another
//!   version, rules, checksum, a claim that does not re-simulate, not a
//!   match this server hosted), 409 (that match is ranked already), 413
//!   (over [`MAX_UPLOAD_BYTES`]), 429 (too many uploads from one address or
//!   for one room) or 503 (the verifiers' queue is full). The optional
//!   `score` and `wave` are the host's claim (what its summary reported):
//!   when given they must equal the re-simulation's.
//! - `GET /replays/ID`: the stored bytes, 404 when unknown.
//! - `GET /leaderboard?board=daily|week|all&preset=NAME&cursor=C`.

use std::net::SocketAddr;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tracing::info;
use web_time::{Duration, Instant};

use crate::http::shared::Shared;
use crate::ranking::boards::{Board, Entry, date_text, parse_cursor, utc_date, versioned};
use crate::ranking::replay_state::{
    Replays, StoreError, UPLOADS_PER_ADDRESS, UPLOADS_PER_ROOM, take, unix_ms_now,
};
use crate::ranking::replays::{PoolError, VerifiedReplay, parse_claim};
use crate::rooms::limits::client_ip;
use crate::rooms::registry::HostedMatch;
use twinstar_signaling_protocol::Ranked;
use twinstar_signaling_protocol::RoomCode;

/// The largest upload taken (413 past it): about 27 hours of typical play
/// (a 10-minute match is about 25 KB).
pub use twinstar_signaling_protocol::MAX_UPLOAD_BYTES;

fn json_reply(status: StatusCode, body: serde_json::Value) -> Response {
    let mut r = (status, body.to_string()).into_response();
    let headers = r.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

fn refuse(status: StatusCode, reason: impl Into<String>) -> Response {
    json_reply(status, json!({ "reason": reason.into() }))
}

pub(crate) async fn upload(
    State(shared): State<Shared>,
    ConnectInfo(peer_addr): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    uri: Uri,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let Some(replays) = shared.replays.clone() else {
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "this server ranks no replays (it runs without a verifier)",
        );
    };
    let ip = client_ip(peer_addr.ip(), &headers, shared.trust_forwarded);
    let now = Instant::now();
    let rates = || replays.rates.lock().unwrap_or_else(|e| e.into_inner());
    if !take(&mut rates().addresses, ip, UPLOADS_PER_ADDRESS, now) {
        return refuse(
            StatusCode::TOO_MANY_REQUESTS,
            format!("more than {UPLOADS_PER_ADDRESS} uploads a minute from this address"),
        );
    }
    let bytes = match body {
        Ok(bytes) => bytes,
        Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            return refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the upload is over the {MAX_UPLOAD_BYTES}-byte limit"),
            );
        }
        Err(e) => return refuse(StatusCode::BAD_REQUEST, e.body_text()),
    };
    let claimed = match parse_claim(uri.query()) {
        Ok(claimed) => claimed,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, e),
    };
    let verified = match replays.pool.verify(bytes.clone()).await {
        Ok(verified) => verified,
        Err(PoolError::Full) => {
            return refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                "the verifiers are busy: try again in a moment",
            );
        }
        Err(PoolError::Refused(why)) => {
            info!(origin = %ip, "replay refused: {why}");
            return refuse(StatusCode::BAD_REQUEST, why);
        }
    };
    match rank(&shared, &replays, claimed, &verified, bytes, now).await {
        Ok(body) => json_reply(StatusCode::CREATED, body),
        Err((status, why)) => {
            info!(origin = %ip, "replay refused: {why}");
            refuse(status, why)
        }
    }
}

/// Checks a verified replay against the claim and the hosted matches, and
/// ranks it: the 201's body, or the refusal.
async fn rank(
    shared: &Shared,
    replays: &Replays,
    claim: (Option<u64>, Option<u32>),
    verified: &VerifiedReplay,
    bytes: Bytes,
    now: Instant,
) -> Result<serde_json::Value, (StatusCode, String)> {
    check_claim(claim, verified)?;
    let hosted = hosted_match(shared, replays, verified, now)?;
    let rate_ok = {
        let mut rates = replays.rates.lock().unwrap_or_else(|e| e.into_inner());
        take(&mut rates.rooms, hosted.room.clone(), UPLOADS_PER_ROOM, now)
    };
    if !rate_ok {
        return Err((
            StatusCode::TOO_MANY_REQUESTS,
            format!("more than {UPLOADS_PER_ROOM} uploads a minute for this room"),
        ));
    }
    // The match's two first seats: random ids, unique across restarts.
    let mut seats: Vec<String> = hosted.peers.iter().take(2).map(|p| p.to_string()).collect();
    seats.sort();
    let match_key = format!("{}/{}", hosted.room, seats.join("+"));
    let entry = entry_of(replays, verified, &hosted);
    let (id, date) = (entry.id.clone(), entry.date);
    let today = utc_date(unix_ms_now());
    let ranks = (replays.add(&match_key, entry, bytes.to_vec(), today).await)
        .map_err(store_failure)?
        .map_err(|_| {
            (
                StatusCode::CONFLICT,
                "that match is ranked already (one upload per match)".to_owned(),
            )
        })?;
    info!(id = %id, score = verified.score, wave = verified.wave, date = %date_text(date), "replay ranked");
    let ranked = Ranked {
        id,
        board: verified.preset.clone(),
        ranks,
        score: verified.score,
        wave: verified.wave,
    };
    Ok(serde_json::to_value(ranked).expect("a Ranked is JSON"))
}

/// The upload's claimed score and wave, if it gave them, must be what the
/// replay re-simulates to: a client that disagrees with the server is
/// told so rather than ranked with a figure it did not show its player.
fn check_claim(
    (score, wave): (Option<u64>, Option<u32>),
    verified: &VerifiedReplay,
) -> Result<(), (StatusCode, String)> {
    if let Some(claimed) = score.filter(|s| *s != verified.score) {
        return Err(bad(format!(
            "score mismatch: the upload claims {claimed}, the replay re-simulates to {}",
            verified.score
        )));
    }
    if let Some(claimed) = wave.filter(|w| *w != verified.wave) {
        return Err(bad(format!(
            "wave mismatch: the upload claims {claimed}, the replay re-simulates to {}",
            verified.wave
        )));
    }
    Ok(())
}

/// The match this server hosted that the replay is of (its room and
/// peers), and no longer than that room was open: only a match played
/// here is ranked, so a replay cannot be made up offline.
fn hosted_match(
    shared: &Shared,
    replays: &Replays,
    verified: &VerifiedReplay,
    now: Instant,
) -> Result<HostedMatch, (StatusCode, String)> {
    let room = match &verified.room {
        Some(text) => Some(
            RoomCode::parse(text)
                .map_err(|e| bad(format!("the replay's room: {e}")))?
                .canonical()
                .to_owned(),
        ),
        None => None,
    };
    let hosted = (shared.rooms.lock())
        .hosted_match(room.as_deref(), &verified.peers)
        .ok_or_else(|| {
            bad("not a match this server hosted (its room and peers are unknown here)".into())
        })?;
    let played =
        Duration::from_millis(u64::from(verified.frames) * 1000 / u64::from(verified.fps.max(1)));
    let lifetime = hosted.lifetime(now);
    if played > lifetime + replays.lifetime_slack {
        return Err(bad(format!(
            "the replay lasts {} s, longer than its room was open ({} s)",
            played.as_secs(),
            lifetime.as_secs()
        )));
    }
    Ok(hosted)
}

/// A 400 and its reason.
fn bad(why: String) -> (StatusCode, String) {
    (StatusCode::BAD_REQUEST, why)
}

/// The board entry for a ranked replay, under a new id: dated by the day
/// its room opened (UTC), and a daily run when it played that day's seed
/// on the default preset.
fn entry_of(replays: &Replays, verified: &VerifiedReplay, hosted: &HostedMatch) -> Entry {
    let date = utc_date(replays.unix_ms(hosted.opened));
    let verifier = replays.pool.verifier();
    let daily = verified.preset == verifier.default_preset()
        && verified.seed == verifier.daily_seed(date.year(), u8::from(date.month()), date.day());
    Entry {
        id: new_id(),
        // Numbered by the store, in upload order.
        seq: 0,
        names: verified.names.clone(),
        score: verified.score,
        wave: verified.wave,
        frames: verified.frames,
        fps: verified.fps,
        preset: versioned(&verified.preset, verifier.rules_version()),
        date,
        daily,
    }
}

/// A store's failure as a reply's status and reason: Redis not answering
/// is a 503 (try again), a database refusing a 500.
fn store_failure(e: StoreError) -> (StatusCode, String) {
    match e {
        StoreError::Refused(why) => (StatusCode::INTERNAL_SERVER_ERROR, why),
        StoreError::Unavailable(why) => (StatusCode::SERVICE_UNAVAILABLE, why),
    }
}

/// A replay's id: 12 random url-safe characters (no padding, no `/`).
fn new_id() -> String {
    use rand::Rng;
    const ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let mut rng = rand::thread_rng();
    (0..12)
        .map(|_| ALPHABET[rng.gen_range(0..ALPHABET.len())] as char)
        .collect()
}

pub(crate) async fn download(State(shared): State<Shared>, Path(id): Path<String>) -> Response {
    let bytes = match &shared.replays {
        Some(replays) => match replays.bytes(&id).await {
            Ok(bytes) => bytes,
            Err(e) => {
                let (status, why) = store_failure(e);
                return refuse(status, why);
            }
        },
        None => None,
    };
    let Some(bytes) = bytes else {
        return refuse(
            StatusCode::NOT_FOUND,
            format!(
                "no replay '{}' here",
                id.chars().take(40).collect::<String>()
            ),
        );
    };
    let mut r = (StatusCode::OK, bytes).into_response();
    let headers = r.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    // A replay never changes once ranked.
    headers.insert(
        CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=86400, immutable"),
    );
    r
}

/// `board`, `preset` and `cursor` from a leaderboard query.
fn board_query(query: Option<&str>) -> Result<(Board, Option<String>, Option<String>), String> {
    let (mut board, mut preset, mut cursor) = (None, None, None);
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let slot = match name {
            "board" => {
                let b = Board::parse(value)
                    .ok_or_else(|| format!("no board '{value}' (daily, week or all)"))?;
                board = Some(b);
                continue;
            }
            "preset" => &mut preset,
            "cursor" => &mut cursor,
            _ => {
                return Err(format!(
                    "unknown query parameter '{name}' (board, preset, cursor)"
                ));
            }
        };
        *slot = Some(value.chars().take(64).collect());
    }
    Ok((board.unwrap_or(Board::All), preset, cursor))
}

pub(crate) async fn leaderboard(State(shared): State<Shared>, uri: Uri) -> Response {
    let (board, preset, cursor) = match board_query(uri.query()) {
        Ok(q) => q,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, e),
    };
    let after = match cursor.as_deref().map(parse_cursor) {
        Some(None) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                "invalid cursor (pass the 'next' of an earlier answer)",
            );
        }
        Some(after) => after,
        None => None,
    };
    let Some(replays) = &shared.replays else {
        return json_reply(
            StatusCode::OK,
            json!({"board": board.word(), "entries": [], "next": null}),
        );
    };
    let verifier = replays.pool.verifier();
    let preset = preset.unwrap_or_else(|| verifier.default_preset().to_owned());
    // Today's rules' boards (an entry's preset carries its version).
    let preset = versioned(&preset, verifier.rules_version());
    let page = match (replays.page(board, &preset, utc_date(unix_ms_now()), after)).await {
        Ok(page) => page,
        Err(e) => {
            let (status, why) = store_failure(e);
            return refuse(status, why);
        }
    };
    json_reply(
        StatusCode::OK,
        serde_json::to_value(page).unwrap_or_default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_and_board_queries_parse_or_say_why() {
        assert_eq!(
            parse_claim(Some("score=12&wave=3")),
            Ok((Some(12), Some(3)))
        );
        assert_eq!(parse_claim(None), Ok((None, None)));
        assert!(
            parse_claim(Some("score=x"))
                .unwrap_err()
                .contains("not a number")
        );
        assert!(parse_claim(Some("bonus=1")).is_err());
        assert_eq!(
            parse_claim(Some("score=5&wave=1&room=K7Q2XM")),
            Ok((Some(5), Some(1)))
        );
        let (board, preset, cursor) = board_query(Some("board=week&preset=stress")).unwrap();
        assert_eq!(
            (board, preset.as_deref(), cursor),
            (Board::Week, Some("stress"), None)
        );
        assert!(
            board_query(Some("board=month"))
                .unwrap_err()
                .contains("no board")
        );
    }
}
