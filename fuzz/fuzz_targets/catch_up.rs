//! Rejoin catch-up and spectator stream chunks: `CatchUpReceiver::add` on
//! each `CatchUp` payload, `take_chunks`, then `finish` on `CaughtUp`, as
//! the connector (rejoin), the watch connector and the spectator backend
//! call them. Three kinds of input: raw bytes; the match so far encoded by
//! `encode_catch_up` and live frames by `encode_frames` (must arrive
//! exactly as sent); and those payloads with bytes changed.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use twinstar::sim::{Input, PLAYERS};
use twinstar_netcode::testing::protocol::Message;
use twinstar_netcode::testing::rejoin::{encode_catch_up, encode_frames};

/// A catch-up receiver of twinstar's inputs.
type CatchUpReceiver = twinstar_netcode::testing::rejoin::CatchUpReceiver<Input, PLAYERS>;

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});

fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    match u.int_in_range(0..=2)? {
        0 => {
            // Raw payloads, as many as the peer likes; the program stops at
            // the first error, the receiver must not panic if called again.
            let mut receiver = CatchUpReceiver::default();
            for _ in 0..u.int_in_range(0..=4)? {
                let payload = Vec::<u8>::arbitrary(u)?;
                let _ = receiver.add(&payload);
                let _ = receiver.take_chunks();
            }
            let _ = receiver.finish(u.arbitrary()?, u.arbitrary()?);
        }
        mode => {
            let sent = twinstar_fuzz::frames(u, 2_000)?;
            let checksums: Vec<u128> = (0..sent.len() / 60).map(|i| i as u128 * 7).collect();
            let split = u.int_in_range(0..=sent.len())?;
            let mut messages = encode_catch_up(&sent[..split], &checksums, 99);
            let end = messages.pop();
            let mut at = split;
            while at < sent.len() {
                let next = (at + u.int_in_range(1..=200)?).min(sent.len());
                let live = encode_frames(at as u32, &sent[at..next], |f| f as u128 * 3);
                messages.push(live.expect("frames give a message"));
                at = next;
            }
            let changed = mode == 2;
            let mut receiver = CatchUpReceiver::default();
            let mut got = Vec::new();
            for message in &messages {
                let Message::CatchUp { chunks } = message else {
                    panic!("{message:?}");
                };
                let mut payload = chunks.clone();
                if changed {
                    for _ in 0..u.int_in_range(0..=3)? {
                        if payload.is_empty() {
                            break;
                        }
                        let at = u.choose_index(payload.len())?;
                        payload[at] = u.arbitrary()?;
                    }
                }
                match receiver.add(&payload) {
                    Ok(()) => {}
                    Err(e) if changed => {
                        let _ = e.to_string();
                        return Ok(());
                    }
                    Err(e) => panic!("our own catch-up refused: {e}"),
                }
                for chunk in receiver.take_chunks() {
                    got.extend(chunk.frames);
                }
            }
            if !changed {
                assert_eq!(got, sent);
                assert_eq!(receiver.frames() as usize, sent.len());
                let Some(Message::CaughtUp { frame, checksum }) = end else {
                    panic!("no CaughtUp");
                };
                assert_eq!(frame as usize, split);
                // Live frames arrived after the catch-up's end: the
                // receiver counts them, so finish says what is missing.
                let history = receiver.finish(frame, checksum);
                assert_eq!(history.is_ok(), split == sent.len());
            }
        }
    }
    Ok(())
}
