//! A finished match's replay sent to the server it was played through, to
//! be ranked (`POST /replays`): in the background (a thread natively, a
//! `fetch` in the page), polled by the caller's loop. The server ranks it
//! only after re-simulating it; the answer is where it ranked, or why not.

use std::sync::mpsc::{Receiver, channel};

use twinstar_signaling_protocol::{Ranked, Refused, RoomCode, ScoreClaim};

use super::platform::post_in_background;

/// An upload on its way; [`ReplayUpload::poll`] gives its answer once.
#[derive(Debug)]
pub struct ReplayUpload {
    answer: Receiver<Result<Ranked, String>>,
}

impl ReplayUpload {
    /// Sends `replay` (a `.tsr` file's bytes) to `server` (`ws://` or
    /// `wss://`) with the host's `claim`. `room` rides along so that a
    /// proxy in front of several nodes routes it to the node that paired
    /// the room (none for a quick match).
    pub fn start(
        server: &str,
        replay: Vec<u8>,
        claim: ScoreClaim,
        room: Option<&RoomCode>,
    ) -> ReplayUpload {
        let (tx, answer) = channel();
        let path = claim.upload_path(room.map(RoomCode::canonical));
        post_in_background(
            server,
            path,
            "application/octet-stream",
            replay,
            move |outcome| {
                let _ = tx.send(outcome.and_then(|(status, text)| read_answer(status, &text)));
            },
        );
        ReplayUpload { answer }
    }

    /// The answer, once it has come: where the match ranked, or one line
    /// saying why it was not (the server's reason, or what went wrong on
    /// the way). `None` until then, and after it was taken.
    pub fn poll(&mut self) -> Option<Result<Ranked, String>> {
        self.answer.try_recv().ok()
    }
}

/// The server's answer to an upload: 201 with where it ranked, else the
/// refusal's reason (or, from a server that is not ours, its status).
fn read_answer(status: u16, text: &str) -> Result<Ranked, String> {
    if (200..300).contains(&status) {
        return serde_json::from_str(text)
            .map_err(|e| format!("the server's answer does not read: {e}"));
    }
    match serde_json::from_str::<Refused>(text) {
        Ok(refused) => Err(format!("HTTP {status}: {}", refused.reason)),
        Err(_) if status == 404 => Err("this server ranks no replays (HTTP 404)".into()),
        Err(_) => Err(format!("HTTP {status}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_read_as_a_rank_or_a_one_line_reason() {
        let ranked = r#"{"id":"ab12","board":"default","ranks":{"daily":null,"week":2,"all":7},"score":900,"wave":3}"#;
        let r = read_answer(201, ranked).unwrap();
        assert_eq!(
            (r.id.as_str(), r.ranks.daily, r.ranks.all),
            ("ab12", None, 7)
        );
        assert_eq!(
            read_answer(409, r#"{"reason":"that match is ranked already"}"#),
            Err("HTTP 409: that match is ranked already".into())
        );
        assert_eq!(
            read_answer(404, "not found"),
            Err("this server ranks no replays (HTTP 404)".into())
        );
        assert_eq!(read_answer(502, "<html>"), Err("HTTP 502".into()));
        assert!(
            read_answer(201, "{}")
                .unwrap_err()
                .contains("does not read")
        );
    }
}
