//! ICE servers a game names ([`IceServers::new`], e.g. from its command
//! line) or the signaling server offers (`GET /ice`, an [`IceOffer`]), checked before any
//! connection: the WebRTC stack `unwrap`s URLs it cannot parse deep in its
//! offer code, so a typo would otherwise be a panic, not an error.

/// Public STUN servers used when no `--stun` is given: they let a peer
/// behind a home NAT learn its public address. Unreachable or unresolvable
/// ones cost nothing on a LAN or loopback (host candidates go first).
pub const DEFAULT_STUN: [&str; 2] = [
    "stun:stun.l.google.com:19302",
    "stun:stun1.l.google.com:19302",
];

/// The path of a signaling server's ICE offer: `GET /ice` answers with an
/// [`IceOffer`] as JSON (404 when the server hands out none).
pub const ICE_PATH: &str = "/ice";

/// Largest `/ice` answer a client reads (a few URLs and one credential).
pub const MAX_ICE_OFFER_BYTES: u64 = 16 * 1024;

/// What a signaling server tells its clients to use: STUN and TURN URLs,
/// and for TURN a credential minted for this client (TURN REST: the
/// username carries its expiry). The wire form of `GET /ice`.
#[derive(Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IceOffer {
    /// STUN URLs (`stun:host:3478`).
    #[serde(default)]
    pub stun: Vec<String>,
    /// TURN URLs of one relay; they need `username` and `credential`.
    #[serde(default)]
    pub turn: Vec<String>,
    /// The TURN credential's user name (TURN REST: it carries the expiry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    /// The TURN credential's password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credential: Option<String>,
    /// Unix time after which the credential is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<u64>,
}

/// Never prints the credential: offers end up in logs.
impl std::fmt::Debug for IceOffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IceOffer")
            .field("stun", &self.stun)
            .field("turn", &self.turn)
            .field("username", &self.username)
            .field(
                "credential",
                &self.credential.as_ref().map(|_| "<redacted>"),
            )
            .field("expires", &self.expires)
            .finish()
    }
}

impl IceOffer {
    /// An offer from the body of a `GET /ice` answer (the server's bytes,
    /// already bounded by [`MAX_ICE_OFFER_BYTES`]).
    pub fn parse(body: &str) -> Result<IceOffer, String> {
        serde_json::from_str(body).map_err(|e| format!("not an ICE offer: {e}"))
    }

    /// Checks every URL as the flags are checked; TURN URLs need the
    /// credential.
    pub fn into_servers(self) -> Result<IceServers, IceError> {
        let turn = match (self.turn.is_empty(), self.username, self.credential) {
            (true, _, _) => None,
            (false, Some(user), Some(pass)) => Some(TurnServer {
                urls: self.turn,
                user,
                pass,
            }),
            (false, _, _) => return Err(IceError::MissingCredentials),
        };
        IceServers::new(self.stun, turn)
    }
}

/// The STUN and TURN servers a peer gathers ICE candidates with. Empty (the
/// default): host candidates only, enough on a LAN or loopback.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IceServers {
    /// STUN URLs (`stun:host:3478`): this peer's public address.
    pub stun: Vec<String>,
    /// A TURN relay, for peers no direct path joins.
    pub turn: Option<TurnServer>,
}

/// A TURN relay and the credential to use it with.
#[derive(Clone, PartialEq, Eq)]
pub struct TurnServer {
    /// One relay may be reached several ways (UDP, TCP, TLS); one credential.
    pub urls: Vec<String>,
    /// The credential's user name.
    pub user: String,
    /// Its password.
    pub pass: String,
}

/// Never prints the password: servers end up in logs.
impl std::fmt::Debug for TurnServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnServer")
            .field("urls", &self.urls)
            .field("user", &self.user)
            .field("pass", &"<redacted>")
            .finish()
    }
}

/// Why ICE servers (from the flags or an [`IceOffer`]) cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IceError {
    /// A URL [`validate_url`] refuses, and why.
    #[error(
        "invalid ICE server URL '{url}': {why} (expected e.g. stun:host:3478 or turn:host:3478)"
    )]
    BadUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// TURN URLs without both a user name and a password.
    #[error("--turn needs --turn-user and --turn-pass")]
    MissingCredentials,
    /// A TURN URL where STUN URLs go.
    #[error("'{0}' is a TURN URL; pass it with --turn")]
    TurnAsStun(String),
    /// A STUN URL where TURN URLs go.
    #[error("'{0}' is a STUN URL; pass it with --stun")]
    StunAsTurn(String),
}

impl IceServers {
    /// STUN servers and at most one TURN relay, every URL checked (a
    /// TURN URL among the STUN ones is refused, and the reverse).
    pub fn new(stun: Vec<String>, turn: Option<TurnServer>) -> Result<Self, IceError> {
        for url in &stun {
            if validate_url(url)? != Scheme::Stun {
                return Err(IceError::TurnAsStun(url.clone()));
            }
        }
        for url in turn.iter().flat_map(|t| &t.urls) {
            if validate_url(url)? != Scheme::Turn {
                return Err(IceError::StunAsTurn(url.clone()));
            }
        }
        Ok(IceServers { stun, turn })
    }

    /// The public STUN servers of [`DEFAULT_STUN`]: what a peer behind a
    /// home NAT needs to learn its public address, when nobody names others.
    pub fn public_stun() -> Self {
        IceServers {
            stun: DEFAULT_STUN.iter().map(|s| s.to_string()).collect(),
            turn: None,
        }
    }

    /// No servers: host candidates only.
    pub fn none() -> Self {
        IceServers::default()
    }

    /// The servers as one entry, the form WebRTC stacks take (matchbox's
    /// `RtcIceServerConfig`, the browser's `RTCIceServer`): the credentials
    /// apply to the TURN URLs and STUN servers ignore them.
    pub fn entry(&self) -> IceEntry {
        let mut urls = self.stun.clone();
        let (mut username, mut credential) = (None, None);
        if let Some(turn) = &self.turn {
            urls.extend(turn.urls.iter().cloned());
            username = Some(turn.user.clone());
            credential = Some(turn.pass.clone());
        }
        IceEntry {
            urls,
            username,
            credential,
        }
    }
}

/// One ICE server entry: every URL, and the TURN credential if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IceEntry {
    /// The STUN URLs, then the TURN relay's.
    pub urls: Vec<String>,
    /// The TURN credential's user name, if there is a relay.
    pub username: Option<String>,
    /// The TURN credential's password, if there is a relay.
    pub credential: Option<String>,
}

/// What kind of ICE server a URL names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// `stun:` or `stuns:`: a server that tells a peer its public address.
    Stun,
    /// `turn:` or `turns:`: a relay.
    Turn,
}

/// `stun:host[:port]`, `stuns:`, `turn:host[:port][?transport=udp|tcp]`, `turns:`.
pub fn validate_url(url: &str) -> Result<Scheme, IceError> {
    let bad = |why| IceError::BadUrl {
        url: url.to_string(),
        why,
    };
    let (scheme, rest) = url.split_once(':').ok_or_else(|| bad("no scheme"))?;
    let kind = match scheme.to_ascii_lowercase().as_str() {
        "stun" | "stuns" => Scheme::Stun,
        "turn" | "turns" => Scheme::Turn,
        _ => return Err(bad("the scheme must be stun, stuns, turn or turns")),
    };
    let (address, query) = match rest.split_once('?') {
        Some((a, q)) => (a, Some(q)),
        None => (rest, None),
    };
    if let Some(query) = query {
        if kind == Scheme::Stun {
            return Err(bad("STUN URLs take no query"));
        }
        if !matches!(query, "transport=udp" | "transport=tcp") {
            return Err(bad(
                "the only query allowed is transport=udp or transport=tcp",
            ));
        }
    }
    if address.starts_with("//") {
        return Err(bad("no '//' after the scheme"));
    }
    // IPv6 literals come in brackets: [::1]:3478.
    let (host, port) = if let Some(v6) = address.strip_prefix('[') {
        let (host, after) = v6.split_once(']').ok_or_else(|| bad("unclosed '['"))?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':').ok_or_else(|| bad("junk after ']'"))?),
        };
        (host, port)
    } else {
        match address.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (address, None),
        }
    };
    if host.is_empty() || host.contains(|c: char| c.is_whitespace() || c == '/' || c == '@') {
        return Err(bad("missing or invalid host"));
    }
    if let Some(port) = port
        && !matches!(port.parse::<u16>(), Ok(p) if p > 0)
    {
        return Err(bad("the port must be a number from 1 to 65535"));
    }
    Ok(kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    fn turn(url: &str) -> Option<TurnServer> {
        Some(TurnServer {
            urls: s(&[url]),
            user: "u".into(),
            pass: "p".into(),
        })
    }

    #[test]
    fn public_stun_and_explicit_servers() {
        assert_eq!(IceServers::public_stun().stun, s(&DEFAULT_STUN));
        assert!(IceServers::none().entry().urls.is_empty());
        let t = IceServers::new(
            s(&["stun:198.51.100.1:3478"]),
            turn("turn:198.51.100.1:3478?transport=udp"),
        )
        .unwrap();
        let m = t.entry();
        assert_eq!(m.urls.len(), 2);
        assert_eq!(
            (m.username.as_deref(), m.credential.as_deref()),
            (Some("u"), Some("p"))
        );
    }

    #[test]
    fn offers_are_checked_like_flags_and_never_print_the_credential() {
        let offer = IceOffer {
            stun: s(&["stun:198.51.100.1:3478"]),
            turn: s(&[
                "turn:198.51.100.1:3478?transport=udp",
                "turns:example.org:5349",
            ]),
            username: Some("1900000000:p1".into()),
            credential: Some("c2VjcmV0".into()),
            expires: Some(1_900_000_000),
        };
        let shown = format!("{offer:?}");
        assert!(!shown.contains("c2VjcmV0"), "{shown}");
        let servers = offer.clone().into_servers().unwrap();
        assert!(!format!("{servers:?}").contains("c2VjcmV0"));
        let m = servers.entry();
        assert_eq!(m.urls.len(), 3);
        assert_eq!(m.credential.as_deref(), Some("c2VjcmV0"));
        // Round trip through the wire form.
        let json = serde_json::to_string(&offer).unwrap();
        assert_eq!(serde_json::from_str::<IceOffer>(&json).unwrap(), offer);
        // TURN without a credential, or a TURN URL among the STUN ones, is refused.
        let no_cred = IceOffer {
            credential: None,
            ..offer.clone()
        };
        assert_eq!(no_cred.into_servers(), Err(IceError::MissingCredentials));
        let mixed = IceOffer {
            stun: s(&["turn:h:1"]),
            ..offer
        };
        assert!(matches!(mixed.into_servers(), Err(IceError::TurnAsStun(_))));
        assert!(matches!(
            serde_json::from_str::<IceOffer>(r#"{"stun":["stun:h:1","turn:x"]}"#)
                .unwrap()
                .into_servers(),
            Err(IceError::TurnAsStun(_))
        ));
    }

    #[test]
    fn bad_urls_are_errors_not_panics() {
        for url in [
            "stun.example.com",
            "http://x",
            "stun:",
            "stun://host:3478",
            "stun:host:0",
            "stun:host:99999",
            "stun:host:port",
            "stun:[::1",
            "stun:host?transport=udp",
            "turn:host?foo=bar",
        ] {
            let r = IceServers::new(s(&[url]), None);
            assert!(
                matches!(
                    r,
                    Err(IceError::BadUrl { .. }) | Err(IceError::TurnAsStun(_))
                ),
                "{url}: {r:?}"
            );
        }
        assert!(IceServers::new(s(&["stun:[::1]:3478"]), None).is_ok());
        assert!(matches!(
            IceServers::new(Vec::new(), turn("stun:h:3478")),
            Err(IceError::StunAsTurn(_))
        ));
        assert!(matches!(
            IceServers::new(s(&["turn:h"]), None),
            Err(IceError::TurnAsStun(_))
        ));
    }
}
