//! Which signaling server a client uses when the player names none, and
//! which ICE servers it connects with.
//!
//! Server: `--server`, else the settings' server, else the one built into
//! this binary (`TWINSTAR_DEFAULT_SERVER` in the environment of the build,
//! so a community can hand out binaries that just work), else this machine
//! (`host` starts a server in-process; the browser uses its page's origin).
//!
//! ICE: the player's own `--stun`/`--turn` flags, else what the server
//! offers at `GET /ice` (STUN, and TURN with a credential minted for this
//! client), else public STUN.

use super::Failure;
use crate::platform::net as platform;
use twinstar_netcode::connect::IceServers;
use twinstar_netcode::signaling::check_server_url;

/// The server this binary was built for, checked (a build with a typo
/// fails at first use, with the variable named); none in the browser,
/// whose page has its own origin.
pub(super) fn built_in_server() -> Result<Option<String>, Failure> {
    built_in(platform::built_in_server())
}

fn built_in(value: Option<&str>) -> Result<Option<String>, Failure> {
    match value.map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(url) => check_server_url(url).map(Some).map_err(|e| {
            Failure::BadInput(format!(
                "this binary was built with TWINSTAR_DEFAULT_SERVER={url}: {e}"
            ))
        }),
    }
}

/// The ICE servers to connect with through `server` (see the module):
/// `flags` as parsed from the player's `--stun` and `--turn`.
pub(super) fn ice_servers(
    server: &str,
    flags: IceServers,
    stun: &[String],
    turn: Option<&str>,
) -> IceServers {
    if IceServers::flags_given(stun, turn) {
        return flags;
    }
    match platform::ice_offer(server) {
        Ok(Some(offer)) => match offer.into_servers() {
            Ok(servers) => {
                tracing::info!(
                    "ICE servers from {server}: {} STUN, {} TURN",
                    servers.stun.len(),
                    servers.turn.as_ref().map_or(0, |t| t.urls.len())
                );
                servers
            }
            Err(e) => {
                eprintln!("twinstar: ignoring the server's ICE servers ({e}); using public STUN");
                flags
            }
        },
        Ok(None) => flags,
        // Not fatal: the websocket will tell whether the server is there.
        Err(e) => {
            tracing::info!("no ICE servers from the server ({e}); using public STUN");
            flags
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_built_in_server_is_checked_like_a_flag() {
        assert!(matches!(built_in(None), Ok(None)));
        assert!(matches!(built_in(Some("  ")), Ok(None)));
        assert_eq!(
            built_in(Some("wss://play.example.org/"))
                .ok()
                .flatten()
                .as_deref(),
            Some("wss://play.example.org")
        );
        let Err(Failure::BadInput(why)) = built_in(Some("play.example.org")) else {
            panic!("a URL without a scheme was taken");
        };
        assert!(
            why.contains("TWINSTAR_DEFAULT_SERVER=play.example.org"),
            "{why}"
        );
    }
}
