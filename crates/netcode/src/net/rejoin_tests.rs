use super::*;

/// Two players' one-byte inputs, as twinstar's.
type Receiver = CatchUpReceiver<u8, 2>;

fn inputs(n: usize) -> Vec<[u8; 2]> {
    (0..n)
        .map(|i| [(i / 7) as u8 & 0x3f, (i / 13) as u8 & 0x3f])
        .collect()
}

fn receive(messages: &[Message]) -> Result<History<u8, 2>, CatchUpError> {
    let mut receiver = Receiver::default();
    for message in messages {
        match message {
            Message::CatchUp { chunks } => receiver.add(chunks)?,
            Message::CaughtUp { frame, checksum } => {
                return receiver.finish(*frame, *checksum);
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    panic!("no CaughtUp");
}

#[test]
fn the_match_so_far_arrives_whole_with_its_checksums() {
    let sent = inputs(7_385);
    let checksums: Vec<u128> = (1..=123).map(|i| i * 1000).collect();
    let messages = encode_catch_up(&sent, &checksums, 42);
    // 124 chunks, 60 a message, and the end.
    assert_eq!(messages.len(), 4);
    let history = receive(&messages).unwrap();
    assert_eq!((history.frames, history.checksum), (7_385, 42));
    let got: Vec<_> = history
        .chunks
        .iter()
        .flat_map(|c| c.frames.iter().copied())
        .collect();
    assert_eq!(got, sent);
    assert_eq!(history.chunks[0].checksum, Some(1000));
    assert_eq!(history.chunks[122].checksum, Some(123_000));
    // The partial last chunk carries the final checksum.
    assert_eq!(history.chunks[123].checksum, Some(42));
}

#[test]
fn live_frames_follow_the_match_so_far_in_chunks_ending_on_the_grid() {
    let sent = inputs(200);
    let checksum_after = |f: Frame| u128::from(f) * 7;
    // The first 100 frames as a rejoin would get them, minus the end.
    let mut messages = encode_catch_up(&sent[..100], &[60 * 7], 100 * 7);
    assert!(matches!(messages.pop(), Some(Message::CaughtUp { .. })));
    // Then 100..106, 106..130 (crosses frame 120), 130..200.
    for (a, b) in [(100, 106), (106, 130), (130, 200)] {
        messages.push(encode_frames(a, &sent[a as usize..b], checksum_after).unwrap());
    }
    assert!(encode_frames::<u8, 2>(200, &[], checksum_after).is_none());
    let mut receiver = Receiver::default();
    let mut chunks = Vec::new();
    for message in &messages {
        let Message::CatchUp { chunks: text } = message else {
            panic!("{message:?}")
        };
        receiver.add(text).unwrap();
        chunks.extend(receiver.take_chunks());
    }
    assert_eq!(receiver.frames(), 200);
    let ends: Vec<_> = chunks
        .iter()
        .map(|c| (c.start + c.frames.len() as Frame, c.checksum))
        .collect();
    // The catch-up's chunks all carry one (100: its end); live ones
    // only on the 60-frame grid.
    let want: Vec<_> = [60, 100, 106, 120, 130, 180, 200]
        .into_iter()
        .map(|f| (f, (f % 60 == 0 || f == 100).then(|| checksum_after(f))))
        .collect();
    assert_eq!(ends, want);
    let got: Vec<_> = chunks.iter().flat_map(|c| c.frames.clone()).collect();
    assert_eq!(got, sent);
    // Out of order is refused as before.
    let mut late = Receiver::default();
    let Message::CatchUp { chunks: text } = &messages[2] else {
        panic!()
    };
    assert!(matches!(
        late.add(text),
        Err(CatchUpError::OutOfOrder { .. })
    ));
}

#[test]
fn what_follows_caught_up_in_the_same_read_is_handed_back_in_order() {
    let sent = inputs(300);
    let checksums: Vec<u128> = (1..=2).map(|i| i * 1000).collect();
    let mut messages: Batch = encode_catch_up(&sent, &checksums, 42)
        .into_iter()
        .map(Ok)
        .collect();
    let caught_up = messages.len() - 1;
    // The handshake's last Pong before; the match's end and chat after.
    messages.insert(0, Ok(Message::Pong { seq: 3 }));
    let after = [
        Message::Done {
            frame: 300,
            checksum: 42,
        },
        Message::Chat { text: "gg".into() },
    ];
    messages.extend(after.iter().cloned().map(Ok));
    let mut receiver = Receiver::default();
    let later = messages.split_off(caught_up);
    assert!(
        receiver.read(messages).unwrap().is_none(),
        "no CaughtUp yet"
    );
    let (history, rest) = receiver.read(later).unwrap().expect("CaughtUp read");
    assert_eq!((history.frames, history.checksum), (300, 42));
    let rest: Vec<Message> = rest.into_iter().map(Result::unwrap).collect();
    assert_eq!(rest, after);
}

#[test]
fn a_broken_message_in_a_catch_up_is_refused() {
    let mut receiver = Receiver::default();
    let batch = vec![Ok(Message::CatchUp {
        chunks: vec![0xff; 9],
    })];
    assert!(matches!(
        receiver.read(batch),
        Err(CatchUpReadError::CatchUp(CatchUpError::BadChunk(0, _)))
    ));
}

#[test]
fn a_receiver_that_knows_part_of_the_match_gets_the_rest_from_its_chunk() {
    let sent = inputs(500);
    let checksums: Vec<u128> = (1..=8).map(|i| i * 1000).collect();
    // It knows 130 frames: the chunks from 120 on come.
    let mut receiver = Receiver::after(130);
    for message in encode_catch_up_after(130, &sent, &checksums, 42) {
        match message {
            Message::CatchUp { chunks } => receiver.add(&chunks).unwrap(),
            Message::CaughtUp { frame, checksum } => {
                let history = receiver.finish(frame, checksum).unwrap();
                assert_eq!((history.frames, history.checksum), (500, 42));
                assert_eq!(history.chunks[0].start, 120);
                assert_eq!(history.chunks[0].checksum, Some(3000));
                let got: Vec<_> = history
                    .chunks
                    .iter()
                    .flat_map(|c| c.frames.clone())
                    .collect();
                assert_eq!(got, sent[120..]);
                break;
            }
            other => panic!("{other:?}"),
        }
    }
    // Frames taken as they came (a spectator) still count as received.
    let mut live = Receiver::default();
    let Message::CatchUp { chunks } = &encode_catch_up(&sent[..60], &checksums, 1)[0] else {
        panic!()
    };
    live.add(chunks).unwrap();
    assert_eq!(live.take_chunks().len(), 1);
    assert!(
        live.finish(0, 1).is_err(),
        "60 frames arrived, the end says 0"
    );
    // A sender that knows less sends only its end, which is accepted;
    // one that claims more than it sent is not.
    let history = Receiver::after(130).finish(100, 7).unwrap();
    assert_eq!((history.frames, history.chunks.len()), (100, 0));
    assert!(Receiver::after(130).finish(131, 7).is_err());
    assert!(Receiver::after(130).finish(130, 7).is_ok());
    // Chunks from before the receiver's are out of order.
    let from_zero = encode_catch_up(&sent, &checksums, 42);
    let Message::CatchUp { chunks } = &from_zero[0] else {
        panic!()
    };
    assert!(matches!(
        Receiver::after(130).add(chunks),
        Err(CatchUpError::OutOfOrder {
            expected: 120,
            got: 0
        })
    ));
}

#[test]
fn an_empty_match_is_just_the_end() {
    let history = receive(&encode_catch_up::<u8, 2>(&[], &[], 7)).unwrap();
    assert_eq!((history.frames, history.chunks.len()), (0, 0));
}

#[test]
fn junk_missing_and_reordered_chunks_are_refused() {
    let mut receiver = Receiver::default();
    assert!(matches!(
        receiver.add(&[5u8, 0, 1, 2, 3]),
        Err(CatchUpError::BadChunk(0, _))
    ));
    // The second message alone: it starts at frame 3600.
    let messages = encode_catch_up(&inputs(4000), &[], 1);
    let Message::CatchUp { chunks } = &messages[1] else {
        panic!()
    };
    let mut receiver = Receiver::default();
    assert_eq!(
        receiver.add(chunks),
        Err(CatchUpError::OutOfOrder {
            expected: 0,
            got: 3600
        })
    );
    // The end claims more than arrived.
    let receiver = Receiver::default();
    assert!(matches!(
        receiver.finish(10, 0),
        Err(CatchUpError::Incomplete {
            sent: 10,
            received: 0
        })
    ));
}

#[test]
fn a_match_longer_than_four_hours_is_refused_and_stays_refused() {
    // (A message too big to hold is the envelope's to refuse unread.)
    let messages = encode_catch_up(&inputs(MAX_CATCH_UP_FRAMES + 60), &[], 1);
    let mut receiver = Receiver::default();
    let results: Vec<_> = (messages.iter())
        .filter_map(|m| match m {
            Message::CatchUp { chunks } => Some(receiver.add(chunks)),
            _ => None,
        })
        .collect();
    let (last, earlier) = results.split_last().unwrap();
    assert!(earlier.iter().all(Result::is_ok));
    assert_eq!(last, &Err(CatchUpError::TooLong));
    let Message::CatchUp { chunks } = &messages[0] else {
        panic!()
    };
    assert_eq!(receiver.add(chunks), Err(CatchUpError::TooLong));
}
