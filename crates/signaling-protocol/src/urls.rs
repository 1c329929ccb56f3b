//! Where things live on a signaling server: the server URL a player gives
//! (checked), a room's and a spectator's websocket URL, and the page a
//! browser opens to play in a room. The client builds these and the server
//! parses them ([`crate::RoomRequest`]), so the rules live here, once.

use crate::{DEFAULT_PORT, QUICK_PATH, RoomCode, WATCH_PREFIX};

/// Why a signaling server URL (`--server`, the settings' server) is refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ServerUrlError {
    /// It does not start with `ws://` or `wss://`.
    #[error(
        "invalid server URL '{0}': it must start with ws:// or wss://, e.g. ws://192.168.1.20:{DEFAULT_PORT}"
    )]
    Scheme(String),
    /// It is no host alone: a path (a room code, say) or whitespace follows
    /// the host, or there is no host.
    #[error(
        "invalid server URL '{0}': give only the server, e.g. ws://192.168.1.20:{DEFAULT_PORT} (the room code goes separately)"
    )]
    NotJustTheServer(String),
}

/// Checks a server URL (`ws://` or `wss://`, a host, no path: the room code
/// is added by [`room_url`]) and returns it without surrounding spaces or
/// trailing slashes. The command line and the settings share this rule.
pub fn check_server_url(url: &str) -> Result<String, ServerUrlError> {
    let url = url.trim();
    let rest = url
        .strip_prefix("ws://")
        .or_else(|| url.strip_prefix("wss://"))
        .ok_or_else(|| ServerUrlError::Scheme(url.to_string()))?;
    let host = rest.trim_end_matches('/');
    // Whitespace inside is no host (and "ws://h /" must not become "ws://h ",
    // which the next check would trim to another URL: found by fuzzing).
    if host.is_empty() || host.contains('/') || host.contains(char::is_whitespace) {
        return Err(ServerUrlError::NotJustTheServer(url.to_string()));
    }
    Ok(url.trim_end_matches('/').to_string())
}

/// The URL a client connects to: `server` is `ws://host:port` (a trailing
/// slash is fine), `room` `None` for a quick match.
pub fn room_url(server: &str, room: Option<&RoomCode>) -> String {
    let base = server.trim_end_matches('/');
    match room {
        Some(code) => format!("{base}/{}", code.canonical()),
        None => format!("{base}/{QUICK_PATH}"),
    }
}

/// The URL a spectator of `room` connects to (see [`room_url`]).
pub fn watch_url(server: &str, room: &RoomCode) -> String {
    let base = server.trim_end_matches('/');
    format!("{base}/{WATCH_PREFIX}{}", room.canonical())
}

/// The page a browser opens to play in `room` (`None`: a quick match) on
/// the signaling server `server`, which also serves the web client:
/// `ws://HOST:PORT` gives `http://HOST:PORT/#K7Q-2XM`, `wss://` gives
/// `https://`. The code rides in the fragment, which the browser keeps to
/// itself; the page reads it. `None` for a URL that is neither.
pub fn browser_link(server: &str, room: Option<&RoomCode>) -> Option<String> {
    let server = server.trim().trim_end_matches('/');
    let (scheme, host) = match server.split_once("://")? {
        ("ws", host) => ("http", host),
        ("wss", host) => ("https", host),
        _ => return None,
    };
    if host.is_empty() {
        return None;
    }
    Some(match room {
        Some(code) => format!("{scheme}://{host}/#{code}"),
        None => format!("{scheme}://{host}/"),
    })
}

/// The page that plays ranked replay `id` from `server` (see
/// [`browser_link`]): `ws://HOST:PORT` gives `http://HOST:PORT/#replay=ID`.
/// Anyone can open it; the page downloads `/replays/ID` and verifies the
/// match as it plays. `None` for a server URL that is neither ws nor wss.
pub fn replay_link(server: &str, id: &str) -> Option<String> {
    Some(format!("{}#replay={id}", browser_link(server, None)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replay_link_is_the_page_with_the_id_in_its_fragment() {
        assert_eq!(
            replay_link("wss://play.example.org/", "ab12cd34ef56").as_deref(),
            Some("https://play.example.org/#replay=ab12cd34ef56")
        );
        assert_eq!(
            replay_link("ws://10.0.0.2:3536", "x").as_deref(),
            Some("http://10.0.0.2:3536/#replay=x")
        );
        assert_eq!(replay_link("http://x", "x"), None);
    }

    #[test]
    fn server_urls_are_checked_and_normalised() {
        assert_eq!(
            check_server_url(" ws://10.0.0.2:3536/ ").unwrap(),
            "ws://10.0.0.2:3536"
        );
        assert_eq!(
            check_server_url("wss://example.org").unwrap(),
            "wss://example.org"
        );
        for bad in ["http://x:1", "10.0.0.2:3536", "", "ws://"] {
            assert!(
                matches!(check_server_url(bad), Err(ServerUrlError::Scheme(_)))
                    || matches!(
                        check_server_url(bad),
                        Err(ServerUrlError::NotJustTheServer(_))
                    ),
                "{bad}"
            );
        }
        assert_eq!(
            check_server_url("ws://x:1/K7Q2XM"),
            Err(ServerUrlError::NotJustTheServer("ws://x:1/K7Q2XM".into()))
        );
        assert_eq!(
            check_server_url("ws:///"),
            Err(ServerUrlError::NotJustTheServer("ws:///".into()))
        );
        assert!(check_server_url("ws://h /").is_err());
        assert!(check_server_url("ws://h x:1").is_err());
        // What it accepts, it accepts again unchanged.
        for good in ["ws://h:1", "wss://play.example.org", "ws://[::1]:3536"] {
            let once = check_server_url(good).unwrap();
            assert_eq!(check_server_url(&once).unwrap(), once);
        }
    }

    #[test]
    fn browser_links_put_the_room_in_the_fragment() {
        let code = RoomCode::parse("k7q2xm").unwrap();
        assert_eq!(
            browser_link("ws://192.168.1.20:3536", Some(&code)).as_deref(),
            Some("http://192.168.1.20:3536/#K7Q-2XM")
        );
        assert_eq!(
            browser_link("ws://192.168.1.20:3536/", None).as_deref(),
            Some("http://192.168.1.20:3536/")
        );
        assert_eq!(
            browser_link("wss://play.example.org", Some(&code)).as_deref(),
            Some("https://play.example.org/#K7Q-2XM")
        );
        assert_eq!(
            browser_link("ws://[::1]:3536", Some(&code)).as_deref(),
            Some("http://[::1]:3536/#K7Q-2XM")
        );
        for not_signaling in ["http://x:1", "x:1", "ws://", "", "wss:///"] {
            assert_eq!(
                browser_link(not_signaling, Some(&code)),
                None,
                "{not_signaling}"
            );
        }
    }

    #[test]
    fn room_and_watch_urls() {
        let k7q = RoomCode::parse("K7Q2XM").unwrap();
        assert_eq!(watch_url("ws://h:1/", &k7q), "ws://h:1/watch-K7Q2XM");
        assert_eq!(room_url("ws://h:1/", Some(&k7q)), "ws://h:1/K7Q2XM");
        assert_eq!(room_url("ws://h:1", None), "ws://h:1/quick");
    }
}
