//! Seat tokens: a player's proof that a seat in a room is its own, so a
//! fresh connection can take it back at once from a connection that went
//! stale (a network cut leaves the old websocket open on the server until
//! the liveness check gives up, 25 s, and the room of two is full till then).
//!
//! The token is a 128-bit random secret the client draws once per game and
//! presents in its room URL (`/K7Q2XM?seat=<32 hex digits>`). matchbox's
//! protocol has no message in which the server could hand one out, so the
//! server binds the token it is given to the seat it admits: from then on
//! that seat belongs to whoever presents the token, and to nobody else. A
//! token that holds no seat in the room (stale, another room's, guessed)
//! takes nothing: such a client is admitted only if a seat is free, like
//! any newcomer, and a full room refuses it. Guessing a live token means
//! guessing 128 random bits.

use std::fmt;

/// The query parameter carrying the token.
pub const SEAT_PARAM: &str = "seat";

/// A seat token: 128 random bits, written as 32 hexadecimal digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SeatToken([u8; 16]);

/// Why a text is no seat token.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid seat token: expected 32 hexadecimal digits")]
pub struct SeatTokenError;

impl SeatToken {
    /// A fresh token from the operating system's random source.
    pub fn random() -> SeatToken {
        SeatToken(rand::random())
    }

    /// A token from its 32 hexadecimal digits (either case).
    pub fn parse(text: &str) -> Result<SeatToken, SeatTokenError> {
        // from_str_radix alone would take a sign ("+1").
        if text.len() != 32 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(SeatTokenError);
        }
        let mut bytes = [0; 16];
        for (byte, pair) in bytes.iter_mut().zip(text.as_bytes().chunks(2)) {
            let digit = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
            *byte = digit(pair[0]) << 4 | digit(pair[1]);
        }
        Ok(SeatToken(bytes))
    }

    /// The token a room URL's query carries, if any: `Err` for a `seat`
    /// parameter that is not a token (refused rather than ignored, so a
    /// client with a broken token learns it before it needs it).
    pub fn from_query(query: Option<&str>) -> Result<Option<SeatToken>, SeatTokenError> {
        let Some(query) = query else { return Ok(None) };
        let mut found = None;
        for pair in query.split('&') {
            if let Some((SEAT_PARAM, value)) = pair.split_once('=') {
                if found.is_some() {
                    return Err(SeatTokenError);
                }
                found = Some(SeatToken::parse(value)?);
            }
        }
        Ok(found)
    }
}

impl fmt::Display for SeatToken {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// Never shown in full: a log line with the token would hand the seat to
/// whoever reads the log.
impl fmt::Debug for SeatToken {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "SeatToken({:02x}…)", self.0[0])
    }
}

/// In JSON (the room requests of `moderation`): its 32 hex digits.
impl serde::Serialize for SeatToken {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for SeatToken {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        SeatToken::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_round_trips_through_its_text() {
        let token = SeatToken::random();
        let text = token.to_string();
        assert_eq!(text.len(), 32);
        assert_eq!(SeatToken::parse(&text), Ok(token));
        assert_eq!(SeatToken::parse(&text.to_uppercase()), Ok(token));
        assert_ne!(SeatToken::random(), token, "tokens are drawn at random");
        assert!(!format!("{token:?}").contains(&text[2..]), "Debug hides it");
    }

    #[test]
    fn anything_but_32_hex_digits_is_refused() {
        for bad in ["", "00", &"0".repeat(31), &"0".repeat(33), &"g".repeat(32)] {
            assert_eq!(SeatToken::parse(bad), Err(SeatTokenError), "{bad:?}");
        }
        // Multi-byte characters must not split inside a pair.
        assert_eq!(SeatToken::parse(&"é".repeat(16)), Err(SeatTokenError));
        assert_eq!(
            SeatToken::parse("+1".repeat(16).as_str()),
            Err(SeatTokenError)
        );
    }

    #[test]
    fn the_query_carries_at_most_one_token() {
        let token = SeatToken::random();
        let q = format!("seat={token}");
        assert_eq!(SeatToken::from_query(None), Ok(None));
        assert_eq!(SeatToken::from_query(Some("x=1")), Ok(None));
        assert_eq!(SeatToken::from_query(Some(&q)), Ok(Some(token)));
        assert_eq!(
            SeatToken::from_query(Some(&format!("x=1&{q}"))),
            Ok(Some(token))
        );
        assert_eq!(
            SeatToken::from_query(Some(&format!("{q}&{q}"))),
            Err(SeatTokenError)
        );
        assert_eq!(SeatToken::from_query(Some("seat=zz")), Err(SeatTokenError));
    }
}
