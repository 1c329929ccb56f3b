//! The handshake under a hostile peer: messages built from the fuzzer's
//! bytes, encoded and passed through `Message::decode` as the control
//! channel does, fed to `Handshake::receive` between `poll`s at advancing
//! times, until an outcome. Whatever the peer sends, the handshake must
//! not panic (an overflow in debug builds included).
#![no_main]

use std::time::{Duration, Instant};

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use twinstar_netcode::testing::handshake::Handshake;
use twinstar_netcode::testing::protocol::Message;

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});

fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let ours = twinstar_fuzz::hello(u)?;
    let mut handshake = Handshake::new(&twinstar::game::GAME, ours, twinstar_fuzz::delay(u)?);
    let mut now = Instant::now();
    for _ in 0..u.int_in_range(0..=64)? {
        now += Duration::from_millis(u.int_in_range(0..=1500)?);
        let _ = handshake.poll(now);
        let message = twinstar_fuzz::message(u)?;
        let Ok(received) = Message::decode(&message.encode()) else {
            continue;
        };
        let _ = handshake.receive(now, received);
        let _ = handshake.poll(now);
        if handshake.outcome().is_some() && u.ratio(1, 4)? {
            break;
        }
    }
    Ok(())
}
