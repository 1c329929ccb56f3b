//! A room member's requests to its signaling server beside the websocket
//! (`POST /rooms/CODE/{stats,kick,report,connected}`,
//! `twinstar_signaling_protocol`'s moderation requests and connect
//! report): the host's match figures for the room list, the host removing
//! a spectator, anyone reporting someone, a player saying how its match
//! connected. Sent off the
//! game's loop (a worker thread natively, a `fetch` in the browser); each
//! answer comes back later as one line for the chat, or for the log.

use std::sync::mpsc::{Receiver, Sender, channel};

use serde::Serialize;
use twinstar_signaling_protocol::{
    ConnectPath, ConnectReport, HostStats, KickRequest, MAX_CONNECT_MS, MAX_REPORT_LINE_CHARS,
    MAX_REPORT_LINES, ReportRequest, RoomAction, RoomCode, SeatToken,
};

use super::platform::Poster;

/// What a request's answer means to whoever asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A line for the chat (a kick's or a report's outcome).
    Notice(String),
    /// The figures were refused: for the log, once.
    StatsRefused(String),
    /// The connect report was refused (an older server has no such
    /// request): for the log.
    ConnectRefused(String),
    /// The server has answered the kick of this spectator (its peer id),
    /// either way, after its [`Notice`](Answer::Notice): the host tells the
    /// spectator now. Told earlier, a kicked spectator could be back
    /// before the server had the ban.
    KickAnswered(String),
}

/// One request: where, what, and how to word its outcome.
struct Job {
    path: String,
    body: Vec<u8>,
    done: Option<String>,
    failed: String,
    /// A refusal for the log rather than the chat (figures, connect
    /// report), and how to word it.
    quiet: Option<fn(String) -> Answer>,
    /// A kick's spectator, answered with [`Answer::KickAnswered`].
    kicked: Option<String>,
}

/// The requests of one member of one room.
pub(crate) struct RoomRequests {
    code: RoomCode,
    seat: SeatToken,
    answers: Receiver<Answer>,
    answer: Sender<Answer>,
    /// Sends them off the game's loop (a thread, or the page's `fetch`).
    poster: Poster,
}

impl RoomRequests {
    /// Requests to `server` (`ws://` or `wss://`) about room `code`, proven
    /// by the seat token the member joined with.
    pub fn new(server: &str, code: RoomCode, seat: SeatToken) -> RoomRequests {
        let (answer, answers) = channel();
        RoomRequests {
            code,
            seat,
            answers,
            answer,
            poster: Poster::new(server),
        }
    }

    /// The host's figures for its public room's listing.
    pub fn stats(&self, wave: u32, score: u64, elapsed_s: u32) {
        let body = HostStats {
            seat: self.seat,
            wave,
            score,
            elapsed_s,
        };
        self.send(RoomAction::Stats, &body, None, "", None);
    }

    /// How this player's match connected: `connect_ms` from opening the
    /// room to the first frame (clamped to what a server takes: the path
    /// counts whatever the time), and the path.
    pub fn connected(&self, connect_ms: u64, path: ConnectPath) {
        let body = connect_report(self.seat, connect_ms, path);
        self.send(RoomAction::Connected, &body, None, "", None);
    }

    /// The host removes spectator `peer`, called `name` in the chat.
    pub fn kick(&self, peer: &str, name: &str) {
        let body = KickRequest {
            seat: self.seat,
            spectator: peer.to_owned(),
        };
        let done = format!("{name} was removed from the room for 5 minutes");
        self.send(
            RoomAction::Kick,
            &body,
            Some(done),
            &format!("could not remove {name}"),
            Some(peer),
        );
    }

    /// Reports `name` for `reason`, with the room's last chat `lines`
    /// (the newest [`MAX_REPORT_LINES`], each cut to what a report holds).
    pub fn report(&self, name: &str, reason: &str, lines: &[String]) {
        let skip = lines.len().saturating_sub(MAX_REPORT_LINES);
        let lines = lines[skip..]
            .iter()
            .map(|l| l.chars().take(MAX_REPORT_LINE_CHARS).collect())
            .collect();
        let body = ReportRequest {
            seat: self.seat,
            name: name.to_owned(),
            reason: reason.to_owned(),
            lines,
        };
        let done = format!("your report on {name} was sent to the server's operator");
        self.send(
            RoomAction::Report,
            &body,
            Some(done),
            &format!("could not report {name}"),
            None,
        );
    }

    /// The answers that came back since the last call.
    pub fn answers(&self) -> Vec<Answer> {
        self.answers.try_iter().collect()
    }

    fn send(
        &self,
        action: RoomAction,
        body: &impl Serialize,
        done: Option<String>,
        failed: &str,
        kicked: Option<&str>,
    ) {
        let job = Job {
            path: action.path(&self.code),
            body: serde_json::to_vec(body).unwrap_or_default(),
            done,
            failed: failed.to_owned(),
            quiet: match action {
                RoomAction::Stats => Some(Answer::StatsRefused),
                RoomAction::Connected => Some(Answer::ConnectRefused),
                RoomAction::Kick | RoomAction::Report => None,
            },
            kicked: kicked.map(str::to_owned),
        };
        let (path, body) = (job.path.clone(), job.body.clone());
        let answer = self.answer.clone();
        self.poster.post(
            path,
            body,
            Box::new(move |result| {
                for a in job.answers(result) {
                    let _ = answer.send(a);
                }
            }),
        );
    }
}

/// The report of a connect of `connect_ms` (a host's holds its wait for
/// the partner, which may be longer than any server takes).
fn connect_report(seat: SeatToken, connect_ms: u64, path: ConnectPath) -> ConnectReport {
    ConnectReport {
        seat,
        connect_ms: u32::try_from(connect_ms)
            .unwrap_or(u32::MAX)
            .min(MAX_CONNECT_MS),
        path,
    }
}

impl Job {
    /// What became of the job, the server's words quoted on one line; a
    /// kick's spectator last.
    fn answers(self, result: Result<(), String>) -> Vec<Answer> {
        let result = result.map_err(|e| super::client::quote_server_text(&e));
        let outcome = match (result, self.quiet) {
            (Ok(()), _) => self.done.map(Answer::Notice),
            (Err(e), Some(quiet)) => Some(quiet(e)),
            (Err(e), None) => Some(Answer::Notice(format!("{}: {e}", self.failed))),
        };
        outcome
            .into_iter()
            .chain(self.kicked.map(Answer::KickAnswered))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kick_job() -> Job {
        Job {
            path: "/rooms/KCK2XM/kick".into(),
            body: Vec::new(),
            done: Some("S1 was removed from the room for 5 minutes".into()),
            failed: "could not remove S1".into(),
            quiet: None,
            kicked: Some("peer-1".into()),
        }
    }

    #[test]
    fn a_kick_is_answered_with_its_outcome_then_its_spectator_either_way() {
        assert_eq!(
            kick_job().answers(Ok(())),
            [
                Answer::Notice("S1 was removed from the room for 5 minutes".into()),
                Answer::KickAnswered("peer-1".into()),
            ]
        );
        let refused = kick_job().answers(Err("no such room".into()));
        assert!(
            matches!(&refused[..], [Answer::Notice(n), Answer::KickAnswered(p)]
                if n.starts_with("could not remove S1: ") && p == "peer-1"),
            "{refused:?}"
        );
    }

    #[test]
    fn figures_refused_are_for_the_log_and_no_kick() {
        let job = Job {
            quiet: Some(Answer::StatsRefused),
            done: None,
            kicked: None,
            ..kick_job()
        };
        assert!(matches!(
            &job.answers(Err("too often".into()))[..],
            [Answer::StatsRefused(_)]
        ));
        // A connect report an older server does not know: for the log;
        // taken, nothing to say.
        let connect_job = || Job {
            quiet: Some(Answer::ConnectRefused),
            done: None,
            kicked: None,
            ..kick_job()
        };
        assert!(matches!(
            &connect_job().answers(Err("no such room request".into()))[..],
            [Answer::ConnectRefused(_)]
        ));
        assert_eq!(connect_job().answers(Ok(())), []);
    }

    #[test]
    fn a_connect_longer_than_a_server_takes_is_clamped_and_its_path_kept() {
        let seat = SeatToken::random();
        let report = connect_report(seat, 40 * 60 * 60 * 1000, ConnectPath::Relay);
        assert_eq!(
            (report.connect_ms, report.path),
            (MAX_CONNECT_MS, ConnectPath::Relay)
        );
        assert_eq!(
            connect_report(seat, u64::MAX, ConnectPath::Direct).connect_ms,
            MAX_CONNECT_MS
        );
        assert_eq!(
            connect_report(seat, 1_234, ConnectPath::Direct).connect_ms,
            1_234
        );
    }
}
