//! What a room's members ask its server for beside their websocket, over
//! plain HTTP (matchbox's websocket protocol carries signals and nothing
//! else): the host's match figures for the room list, the host removing a
//! spectator, and anyone in the room reporting someone in it. Each request
//! is a `POST /rooms/<CODE>/<action>` with a JSON body that carries the
//! seat token its sender presented on joining: only a client seated in that
//! room can act in it, and only its host can list figures or remove anyone.
//!
//! Everything here is checked for range and size before it is used; the
//! figures are for display and never trusted for anything else.

use serde::{Deserialize, Serialize};

use crate::{MAX_LEVEL, RoomCode, SeatToken};

/// The largest request body the server reads: a report's 50 lines of
/// [`MAX_REPORT_LINE_CHARS`] characters of up to 4 bytes, with room for
/// JSON's quoting, and the rest far smaller.
pub const MAX_ROOM_REQUEST_BYTES: usize = 64 * 1024;
/// The most chat lines a report carries (the room's last ones).
pub const MAX_REPORT_LINES: usize = 50;
/// The longest line a report carries: a sender's name, `: ` and a chat line.
pub const MAX_REPORT_LINE_CHARS: usize = 200;
/// The longest reason a reporter may give.
pub const MAX_REASON_CHARS: usize = 200;
/// The longest name a report or a kick may point at (a display name, with
/// ` (2)` for a second one of the same name, or `P1`, `S3`).
pub const MAX_TARGET_CHARS: usize = 24;
/// The highest score a host may report.
pub const MAX_SCORE: u64 = 1_000_000_000_000;
/// The longest match a host may report, in seconds: a day.
pub const MAX_ELAPSED_S: u32 = 86_400;
/// The longest peer id a kick may carry (matchbox's are UUIDs, 36 bytes).
pub const MAX_PEER_ID_BYTES: usize = 64;

/// What a room request asks for: the last part of its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoomAction {
    /// [`HostStats`]: the host's match figures, at most once a second.
    Stats,
    /// [`KickRequest`]: the host removes a spectator.
    Kick,
    /// [`ReportRequest`]: a member reports someone in the room.
    Report,
    /// [`crate::ConnectReport`]: a player says how its match connected
    /// (once per match). An older server answers 404; the client lets it be.
    Connected,
}

impl RoomAction {
    /// Every action.
    pub const ALL: [RoomAction; 4] = [
        RoomAction::Stats,
        RoomAction::Kick,
        RoomAction::Report,
        RoomAction::Connected,
    ];

    /// The last part of its path, and its label in `/metrics`.
    pub fn word(self) -> &'static str {
        match self {
            RoomAction::Stats => "stats",
            RoomAction::Kick => "kick",
            RoomAction::Report => "report",
            RoomAction::Connected => "connected",
        }
    }

    /// The path of this action in room `code`: `/rooms/K7Q2XM/kick`.
    pub fn path(self, code: &RoomCode) -> String {
        format!("{}/{}/{}", crate::ROOMS_PATH, code.canonical(), self.word())
    }

    /// The room and action a path names, if it names one.
    pub fn parse_path(path: &str) -> Option<(RoomCode, RoomAction)> {
        let rest = path.strip_prefix(crate::ROOMS_PATH)?.strip_prefix('/')?;
        let (code, word) = rest.split_once('/')?;
        let action = RoomAction::ALL.into_iter().find(|a| a.word() == word)?;
        Some((RoomCode::parse(code).ok()?, action))
    }
}

/// Why a room request's body was refused, in one line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RoomRequestError {
    /// The body is too large, not JSON, or not this request's fields.
    #[error("the request is not valid JSON of its kind: {0}")]
    Json(String),
    /// A number field (named) is over its maximum (given).
    #[error("'{0}' must be at most {1}")]
    OutOfRange(&'static str, u64),
    /// A text field (named) is empty, longer than its maximum (given) or
    /// holds a control character.
    #[error("'{0}' must be 1 to {1} printable characters")]
    Text(&'static str, usize),
    /// A report with more than [`MAX_REPORT_LINES`] chat lines.
    #[error("a report carries at most {MAX_REPORT_LINES} lines")]
    TooManyLines,
}

/// A host's figures for its room's listing: sent at most once a second
/// while its public room plays.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostStats {
    /// The seat token the sender joined the room with (its proof of seat).
    pub seat: SeatToken,
    /// The match's wave (at most [`MAX_LEVEL`]).
    pub wave: u32,
    /// The match's score (at most [`MAX_SCORE`]).
    pub score: u64,
    /// Seconds the match has run (at most [`MAX_ELAPSED_S`]).
    pub elapsed_s: u32,
}

/// The host removes one of its spectators (by its peer id, which the host
/// learnt when the server introduced it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KickRequest {
    /// The seat token the sender joined the room with (its proof of seat).
    pub seat: SeatToken,
    /// The spectator's peer id, as the server introduced it.
    pub spectator: String,
}

/// A member reports someone in the room: who, why, and the room's last
/// chat lines as the reporter saw them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportRequest {
    /// The seat token the sender joined the room with (its proof of seat).
    pub seat: SeatToken,
    /// Who is reported, as the reporter's client shows them (at most
    /// [`MAX_TARGET_CHARS`]).
    pub name: String,
    /// Why, in the reporter's words (at most [`MAX_REASON_CHARS`]).
    pub reason: String,
    /// The room's last chat lines, as the reporter saw them (at most
    /// [`MAX_REPORT_LINES`] of [`MAX_REPORT_LINE_CHARS`]).
    pub lines: Vec<String>,
}

/// Printable text of 1 to `max` characters (no control characters, so a
/// line of a report stays one line wherever it is shown).
fn text(field: &'static str, value: &str, max: usize) -> Result<(), RoomRequestError> {
    let chars = value.chars().count();
    if chars == 0 || chars > max || value.chars().any(char::is_control) {
        return Err(RoomRequestError::Text(field, max));
    }
    Ok(())
}

fn at_most(field: &'static str, value: u64, max: u64) -> Result<(), RoomRequestError> {
    if value > max {
        return Err(RoomRequestError::OutOfRange(field, max));
    }
    Ok(())
}

/// Decodes a request body of type `T` and checks it ([`Checked`]).
pub fn decode_room_request<T>(body: &[u8]) -> Result<T, RoomRequestError>
where
    T: Checked + for<'de> Deserialize<'de>,
{
    if body.len() > MAX_ROOM_REQUEST_BYTES {
        return Err(RoomRequestError::Json(format!(
            "{} bytes is over the {MAX_ROOM_REQUEST_BYTES}-byte limit",
            body.len()
        )));
    }
    let request: T = serde_json::from_slice(body).map_err(|e| {
        // serde's message names the field; its position is noise here.
        let text = e.to_string();
        RoomRequestError::Json(text.split(" at line").next().unwrap_or(&text).to_owned())
    })?;
    request.check()?;
    Ok(request)
}

/// A request whose fields are in range.
pub trait Checked {
    /// `Ok` when every field is in range, else the first that is not.
    fn check(&self) -> Result<(), RoomRequestError>;
}

impl Checked for HostStats {
    fn check(&self) -> Result<(), RoomRequestError> {
        at_most("wave", self.wave.into(), MAX_LEVEL.into())?;
        at_most("score", self.score, MAX_SCORE)?;
        at_most("elapsed_s", self.elapsed_s.into(), MAX_ELAPSED_S.into())
    }
}

impl Checked for KickRequest {
    fn check(&self) -> Result<(), RoomRequestError> {
        text("spectator", &self.spectator, MAX_PEER_ID_BYTES)
    }
}

impl Checked for ReportRequest {
    fn check(&self) -> Result<(), RoomRequestError> {
        text("name", &self.name, MAX_TARGET_CHARS)?;
        text("reason", &self.reason, MAX_REASON_CHARS)?;
        if self.lines.len() > MAX_REPORT_LINES {
            return Err(RoomRequestError::TooManyLines);
        }
        for line in &self.lines {
            text("lines", line, MAX_REPORT_LINE_CHARS)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code() -> RoomCode {
        RoomCode::parse("K7Q-2XM").unwrap()
    }

    #[test]
    fn paths_name_a_room_and_an_action() {
        for action in RoomAction::ALL {
            let path = action.path(&code());
            assert_eq!(RoomAction::parse_path(&path), Some((code(), action)));
        }
        assert_eq!(RoomAction::Kick.path(&code()), "/rooms/K7Q2XM/kick");
        for bad in [
            "/rooms",
            "/rooms/",
            "/rooms/K7Q2XM",
            "/rooms/K7Q2XM/",
            "/rooms/K7Q2XM/ban",
            "/rooms/ADMIN/kick",
            "/rooms/K7Q2XM/kick/x",
            "/roomsK7Q2XM/kick",
        ] {
            assert_eq!(RoomAction::parse_path(bad), None, "{bad}");
        }
    }

    #[test]
    fn bodies_round_trip_and_are_checked() {
        let seat = SeatToken::random();
        let stats = HostStats {
            seat,
            wave: 7,
            score: 1200,
            elapsed_s: 95,
        };
        let body = serde_json::to_vec(&stats).unwrap();
        assert_eq!(decode_room_request::<HostStats>(&body), Ok(stats));
        let report = ReportRequest {
            seat,
            name: "Ana (2)".into(),
            reason: "spam".into(),
            lines: vec!["Ana (2): buy gold".into(); MAX_REPORT_LINES],
        };
        let body = serde_json::to_vec(&report).unwrap();
        assert_eq!(decode_room_request::<ReportRequest>(&body), Ok(report));
    }

    #[test]
    fn malformed_bodies_get_one_line_reasons() {
        let seat = SeatToken::random();
        let cases: Vec<(String, &str)> = vec![
            ("".into(), "not valid JSON"),
            ("{}".into(), "missing field"),
            (
                format!(r#"{{"seat":"{seat}","wave":10001,"score":0,"elapsed_s":0}}"#),
                "'wave' must be at most 10000",
            ),
            (
                format!(r#"{{"seat":"{seat}","wave":1,"score":0,"elapsed_s":86401}}"#),
                "'elapsed_s'",
            ),
            (
                r#"{"seat":"zz","wave":1,"score":0,"elapsed_s":1}"#.into(),
                "seat token",
            ),
            (
                format!(r#"{{"seat":"{seat}","wave":-1,"score":0,"elapsed_s":1}}"#),
                "not valid JSON",
            ),
            (
                format!(r#"{{"seat":"{seat}","wave":1,"score":0,"elapsed_s":1,"x":1}}"#),
                "unknown field",
            ),
        ];
        for (body, expect) in cases {
            let e = decode_room_request::<HostStats>(body.as_bytes()).unwrap_err();
            let text = e.to_string();
            assert!(text.contains(expect), "{body}: {text}");
            assert!(!text.contains('\n'), "{text}");
        }
        let report = |name: &str, reason: &str, lines: Vec<String>| {
            let body = serde_json::to_vec(&ReportRequest {
                seat,
                name: name.into(),
                reason: reason.into(),
                lines,
            })
            .unwrap();
            decode_room_request::<ReportRequest>(&body)
        };
        assert_eq!(
            report("", "spam", vec![]),
            Err(RoomRequestError::Text("name", MAX_TARGET_CHARS))
        );
        assert_eq!(
            report("Ana", "", vec![]),
            Err(RoomRequestError::Text("reason", MAX_REASON_CHARS))
        );
        assert_eq!(
            report("Ana", "a\nb", vec![]),
            Err(RoomRequestError::Text("reason", MAX_REASON_CHARS))
        );
        assert_eq!(
            report("Ana", "spam", vec!["x".into(); MAX_REPORT_LINES + 1]),
            Err(RoomRequestError::TooManyLines)
        );
        assert_eq!(
            report("Ana", "spam", vec!["x".repeat(MAX_REPORT_LINE_CHARS + 1)]),
            Err(RoomRequestError::Text("lines", MAX_REPORT_LINE_CHARS))
        );
        let huge = vec![b' '; MAX_ROOM_REQUEST_BYTES + 1];
        assert!(decode_room_request::<ReportRequest>(&huge).is_err());
    }
}
