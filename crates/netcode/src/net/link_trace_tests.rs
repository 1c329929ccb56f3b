use super::*;

fn sample(t_ms: u64, rtt_ms: f64, jitter_ms: f64, loss_pct: f64) -> LinkSample {
    LinkSample {
        t_ms,
        rtt_ms,
        jitter_ms,
        loss_pct,
    }
}

#[test]
fn a_trace_reads_back_what_it_wrote() {
    let mut trace = LinkTrace::new(vec![
        sample(0, 20.0, 1.5, 0.0),
        sample(100, 40.0, 3.0, 16.7),
        sample(200, 100.0, 30.0, 100.0),
    ])
    .unwrap();
    trace.set_meta("recorded_by", "host");
    trace.set_meta("rollback frames", "123");
    let text = trace.to_text();
    assert!(text.starts_with("twinstar link trace v1\n# recorded_by: host\n"));
    let back = LinkTrace::parse(&text).unwrap();
    assert_eq!(back, trace);
    assert_eq!(back.meta("rollback_frames"), Some("123"));
    assert_eq!(back.length(), Duration::from_millis(300));
}

#[test]
fn the_sample_in_force_steps_with_time_and_loops() {
    let trace = LinkTrace::new(vec![
        sample(0, 20.0, 0.0, 0.0),
        sample(100, 60.0, 20.0, 50.0),
    ])
    .unwrap();
    let at = |ms| trace.one_way_at(Duration::from_millis(ms));
    assert_eq!(at(0), (10.0, 0.0, 0.0));
    assert_eq!(at(99), (10.0, 0.0, 0.0));
    assert_eq!(at(100), (20.0, 20.0, 50.0));
    assert_eq!(at(199), (20.0, 20.0, 50.0));
    assert_eq!(at(200), (10.0, 0.0, 0.0), "loops");
    let later = trace.starting_later(Duration::from_millis(150));
    assert_eq!(later.one_way_at(Duration::ZERO), (20.0, 20.0, 50.0));
    assert_eq!(
        trace.delay_only().one_way_at(Duration::from_millis(100)).2,
        0.0
    );
}

#[test]
fn malformed_traces_are_refused_with_their_line_never_a_panic() {
    let good = "twinstar link trace v1\n# a: b\nt_ms,rtt_ms,jitter_ms,loss_pct\n0,20,1,0\n";
    assert!(LinkTrace::parse(good).is_ok());
    let cases: &[(&str, usize)] = &[
        ("", 1),
        ("hello\n", 1),
        ("twinstar link trace v2\n", 1),
        ("twinstar link trace vX\n", 1),
        ("twinstar link trace v1\n", 1),
        (
            "twinstar link trace v1\nt_ms,rtt_ms,jitter_ms,loss_pct\n",
            2,
        ),
        ("twinstar link trace v1\n# no colon\n", 2),
        ("twinstar link trace v1\n# bad key!: 1\n", 2),
        ("twinstar link trace v1\n0,20,1,0\n", 2),
        (
            "twinstar link trace v1\nt_ms,rtt_ms,jitter_ms,loss_pct\n0,20,1\n",
            3,
        ),
        (
            "twinstar link trace v1\nt_ms,rtt_ms,jitter_ms,loss_pct\n0,20,1,0,5\n",
            3,
        ),
        (
            "twinstar link trace v1\nt_ms,rtt_ms,jitter_ms,loss_pct\n-1,20,1,0\n",
            3,
        ),
        (
            "twinstar link trace v1\nt_ms,rtt_ms,jitter_ms,loss_pct\n0.5,20,1,0\n",
            3,
        ),
        (
            "twinstar link trace v1\nt_ms,rtt_ms,jitter_ms,loss_pct\n0,NaN,1,0\n",
            3,
        ),
        (
            "twinstar link trace v1\nt_ms,rtt_ms,jitter_ms,loss_pct\n0,inf,1,0\n",
            3,
        ),
        (
            "twinstar link trace v1\nt_ms,rtt_ms,jitter_ms,loss_pct\n0,20,-1,0\n",
            3,
        ),
        (
            "twinstar link trace v1\nt_ms,rtt_ms,jitter_ms,loss_pct\n0,20,1,101\n",
            3,
        ),
        (
            "twinstar link trace v1\nt_ms,rtt_ms,jitter_ms,loss_pct\n0,1e9,1,0\n",
            3,
        ),
        (
            "twinstar link trace v1\nt_ms,rtt_ms,jitter_ms,loss_pct\n0,20,1,0\n0,20,1,0\n",
            4,
        ),
        (
            "twinstar link trace v1\nt_ms,rtt_ms,jitter_ms,loss_pct\n99999999999,20,1,0\n",
            3,
        ),
    ];
    for (text, line) in cases {
        let e = LinkTrace::parse(text).expect_err(text);
        assert_eq!(e.line, *line, "{text:?}: {e}");
        assert!(!e.to_string().contains('\n'), "one line: {e}");
    }
}

/// Fuzz-style: random bytes, and random edits of a good trace, never
/// panic; what parses writes back to what parses the same.
#[test]
fn random_text_never_panics_and_what_parses_round_trips() {
    let good =
        "twinstar link trace v1\n# k: v\nt_ms,rtt_ms,jitter_ms,loss_pct\n0,20,1,0\n100,30,2.5,10\n";
    let alphabet: Vec<char> = "twinsarlkcev1#:,.-0123456789\n eE+NaN_".chars().collect();
    let mut x: u64 = 0x1234_5678_9ABC_DEF1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for round in 0..20_000 {
        let text: String = if round % 2 == 0 {
            let mut chars: Vec<char> = good.chars().collect();
            for _ in 0..(1 + next() % 4) {
                let at = (next() as usize) % (chars.len() + 1);
                let c = alphabet[(next() as usize) % alphabet.len()];
                match next() % 3 {
                    0 if at < chars.len() => chars[at] = c,
                    1 if at < chars.len() => {
                        chars.remove(at);
                    }
                    _ => chars.insert(at, c),
                }
            }
            chars.into_iter().collect()
        } else {
            let len = (next() % 80) as usize;
            let bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            String::from_utf8_lossy(&bytes).into_owned()
        };
        if let Ok(trace) = LinkTrace::parse(&text) {
            let again = LinkTrace::parse(&trace.to_text()).expect("writes what it reads");
            assert_eq!(again.samples().len(), trace.samples().len());
            let _ = trace.one_way_at(Duration::from_secs(round as u64));
        }
    }
}

#[test]
fn the_recorder_samples_every_100_ms_and_marks_a_silence_as_a_cut() {
    let t0 = Instant::now();
    let ms = |n: u64| t0 + Duration::from_millis(n);
    let mut rec = LinkRecorder::new(60, 30.0);
    rec.start(t0);
    // 1 s of input messages every 16.67 ms, then 500 ms of silence,
    // then 500 ms more: frame f arrives at f * 50/3 ms (+ 6 ms on odd
    // frames: a jitter whose consecutive differences are all 6 ms).
    let mut settled = 0;
    for f in 0..120u64 {
        if (60..90).contains(&f) {
            continue;
        }
        let at = ms(f * 50 / 3 + if f % 2 == 1 { 6 } else { 0 });
        settled += 1;
        rec.measured(at, Some(40.0), (settled, 0));
        rec.packet(at);
        rec.input(at, f as i32);
    }
    let trace = rec.trace(ms(2000)).unwrap();
    let s = trace.samples();
    assert_eq!(s.len(), 20);
    assert_eq!(s[3].t_ms, 300);
    assert_eq!(s[3].rtt_ms, 40.0);
    assert_eq!(s[3].loss_pct, 0.0);
    // |gap - 16.67| is about 6 ms (the division rounds the send times).
    assert!((15.0..26.0).contains(&s[3].jitter_ms), "{}", s[3].jitter_ms);
    // 1000..1500 ms: silent; the cut shows once 300 ms have passed.
    assert!(s[10..15].iter().all(|s| s.loss_pct == 100.0), "{s:?}");
    assert_eq!(s[16].loss_pct, 0.0);
    assert_eq!(trace.meta("sample_ms"), Some("100"));
}
