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
use twinstar_netcode::connect::{IceError, IceServers, TurnServer};
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
    if flags_given(stun, turn) {
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

/// The ICE servers the player's flags name: no `--stun` means public
/// STUN, `--stun none` none at all (host candidates only: LAN and
/// loopback); `--turn` needs `--turn-user` and `--turn-pass`.
pub(super) fn ice_from_flags(
    stun: &[String],
    turn: Option<&str>,
    user: Option<&str>,
    pass: Option<&str>,
) -> Result<IceServers, Failure> {
    let bad = |e: IceError| Failure::BadInput(e.to_string());
    let turn = match (turn, user, pass) {
        (None, _, _) => None,
        (Some(url), Some(user), Some(pass)) => Some(TurnServer {
            urls: vec![url.to_string()],
            user: user.to_string(),
            pass: pass.to_string(),
        }),
        (Some(_), _, _) => return Err(bad(IceError::MissingCredentials)),
    };
    let stun = if stun.is_empty() {
        IceServers::public_stun().stun
    } else if stun.iter().all(|s| s.eq_ignore_ascii_case("none")) {
        Vec::new()
    } else {
        stun.to_vec()
    };
    IceServers::new(stun, turn).map_err(bad)
}

/// Whether the player named ICE servers itself (`--stun`/`--turn`): those
/// win over what the signaling server offers.
fn flags_given(stun: &[String], turn: Option<&str>) -> bool {
    !stun.is_empty() || turn.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn ice_flags_give_public_stun_none_or_what_they_name() {
        let public = ice_from_flags(&[], None, None, None).ok().unwrap();
        assert_eq!(public, IceServers::public_stun());
        let none = ice_from_flags(&s(&["none"]), None, None, None)
            .ok()
            .unwrap();
        assert!(none.entry().urls.is_empty());
        let named = ice_from_flags(
            &s(&["stun:198.51.100.1:3478"]),
            Some("turn:198.51.100.1:3478?transport=udp"),
            Some("u"),
            Some("p"),
        )
        .ok()
        .unwrap();
        assert_eq!(named.entry().urls.len(), 2);
        assert!(flags_given(&s(&["none"]), None) && !flags_given(&[], None));
        let refused = |r: Result<IceServers, Failure>, says: &str| match r {
            Err(Failure::BadInput(why)) => assert!(why.contains(says), "{why}"),
            _ => panic!("taken; expected an error saying {says}"),
        };
        let no_pass = ice_from_flags(&[], Some("turn:h:3478"), Some("u"), None);
        refused(no_pass, "--turn needs --turn-user and --turn-pass");
        let stun_as_turn = ice_from_flags(&[], Some("stun:h:3478"), Some("u"), Some("p"));
        refused(stun_as_turn, "is a STUN URL");
        refused(
            ice_from_flags(&s(&["turn:h"]), None, None, None),
            "is a TURN URL",
        );
        refused(ice_from_flags(&s(&["stun:"]), None, None, None), "stun:");
    }

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
