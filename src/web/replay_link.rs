//! A ranked replay's link, as `twinstar replay` and the page take it:
//!
//! - `https://SERVER/replays/ID`: the server's download itself;
//! - `https://SERVER/#replay=ID`: the page that plays it (a board's link).
//!
//! Both mean the bytes at `https://SERVER/replays/ID` (`http://` too; a
//! page served under a folder, `https://SERVER/twinstar/#replay=ID`,
//! downloads from that folder). Plain Rust, the same natively and in the
//! page.

use twinstar_netcode::signaling::REPLAYS_PATH;

/// The fragment that names a replay to play: `#replay=ID`.
pub const FRAGMENT_KEY: &str = "replay=";

/// The longest id taken (the server's are 12 characters).
const MAX_ID_CHARS: usize = 64;

/// A replay on a server: where to download it, and its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayLink {
    /// `http(s)://SERVER[/folder]/replays/ID`.
    pub url: String,
    pub id: String,
}

/// Why a web address is no replay link.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0}: not a replay link (one reads https://SERVER/replays/ID or https://SERVER/#replay=ID)"
)]
pub struct NotAReplayLink(pub String);

/// Whether `text` is a web address (`http://` or `https://`), which a
/// replay's argument then must be a link of; anything else is a file.
pub fn is_web_address(text: &str) -> bool {
    let lower = text.trim().to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// The replay a web address names.
pub fn parse(text: &str) -> Result<ReplayLink, NotAReplayLink> {
    let refuse = || NotAReplayLink(text.chars().take(200).collect());
    let trimmed = text.trim();
    let (scheme, rest) = trimmed.split_once("://").ok_or_else(refuse)?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return Err(refuse());
    }
    let (before, fragment) = match rest.split_once('#') {
        Some((before, fragment)) => (before, Some(fragment)),
        None => (rest, None),
    };
    // The query never names the replay.
    let before = before.split('?').next().unwrap_or_default();
    let (authority, path) = before.split_at(before.find('/').unwrap_or(before.len()));
    if authority.is_empty() || authority.contains(char::is_whitespace) {
        return Err(refuse());
    }
    let (folder, id) = match fragment.filter(|f| !f.is_empty()) {
        // The page's link: the replay is beside the page.
        Some(fragment) => {
            let id = fragment.strip_prefix(FRAGMENT_KEY).ok_or_else(refuse)?;
            let folder = &path[..path.rfind('/').map_or(0, |i| i + 1)];
            (folder.trim_end_matches('/'), id)
        }
        // The download itself: `.../replays/ID`.
        None => {
            let (folder, id) = path.rsplit_once('/').ok_or_else(refuse)?;
            let folder = folder.strip_suffix(REPLAYS_PATH).ok_or_else(refuse)?;
            (folder, id)
        }
    };
    if !is_id(id) {
        return Err(refuse());
    }
    Ok(ReplayLink {
        url: format!("{scheme}://{authority}{folder}{REPLAYS_PATH}/{id}"),
        id: id.to_owned(),
    })
}

/// A replay id as a server makes them: a few url-safe characters.
fn is_id(id: &str) -> bool {
    (1..=MAX_ID_CHARS).contains(&id.len())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> String {
        parse(text).unwrap_or_else(|e| panic!("{e}")).url
    }

    #[test]
    fn both_forms_download_from_the_servers_replays() {
        let download = "https://play.example.org/replays/abc234xyz";
        assert_eq!(url(download), download);
        assert_eq!(url("https://play.example.org/#replay=abc234xyz"), download);
        assert_eq!(url("https://play.example.org#replay=abc234xyz"), download);
        assert_eq!(
            url("https://play.example.org/index.html?x=1#replay=abc234xyz"),
            download
        );
        assert_eq!(
            url("HTTP://127.0.0.1:3536/replays/k2?cache=no"),
            "http://127.0.0.1:3536/replays/k2"
        );
        assert_eq!(parse(download).unwrap().id, "abc234xyz");
        // A download's address is a link to itself.
        for link in [
            "https://a.org/x/#replay=k-2",
            "http://a.org:1/replays/k_2?z#",
        ] {
            let first = parse(link).unwrap();
            assert_eq!(parse(&first.url), Ok(first.clone()), "{link}");
        }
    }

    #[test]
    fn a_page_under_a_folder_downloads_from_that_folder() {
        assert_eq!(
            url("https://example.org/twinstar/#replay=k2"),
            "https://example.org/twinstar/replays/k2"
        );
        assert_eq!(
            url("https://example.org/twinstar/replays/k2"),
            "https://example.org/twinstar/replays/k2"
        );
    }

    #[test]
    fn anything_else_is_refused_with_what_was_given() {
        for bad in [
            "https://example.org/",
            "https://example.org/rooms/k2",
            "https://example.org/replays/",
            "https://example.org/replays/a b",
            "https://example.org/replays/../etc",
            "https://example.org/#K7Q-2XM",
            "https://example.org/#replay=",
            "https:///replays/k2",
            "ftp://example.org/replays/k2",
            "example.org/replays/k2",
        ] {
            assert_eq!(parse(bad), Err(NotAReplayLink(bad.into())), "{bad}");
        }
        let long = format!("https://example.org/replays/{}", "a".repeat(65));
        assert!(parse(&long).is_err());
    }

    #[test]
    fn only_web_addresses_are_links() {
        assert!(is_web_address("https://example.org/replays/k2"));
        assert!(is_web_address(" HTTP://example.org"));
        assert!(!is_web_address("replays/2026-11-28-host.tsr"));
        assert!(!is_web_address("/replays/k2"));
    }
}
