//! Ranked replays in the page: its thread cannot wait for a download, so
//! a board's pages come through the page's script (web/index.html polls
//! `GET /leaderboard` while the feed asks), a replay's bytes through a
//! `fetch` on the page's event loop ([`ReplayDownload`]), and the page's
//! entry fetches a linked replay before its command runs (`app/page.rs`,
//! with [`fetch_replay`]).

use std::cell::RefCell;
use std::rc::Rc;

use twinstar_netcode::signaling::{Board, BoardPage, MAX_UPLOAD_BYTES, Refused};

use super::{publish, read_text};
use crate::platform::DownloadFailed;

/// One server's boards, each asked for when wanted: the page's own
/// server only (another's is not the page's to ask).
pub struct BoardsFeed {
    own: bool,
    /// Said once for another server's boards.
    refusal: Option<&'static str>,
    last: Option<String>,
    asked: u32,
}

impl BoardsFeed {
    /// The boards of `server`; nothing asked yet.
    pub fn start(server: &str) -> BoardsFeed {
        let own = super::page_server().as_deref() == Some(server.trim_end_matches('/'));
        let refusal =
            (!own).then_some("the page reads only the boards of the server that served it");
        BoardsFeed {
            own,
            refusal,
            last: None,
            asked: 0,
        }
    }

    /// Asks for `board`'s first page (the page's script fetches it when
    /// the query changes; its answer comes through [`poll`]).
    ///
    /// [`poll`]: BoardsFeed::poll
    pub fn ask(&mut self, board: Board) {
        if self.own {
            self.asked += 1;
            publish("twinstarBoardQuery", &format!("board={}", board.word()));
            publish("twinstarBoardAsked", &self.asked.to_string());
        }
    }

    /// The page's newest board when it changed since the last poll (text
    /// that is not a board is the page's reason it has none).
    pub fn poll(&mut self) -> Option<(Board, Result<BoardPage, String>)> {
        if let Some(why) = self.refusal.take() {
            return Some((Board::Daily, Err(why.into())));
        }
        let text = read_text("twinstarBoard")?;
        if self.last.as_deref() == Some(text.as_str()) {
            return None;
        }
        self.last = Some(text.clone());
        match serde_json::from_str::<BoardPage>(&text) {
            Ok(page) => Some((page.board, Ok(page))),
            // An error is about the board last asked for.
            Err(_) => {
                let query = read_text("twinstarBoardQuery").unwrap_or_default();
                let board = query.strip_prefix("board=").and_then(Board::parse);
                Some((board.unwrap_or(Board::Daily), Err(text)))
            }
        }
    }
}

/// A download's outcome.
type Fetched = Result<Vec<u8>, DownloadFailed>;

/// A replay downloading while the window goes on drawing.
pub struct ReplayDownload {
    answer: Rc<RefCell<Option<Fetched>>>,
}

impl ReplayDownload {
    /// Starts downloading the replay at `url` on the page's event loop.
    pub fn start(url: &str) -> ReplayDownload {
        let answer: Rc<RefCell<Option<_>>> = Rc::default();
        let (slot, url) = (answer.clone(), url.to_owned());
        wasm_bindgen_futures::spawn_local(async move {
            let fetched = fetch_replay(&url).await;
            *slot.borrow_mut() = Some(fetched);
        });
        ReplayDownload { answer }
    }

    /// The download's outcome once it has one.
    pub fn poll(&mut self) -> Option<Fetched> {
        self.answer.borrow_mut().take()
    }
}

/// Never reached in the page (see above): a refusal in words.
pub fn download_replay(url: &str) -> Result<Vec<u8>, DownloadFailed> {
    Err(DownloadFailed {
        why: format!(
            "{url}: the page downloads a replay before it plays it; open its link instead"
        ),
        unreachable: false,
    })
}

/// Downloads the replay at `url` with the page's `fetch` (the page's
/// entry waits for it before the replay's command runs): at most
/// [`MAX_UPLOAD_BYTES`], what a server takes; a 404 says so in the
/// server's words.
pub async fn fetch_replay(url: &str) -> Result<Vec<u8>, DownloadFailed> {
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::JsFuture;
    let failed = |why: String, unreachable: bool| DownloadFailed {
        why: format!("{url}: {why}"),
        unreachable,
    };
    let window = super::window().ok_or_else(|| failed("no window".into(), true))?;
    let response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|_| failed("the server did not answer".into(), true))?;
    let response: web_sys::Response = response
        .dyn_into()
        .map_err(|_| failed("no response".into(), true))?;
    let body = |promise: Result<js_sys::Promise, wasm_bindgen::JsValue>| async move {
        JsFuture::from(promise.ok()?).await.ok()
    };
    let status = response.status();
    if status != 200 {
        let text = body(response.text()).await.and_then(|t| t.as_string());
        let text = text.unwrap_or_default();
        let reason = serde_json::from_str::<Refused>(&text)
            .map(|r| r.reason)
            .unwrap_or_else(|_| {
                text.split_whitespace()
                    .take(20)
                    .collect::<Vec<_>>()
                    .join(" ")
            });
        let why = if status == 404 {
            format!("no such replay on the server ({reason})")
        } else {
            format!("HTTP {status} ({reason})")
        };
        return Err(failed(why, false));
    }
    let buffer = body(response.array_buffer())
        .await
        .ok_or_else(|| failed("the download broke off".into(), true))?;
    let bytes = js_sys::Uint8Array::new(&buffer);
    if bytes.length() as usize > MAX_UPLOAD_BYTES {
        return Err(failed(
            format!("larger than {MAX_UPLOAD_BYTES} bytes, the most a replay may be"),
            false,
        ));
    }
    Ok(bytes.to_vec())
}
