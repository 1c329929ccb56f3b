//! The reliable channel's wire format: every [`Message`] travels in one
//! versioned envelope, `b'T'`, the protocol version (one byte), then the
//! message in postcard.
//!
//! Why postcard: a serde format (the messages keep their derives, and tests
//! can still print them as JSON) that is compact without effort — varint
//! integers, variants by index, byte strings as length + bytes, no field
//! names — so a live chunk of inputs costs its bytes, not base64 inside
//! JSON. It is not self-describing, so the envelope's version decides the
//! layout: a new variant goes last and any change bumps
//! [`PROTOCOL_VERSION`].
//!
//! Sizes are checked before anything is allocated: a message longer than
//! [`MAX_MESSAGE_BYTES`] is refused unread; postcard checks every length
//! prefix of a string or byte string against the bytes that are left
//! before copying them; the one list (a `Hello`'s rejoin claims) is read
//! element by element up to its cap.

pub mod chunk;
pub mod message;
pub mod phase;

pub use message::{
    Claim, DesyncState, HandshakeError, Hello, Message, PROTOCOL_VERSION, Watch, version_tag,
};

/// The envelope's first byte: not `{`, so an older peer's JSON is told
/// apart from a newer one's envelope.
pub const MAGIC: u8 = b'T';
/// The envelope's version byte.
const VERSION: u8 = {
    assert!(PROTOCOL_VERSION < 256);
    PROTOCOL_VERSION as u8
};
/// The longest message accepted: a minute of catch-up is ~2.5 KB and the
/// largest possible one (60 chunks of 60 frames that never repeat) ~16 KB.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024;

/// `message` in its envelope.
pub fn encode(message: &Message) -> Vec<u8> {
    // Strings, integers and byte strings always serialise.
    postcard::to_extend(message, vec![MAGIC, VERSION]).unwrap_or_default()
}

/// A message from its envelope; an envelope of another version, or an
/// older peer's JSON, is a version mismatch in words.
pub fn decode(bytes: &[u8]) -> Result<Message, HandshakeError> {
    let malformed = || HandshakeError::Malformed { bytes: bytes.len() };
    if bytes.len() > MAX_MESSAGE_BYTES {
        return Err(malformed());
    }
    match bytes {
        [MAGIC, VERSION, body @ ..] => match postcard::take_from_bytes::<Message>(body) {
            Ok((message, [])) => Ok(message),
            _ => Err(malformed()),
        },
        [MAGIC, version, ..] => Err(mismatch(format!("a peer of protocol {version}"))),
        [b'{', ..] => Err(mismatch(older_peer(bytes))),
        _ => Err(malformed()),
    }
}

fn mismatch(theirs: String) -> HandshakeError {
    HandshakeError::VersionMismatch {
        ours: format!("protocol {PROTOCOL_VERSION}"),
        theirs,
    }
}

/// Protocols 1–4 sent JSON; their `Hello` says which version they are.
fn older_peer(bytes: &[u8]) -> String {
    let hello: Option<serde_json::Value> = serde_json::from_slice(bytes).ok();
    let field = |name: &str| hello.as_ref().and_then(|h| h.get(name)).cloned();
    match (field("game_version"), field("protocol")) {
        (Some(serde_json::Value::String(game)), Some(serde_json::Value::Number(protocol))) => {
            format!("twinstar {game} (protocol {protocol})")
        }
        _ => "an older twinstar (protocol 4 or earlier)".to_string(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::message::Role;
    use super::*;
    use crate::test_game::GAME;

    fn hello() -> Hello {
        let mut hello = Hello::new(&GAME, Role::Host, 3, "default");
        hello.rejoin = vec![Claim {
            match_id: 9,
            player: 2,
        }];
        hello
    }

    /// One message of each kind, in the wire's order.
    pub(crate) fn one_of_each() -> Vec<Message> {
        vec![
            Message::Hello(hello()),
            Message::Ping { seq: 4 },
            Message::Pong { seq: u32::MAX },
            Message::Measured {
                rtt_us: 41_000,
                jitter_us: 900,
            },
            Message::Done {
                frame: 900,
                checksum: u128::MAX - 7,
            },
            Message::Bye {
                reason: "esc".into(),
            },
            Message::Desync {
                frame: 70,
                sender: 1,
                receiver: 0xabc,
            },
            Message::Busy,
            Message::DesyncState(DesyncState {
                frame: 130,
                checksum: 0xfeed,
                world: vec![0, 255, 7],
                inputs_from: 10,
                inputs: vec![1, 2, 3, 4],
            }),
            Message::CatchUp {
                chunks: vec![0, 1, 2, 255],
            },
            Message::CaughtUp {
                frame: 36_000,
                checksum: 5,
            },
            Message::Chat {
                text: "gg \"wp\" é".into(),
            },
            Message::Watch(Watch::this_build(&GAME)),
            Message::WatchRefused { reason: "v".into() },
            Message::Streaming {
                seed: 1,
                preset: "stress".into(),
                frame: 120,
                name: "S1".into(),
                players: vec!["Ana".into(), "Ana (2)".into()],
            },
            Message::Relayed {
                from: "S1".into(),
                frame: 7,
                text: "hi".into(),
            },
            Message::Away,
        ]
    }

    #[test]
    fn every_message_round_trips_in_its_envelope() {
        for message in one_of_each() {
            let bytes = encode(&message);
            assert_eq!(&bytes[..2], &[b'T', PROTOCOL_VERSION as u8]);
            assert_eq!(decode(&bytes), Ok(message));
        }
    }

    /// `Watch` carries its own struct since protocol 6 shipped: the bytes
    /// are those of the struct variant it was (index, then the fields),
    /// with protocol 7's name last and protocol 10's game second.
    #[test]
    fn a_watch_keeps_its_bytes() {
        let watch = Message::Watch(Watch {
            protocol: 6,
            game: "pong".into(),
            sim_version: 3,
            game_version: "1.0".into(),
            name: "Zoe".into(),
        });
        assert_eq!(
            encode(&watch),
            [
                b'T', VERSION, 11, 6, 4, b'p', b'o', b'n', b'g', 3, 3, b'1', b'.', b'0', 3, b'Z',
                b'o', b'e'
            ]
        );
    }

    #[test]
    fn messages_are_compact() {
        assert_eq!(encode(&Message::Busy).len(), 3);
        assert_eq!(encode(&Message::Ping { seq: 5 }).len(), 4);
        let chunk = Message::CatchUp {
            chunks: vec![7; 30],
        };
        // Envelope, variant, length, the bytes themselves.
        assert_eq!(encode(&chunk).len(), 2 + 1 + 1 + 30);
    }

    #[test]
    fn another_version_is_refused_in_words() {
        let mut newer = encode(&Message::Busy);
        newer[1] += 1;
        let Err(HandshakeError::VersionMismatch { ours, theirs }) = decode(&newer) else {
            panic!("{:?}", decode(&newer));
        };
        assert!(
            ours.contains(&format!("protocol {PROTOCOL_VERSION}")),
            "{ours}"
        );
        assert_eq!(
            theirs,
            format!("a peer of protocol {}", PROTOCOL_VERSION + 1)
        );

        // What a protocol-4 peer sends first.
        let old = br#"{"type":"hello","protocol":4,"game_version":"0.1.0","sim_version":3}"#;
        let error = decode(old).unwrap_err().to_string();
        assert!(
            error.contains("the other player runs twinstar 0.1.0 (protocol 4)"),
            "{error}"
        );
        let error = decode(b"{not even json").unwrap_err().to_string();
        assert!(error.contains("an older twinstar"), "{error}");
    }

    #[test]
    fn garbage_trailing_bytes_and_oversize_are_malformed() {
        let mut trailing = encode(&Message::Busy);
        trailing.push(0);
        for bytes in [
            &b"\x00\xffnot a message"[..],
            &b""[..],
            &b"T"[..],
            &trailing[..],
            &[b'T', VERSION, 200][..],
        ] {
            assert_eq!(
                decode(bytes),
                Err(HandshakeError::Malformed { bytes: bytes.len() }),
                "{bytes:?}"
            );
        }
        let mut huge = encode(&Message::CatchUp {
            chunks: vec![0; MAX_MESSAGE_BYTES],
        });
        assert!(matches!(
            decode(&huge),
            Err(HandshakeError::Malformed { .. })
        ));
        // A length prefix promising more than there is allocates nothing.
        huge.truncate(16);
        assert!(matches!(
            decode(&huge),
            Err(HandshakeError::Malformed { .. })
        ));
    }

    #[test]
    fn a_hello_with_more_claims_than_player_slots_is_malformed() {
        let mut many = hello();
        many.rejoin = vec![many.rejoin[0]; crate::game::MAX_PLAYERS + 1];
        let bytes = encode(&Message::Hello(many));
        assert!(matches!(
            decode(&bytes),
            Err(HandshakeError::Malformed { .. })
        ));
    }
}
