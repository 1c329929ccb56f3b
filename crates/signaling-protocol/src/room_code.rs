//! Room codes: the short string two players read to each other to meet.
//!
//! A code is spoken aloud or typed from a chat message, so the alphabet leaves
//! out the characters people confuse (0/O, 1/I/L) and parsing forgives case,
//! dashes and spaces. Generated codes have 7 characters of a 31-symbol
//! alphabet, about 34.7 bits: guessing a live room by brute force against a
//! signaling server is impractical, and a collision between two hosts is
//! negligible. Typed codes may be 6 to 8 characters so a memorable code such
//! as `K7Q-2XM` (chosen by a player with `--room`) is accepted too.

use std::fmt;
use std::str::FromStr;

use rand::Rng;

/// Digits 2-9 and the letters without I, L and O: 8 + 23 = 31 symbols.
pub const ALPHABET: &[u8; 31] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";

/// Length of generated codes: 31^7 ≈ 2^34.7.
pub const GENERATED_LEN: usize = 7;
/// Shortest code accepted when typed (31^6 ≈ 2^29.7, only for chosen codes).
pub const MIN_LEN: usize = 6;
/// Longest code accepted when typed.
pub const MAX_LEN: usize = 8;

/// A valid room code, stored in canonical form (upper case, no separators).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RoomCode(String);

/// Why a typed room code was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RoomCodeError {
    /// Nothing but dashes and whitespace.
    #[error("room code is empty")]
    Empty,
    /// A character outside [`ALPHABET`] (in any case).
    #[error(
        "invalid character {ch:?} at position {position} of the room code \
         (codes use the digits 2-9 and the letters A-Z except I, L and O)"
    )]
    InvalidChar {
        /// The character, as typed.
        ch: char,
        /// Its position in the input, from 1 (dashes and spaces counted).
        position: usize,
    },
    /// Fewer than [`MIN_LEN`] or more than [`MAX_LEN`] characters.
    #[error("room code must have {min} to {max} characters, got {len}", min = MIN_LEN, max = MAX_LEN)]
    WrongLength {
        /// The code's characters, dashes and whitespace not counted.
        len: usize,
    },
}

impl RoomCode {
    /// A fresh random code from the operating system's generator (via
    /// `rand::thread_rng`, a CSPRNG seeded from the OS): codes must not be
    /// predictable from one another.
    pub fn generate() -> Self {
        Self::generate_with(&mut rand::thread_rng())
    }

    /// A random code from the given generator (tests pass a seeded one).
    pub fn generate_with<R: Rng + ?Sized>(rng: &mut R) -> Self {
        let code = (0..GENERATED_LEN)
            .map(|_| ALPHABET[rng.gen_range(0..ALPHABET.len())] as char)
            .collect();
        RoomCode(code)
    }

    /// Parses a typed code: case-insensitive, dashes and whitespace ignored.
    pub fn parse(input: &str) -> Result<Self, RoomCodeError> {
        let mut code = String::with_capacity(MAX_LEN);
        let mut len = 0usize;
        // Positions are 1-based over the characters as typed, so the message
        // points at what the user actually sees.
        for (index, ch) in input.chars().enumerate() {
            if ch == '-' || ch.is_whitespace() {
                continue;
            }
            let upper = ch.to_ascii_uppercase();
            if !upper.is_ascii() || !ALPHABET.contains(&(upper as u8)) {
                return Err(RoomCodeError::InvalidChar {
                    ch,
                    position: index + 1,
                });
            }
            len += 1;
            // Stop collecting past the maximum but keep counting, so the
            // error reports the real length without unbounded allocation.
            if len <= MAX_LEN {
                code.push(upper);
            }
        }
        match len {
            0 => Err(RoomCodeError::Empty),
            MIN_LEN..=MAX_LEN => Ok(RoomCode(code)),
            _ => Err(RoomCodeError::WrongLength { len }),
        }
    }

    /// Upper case without separators: the signaling room id (URL path).
    pub fn canonical(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RoomCode {
    /// Two groups joined by a dash, the first one the longer: `K7Q-2XM`,
    /// `K7QR-2XM`, `K7QR-2XMP`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The code is ASCII, so byte indices are character indices.
        let split = self.0.len().div_ceil(2);
        write!(f, "{}-{}", &self.0[..split], &self.0[split..])
    }
}

impl FromStr for RoomCode {
    type Err = RoomCodeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RoomCode::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    #[test]
    fn alphabet_has_no_ambiguous_symbols_and_no_repeats() {
        for bad in b"01OIL" {
            assert!(!ALPHABET.contains(bad), "{}", *bad as char);
        }
        let mut sorted = ALPHABET.to_vec();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 31);
    }

    #[test]
    fn generated_codes_have_at_least_30_bits() {
        let bits = GENERATED_LEN as f64 * (ALPHABET.len() as f64).log2();
        assert!(bits >= 30.0, "{bits}");
        let code = RoomCode::generate();
        assert_eq!(code.canonical().len(), GENERATED_LEN);
        assert!(code.canonical().bytes().all(|b| ALPHABET.contains(&b)));
    }

    #[test]
    fn generated_codes_use_every_symbol_and_rarely_repeat() {
        let mut rng = StdRng::seed_from_u64(7);
        let mut seen = std::collections::HashSet::new();
        let mut symbols = std::collections::HashSet::new();
        for _ in 0..10_000 {
            let code = RoomCode::generate_with(&mut rng);
            symbols.extend(code.canonical().bytes());
            seen.insert(code);
        }
        assert_eq!(symbols.len(), ALPHABET.len());
        // 10k draws from 31^7 ≈ 2.75e10 codes: a repeat has probability ~0.2%.
        assert!(seen.len() >= 9_999, "{}", seen.len());
    }

    #[test]
    fn display_groups_and_canonical_is_plain() {
        let code = RoomCode::parse("k7q2xm").unwrap();
        assert_eq!(code.to_string(), "K7Q-2XM");
        assert_eq!(code.canonical(), "K7Q2XM");
        assert_eq!(RoomCode::parse("K7Q2XMP").unwrap().to_string(), "K7Q2-XMP");
        assert_eq!(
            RoomCode::parse("K7Q2XMPA").unwrap().to_string(),
            "K7Q2-XMPA"
        );
    }

    #[test]
    fn parse_forgives_case_dashes_and_spaces() {
        let want = RoomCode::parse("K7Q2XM").unwrap();
        for typed in ["k7q-2xm", " K7Q 2XM ", "k-7-q-2-x-m", "K7Q\t2xm", "k7q2xm"] {
            assert_eq!(RoomCode::parse(typed).unwrap(), want, "{typed:?}");
            assert_eq!(typed.parse::<RoomCode>().unwrap(), want, "{typed:?}");
        }
    }

    #[test]
    fn parse_names_the_bad_character_and_its_position() {
        assert_eq!(
            RoomCode::parse("K7Q-0XM"),
            Err(RoomCodeError::InvalidChar {
                ch: '0',
                position: 5
            })
        );
        assert_eq!(
            RoomCode::parse("abcdel"),
            Err(RoomCodeError::InvalidChar {
                ch: 'l',
                position: 6
            })
        );
        let err = RoomCode::parse("K7Q-2XÖ").unwrap_err();
        assert!(err.to_string().contains("'Ö'"), "{err}");
        assert!(err.to_string().contains("position 7"), "{err}");
    }

    #[test]
    fn parse_reports_wrong_length() {
        assert_eq!(RoomCode::parse(""), Err(RoomCodeError::Empty));
        assert_eq!(RoomCode::parse(" - "), Err(RoomCodeError::Empty));
        assert_eq!(
            RoomCode::parse("K7Q-2X"),
            Err(RoomCodeError::WrongLength { len: 5 })
        );
        let long = "K".repeat(1000);
        assert_eq!(
            RoomCode::parse(&long),
            Err(RoomCodeError::WrongLength { len: 1000 })
        );
        assert!(
            RoomCode::parse("K7Q-2X")
                .unwrap_err()
                .to_string()
                .contains("got 5")
        );
    }

    proptest! {
        #[test]
        fn display_then_parse_round_trips(seed in any::<u64>()) {
            let code = RoomCode::generate_with(&mut StdRng::seed_from_u64(seed));
            prop_assert_eq!(RoomCode::parse(&code.to_string()), Ok(code.clone()));
            prop_assert_eq!(RoomCode::parse(code.canonical()), Ok(code.clone()));
            prop_assert_eq!(RoomCode::parse(&code.to_string().to_lowercase()), Ok(code));
        }

        #[test]
        fn random_strings_never_panic(s in any::<String>()) {
            if let Ok(code) = RoomCode::parse(&s) {
                // Whatever parses is canonical and displays back to itself.
                prop_assert!(code.canonical().bytes().all(|b| ALPHABET.contains(&b)));
                prop_assert_eq!(RoomCode::parse(&code.to_string()), Ok(code));
            }
        }

        #[test]
        fn near_codes_never_panic(s in "[0-9A-Za-z \\-]{0,12}") {
            let _ = RoomCode::parse(&s);
        }
    }
}
