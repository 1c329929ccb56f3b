//! Ranked replays natively: a replay's bytes downloaded by its link, on
//! this thread (the command waits for them anyway).

use twinstar_netcode::net::signaling::native_boards::{self, ReplayFetchError};

use crate::platform::DownloadFailed;

/// The replay at `url` (`http(s)://SERVER/replays/ID`), at most the
/// largest upload a server takes.
pub fn download_replay(url: &str) -> Result<Vec<u8>, DownloadFailed> {
    native_boards::fetch_replay(url).map_err(|e| DownloadFailed {
        unreachable: matches!(e, ReplayFetchError::Unreachable { .. }),
        why: e.to_string(),
    })
}
