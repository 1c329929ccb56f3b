//! What the server hands every client in `GET /ice`: the operator's STUN
//! and TURN URLs and, for TURN, a credential minted for that one client by
//! the TURN REST convention that stock coturn checks with
//! `use-auth-secret` / `static-auth-secret`:
//!
//! - username `EXPIRY:NAME`, EXPIRY a Unix time (coturn refuses it after);
//! - password base64(HMAC-SHA1(shared secret, username)).
//!
//! No player ever types a TURN password, and a leaked one dies with its
//! expiry. The secret never leaves this module's [`TurnSecret`], whose
//! `Debug` prints nothing of it.

use std::fmt;
use web_time::Duration;

use base64::Engine;
use hmac::{Hmac, Mac};
use sha1::Sha1;

use twinstar_signaling_protocol::{IceError, IceOffer, Scheme, validate_url};

/// How long a minted TURN credential is valid when the operator says
/// nothing: longer than any match and its reconnects, short enough that a
/// leaked one is soon useless.
pub const DEFAULT_TURN_TTL: Duration = Duration::from_secs(6 * 3600);

/// The secret shared with coturn (`static-auth-secret`).
#[derive(Clone, PartialEq, Eq)]
pub struct TurnSecret(Vec<u8>);

impl TurnSecret {
    /// Surrounding whitespace (a secret file's newline) is not part of it.
    pub fn new(secret: &str) -> Option<TurnSecret> {
        let secret = secret.trim();
        (!secret.is_empty()).then(|| TurnSecret(secret.as_bytes().to_vec()))
    }
}

impl fmt::Debug for TurnSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TurnSecret(<redacted>)")
    }
}

/// The TURN REST credential for `name`, valid until Unix time `expires`.
pub fn turn_rest_credential(secret: &TurnSecret, name: &str, expires: u64) -> (String, String) {
    let username = format!("{expires}:{name}");
    // HMAC takes a key of any length; new_from_slice cannot fail for it.
    let mut mac = <Hmac<Sha1> as Mac>::new_from_slice(&secret.0)
        .unwrap_or_else(|_| unreachable!("HMAC accepts keys of any length"));
    mac.update(username.as_bytes());
    let password = base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes());
    (username, password)
}

/// The operator's ICE servers, checked once at start.
#[derive(Clone, Debug, Default)]
pub struct IcePolicy {
    stun: Vec<String>,
    turn: Vec<String>,
    secret: Option<TurnSecret>,
    ttl: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum IcePolicyError {
    #[error(transparent)]
    Url(#[from] IceError),
    #[error(
        "--turn needs --turn-secret (or --turn-secret-file, or $TWINSTAR_TURN_SECRET): the secret coturn checks with static-auth-secret"
    )]
    NoSecret,
    #[error("--turn-secret given without any --turn URL")]
    SecretWithoutTurn,
    #[error("--turn-ttl must be between 60 s and 7 days")]
    BadTtl,
}

impl IcePolicy {
    pub fn new(
        stun: Vec<String>,
        turn: Vec<String>,
        secret: Option<TurnSecret>,
        ttl: Duration,
    ) -> Result<IcePolicy, IcePolicyError> {
        for url in &stun {
            if validate_url(url)? != Scheme::Stun {
                return Err(IceError::TurnAsStun(url.clone()).into());
            }
        }
        for url in &turn {
            if validate_url(url)? != Scheme::Turn {
                return Err(IceError::StunAsTurn(url.clone()).into());
            }
        }
        match (turn.is_empty(), secret.is_some()) {
            (false, false) => return Err(IcePolicyError::NoSecret),
            (true, true) => return Err(IcePolicyError::SecretWithoutTurn),
            _ => {}
        }
        if !(Duration::from_secs(60)..=Duration::from_secs(7 * 86400)).contains(&ttl) {
            return Err(IcePolicyError::BadTtl);
        }
        Ok(IcePolicy {
            stun,
            turn,
            secret,
            ttl,
        })
    }

    /// True when the server hands out nothing (clients keep their defaults).
    pub fn is_empty(&self) -> bool {
        self.stun.is_empty() && self.turn.is_empty()
    }

    pub fn has_turn(&self) -> bool {
        !self.turn.is_empty()
    }

    /// The offer for one client, `name` telling it apart in coturn's logs.
    pub fn offer(&self, now_unix: u64, name: &str) -> IceOffer {
        let mut offer = IceOffer {
            stun: self.stun.clone(),
            turn: self.turn.clone(),
            ..IceOffer::default()
        };
        if let (false, Some(secret)) = (self.turn.is_empty(), &self.secret) {
            let expires = now_unix + self.ttl.as_secs();
            let (user, pass) = turn_rest_credential(secret, name, expires);
            offer.username = Some(user);
            offer.credential = Some(pass);
            offer.expires = Some(expires);
        }
        offer
    }

    /// For the start-up line: the URLs and the TTL, never the secret.
    pub fn describe(&self) -> String {
        if self.is_empty() {
            return "no ICE servers offered (clients use their own defaults)".into();
        }
        let mut parts = Vec::new();
        if !self.stun.is_empty() {
            parts.push(format!("STUN {}", self.stun.join(", ")));
        }
        if !self.turn.is_empty() {
            parts.push(format!(
                "TURN {} (REST credentials, valid {})",
                self.turn.join(", "),
                humantime::format_duration(self.ttl)
            ));
        }
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn credentials_follow_the_turn_rest_convention() {
        // Checked against Python: base64(hmac.new(b"north", b"1900000000:p1", sha1).digest()).
        let secret = TurnSecret::new(" north\n").unwrap();
        let (user, pass) = turn_rest_credential(&secret, "p1", 1_900_000_000);
        assert_eq!(user, "1900000000:p1");
        assert_eq!(pass, "7p0/f72NQudpBekNgLOf+A6TO9Y=");
        // Another secret, name or expiry gives another password.
        let other = TurnSecret::new("south").unwrap();
        assert_ne!(turn_rest_credential(&other, "p1", 1_900_000_000).1, pass);
        assert_ne!(turn_rest_credential(&secret, "p2", 1_900_000_000).1, pass);
        assert_ne!(turn_rest_credential(&secret, "p1", 1_900_000_001).1, pass);
        assert_eq!(format!("{secret:?}"), "TurnSecret(<redacted>)");
        assert!(TurnSecret::new(" \n").is_none());
    }

    #[test]
    fn offers_carry_a_fresh_expiry_and_policies_are_checked() {
        let secret = TurnSecret::new("north");
        let policy = IcePolicy::new(
            s(&["stun:198.51.100.2:3478"]),
            s(&["turn:198.51.100.2:3478"]),
            secret.clone(),
            Duration::from_secs(3600),
        )
        .unwrap();
        let offer = policy.offer(1_000, "abc");
        assert_eq!(offer.expires, Some(4_600));
        assert_eq!(offer.username.as_deref(), Some("4600:abc"));
        let servers = offer.into_servers().unwrap();
        assert_eq!(servers.turn.unwrap().urls, s(&["turn:198.51.100.2:3478"]));
        assert!(!policy.describe().contains("north"));

        let stun_only = IcePolicy::new(s(&["stun:h:1"]), vec![], None, DEFAULT_TURN_TTL).unwrap();
        let offer = stun_only.offer(1_000, "x");
        assert!(offer.username.is_none() && offer.credential.is_none());
        assert!(IcePolicy::default().is_empty());

        let err = |stun: &[&str], turn: &[&str], secret: Option<TurnSecret>, ttl: u64| {
            IcePolicy::new(s(stun), s(turn), secret, Duration::from_secs(ttl)).unwrap_err()
        };
        assert!(matches!(
            err(&[], &["turn:h:1"], None, 3600),
            IcePolicyError::NoSecret
        ));
        assert!(matches!(
            err(&[], &[], secret.clone(), 3600),
            IcePolicyError::SecretWithoutTurn
        ));
        assert!(matches!(
            err(&["turn:h:1"], &[], None, 3600),
            IcePolicyError::Url(_)
        ));
        assert!(matches!(
            err(&[], &["stun:h:1"], secret.clone(), 3600),
            IcePolicyError::Url(_)
        ));
        assert!(matches!(
            err(&[], &["turn:h:1"], secret, 10),
            IcePolicyError::BadTtl
        ));
    }
}
