//! Ranked replays in the page: its thread cannot wait for a download, so
//! the page's entry fetches a linked replay before its command runs
//! (`app/page.rs`, with `platform::browser::fetch_bytes`).

use crate::platform::DownloadFailed;

/// Never reached in the page (see above): a refusal in words.
pub fn download_replay(url: &str) -> Result<Vec<u8>, DownloadFailed> {
    Err(DownloadFailed {
        why: format!(
            "{url}: the page downloads a replay before it plays it; open its link instead"
        ),
        unreachable: false,
    })
}
