use super::*;

#[test]
fn lines_are_trimmed_and_limited_in_characters_not_bytes() {
    assert_eq!(validate("  gg  "), Ok("gg"));
    assert_eq!(validate(""), Err(ChatError::Empty));
    assert_eq!(validate("   "), Err(ChatError::Empty));
    let longest = "a".repeat(MAX_CHARS);
    assert_eq!(validate(&longest), Ok(longest.as_str()));
    assert_eq!(
        validate(&"a".repeat(MAX_CHARS + 1)),
        Err(ChatError::TooLong {
            chars: MAX_CHARS + 1
        })
    );
    // 120 two-byte characters are 240 bytes and still fit.
    let accents = "é".repeat(MAX_CHARS);
    assert_eq!(validate(&accents), Ok(accents.as_str()));
    // Surrounding spaces do not count.
    let padded = format!("   {longest}   ");
    assert_eq!(validate(&padded), Ok(longest.as_str()));
    // A megabyte is refused without being scanned for printability.
    let huge = "\u{7}".repeat(1 << 20);
    assert!(matches!(validate(&huge), Err(ChatError::TooLong { .. })));
}

#[test]
fn only_printable_text_passes() {
    for bad in [
        "bell\u{7}",
        "esc \u{1b}[31mred",
        "new\nline",
        "tab\there",
        "del\u{7f}",
        "c1 \u{85} inside",
        "rtl \u{202E}olleh",
        "zero\u{200B}width",
        "bom\u{FEFF}",
        "line\u{2028}sep",
        "tag \u{E0041}",
    ] {
        assert!(
            matches!(validate(bad), Err(ChatError::NotPrintable(_))),
            "{bad:?}"
        );
    }
    for good in [
        "gg wp!",
        "héllo wörld",
        "ñ ü 日本語 🚀",
        "100% <ok> {\"json\"}",
    ] {
        assert_eq!(validate(good), Ok(good));
    }
    // The error names the character, escaped.
    assert_eq!(
        validate("a\u{7}").unwrap_err().to_string(),
        "'\\u{7}' is not printable text"
    );
}

#[test]
fn the_rate_limit_allows_a_burst_then_one_a_second() {
    let t0 = Instant::now();
    let s = Duration::from_secs;
    let mut limit = RateLimiter::new(5, s(1));
    let allowed = (0..8).filter(|_| limit.allow(t0)).count();
    assert_eq!(allowed, 5);
    // Half a second later: nothing back yet.
    assert!(!limit.allow(t0 + Duration::from_millis(500)));
    // One second: one line back, then none.
    assert!(limit.allow(t0 + s(1)));
    assert!(!limit.allow(t0 + s(1)));
    // Three seconds later: three back.
    let later = t0 + s(4);
    assert_eq!((0..10).filter(|_| limit.allow(later)).count(), 3);
    // A long quiet: the whole burst, and no more.
    let quiet = t0 + s(100);
    assert_eq!((0..10).filter(|_| limit.allow(quiet)).count(), 5);
    // Steady at one a second: every line passes, forever.
    let mut steady = RateLimiter::new(5, s(1));
    assert!((0..1000).all(|i| steady.allow(t0 + s(i))));
}

#[test]
fn our_lines_are_checked_counted_and_kept() {
    let t0 = Instant::now();
    let mut chat = Chat::new("P1".into(), "P2".into());
    let line = chat.say(t0, 7, "  hello  ").unwrap();
    assert_eq!(
        line,
        ChatLine {
            frame: 7,
            from: "P1".into(),
            text: "hello".into()
        }
    );
    assert_eq!(line.detail(), "P1: hello");
    assert_eq!(
        chat.say(t0, 7, "\u{7}"),
        Err(ChatError::NotPrintable('\u{7}'))
    );
    for _ in 1..BURST {
        chat.say(t0, 8, "more").unwrap();
    }
    assert_eq!(chat.say(t0, 9, "one too many"), Err(ChatError::RateLimited));
    assert_eq!(chat.counters().sent, BURST);
    assert_eq!(chat.counters().dropped, 0);
    assert!(chat.say(t0 + REFILL, 70, "later").is_ok());
}

#[test]
fn the_peers_junk_and_flood_are_dropped_and_counted() {
    let t0 = Instant::now();
    let mut chat = Chat::new("P2".into(), "P1".into());
    let hi = chat.receive(t0, 3, "hi").unwrap();
    assert_eq!(hi.from, "P1");
    assert_eq!(chat.receive(t0, 3, &"z".repeat(MAX_CHARS + 1)), None);
    assert_eq!(chat.receive(t0, 3, "\u{1b}[2J"), None);
    assert_eq!(chat.receive(t0, 3, ""), None);
    assert_eq!(
        chat.counters(),
        ChatCounters {
            sent: 0,
            received: 1,
            dropped: 3,
            muted: 0,
        }
    );
    // A flood of valid lines: the burst (with its network slack) and
    // then one a second get through.
    let mut accepted = 1; // "hi"
    for i in 0..10_000u64 {
        let now = t0 + Duration::from_millis(i); // 10 s of 1000 a second
        if chat.receive(now, 3, &format!("spam {i}")).is_some() {
            accepted += 1;
        }
    }
    let allowed = BURST + NETWORK_SLACK + 9; // burst at 0 s, refills at 1..=9 s
    assert_eq!(accepted, allowed);
    assert_eq!(chat.counters().received, allowed);
    assert_eq!(chat.counters().dropped, 3 + 10_000 - (allowed - 1));
    // Junk costs no allowance: after a refill a valid line still passes.
    assert!(
        chat.receive(t0 + Duration::from_secs(30), 9, "\u{7}")
            .is_none()
    );
    assert!(
        chat.receive(t0 + Duration::from_secs(30), 9, "back")
            .is_some()
    );
}

#[test]
fn each_spectator_has_its_own_limit_on_the_streaming_player() {
    let t0 = Instant::now();
    let mut chat = Chat::new("P1".into(), "P2".into());
    let (mut s1, mut s2) = (RateLimiter::for_peer(), RateLimiter::for_peer());
    let per_sender = (BURST + NETWORK_SLACK) as usize;
    let said = |chat: &mut Chat, name, limit: &mut RateLimiter| {
        (0..20)
            .filter(|i| {
                chat.receive_from(t0, 4, name, limit, &format!("{name} {i}"))
                    .is_some()
            })
            .count()
    };
    // S1 spends its burst; S2's is untouched by that.
    assert_eq!(said(&mut chat, "S1", &mut s1), per_sender);
    assert_eq!(said(&mut chat, "S2", &mut s2), per_sender);
    let new = chat.take_new();
    assert_eq!(new.len(), 2 * per_sender);
    assert_eq!(new[0].detail(), "S1: S1 0");
    assert_eq!(new.last().map(|l| l.from.as_str()), Some("S2"));
    assert_eq!(chat.counters().received, 2 * per_sender as u32);
    assert_eq!(chat.counters().dropped, 2 * (20 - per_sender as u32));
    // The partner's limit is its own too.
    assert!(chat.receive(t0, 4, "from P2").is_some());
}

#[test]
fn relayed_lines_are_named_checked_and_limited_for_the_whole_room() {
    let t0 = Instant::now();
    let mut chat = Chat::new("S3".into(), String::new());
    let line = chat.receive_relayed(t0, 90, "P2", "nice shot").unwrap();
    assert_eq!(
        (line.frame, line.detail()),
        (90, "P2: nice shot".to_string())
    );
    // A name that could forge a line, or junk text: dropped, counted.
    assert_eq!(chat.receive_relayed(t0, 91, "P1: fake", "x"), None);
    assert_eq!(chat.receive_relayed(t0, 91, "", "x"), None);
    assert_eq!(chat.receive_relayed(t0, 91, "S1", "\u{7}"), None);
    assert_eq!(chat.counters().dropped, 3);
    // Our own line coming back: returned to be recorded, not shown or
    // counted again.
    chat.say(t0, 80, "hello room").unwrap();
    assert_eq!(chat.take_new().len(), 2);
    let echo = chat.receive_relayed(t0, 95, "S3", "hello room").unwrap();
    assert_eq!((echo.frame, echo.from.as_str()), (95, "S3"));
    assert!(chat.take_new().is_empty());
    assert_eq!(chat.counters().received, 1);
    // A flood relayed from the room: at most every sender's burst at
    // once (room for a late spectator's history), then ten a second.
    let room_burst = (ROOM_SENDERS * (BURST + NETWORK_SLACK)) as usize;
    let burst = (0..1000)
        .filter(|i| {
            chat.receive_relayed(t0, 99, "S1", &format!("{i}"))
                .is_some()
        })
        .count();
    assert_eq!(burst, room_burst - 1, "one went to 'nice shot'");
    assert!(HISTORY < room_burst);
    let later = t0 + REFILL;
    let refilled = (0..1000)
        .filter(|i| {
            chat.receive_relayed(later, 99, "S1", &format!("{i}"))
                .is_some()
        })
        .count();
    assert_eq!(refilled, ROOM_SENDERS as usize);
}

#[test]
fn the_greeting_is_taken_once_and_the_flood_comes_due_by_the_frame() {
    let mut chat = Chat::new("P1".into(), "P2".into())
        .with_greeting(vec![
            (0, "hi".into()),
            (0, "gl".into()),
            (90, "/who".into()),
        ])
        .with_flood(90, 60);
    assert_eq!(chat.take_greeting(1), ["hi", "gl"]);
    assert!(chat.take_greeting(89).is_empty());
    assert_eq!(chat.take_greeting(95), ["/who"]);
    assert!(chat.take_greeting(200).is_empty());
    // 90 a second at 60 calls a second: 1 or 2 a call, 90 in all.
    let calls: Vec<usize> = (0..60).map(|_| chat.flood_due().len()).collect();
    assert!(calls.iter().all(|&n| n == 1 || n == 2), "{calls:?}");
    assert_eq!(calls.iter().sum::<usize>(), 90);
    assert!(Chat::new("P1".into(), "P2".into()).flood_due().is_empty());
}

#[test]
fn every_flood_message_but_the_plain_one_is_junk() {
    for n in 0..12 {
        let text = flood_message(n);
        assert_eq!(validate(&text).is_ok(), n % 6 == 0, "{n}: {text:?}");
    }
}

#[test]
fn history_is_bounded_and_new_lines_are_taken_once() {
    let mut t = Instant::now();
    let mut chat = Chat::new("P1".into(), "P2".into());
    chat.say(t, 1, "one").unwrap();
    chat.receive(t, 2, "two").unwrap();
    let taken: Vec<String> = chat.take_new().into_iter().map(|l| l.detail()).collect();
    assert_eq!(taken, ["P1: one", "P2: two"]);
    assert!(chat.take_new().is_empty());
    // Far more lines than the history holds, never taken.
    for i in 0..(3 * HISTORY as u32) {
        t += REFILL;
        chat.receive(t, i, &format!("line {i}")).unwrap();
    }
    assert_eq!(chat.history().count(), HISTORY);
    let taken = chat.take_new();
    assert_eq!(taken.len(), HISTORY);
    assert_eq!(
        taken.last().map(|l| l.text.as_str()),
        Some(format!("line {}", 3 * HISTORY - 1).as_str())
    );
    assert!(chat.take_new().is_empty());
}

#[test]
fn replay_details_parse_back_and_bad_ones_do_not() {
    let line = ChatLine {
        frame: 42,
        from: "P2".into(),
        text: "gg: well played".into(),
    };
    assert_eq!(ChatLine::from_event(42, &line.detail()), Some(line));
    let named = ChatLine::from_event(7, "Ana María (2): hola").unwrap();
    assert_eq!(
        (named.from.as_str(), named.text.as_str()),
        ("Ana María (2)", "hola")
    );
    for bad in [
        "no separator",
        ": empty sender",
        "P1: \u{7}",
        "P1!: x",
        " P1: x",
        "Ana (1): x",
        "Ana (100): x",
        "Ana (02): x",
        "Ana(2): x",
        "P1: ",
    ] {
        assert_eq!(ChatLine::from_event(0, bad), None, "{bad:?}");
    }
}

#[test]
fn names_are_display_names_made_unique() {
    let name = |s: &str| Some(PlayerName::parse(s).unwrap());
    assert_eq!(player_names(&[None, None]), ["P1", "P2"]);
    assert_eq!(player_names(&[name("Ana"), None]), ["Ana", "P2"]);
    assert_eq!(
        player_names(&[name("Ana"), name("ana")]),
        ["Ana", "ana (2)"]
    );
    assert_eq!(player_names(&[None, name("P1")]), ["P1", "P1 (2)"]);
    assert_eq!(unique_name("Zoe", &["Ana", "Zoe", "zoe (2)"]), "Zoe (3)");
    for good in ["P1", "S12", "Ana María", "Ana (2)", "x_y-z (99)"] {
        assert!(valid_name(good), "{good}");
    }
    for bad in [
        "",
        "Ana:",
        "Ana (1)",
        "a".repeat(17).as_str(),
        "Ana  ",
        "Ana\t",
    ] {
        assert!(!valid_name(bad), "{bad:?}");
    }
}

#[test]
fn commands_take_names_with_spaces() {
    let t0 = Instant::now();
    let mut chat = Chat::new("Bo".into(), "Ana María".into());
    let mut limit = RateLimiter::for_peer();
    assert!(
        chat.receive_from(t0, 3, "Zoe (2)", &mut limit, "spam")
            .is_some()
    );
    assert_eq!(
        chat.command(4, "/report ana maría keeps spamming"),
        Command::Act(Action::Report {
            name: "Ana María".into(),
            reason: "keeps spamming".into()
        })
    );
    assert_eq!(
        chat.command(4, "/report Zoe (2) spam"),
        Command::Act(Action::Report {
            name: "Zoe (2)".into(),
            reason: "spam".into()
        })
    );
    assert_eq!(
        chat.command(4, "/kick zoe (2)"),
        Command::Act(Action::Kick("Zoe (2)".into()))
    );
    assert_eq!(chat.command(5, "/mute ANA MARÍA"), Command::Answered);
    assert!(chat.is_muted("Ana María"));
    assert_eq!(chat.receive(t0, 6, "hi"), None);
    assert_eq!(chat.command(7, "/who"), Command::Answered);
    let who = chat.take_new().pop().unwrap();
    assert_eq!(who.text, "in the room: Bo (you), Ana María, Zoe (2)");
}

#[test]
fn commands_are_answered_here_and_mute_hides_and_stops_relaying() {
    let t0 = Instant::now();
    let mut chat = Chat::new("P1".into(), "P2".into());
    assert_eq!(chat.command(1, "hello"), Command::Line);
    assert_eq!(chat.command(1, "/WHO"), Command::Answered);
    assert_eq!(chat.command(1, "/mute p2"), Command::Answered);
    assert_eq!(chat.command(1, "/mute P1"), Command::Answered);
    assert_eq!(chat.command(1, "/dance"), Command::Answered);
    let notices: Vec<String> = chat.take_new().into_iter().map(|l| l.to_string()).collect();
    assert_eq!(
        notices,
        [
            "*: in the room: P1 (you), P2".to_string(),
            "*: P2 is muted for the rest of the match (/unmute P2)".into(),
            "*: you cannot mute yourself".into(),
            format!("*: {COMMANDS_HELP}"),
        ]
    );
    // Muted: not shown, not returned (so neither recorded nor relayed),
    // counted apart from drops.
    assert_eq!(chat.receive(t0, 2, "hi"), None);
    assert_eq!(chat.counters().muted, 1);
    assert_eq!(chat.counters().dropped, 0);
    assert!(chat.take_new().is_empty());
    // A spectator's line still comes; /who then names it.
    let mut limit = RateLimiter::for_peer();
    assert!(chat.receive_from(t0, 3, "S1", &mut limit, "gg").is_some());
    assert_eq!(chat.command(4, "/unmute P2"), Command::Answered);
    assert!(chat.receive(t0, 5, "back").is_some());
    assert_eq!(chat.command(6, "/who"), Command::Answered);
    let last = chat.take_new().last().cloned().unwrap();
    assert_eq!(last.text, "in the room: P1 (you), P2, S1");
    // Notices never reach the history spectators are sent.
    assert!(chat.history().all(|l| l.from != NOTICE_FROM));
}

#[test]
fn kick_and_report_are_checked_here_and_handed_to_the_backend() {
    let t0 = Instant::now();
    let mut chat = Chat::new("P1".into(), "P2".into());
    let mut limit = RateLimiter::for_peer();
    assert!(chat.receive_from(t0, 3, "S1", &mut limit, "spam").is_some());
    assert_eq!(
        chat.command(4, "/kick s1"),
        Command::Act(Action::Kick("S1".into()))
    );
    assert_eq!(
        chat.command(4, "/Report s1  spam and insults "),
        Command::Act(Action::Report {
            name: "S1".into(),
            reason: "spam and insults".into()
        })
    );
    assert_eq!(
        chat.command(4, "/report p2 rude"),
        Command::Act(Action::Report {
            name: "P2".into(),
            reason: "rude".into()
        })
    );
    for (typed, answer) in [
        ("/kick", "whom? /kick NAME (a spectator: /who)"),
        ("/kick P1", "you cannot kick yourself"),
        ("/report", "whom? /report NAME REASON"),
        ("/report S1", "say why: /report NAME REASON"),
        ("/report S9 spam", "nobody called S9 is in the room (/who)"),
        ("/report p1 me", "you cannot report yourself"),
    ] {
        assert_eq!(chat.command(5, typed), Command::Answered, "{typed}");
        let notice = chat.take_new().pop().unwrap();
        assert_eq!(
            (notice.from.as_str(), notice.text.as_str()),
            (NOTICE_FROM, answer)
        );
    }
    chat.notice(6, "S1 was removed");
    assert_eq!(chat.take_new().pop().unwrap().text, "S1 was removed");
    assert_eq!(chat.last_lines(), ["S1: spam"]);
}
