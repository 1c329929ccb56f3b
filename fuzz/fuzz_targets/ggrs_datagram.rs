//! GGRS datagrams as they arrive: through `GgrsSocket::receive_all_messages`
//! (our `NonBlockingSocket`, over the in-memory channel pair), which calls
//! `socket::decode` on each. An accepted datagram must count as received
//! and re-encode (`socket::encode`) to a message that decodes the same; a
//! refused one must count as malformed.
#![no_main]

use ggrs::NonBlockingSocket;
use libfuzzer_sys::fuzz_target;
use twinstar_netcode::testing::socket::{GgrsSocket, decode, encode, memory_pair};

fuzz_target!(|data: &[u8]| {
    let (a, b) = memory_pair();
    let mut sender = GgrsSocket::new(a);
    let mut receiver = GgrsSocket::new(b);
    sender
        .send_raw(&1, data)
        .expect("memory channels never close");
    let received = receiver.receive_all_messages();
    let stats = receiver.stats();
    assert_eq!(stats.bytes_received, data.len() as u64);
    match decode(data) {
        Some(message) => {
            assert_eq!(received.len(), 1);
            assert_eq!(stats.packets_received, 1);
            let bytes = encode(&message).expect("a decoded message encodes");
            let again = decode(&bytes).expect("an encoded message decodes");
            assert_eq!(encode(&again).as_ref(), Some(&bytes));
        }
        None => {
            assert!(received.is_empty());
            assert_eq!(stats.packets_dropped_malformed, 1);
        }
    }
});
