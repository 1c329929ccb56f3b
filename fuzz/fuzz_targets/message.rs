//! Control-channel messages as received: `Message::decode` (what
//! `ControlChannel::receive` calls on every packet, from the partner or
//! anyone else). An accepted message must survive `encode` and `decode`
//! unchanged, and its encoding must be stable.
#![no_main]

use libfuzzer_sys::fuzz_target;
use twinstar_netcode::testing::protocol::Message;

fuzz_target!(|data: &[u8]| {
    let Ok(message) = Message::decode(data) else {
        return;
    };
    let bytes = message.encode();
    let again = Message::decode(&bytes).expect("an encoded message decodes");
    assert_eq!(again, message);
    assert_eq!(again.encode(), bytes);
});
