use super::*;
use proptest::prelude::*;

/// A real GGRS message, built through serde because its fields are
/// private to ggrs.
fn sample_messages() -> Vec<Message> {
    [
        r#"{"header":{"magic":4660},"body":{"SyncRequest":{"random_request":3735928559}}}"#,
        r#"{"header":{"magic":1},"body":"KeepAlive"}"#,
        r#"{"header":{"magic":65535},"body":{"Input":{"peer_connect_status":
                [{"disconnected":false,"last_frame":41},{"disconnected":true,"last_frame":-1}],
                "disconnect_requested":false,"start_frame":40,"ack_frame":39,
                "bytes":[6,1,0,5]}}}"#,
        r#"{"header":{"magic":7},"body":{"QualityReport":{"frame_advantage":-3,
                "ping":1234567890123}}}"#,
        r#"{"header":{"magic":7},"body":{"ChecksumReport":{"checksum":123456789,"frame":600}}}"#,
    ]
    .iter()
    .map(|json| serde_json::from_str(json).expect("sample message"))
    .collect()
}

#[test]
fn encode_decode_round_trip() {
    for msg in sample_messages() {
        let bytes = encode(&msg).unwrap();
        assert_eq!(decode(&bytes), Some(msg));
    }
}

#[test]
fn wire_format_is_matchbox_bincode2_standard() {
    // magic 1 as a one-byte varint, then variant 7 (KeepAlive): the bytes
    // matchbox's adapter would produce for the same message.
    let keep_alive = &sample_messages()[1];
    assert_eq!(encode(keep_alive).unwrap(), vec![1, 7]);
    // magic 4660 = 0x1234 needs the u16 varint marker 251.
    let sync = &sample_messages()[0];
    assert_eq!(&encode(sync).unwrap()[..4], &[251, 0x34, 0x12, 0]);
}

fn input_ack() -> Message {
    serde_json::from_str(r#"{"header":{"magic":4660},"body":{"InputAck":{"ack_frame":41}}}"#)
        .expect("sample ack")
}

#[test]
fn message_kinds_are_read_after_either_magic_width() {
    let m = sample_messages();
    let kind = |msg: &Message| message_kind(&encode(msg).unwrap());
    // magic 65535 (3-byte varint) + Input; magic 4660 + InputAck; magic 1 + KeepAlive.
    assert_eq!(kind(&m[2]), Some(KIND_INPUT));
    assert_eq!(kind(&input_ack()), Some(KIND_INPUT_ACK));
    assert_eq!(kind(&m[1]), Some(7));
    assert_eq!(message_kind(&[]), None);
}

#[test]
fn acks_right_after_an_input_are_coalesced_and_others_sent() {
    let (mut a, mut b) = socket_pair();
    let m = sample_messages();
    let (input, ack) = (&m[2], &input_ack());
    // No input sent yet: the ack goes out.
    a.send_to(ack, &1);
    a.send_to(input, &1);
    // Just after an input: the ack rides on it.
    a.send_to(ack, &1);
    assert_eq!(b.receive_all_messages().len(), 2);
    assert_eq!(a.stats().acks_coalesced, 1);
    assert_eq!(a.stats().packets_sent, 2);
    std::thread::sleep(ACK_COALESCE_WINDOW + web_time::Duration::from_millis(5));
    // The input is old now (this peer stalled): acks flow again.
    a.send_to(ack, &1);
    assert_eq!(b.receive_all_messages().len(), 1);
}

#[test]
fn truncated_extended_and_empty_packets_are_rejected() {
    for msg in sample_messages() {
        let bytes = encode(&msg).unwrap();
        for cut in 0..bytes.len() {
            assert_eq!(decode(&bytes[..cut]), None, "{msg:?} cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode(&longer), None);
    }
    assert_eq!(decode(&[0u8; MAX_PACKET_BYTES + 1]), None);
}

/// The copy of GGRS's wire layout in [`wire`] reads exactly the bytes
/// GGRS writes, for every kind of message.
#[test]
fn the_wire_copy_reads_what_ggrs_writes() {
    let mut kinds = std::collections::HashSet::new();
    for msg in sample_messages()
        .into_iter()
        .chain([input_ack(), quality_reply(), sync_reply()])
    {
        let bytes = encode(&msg).unwrap();
        assert!(wire::check(&bytes), "{msg:?}");
        kinds.insert(message_kind(&bytes));
    }
    assert_eq!(kinds.len(), 8, "every message kind");
}

fn quality_reply() -> Message {
    serde_json::from_str(r#"{"header":{"magic":9},"body":{"QualityReply":{"pong":340282366920938463463374607431768211455}}}"#)
            .expect("sample reply")
}

fn sync_reply() -> Message {
    serde_json::from_str(r#"{"header":{"magic":9},"body":{"SyncReply":{"random_reply":7}}}"#)
        .expect("sample reply")
}

/// Messages that decode as GGRS messages but would panic GGRS (or make
/// it allocate without bound) are dropped: the ggrs_session fuzzer's
/// finding (fuzz/regressions/ggrs_datagram has the datagrams).
#[test]
fn input_runs_and_frames_ggrs_cannot_take_are_dropped() {
    let input = |bytes: &str, start: i64, last: i64| -> Message {
        serde_json::from_str(&format!(
                r#"{{"header":{{"magic":1}},"body":{{"Input":{{"peer_connect_status":
                [{{"disconnected":false,"last_frame":{last}}},{{"disconnected":false,"last_frame":0}}],
                "disconnect_requested":false,"start_frame":{start},"ack_frame":-1,"bytes":{bytes}}}}}}}"#
            ))
            .expect("an input message")
    };
    let accepted = |msg: &Message| decode(&encode(msg).unwrap()).is_some();
    assert!(accepted(&input("[6,1,0,5]", 0, 0)));
    assert!(accepted(&input("[]", wire::MAX_FRAME as i64, -1)));
    // A varint cut short, a literal past the end, a 10-byte varint.
    for bytes in [
        "[128]",
        "[200,1,1]",
        "[255,255,255,255,255,255,255,255,255,1]",
    ] {
        assert!(!accepted(&input(bytes, 0, 0)), "{bytes}");
    }
    // A run of 2^40 bytes (varint of 2^40 << 2 | 1).
    let mut run = Vec::new();
    let mut n: u64 = (1 << 42) | 1;
    while n >= 128 {
        run.push((n as u8 & 127) | 128);
        n >>= 7;
    }
    run.push(n as u8);
    assert!(!accepted(&input(&format!("{run:?}"), 0, 0)));
    // Frames GGRS would add to or subtract from past the i32 range.
    assert!(!accepted(&input("[6,1,0,5]", i32::MAX as i64, 0)));
    assert!(!accepted(&input("[6,1,0,5]", 0, i32::MAX as i64)));
    assert!(!accepted(&input("[6,1,0,5]", 0, -2)));
    let report: Message = serde_json::from_str(
        r#"{"header":{"magic":7},"body":{"ChecksumReport":{"checksum":1,"frame":-2147483648}}}"#,
    )
    .unwrap();
    assert!(!accepted(&report));
    // A pong from 1970: GGRS's round trip of 56 years overflowed.
    let reply: Message =
        serde_json::from_str(r#"{"header":{"magic":7},"body":{"QualityReply":{"pong":0}}}"#)
            .unwrap();
    assert!(!accepted(&reply));
    assert!(wire::pong_ok(1_000, 1_000 + wire::MAX_PONG_AGE_MS));
    assert!(!wire::pong_ok(999, 1_000 + wire::MAX_PONG_AGE_MS));
}

#[test]
fn rle_lengths_are_read_like_bitfield_rle() {
    // Literal of 3, a run of 4 zero bytes, a run of 2 bytes of 255.
    assert_eq!(wire::rle_decoded_len(&[6, 1, 2, 3, 17, 11]), Some(9));
    assert_eq!(wire::rle_decoded_len(&[]), Some(0));
    assert_eq!(wire::rle_decoded_len(&[6, 1, 2]), None);
}

#[test]
fn forged_length_prefix_does_not_allocate_wildly() {
    // magic 1, Input variant (2), then a Vec length of u64::MAX
    // (varint marker 253 + 8 bytes).
    let mut forged = vec![1u8, 2, 253];
    forged.extend_from_slice(&u64::MAX.to_le_bytes());
    assert_eq!(decode(&forged), None);
}

fn socket_pair() -> (GgrsSocket<MemoryChannel>, GgrsSocket<MemoryChannel>) {
    let (a, b) = memory_pair();
    (GgrsSocket::new(a), GgrsSocket::new(b))
}

#[test]
fn messages_cross_and_are_counted() {
    let (mut a, mut b) = socket_pair();
    let msgs = sample_messages();
    let mut bytes = 0;
    for m in &msgs {
        a.send_to(m, &1);
        bytes += encode(m).unwrap().len() as u64;
    }
    let got = b.receive_all_messages();
    assert_eq!(got.len(), msgs.len());
    assert!(got.iter().all(|(from, _)| *from == 0));
    assert_eq!(got.into_iter().map(|(_, m)| m).collect::<Vec<_>>(), msgs);
    let sa = a.stats();
    let sb = b.stats();
    assert_eq!((sa.packets_sent, sa.bytes_sent), (msgs.len() as u64, bytes));
    assert_eq!(
        (sb.packets_received, sb.bytes_received),
        (msgs.len() as u64, bytes)
    );
    assert_eq!(sb.packets_dropped_malformed, 0);
}

#[test]
fn garbage_is_dropped_and_counted_between_good_packets() {
    let (mut a, mut b) = socket_pair();
    let good = &sample_messages()[2];
    a.send_to(good, &1);
    a.send_raw(&1, &[0xFF; 40]).unwrap();
    a.send_raw(&1, &[]).unwrap();
    a.send_to(good, &1);
    let got = b.receive_all_messages();
    assert_eq!(got.len(), 2);
    let s = b.stats();
    assert_eq!(s.packets_received, 2);
    assert_eq!(s.packets_dropped_malformed, 2);
    assert_eq!(
        s.bytes_received,
        2 * encode(good).unwrap().len() as u64 + 40
    );
}

#[test]
fn a_simulated_link_delays_and_loses_on_the_send_side() {
    let (a, b) = memory_pair();
    let link = LinkConfig {
        latency_ms: 10_000.0,
        ..Default::default()
    };
    let mut a = GgrsSocket::with_link(a, link, 1);
    let mut b = GgrsSocket::new(b);
    let msg = &sample_messages()[1];
    let sent_at = Instant::now();
    a.send_to(msg, &1);
    a.flush(Instant::now());
    assert!(b.receive_all_messages().is_empty(), "arrived before 10 s");
    // `flush` takes the clock as an argument: no sleeping in tests.
    a.flush(sent_at + web_time::Duration::from_millis(10_001));
    assert_eq!(b.receive_all_messages().len(), 1);
    assert_eq!(a.link_stats().unwrap().delivered, 1);

    let (c, d) = memory_pair();
    let lossy = LinkConfig {
        loss_pct: 100.0,
        ..Default::default()
    };
    let mut c = GgrsSocket::with_link(c, lossy, 2);
    let mut d = GgrsSocket::new(d);
    for _ in 0..10 {
        c.send_to(msg, &1);
    }
    c.flush(Instant::now());
    assert!(d.receive_all_messages().is_empty());
    // Sent counts what the game sent, lost or not.
    assert_eq!(c.stats().packets_sent, 10);
    assert_eq!(c.link_stats().unwrap().lost, 10);
    // A pass-through config adds no link at all.
    let (e, _f) = memory_pair();
    assert!(
        GgrsSocket::with_link(e, LinkConfig::default(), 3)
            .link_stats()
            .is_none()
    );
}

#[test]
fn the_matchbox_socket_is_send() {
    // If ggrs's `sync-send` feature ever gets enabled, NonBlockingSocket
    // requires Send + Sync; keep the socket movable across threads.
    fn assert_send<T: Send>() {}
    assert_send::<GgrsSocket<WebRtcChannel>>();
    assert_send::<GgrsSocket<MemoryChannel>>();
}

/// Two matchbox sockets with one unreliable channel each, in the room
/// at `url`, once each sees the other connected.
async fn connected_pair(
    url: &str,
) -> (matchbox_socket::WebRtcSocket, matchbox_socket::WebRtcSocket) {
    use crate::net::signaling::{client_builder, no_ice_servers};
    let open = || {
        let (socket, message_loop) = client_builder(url, no_ice_servers())
            .add_unreliable_channel()
            .build();
        tokio::spawn(message_loop);
        socket
    };
    let (mut a, mut b) = (open(), open());
    while a.connected_peers().count() == 0 || b.connected_peers().count() == 0 {
        let _ = a.try_update_peers();
        let _ = b.try_update_peers();
        tokio::time::sleep(web_time::Duration::from_millis(20)).await;
    }
    (a, b)
}

/// The same socket over a real matchbox WebRTC channel on loopback:
/// messages cross decoded, garbage is dropped and counted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ggrs_messages_cross_a_real_webrtc_channel() {
    use crate::net::room_code::RoomCode;
    use crate::net::signaling::room_url;
    use twinstar_signaling::bind;
    use web_time::Duration;

    tokio::time::timeout(Duration::from_secs(30), async {
        let server = bind(std::net::SocketAddr::from(([127, 0, 0, 1], 0)), None).unwrap();
        let url = room_url(
            &format!("ws://{}", server.local_addr()),
            Some(&RoomCode::parse("SCKTST").unwrap()),
        );
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let serving = tokio::spawn(server.serve(async {
            let _ = stopped.await;
        }));
        let (mut a, mut b) = connected_pair(&url).await;
        let b_id = b.id().unwrap();
        let mut ga = GgrsSocket::new(a.take_channel(0).unwrap());
        let mut gb = GgrsSocket::new(b.take_channel(0).unwrap());

        let msgs = sample_messages();
        ga.send_raw(&b_id, b"not a ggrs message").unwrap();
        for m in &msgs {
            ga.send_to(m, &b_id);
        }
        let mut got = Vec::new();
        while got.len() < msgs.len() || gb.stats().packets_dropped_malformed == 0 {
            got.extend(gb.receive_all_messages().into_iter().map(|(_, m)| m));
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        // The channel is unordered: compare as sets of debug strings.
        let mut want: Vec<String> = msgs.iter().map(|m| format!("{m:?}")).collect();
        let mut have: Vec<String> = got.iter().map(|m| format!("{m:?}")).collect();
        want.sort();
        have.sort();
        assert_eq!(have, want);
        assert_eq!(gb.stats().packets_dropped_malformed, 1);
        assert_eq!(gb.stats().bytes_received, ga.stats().bytes_sent + 18);
        drop((ga, gb, a, b));
        let _ = stop.send(());
        serving.await.unwrap().unwrap();
    })
    .await
    .expect("test timed out");
}

proptest! {
    #[test]
    fn random_garbage_never_panics_and_is_counted(
        packets in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..200), 1..20)
    ) {
        let (mut a, mut b) = socket_pair();
        let mut total = 0u64;
        for p in &packets {
            a.send_raw(&1, p).unwrap();
            total += p.len() as u64;
        }
        let got = b.receive_all_messages();
        let s = b.stats();
        prop_assert_eq!(s.bytes_received, total);
        prop_assert_eq!(s.packets_received, got.len() as u64);
        prop_assert_eq!(s.packets_received + s.packets_dropped_malformed, packets.len() as u64);
        // Whatever did decode is a message we can re-encode to the same bytes.
        for (_, m) in got {
            let again = encode(&m).unwrap();
            prop_assert_eq!(decode(&again), Some(m));
        }
    }

    #[test]
    fn mutated_real_packets_never_panic(
        index in 0usize..5, flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6)
    ) {
        let mut bytes = encode(&sample_messages()[index]).unwrap();
        for (at, xor) in flips {
            let i = at % bytes.len();
            bytes[i] ^= xor;
        }
        let _ = decode(&bytes);
    }
}
