//! Structure-aware control messages: every variant with arbitrary fields,
//! `encode`d then `decode`d (must give the same message), then the encoding
//! with a few bytes changed, which must decode or fail without a panic.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use twinstar_netcode::testing::protocol::Message;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(message) = twinstar_fuzz::message(&mut u) else {
        return;
    };
    let mut bytes = message.encode();
    // A claim of a player other than 1 or 2, or more claims than the
    // netcode's most players, make a Hello malformed.
    let bad_claim = match &message {
        Message::Hello(hello) => {
            hello.rejoin.len() > twinstar_netcode::testing::MAX_PLAYERS
                || (hello.rejoin.iter())
                    .chain(&hello.resume)
                    .any(|claim| !(1..=2).contains(&claim.player))
        }
        _ => false,
    };
    if bad_claim {
        assert!(Message::decode(&bytes).is_err());
        return;
    }
    assert_eq!(Message::decode(&bytes).as_ref(), Ok(&message));
    for _ in 0..u.int_in_range(0..=3).unwrap_or(0) {
        let (Ok(at), Ok(byte)) = (u.choose_index(bytes.len()), u.arbitrary::<u8>()) else {
            break;
        };
        bytes[at] = byte;
    }
    if let Ok(changed) = Message::decode(&bytes) {
        assert_eq!(Message::decode(&changed.encode()), Ok(changed));
    }
});
