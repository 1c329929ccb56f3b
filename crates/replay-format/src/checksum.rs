//! The text form of a state checksum (a game's 128-bit hash of its state):
//! 32 lowercase hex digits, in summaries, replays' dumps and control messages.

/// A checksum as 32 hex digits.
pub fn hex_checksum(checksum: u128) -> String {
    format!("{checksum:032x}")
}

/// A text that is not a checksum: its first 40 characters.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a checksum (32 hex digits)")]
pub struct BadChecksum(pub String);

/// The inverse of [`hex_checksum`]: exactly 32 hex digits, either case.
pub fn parse_hex_checksum(text: &str) -> Result<u128, BadChecksum> {
    let bad = || BadChecksum(text.chars().take(40).collect());
    if text.len() != 32 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad());
    }
    u128::from_str_radix(text, 16).map_err(|_| bad())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_what_is_not_32_hex_digits() {
        for value in [0, 1, u128::MAX, 0x0123_4567_89ab_cdef_0011_2233_4455_6677] {
            assert_eq!(parse_hex_checksum(&hex_checksum(value)), Ok(value));
        }
        for bad in [
            "",
            "0",
            "+0000000000000000000000000000000",
            "zz",
            &"f".repeat(33),
        ] {
            assert!(parse_hex_checksum(bad).is_err(), "{bad:?}");
        }
    }
}
