use super::*;
use crate::net::link_sim::{LinkConfig, LinkSim};
use crate::test_game::GAME;

fn hello(role: Role, seed: u64) -> Hello {
    Hello::new(&GAME, role, seed, "default")
}

type Outcomes = (
    Result<Agreement, HandshakeError>,
    Result<Agreement, HandshakeError>,
);

/// Runs two handshakes against each other with a fixed one-way delay.
fn run(a: Handshake, b: Handshake, one_way: Duration) -> Outcomes {
    run_opening_late(a, b, one_way, Duration::ZERO)
}

/// Like [`run`], but `b`'s end of the channel opens `b_opens` after
/// `a`'s: until then `b` is not polled and what `a` sends it is lost
/// (what a WebRTC data channel does to data that arrives before it opens).
fn run_opening_late(
    mut a: Handshake,
    mut b: Handshake,
    one_way: Duration,
    b_opens: Duration,
) -> Outcomes {
    let start = Instant::now();
    // (deliver at, to a?, message)
    let mut wire: Vec<(Instant, bool, Message)> = Vec::new();
    let mut now = start;
    for _ in 0..10_000 {
        if let (Some(x), Some(y)) = (a.outcome(), b.outcome()) {
            return (x.clone(), y.clone());
        }
        for m in a.poll(now) {
            wire.push((now + one_way, false, m));
        }
        let b_open = now >= start + b_opens;
        if b_open {
            for m in b.poll(now) {
                wire.push((now + one_way, true, m));
            }
        }
        let (due, later): (Vec<_>, Vec<_>) = wire.into_iter().partition(|(t, ..)| *t <= now);
        wire = later;
        for (_, to_a, m) in due {
            if !to_a && !b_open {
                continue;
            }
            let (me, reply_to_a) = if to_a {
                (&mut a, false)
            } else {
                (&mut b, true)
            };
            if let Some(reply) = me.receive(now, m) {
                wire.push((now + one_way, reply_to_a, reply));
            }
        }
        now += Duration::from_millis(1);
    }
    panic!("handshake did not finish");
}

/// Runs two handshakes whose messages cross the link simulator as the
/// control channel's do (`net::control`: delay and jitter, reordered,
/// never lost), on a 1 ms clock; returns player 1's agreement.
fn run_over(link: LinkConfig, seed: u64, probes: u32) -> Agreement {
    run_over_as(link, seed, Some(probes)).0
}

/// [`run_over`] with the handshake's own probe count (`None`) or a
/// fixed one; also returns how many round trips each side measured.
fn run_over_as(link: LinkConfig, seed: u64, probes: Option<u32>) -> (Agreement, [u32; 2]) {
    let side = |role, nonce| {
        let h = Handshake::new(&GAME, hello(role, nonce), DelaySetting::Auto);
        match probes {
            Some(n) => h.with_probes(n),
            None => h,
        }
    };
    let mut sides = [side(Role::Host, 1), side(Role::Join, 2)];
    let mut links = [
        LinkSim::new(link.clone(), seed),
        LinkSim::new(link.clone(), seed ^ 0x5EED),
    ];
    let mut now = Instant::now();
    for _ in 0..10_000 {
        if let (Some(Ok(a)), Some(Ok(_))) = (sides[0].outcome(), sides[1].outcome()) {
            return (a.clone(), sides.each_ref().map(|s| s.probes().0));
        }
        for from in 0..2 {
            for message in sides[from].poll(now) {
                links[from].push(now, message);
            }
        }
        for from in 0..2 {
            for message in links[from].pop_ready(now) {
                if let Some(reply) = sides[1 - from].receive(now, message) {
                    links[1 - from].push(now, reply);
                }
            }
        }
        now += Duration::from_millis(1);
    }
    panic!("handshake did not finish over {link:?}");
}

/// The short probe against the 16 round trips it replaced, on the
/// delay grid's links (RTT 0-200 ms, jitter 0 or 20 ms), five seeds
/// each: the round trip within 10 % on fixed delays, and the input
/// delay it leads to never more than a frame from the long probe's.
#[test]
fn a_short_probe_measures_what_the_full_one_did() {
    let (mut runs, mut same_delay, mut differ) = (0, 0, Vec::new());
    for rtt in [0.0, 40.0, 80.0, 120.0, 160.0, 200.0] {
        for jitter in [0.0, 20.0] {
            for seed in 1..=5 {
                let link = LinkConfig {
                    latency_ms: rtt / 2.0,
                    jitter_ms: jitter,
                    ..LinkConfig::default()
                };
                let short = run_over(link.clone(), seed, PROBES);
                let full = run_over(link, seed, 16);
                if jitter == 0.0 {
                    // Within 10 %, or a millisecond (the clock's step)
                    // on loopback.
                    let bound = (full.rtt_ms * 0.1).max(1.0);
                    assert!(
                        (short.rtt_ms - full.rtt_ms).abs() <= bound,
                        "rtt {rtt}: {} against {}",
                        short.rtt_ms,
                        full.rtt_ms
                    );
                    assert_eq!(short.input_delay, full.input_delay, "rtt {rtt}");
                }
                assert!(
                    short.input_delay.abs_diff(full.input_delay) <= 1,
                    "rtt {rtt} jitter {jitter} seed {seed}: {} frames against {}",
                    short.input_delay,
                    full.input_delay
                );
                runs += 1;
                if short.input_delay == full.input_delay {
                    same_delay += 1;
                } else {
                    differ.push((rtt, seed, short.input_delay, full.input_delay));
                }
            }
        }
    }
    eprintln!(
        "the short probe chose the long one's delay in {same_delay} of {runs} runs; \
             elsewhere (rtt, seed, short, long): {differ:?}"
    );
    assert!(same_delay * 10 >= runs * 9, "{same_delay} of {runs}");
}

/// On the grid's jittery links (20 ms each way), against a long
/// measure (64 round trips): five probes' jitter strays far from it
/// (the larger of two 5-sample deviations), probing on where that
/// could change the delay keeps it closer, and picks the long
/// measure's delay at least as often. On steady links nothing is in
/// doubt: five probes, no more.
#[test]
fn round_trips_that_leave_the_delay_in_doubt_are_measured_longer() {
    let (mut runs, mut five_right, mut adaptive_right, mut extended) = (0, 0, 0, 0);
    let (mut five_off, mut adaptive_off) = (0.0f64, 0.0f64);
    for rtt in [0.0, 40.0, 80.0, 120.0, 160.0, 200.0] {
        let steady = LinkConfig {
            latency_ms: rtt / 2.0,
            ..LinkConfig::default()
        };
        let (_, probes) = run_over_as(steady.clone(), 1, None);
        assert_eq!(probes, [PROBES; 2], "steady rtt {rtt}");
        let jittery = LinkConfig {
            jitter_ms: 20.0,
            ..steady.clone()
        };
        for seed in 1..=10 {
            let reference = run_over(jittery.clone(), seed, 64);
            let five = run_over(jittery.clone(), seed, PROBES);
            let (adaptive, probes) = run_over_as(jittery.clone(), seed, None);
            for n in probes {
                assert!(n == PROBES || n == MAX_PROBES, "{n} probes");
            }
            runs += 1;
            five_right += u32::from(five.input_delay == reference.input_delay);
            adaptive_right += u32::from(adaptive.input_delay == reference.input_delay);
            extended += u32::from(probes.contains(&MAX_PROBES));
            five_off = five_off.max((five.jitter_ms - reference.jitter_ms).abs());
            adaptive_off = adaptive_off.max((adaptive.jitter_ms - reference.jitter_ms).abs());
        }
    }
    eprintln!(
        "of {runs} jittery handshakes ({extended} probed longer), the long measure's delay \
             was chosen by 5 probes in {five_right}, adaptive probing in {adaptive_right}; \
             jitter at most {five_off} ms and {adaptive_off} ms from it"
    );
    assert!(
        adaptive_right >= five_right,
        "{adaptive_right} vs {five_right}"
    );
    assert!(adaptive_off < five_off, "{adaptive_off} vs {five_off}");
}

#[test]
fn both_sides_agree_and_the_host_leads() {
    let a = Handshake::new(&GAME, hello(Role::Host, 7), DelaySetting::Auto);
    let b = Handshake::new(&GAME, hello(Role::Join, 99), DelaySetting::Auto);
    let (x, y) = run(a, b, Duration::from_millis(50));
    let (x, y) = (x.unwrap(), y.unwrap());
    assert_eq!((x.local_handle, y.local_handle), (0, 1));
    assert_eq!((x.seed, y.seed), (7, 7));
    assert_eq!(x.rtt_ms, y.rtt_ms);
    assert_eq!(x.jitter_ms, y.jitter_ms);
    // 100 ms round trip measured on a 1 ms clock step.
    assert!((99.0..=103.0).contains(&x.rtt_ms), "{}", x.rtt_ms);
    assert_eq!(
        x.input_delay,
        input_delay_for(GAME.fps, x.rtt_ms, x.jitter_ms)
    );
    assert_eq!(x.input_delay, y.input_delay);
}

#[test]
fn what_is_sent_before_the_other_end_opens_is_repeated() {
    // The joiner's end opens 5, 30 or 250 ms after the host's: the
    // host's first Hellos are lost; later ones, and probes, are not.
    for b_opens in [5, 30, 250] {
        let a = Handshake::new(&GAME, hello(Role::Host, 7), DelaySetting::Auto);
        let b = Handshake::new(&GAME, hello(Role::Join, 99), DelaySetting::Auto);
        let (x, y) = run_opening_late(
            a,
            b,
            Duration::from_millis(2),
            Duration::from_millis(b_opens),
        );
        let (x, y) = (x.unwrap(), y.unwrap());
        assert_eq!((x.local_handle, y.local_handle), (0, 1));
        assert_eq!((x.seed, y.seed), (7, 7));
        // No probe waited for a resend: the RTT is the link's.
        assert!((3.0..=6.0).contains(&x.rtt_ms), "{}", x.rtt_ms);
    }
}

#[test]
fn hello_is_repeated_only_until_the_peer_is_heard() {
    let mut host = Handshake::new(&GAME, hello(Role::Host, 1), DelaySetting::Auto);
    let start = Instant::now();
    let hellos = |out: &[Message]| {
        out.iter()
            .filter(|m| matches!(m, Message::Hello(_)))
            .count()
    };
    assert_eq!(hellos(&host.poll(start)), 1);
    assert_eq!(host.poll(start + Duration::from_millis(50)), vec![]);
    assert_eq!(hellos(&host.poll(start + HELLO_RESEND)), 1);
    let t = start + HELLO_RESEND + Duration::from_millis(10);
    host.receive(t, Message::Hello(hello(Role::Join, 2)));
    // Heard: one more Hello, now certain to arrive, and probing starts.
    let out = host.poll(t);
    assert_eq!(hellos(&out), 1);
    assert!(out.iter().any(|m| matches!(m, Message::Ping { .. })));
    let later = host.poll(t + Duration::from_secs(1));
    assert_eq!(hellos(&later), 0);
}

#[test]
fn quick_match_breaks_the_tie_by_nonce() {
    let mut ha = hello(Role::Quick, 1);
    let mut hb = hello(Role::Quick, 2);
    ha.nonce = 5;
    hb.nonce = 3;
    let (x, y) = run(
        Handshake::new(&GAME, ha, DelaySetting::Auto),
        Handshake::new(&GAME, hb, DelaySetting::Auto),
        Duration::ZERO,
    );
    let (x, y) = (x.unwrap(), y.unwrap());
    assert_eq!((x.local_handle, y.local_handle), (1, 0));
    assert_eq!((x.seed, y.seed), (2, 2));
}

#[test]
fn a_new_match_gets_the_same_fresh_id_on_both_sides() {
    let (x, y) = run(
        Handshake::new(&GAME, hello(Role::Host, 1), DelaySetting::Auto),
        Handshake::new(&GAME, hello(Role::Join, 2), DelaySetting::Auto),
        Duration::ZERO,
    );
    let (x, y) = (x.unwrap(), y.unwrap());
    assert_eq!(x.match_id, y.match_id);
    assert!(!x.rejoin && !y.rejoin);
    let (z, _) = run(
        Handshake::new(&GAME, hello(Role::Host, 1), DelaySetting::Auto),
        Handshake::new(&GAME, hello(Role::Join, 2), DelaySetting::Auto),
        Duration::ZERO,
    );
    assert_ne!(z.unwrap().match_id, x.match_id);
}

/// The keeper of paused match 77 as player 2 (its seed 9), and a
/// newcomer with these tickets, joining with `role` and seed 1.
fn resume(tickets: &[Claim], role: Role) -> Outcomes {
    let mut keeper = hello(Role::Join, 9);
    keeper.resume = Some(Claim {
        match_id: 77,
        player: 2,
    });
    let mut newcomer = hello(role, 1);
    newcomer.rejoin = tickets.to_vec();
    run(
        Handshake::new(&GAME, keeper, DelaySetting::Auto),
        Handshake::new(&GAME, newcomer, DelaySetting::Auto),
        Duration::from_millis(3),
    )
}

#[test]
fn a_rejoining_player_keeps_its_slot_and_the_match_its_seed() {
    let tickets = [
        Claim {
            match_id: 5,
            player: 2,
        },
        Claim {
            match_id: 77,
            player: 1,
        },
    ];
    // Player 1 of match 77 rejoins with `join`: still player 1.
    let (keeper, rejoiner) = resume(&tickets, Role::Join);
    let (keeper, rejoiner) = (keeper.unwrap(), rejoiner.unwrap());
    assert_eq!((keeper.local_handle, rejoiner.local_handle), (1, 0));
    assert_eq!((keeper.seed, rejoiner.seed), (9, 9));
    assert_eq!((keeper.match_id, rejoiner.match_id), (77, 77));
    assert!(keeper.rejoin && rejoiner.rejoin);
}

/// The two keepers of paused match 77: player 2 heard player 1's
/// connection close (a crash, it thought), player 1 heard silence; both
/// wait for the other. They meet when player 1 reopens its signaling.
#[test]
fn two_keepers_of_the_same_match_resume_it_each_in_its_seat() {
    let keeper = |role: Role, player: u8, match_id: u64, confirmed: Frame| {
        let mut hello = hello(role, 9);
        hello.resume = Some(Claim { match_id, player });
        hello.confirmed = confirmed;
        Handshake::new(&GAME, hello, DelaySetting::Auto)
    };
    let (one, two) = run(
        keeper(Role::Host, 1, 77, 608),
        keeper(Role::Join, 2, 77, 609),
        Duration::from_millis(3),
    );
    let (one, two) = (one.unwrap(), two.unwrap());
    assert_eq!((one.local_handle, two.local_handle), (0, 1));
    assert_eq!((one.match_id, two.match_id), (77, 77));
    assert!(one.rejoin && two.rejoin);
    assert_eq!((one.peer_confirmed, two.peer_confirmed), (609, 608));
    // Keepers of different matches, or of the same seat, are refused.
    for (match_id, player) in [(78, 2), (77, 1)] {
        let (x, y) = run(
            keeper(Role::Host, 1, 77, 608),
            keeper(Role::Join, player, match_id, 609),
            Duration::from_millis(3),
        );
        assert_eq!(x, Err(HandshakeError::BothResuming));
        assert_eq!(y, Err(HandshakeError::BothResuming));
    }
}

#[test]
fn only_the_dropped_player_of_the_paused_match_gets_in() {
    let paused = HandshakeError::Paused { waiting_for: 1 };
    let (keeper, newcomer) = resume(&[], Role::Join);
    assert_eq!((keeper, newcomer), (Err(paused.clone()), Err(paused)));
    // A ticket of another match, and one of the player still there.
    for ticket in [(78, 1), (77, 2)] {
        let claim = Claim {
            match_id: ticket.0,
            player: ticket.1,
        };
        let other = HandshakeError::NotThisMatch { waiting_for: 1 };
        let (keeper, newcomer) = resume(&[claim], Role::Join);
        assert_eq!((keeper, newcomer), (Err(other.clone()), Err(other)));
    }
}

#[test]
fn fixed_delay_overrides_only_its_own_side() {
    let (x, y) = run(
        Handshake::new(&GAME, hello(Role::Host, 1), DelaySetting::Fixed(5)),
        Handshake::new(&GAME, hello(Role::Join, 1), DelaySetting::Auto),
        Duration::ZERO,
    );
    assert_eq!(x.unwrap().input_delay, 5);
    assert_eq!(y.unwrap().input_delay, 0);
}

#[test]
fn version_mismatch_fails_both_sides() {
    let mut old = hello(Role::Join, 1);
    old.protocol += 1;
    old.game_version = "9.9.9".into();
    let (x, y) = run(
        Handshake::new(&GAME, hello(Role::Host, 1), DelaySetting::Auto),
        Handshake::new(&GAME, old, DelaySetting::Auto),
        Duration::ZERO,
    );
    let e = x.unwrap_err();
    assert!(matches!(e, HandshakeError::VersionMismatch { .. }));
    assert!(e.to_string().contains("9.9.9"), "{e}");
    assert!(matches!(y, Err(HandshakeError::VersionMismatch { .. })));
}

#[test]
fn a_side_refusing_before_its_first_poll_still_sends_its_hello() {
    let mut newer = hello(Role::Join, 1);
    newer.protocol += 1;
    let mut host = Handshake::new(&GAME, hello(Role::Host, 1), DelaySetting::Auto);
    let mut joiner = Handshake::new(&GAME, newer, DelaySetting::Auto);
    let now = Instant::now();
    let host_hello = host.poll(now).remove(0);
    // The joiner hears the host before it ever polled.
    let reply = joiner.receive(now, host_hello);
    assert!(matches!(
        joiner.outcome(),
        Some(Err(HandshakeError::VersionMismatch { .. }))
    ));
    let reply = reply.expect("the refusing side answers with its Hello");
    assert!(matches!(reply, Message::Hello(_)));
    host.receive(now, reply);
    assert!(matches!(
        host.outcome(),
        Some(Err(HandshakeError::VersionMismatch { .. }))
    ));
}

#[test]
fn busy_ends_the_handshake_with_match_running() {
    let mut newcomer = Handshake::new(&GAME, hello(Role::Join, 1), DelaySetting::Auto);
    let now = Instant::now();
    newcomer.poll(now);
    assert_eq!(newcomer.receive(now, Message::Busy), None);
    assert_eq!(newcomer.outcome(), Some(&Err(HandshakeError::MatchRunning)));
    assert!(newcomer.poll(now + HELLO_RESEND).is_empty());
    assert_eq!(Message::decode(&Message::Busy.encode()), Ok(Message::Busy));
}

#[test]
fn unknown_preset_and_garbage_are_errors() {
    let mut odd = hello(Role::Host, 1);
    odd.preset = "turbo".into();
    let (x, _) = run(
        Handshake::new(&GAME, odd, DelaySetting::Auto),
        Handshake::new(&GAME, hello(Role::Join, 1), DelaySetting::Auto),
        Duration::ZERO,
    );
    assert_eq!(x, Err(HandshakeError::UnknownPreset("turbo".into())));

    // Bytes on the control channel that are not a message.
    assert_eq!(
        Message::decode(b"\x00\xffnot json"),
        Err(HandshakeError::Malformed { bytes: 10 })
    );
}

#[test]
fn messages_round_trip_on_the_wire_and_as_json_for_transcripts() {
    for m in [
        Message::Hello(hello(Role::Quick, 3)),
        Message::Ping { seq: 4 },
        Message::Done {
            frame: 900,
            checksum: u128::MAX - 7,
        },
        Message::Desync {
            frame: 70,
            sender: 1,
            receiver: 0xabc,
        },
        Message::Bye {
            reason: "esc".into(),
        },
        Message::Busy,
        Message::CatchUp {
            chunks: vec![0, 1, 2],
        },
        Message::CaughtUp {
            frame: 36_000,
            checksum: 5,
        },
        Message::Chat {
            text: "gg \"wp\" é".into(),
        },
    ] {
        assert_eq!(Message::decode(&m.encode()), Ok(m.clone()));
        let json = serde_json::to_string(&m).unwrap();
        assert_eq!(serde_json::from_str::<Message>(&json).unwrap(), m, "{json}");
    }
}

#[test]
fn a_checksum_that_is_not_32_hex_digits_does_not_decode() {
    // In a transcript, as JSON.
    let good = r#"{"done":{"frame":900,"checksum":"000000000000000000000000000000ab"}}"#;
    assert!(serde_json::from_str::<Message>(good).is_ok());
    for bad in ["ab", "zz000000000000000000000000000000", ""] {
        let text = format!(r#"{{"done":{{"frame":900,"checksum":"{bad}"}}}}"#);
        assert!(serde_json::from_str::<Message>(&text).is_err(), "{bad:?}");
    }
    // On the wire, as 16 bytes and nothing else.
    let mut wire = Message::Done {
        frame: 900,
        checksum: 0xab,
    }
    .encode();
    let at = wire.len() - 17;
    assert_eq!(wire[at], 16);
    wire[at] = 15;
    wire.pop();
    assert!(Message::decode(&wire).is_err());
}
