//! Who may read `/metrics`, and where. The figures are the operator's
//! (room counts, refusals, traffic): they are not for the internet, which
//! could also use them to time its attacks. So:
//!
//! - on the public port, `/metrics` answers 404 unless a bearer token is
//!   set (`--metrics-token-file`), and then only to requests that carry
//!   it (`Authorization: Bearer TOKEN`), 401 to others;
//! - a listener of its own (`--metrics-bind`, `127.0.0.1:9536` for the
//!   command line) serves `/metrics` and nothing else, over plain HTTP,
//!   for a Prometheus on the same machine or private network; with a
//!   token set it asks for the token there too.

use std::fmt;
use std::net::SocketAddr;

use axum::http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;

use crate::http::reply::plain;

/// The port of the command line's default metrics listener: the public
/// port's (3536) digits behind Prometheus' 9xxx exporter range.
pub const DEFAULT_METRICS_PORT: u16 = 9536;

/// A token shorter than this is refused: it would be guessed.
pub const MIN_TOKEN_CHARS: usize = 16;

/// Where `/metrics` is served; [`Default`] serves it nowhere (the
/// library's default: a server embedded in a game or a test opens no
/// second port of its own accord).
#[derive(Clone, Debug, Default)]
pub struct MetricsAccess {
    /// A listener of its own that serves only `/metrics` (plain HTTP).
    pub bind: Option<SocketAddr>,
    /// With a token, `/metrics` is also served on the public port, to
    /// requests that carry it; the metrics listener asks for it too.
    pub token: Option<MetricsToken>,
}

/// The bearer token; its `Debug` prints nothing of it.
#[derive(Clone, PartialEq, Eq)]
pub struct MetricsToken(String);

impl fmt::Debug for MetricsToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("MetricsToken(<redacted>)")
    }
}

impl MetricsToken {
    /// The token in `text` (a file's first line, surrounding whitespace
    /// dropped), or why it cannot be one.
    pub fn new(text: &str) -> Result<MetricsToken, String> {
        let token = text.lines().next().unwrap_or_default().trim();
        if token.chars().count() < MIN_TOKEN_CHARS {
            return Err(format!(
                "the metrics token must be at least {MIN_TOKEN_CHARS} characters (e.g. openssl rand -hex 32)"
            ));
        }
        // It goes into an HTTP header as it is.
        if !token.chars().all(|c| c.is_ascii_graphic()) {
            return Err("the metrics token must be printable ASCII without spaces".into());
        }
        Ok(MetricsToken(token.to_owned()))
    }

    /// Whether `headers` carry `Authorization: Bearer TOKEN`. Compared in
    /// time that does not depend on where the first difference is.
    fn carried_by(&self, headers: &HeaderMap) -> bool {
        let Some(given) = headers
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
        else {
            return false;
        };
        let (a, b) = (given.trim().as_bytes(), self.0.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
    }
}

/// Where a `/metrics` request arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Listener {
    Public,
    Metrics,
}

/// `None` if the request may read the metrics, else the answer it gets.
pub(crate) fn refusal(
    access: &MetricsAccess,
    listener: Listener,
    headers: &HeaderMap,
) -> Option<Response> {
    match (&access.token, listener) {
        (None, Listener::Public) => Some(plain(StatusCode::NOT_FOUND, "not found\n")),
        (None, Listener::Metrics) => None,
        (Some(token), _) if token.carried_by(headers) => None,
        (Some(_), _) => {
            let mut r = plain(
                StatusCode::UNAUTHORIZED,
                "/metrics needs the operator's bearer token\n",
            );
            r.headers_mut()
                .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            Some(r)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bearer(token: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            AUTHORIZATION,
            HeaderValue::from_str(&format!("Bearer {token}")).unwrap(),
        );
        h
    }

    fn status(access: &MetricsAccess, listener: Listener, headers: &HeaderMap) -> u16 {
        refusal(access, listener, headers).map_or(200, |r| r.status().as_u16())
    }

    #[test]
    fn without_a_token_only_the_metrics_listener_serves() {
        let access = MetricsAccess::default();
        let none = HeaderMap::new();
        assert_eq!(status(&access, Listener::Public, &none), 404);
        assert_eq!(status(&access, Listener::Public, &bearer("x")), 404);
        assert_eq!(status(&access, Listener::Metrics, &none), 200);
    }

    #[test]
    fn with_a_token_both_serve_to_its_bearer_only() {
        let token = "0123456789abcdef0123";
        let access = MetricsAccess {
            bind: None,
            token: Some(MetricsToken::new(&format!("{token}\nignored")).unwrap()),
        };
        for listener in [Listener::Public, Listener::Metrics] {
            assert_eq!(status(&access, listener, &bearer(token)), 200);
            assert_eq!(status(&access, listener, &HeaderMap::new()), 401);
            assert_eq!(
                status(&access, listener, &bearer("0123456789abcdef0124")),
                401
            );
            assert_eq!(status(&access, listener, &bearer(&token[1..])), 401);
        }
    }

    #[test]
    fn a_short_or_spaced_token_is_refused_and_never_printed() {
        assert!(MetricsToken::new("short").is_err());
        assert!(
            MetricsToken::new("  \n0123456789abcdef").is_err(),
            "first line"
        );
        assert!(MetricsToken::new("0123456789 abcdef").is_err());
        let token = MetricsToken::new(" 0123456789abcdef \n").unwrap();
        assert!(!format!("{token:?}").contains("0123"));
    }
}
