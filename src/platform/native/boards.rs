//! Ranked replays natively: a board's pages asked for on threads (the
//! Leaderboard screen's list), and a replay's bytes downloaded by its
//! link: on a thread for the menu ([`ReplayDownload`]), or on this one for
//! a command, which waits for them anyway ([`download_replay`]).

use std::sync::mpsc::{Receiver, Sender, channel};

use twinstar_netcode::signaling::{self, ReplayFetchError};
use twinstar_netcode::signaling::{Board, BoardPage};

use crate::platform::DownloadFailed;

/// The replay at `url` (`http(s)://SERVER/replays/ID`), at most the
/// largest upload a server takes.
pub fn download_replay(url: &str) -> Result<Vec<u8>, DownloadFailed> {
    signaling::fetch_replay(url).map_err(|e| DownloadFailed {
        unreachable: matches!(e, ReplayFetchError::Unreachable { .. }),
        why: e.to_string(),
    })
}

/// One server's boards, each asked for when wanted.
pub struct BoardsFeed {
    server: String,
    answers: Receiver<(Board, Result<BoardPage, String>)>,
    sender: Sender<(Board, Result<BoardPage, String>)>,
}

impl BoardsFeed {
    /// The boards of `server` (`ws://` or `wss://`); nothing asked yet.
    pub fn start(server: &str) -> BoardsFeed {
        let (sender, answers) = channel();
        BoardsFeed {
            server: server.to_owned(),
            answers,
            sender,
        }
    }

    /// Asks for `board`'s first page (its answer comes through [`poll`]).
    ///
    /// [`poll`]: BoardsFeed::poll
    pub fn ask(&mut self, board: Board) {
        let (server, sender) = (self.server.clone(), self.sender.clone());
        std::thread::spawn(move || {
            let answer = signaling::fetch_board(&server, board, None);
            // The screen may be gone: nobody to tell.
            let _ = sender.send((board, answer));
        });
    }

    /// The newest answer since the last poll, with the board it is of (an
    /// error is the reason it could not be had).
    pub fn poll(&mut self) -> Option<(Board, Result<BoardPage, String>)> {
        self.answers.try_iter().last()
    }
}

/// A replay downloading while the window goes on drawing.
pub struct ReplayDownload {
    answer: Receiver<Result<Vec<u8>, DownloadFailed>>,
}

impl ReplayDownload {
    /// Starts downloading the replay at `url`.
    pub fn start(url: &str) -> ReplayDownload {
        let (sender, answer) = channel();
        let url = url.to_owned();
        std::thread::spawn(move || {
            let _ = sender.send(download_replay(&url));
        });
        ReplayDownload { answer }
    }

    /// The download's outcome once it has one.
    pub fn poll(&mut self) -> Option<Result<Vec<u8>, DownloadFailed>> {
        use std::sync::mpsc::TryRecvError;
        match self.answer.try_recv() {
            Ok(answer) => Some(answer),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err(DownloadFailed {
                why: "the download stopped".into(),
                unreachable: true,
            })),
        }
    }
}
