//! Ranked replays and their boards, read natively from a server: a
//! replay's bytes by its link (`GET /replays/ID`, at most
//! [`MAX_UPLOAD_BYTES`], what a server takes) and a page of a board
//! (`GET /leaderboard`). The same HTTP client as the rest of
//! `native_client`: TLS checked against its roots, a short timeout. In the
//! page the game's own script fetches them (it cannot block).

use web_time::Duration;

use super::native_client::{agent_with_timeout, get_text};
use super::{Board, BoardPage, LEADERBOARD_PATH, MAX_UPLOAD_BYTES};

/// How long a replay's download may take in all: a 4 MiB cap at a slow
/// link's 1 MB/s, with room to spare; a ten-minute match is ~25 KB.
const REPLAY_FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest `GET /leaderboard` answer read: a page of 20 is ~4 KB.
const MAX_BOARD_BYTES: u64 = 256 * 1024;

/// Why a replay could not be downloaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayFetchError {
    /// The server did not answer (or the connection broke).
    #[error("{url}: the server did not answer ({why})")]
    Unreachable {
        /// The replay's link.
        url: String,
        /// The error, in words.
        why: String,
    },
    /// An `https://` server whose certificate this machine does not trust.
    #[error(
        "{url}: the server's TLS certificate is not trusted here ({why}); if a private CA signed it, set SSL_CERT_FILE to that CA's PEM file"
    )]
    Untrusted {
        /// The replay's link.
        url: String,
        /// The TLS error, in words.
        why: String,
    },
    /// The server has no replay by that id (404), in its words.
    #[error("{url}: no such replay on the server ({reason})")]
    NotFound {
        /// The replay's link.
        url: String,
        /// The server's words.
        reason: String,
    },
    /// Any other refusal.
    #[error("{url}: HTTP {status} ({reason})")]
    Refused {
        /// The replay's link.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The server's words.
        reason: String,
    },
    /// Longer than [`MAX_UPLOAD_BYTES`]: no server of ours keeps such a one.
    #[error("{url}: larger than {MAX_UPLOAD_BYTES} bytes, the most a replay may be")]
    TooLarge {
        /// The replay's link.
        url: String,
    },
}

/// Downloads a replay's bytes from `url` (`http://` or `https://`, the
/// server's `GET /replays/ID`).
pub fn fetch_replay(url: &str) -> Result<Vec<u8>, ReplayFetchError> {
    let unreachable = |e: ureq::Error| {
        let (url, why) = (url.to_owned(), e.to_string());
        // rustls' refusal reaches us as its own error or inside an I/O one.
        if matches!(e, ureq::Error::Rustls(_)) || why.contains("certificate") {
            ReplayFetchError::Untrusted { url, why }
        } else {
            ReplayFetchError::Unreachable { url, why }
        }
    };
    let mut response = agent_with_timeout(REPLAY_FETCH_TIMEOUT)
        .get(url)
        .call()
        .map_err(unreachable)?;
    let status = response.status().as_u16();
    if status != 200 {
        // The server's refusal is `{"reason": "..."}`; anything else (a
        // proxy's error page) is quoted as it came, on one short line.
        let text = (response.body_mut().with_config().limit(4096))
            .read_to_string()
            .unwrap_or_default();
        let reason = serde_json::from_str::<super::Refused>(&text)
            .map(|r| r.reason)
            .unwrap_or_else(|_| one_short_line(&text));
        let url = url.to_owned();
        return Err(if status == 404 {
            ReplayFetchError::NotFound { url, reason }
        } else {
            ReplayFetchError::Refused {
                url,
                status,
                reason,
            }
        });
    }
    let limit = MAX_UPLOAD_BYTES as u64;
    match response.body_mut().with_config().limit(limit).read_to_vec() {
        Ok(bytes) => Ok(bytes),
        Err(ureq::Error::BodyExceedsLimit(_)) => Err(ReplayFetchError::TooLarge {
            url: url.to_owned(),
        }),
        Err(e) => Err(unreachable(e)),
    }
}

/// `text` on one line of at most 120 characters.
fn one_short_line(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(120) {
        Some((cut, _)) => format!("{}...", &line[..cut]),
        None => line,
    }
}

/// A page of `board` on `server` (`ws://` or `wss://`, as for rooms):
/// the first page, or the one `cursor` names.
pub fn fetch_board(server: &str, board: Board, cursor: Option<&str>) -> Result<BoardPage, String> {
    let cursor = cursor.map(|c| format!("&cursor={c}")).unwrap_or_default();
    let path = format!("{LEADERBOARD_PATH}?board={}{cursor}", board.word());
    match get_text(server, &path, MAX_BOARD_BYTES)? {
        Some(body) => serde_json::from_str(&body)
            .map_err(|e| format!("the server's board does not read: {e}")),
        None => Err("this server keeps no boards (an older server?)".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_that_is_no_json_is_quoted_on_one_short_line() {
        assert_eq!(
            one_short_line("<html>\n <h1>Not  Found</h1>\n"),
            "<html> <h1>Not Found</h1>"
        );
        let long = "é".repeat(300);
        let quoted = one_short_line(&long);
        assert_eq!(quoted.chars().count(), 123, "{quoted}");
        assert!(quoted.ends_with("..."));
    }

    #[test]
    fn a_refused_certificate_is_told_apart_from_silence() {
        let untrusted = ReplayFetchError::Untrusted {
            url: "https://x/replays/a".into(),
            why: "invalid peer certificate".into(),
        };
        assert!(untrusted.to_string().contains("SSL_CERT_FILE"));
        let too_large = ReplayFetchError::TooLarge {
            url: "https://x/replays/a".into(),
        };
        assert!(
            too_large
                .to_string()
                .contains(&MAX_UPLOAD_BYTES.to_string())
        );
    }
}
