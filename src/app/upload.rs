//! A finished online match's replay sent to the server it was played
//! through, to be ranked there (`POST /replays`; the server re-simulates it
//! first). One side of a match sends it: a room's host, or the player in
//! the first seat of a quick match. `--no-upload` or the settings' `upload
//! = false` send nothing; spectators never do. Where it ranked, or why it
//! did not, goes in the `--json` summary and on a line of its own.

use std::path::Path;

use web_time::{Duration, Instant};

use crate::frontend::window::{MatchEnd, Ui, ranking_panel};
use crate::session::{Summary, UploadReport};
use twinstar_netcode::RoomCode;
use twinstar_netcode::session::Outcome;
use twinstar_netcode::signaling::{
    MAX_UPLOAD_BYTES, Ranked, ReplayUpload, ScoreClaim, replay_link,
};

/// How long a command without a window waits for the server's answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(20);

/// Where this side's replay goes, decided when its match starts.
#[derive(Clone, Debug)]
pub(super) struct Uploader {
    server: String,
    room: Option<RoomCode>,
}

impl Uploader {
    /// This side's uploader, if it is the one that sends: `upload_to` is
    /// the server when uploading is on, `hosting` whether it hosts the
    /// room, `room` the room (none in a quick match), `seat` its 0-based
    /// seat.
    pub(super) fn of_match(
        upload_to: Option<&str>,
        hosting: bool,
        room: Option<&RoomCode>,
        seat: usize,
    ) -> Option<Uploader> {
        let sends = hosting || (room.is_none() && seat == 0);
        let server = upload_to.filter(|_| sends)?.to_owned();
        Some(Uploader {
            server,
            room: room.cloned(),
        })
    }

    /// Starts sending the replay of a match that ended as `summary` says,
    /// its team score and wave as the claim.
    fn start(&self, summary: &Summary) -> Result<ReplayUpload, String> {
        let path = (summary.replay.as_deref()).ok_or("the match was not recorded (--no-record)")?;
        let bytes = crate::platform::files::read_limited(Path::new(path), MAX_UPLOAD_BYTES as u64)
            .map_err(|e| format!("cannot read {path}: {e}"))?;
        let claim = ScoreClaim {
            score: summary.shared_score.into(),
            wave: summary.wave,
        };
        Ok(ReplayUpload::start(
            &self.server,
            bytes,
            claim,
            self.room.as_ref(),
        ))
    }

    /// The server's answer as the summary reports it, said on stderr too.
    fn report(&self, answer: Result<Ranked, String>) -> UploadReport {
        let report = match answer {
            Ok(ranked) => UploadReport::Ranked {
                link: replay_link(&self.server, &ranked.id),
                ranked,
            },
            Err(why) => UploadReport::Refused(why),
        };
        for line in report.lines() {
            eprintln!("twinstar: {line}");
        }
        report
    }

    /// Sends the replay and waits for the answer (at most
    /// [`ANSWER_WITHIN`]): for a command without a window. Only a match
    /// that ended well is sent.
    pub(super) fn upload_blocking(&self, summary: &mut Summary) {
        let mut upload = match self.start(summary) {
            Ok(upload) => upload,
            Err(why) => return summary.upload = Some(self.report(Err(why))),
        };
        let deadline = Instant::now() + ANSWER_WITHIN;
        let answer = loop {
            if let Some(answer) = upload.poll() {
                break answer;
            }
            if Instant::now() >= deadline {
                break Err(format!(
                    "no answer from the server within {} s",
                    ANSWER_WITHIN.as_secs()
                ));
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        summary.upload = Some(self.report(answer));
    }

    /// Sends the replay of a match that ended well, with the match's
    /// result panel up: it says the replay is on its way, then where the
    /// match ranked (or why not) once the server answers, until the
    /// player goes on (Esc before the answer stops waiting); a run of a set
    /// length (`hold` false: `--frames`) goes on by itself once answered.
    pub(super) async fn upload_in_window(
        &self,
        ui: &mut Ui,
        end: &MatchEnd,
        hold: bool,
    ) -> Option<UploadReport> {
        let finished = &end.finished;
        if matches!(finished.outcome, Outcome::Failed(_)) {
            return None;
        }
        let summary = Summary::of_driver(&finished.driver);
        let mut upload = match self.start(&summary) {
            Ok(upload) => Some(upload),
            Err(why) => {
                // Said on the panel at once: nothing to wait for.
                let report = self.report(Err(why));
                ranking_panel(ui, finished, &end.info, || Some(report.clone()), hold).await;
                return Some(report);
            }
        };
        let answered = ranking_panel(
            ui,
            finished,
            &end.info,
            || {
                let answer = upload.as_mut()?.poll()?;
                upload = None;
                Some(self.report(answer))
            },
            hold,
        )
        .await;
        Some(answered.unwrap_or_else(|| {
            self.report(Err(
                "not waited for (Esc): the server may still rank it".into()
            ))
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rooms_host_or_a_quick_matchs_first_seat_sends_and_nobody_when_off() {
        let room = RoomCode::parse("K7Q-2XM").unwrap();
        let server = Some("ws://h:1");
        assert!(Uploader::of_match(server, true, Some(&room), 0).is_some());
        assert!(Uploader::of_match(server, false, Some(&room), 1).is_none());
        assert!(Uploader::of_match(server, false, None, 0).is_some());
        assert!(Uploader::of_match(server, false, None, 1).is_none());
        assert!(Uploader::of_match(None, true, Some(&room), 0).is_none());
    }

    #[test]
    fn a_match_that_was_not_recorded_says_so() {
        let uploader = Uploader::of_match(Some("ws://h:1"), true, None, 0).unwrap();
        let mut summary = Summary::default();
        uploader.upload_blocking(&mut summary);
        match summary.upload {
            Some(UploadReport::Refused(why)) => assert!(why.contains("not recorded"), "{why}"),
            other => panic!("{other:?}"),
        }
    }
}
