use super::*;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Pushes `n` packets 1 ms apart starting at `t0`, returns (send time, id).
fn send_many(link: &mut LinkSim<(Instant, u32)>, t0: Instant, n: u32) {
    for i in 0..n {
        let at = t0 + ms(i as u64);
        link.push(at, (at, i));
    }
}

/// Lost packets and the runs they come in, over `n` packets.
fn loss_runs(config: LinkConfig, n: u32) -> (f64, f64) {
    let mut link = LinkSim::new(config, 3);
    let t = Instant::now();
    let (mut lost, mut runs, mut last_lost) = (0u32, 0u32, false);
    for i in 0..n {
        let before = link.stats().lost;
        link.push(t, i);
        let now_lost = link.stats().lost > before;
        lost += u32::from(now_lost);
        runs += u32::from(now_lost && !last_lost);
        last_lost = now_lost;
    }
    (
        f64::from(lost) / f64::from(n),
        f64::from(lost) / f64::from(runs),
    )
}

#[test]
fn loss_comes_alone_or_in_runs_of_the_asked_length_at_the_same_rate() {
    let lossy = |loss_burst| LinkConfig {
        loss_pct: 10.0,
        loss_burst,
        ..LinkConfig::default()
    };
    let (rate, run) = loss_runs(lossy(0.0), 200_000);
    assert!((0.095..0.105).contains(&rate), "{rate}");
    // Independent: a run goes on with probability 0.1, mean 1.11.
    assert!((1.08..1.14).contains(&run), "{run}");
    let (rate, run) = loss_runs(lossy(4.0), 200_000);
    assert!((0.09..0.11).contains(&rate), "{rate}");
    assert!((3.8..4.2).contains(&run), "{run}");
    assert!(lossy(-1.0).validate().is_err());
    assert!(lossy(f64::NAN).validate().is_err());
}

#[test]
fn zero_config_passes_everything_through_at_once_in_order() {
    let mut link = LinkSim::new(LinkConfig::default(), 1);
    assert!(link.config().is_passthrough());
    let t = Instant::now();
    for i in 0..1000u32 {
        link.push(t, i);
    }
    assert_eq!(link.pop_ready(t), (0..1000).collect::<Vec<_>>());
    assert_eq!(link.in_flight(), 0);
    let s = link.stats();
    assert_eq!(
        (s.pushed, s.lost, s.duplicated, s.delivered),
        (1000, 0, 0, 1000)
    );
}

#[test]
fn latency_only_delays_exactly_and_keeps_order() {
    let cfg = LinkConfig {
        latency_ms: 40.0,
        ..Default::default()
    };
    let mut link = LinkSim::new(cfg, 2);
    let t = Instant::now();
    link.push(t, 1);
    link.push(t + ms(1), 2);
    assert!(link.pop_ready(t + ms(39)).is_empty());
    assert_eq!(link.next_due(), Some(t + ms(40)));
    assert_eq!(link.pop_ready(t + ms(40)), vec![1]);
    assert_eq!(link.pop_ready(t + ms(100)), vec![2]);
}

#[test]
fn delivery_is_never_before_latency_nor_after_latency_plus_jitter() {
    let cfg = LinkConfig {
        latency_ms: 50.0,
        jitter_ms: 20.0,
        loss_pct: 10.0,
        loss_burst: 0.0,
        dup_pct: 10.0,
        outage: None,
        trace: None,
    };
    let mut link = LinkSim::new(cfg, 3);
    let t0 = Instant::now();
    send_many(&mut link, t0, 2000);
    // Step the clock 1 ms at a time and check every delivery's delay.
    let mut delivered = 0;
    for step in 0..2200u64 {
        let now = t0 + ms(step);
        for (sent, _) in link.pop_ready(now) {
            let delay = now - sent;
            assert!(delay >= ms(50), "{delay:?}");
            // 1 ms of polling granularity on top of the jitter bound.
            assert!(delay <= ms(71), "{delay:?}");
            delivered += 1;
        }
    }
    assert_eq!(link.in_flight(), 0);
    assert_eq!(delivered, link.stats().delivered);
}

#[test]
fn loss_rate_is_within_tolerance_over_10k_packets() {
    for (pct, seed) in [(5.0, 11), (20.0, 12), (50.0, 13)] {
        let cfg = LinkConfig {
            loss_pct: pct,
            ..Default::default()
        };
        let mut link = LinkSim::new(cfg, seed);
        let t = Instant::now();
        for i in 0..10_000u32 {
            link.push(t, i);
        }
        let got = link.pop_ready(t).len() as f64;
        let lost_pct = 100.0 - got / 100.0;
        // Binomial sd at 50 % over 10k is 0.5 %; 1.5 points is 3 sd.
        assert!((lost_pct - pct).abs() < 1.5, "{pct}% -> {lost_pct}%");
        assert_eq!(link.stats().lost as f64, 10_000.0 - got);
    }
}

#[test]
fn full_loss_drops_everything_and_full_dup_doubles_everything() {
    let t = Instant::now();
    let mut lossy = LinkSim::new(
        LinkConfig {
            loss_pct: 100.0,
            ..Default::default()
        },
        4,
    );
    let mut dupy = LinkSim::new(
        LinkConfig {
            dup_pct: 100.0,
            ..Default::default()
        },
        4,
    );
    for i in 0..100u32 {
        lossy.push(t, i);
        dupy.push(t, i);
    }
    assert!(lossy.pop_ready(t).is_empty());
    let doubled = dupy.pop_ready(t);
    assert_eq!(doubled.len(), 200);
    // Without jitter both copies are due at once and come out together.
    assert_eq!(&doubled[..4], &[0, 0, 1, 1]);
}

#[test]
fn duplication_rate_is_within_tolerance() {
    let cfg = LinkConfig {
        dup_pct: 10.0,
        ..Default::default()
    };
    let mut link = LinkSim::new(cfg, 5);
    let t = Instant::now();
    for i in 0..10_000u32 {
        link.push(t, i);
    }
    let out = link.pop_ready(t);
    let extra = out.len() as f64 - 10_000.0;
    assert!((extra - 1000.0).abs() < 120.0, "{extra}");
    assert_eq!(link.stats().duplicated as f64, extra);
    // Every packet arrived at least once: duplication never loses.
    let mut ids = out.clone();
    ids.dedup();
    assert_eq!(ids, (0..10_000).collect::<Vec<_>>());
}

#[test]
fn jitter_reorders_packets_sent_close_together() {
    let cfg = LinkConfig {
        latency_ms: 30.0,
        jitter_ms: 10.0,
        ..Default::default()
    };
    let mut link = LinkSim::new(cfg, 6);
    let t0 = Instant::now();
    send_many(&mut link, t0, 1000);
    let ids: Vec<u32> = link
        .pop_ready(t0 + ms(2000))
        .into_iter()
        .map(|(_, id)| id)
        .collect();
    assert_eq!(ids.len(), 1000);
    let inversions = ids.windows(2).filter(|w| w[0] > w[1]).count();
    assert!(inversions > 50, "{inversions}");
}

#[test]
fn the_soak_link_reorders_a_60_hz_packet_stream() {
    // scripts/soak.sh: 40 ms jitter, one GGRS packet a frame (~16 ms).
    // A packet overtakes its predecessor when its extra delay is over
    // 16 ms smaller: P = (24 * 24 / 2) / (40 * 40) = 18 %.
    let cfg = LinkConfig {
        jitter_ms: 40.0,
        loss_pct: 5.0,
        loss_burst: 0.0,
        dup_pct: 1.0,
        ..Default::default()
    };
    let mut link = LinkSim::new(cfg, 8);
    let t0 = Instant::now();
    for i in 0..6000u32 {
        let at = t0 + ms(u64::from(i) * 50 / 3);
        link.push(at, (at, i));
    }
    let ids: Vec<u32> = link
        .pop_ready(t0 + ms(200_000))
        .into_iter()
        .map(|(_, id)| id)
        .collect();
    let inversions = ids.windows(2).filter(|w| w[0] > w[1]).count() as f64;
    let pct = 100.0 * inversions / ids.len() as f64;
    assert!((12.0..24.0).contains(&pct), "{pct} % reordered");
}

#[test]
fn same_seed_same_fate_different_seed_different_fate() {
    let cfg = LinkConfig {
        latency_ms: 20.0,
        jitter_ms: 15.0,
        loss_pct: 30.0,
        loss_burst: 0.0,
        dup_pct: 30.0,
        outage: None,
        trace: None,
    };
    let run = |seed| {
        let mut link = LinkSim::new(cfg.clone(), seed);
        let t0 = Instant::now();
        send_many(&mut link, t0, 500);
        let out: Vec<u32> = link
            .pop_ready(t0 + ms(1000))
            .into_iter()
            .map(|(_, id)| id)
            .collect();
        out
    };
    assert_eq!(run(9), run(9));
    assert_ne!(run(9), run(10));
}

#[test]
fn validate_rejects_out_of_range_and_new_clamps_it() {
    let ok = LinkConfig {
        latency_ms: 40.0,
        jitter_ms: 5.0,
        loss_pct: 100.0,
        loss_burst: 0.0,
        dup_pct: 0.0,
        outage: None,
        trace: None,
    };
    assert_eq!(ok.validate(), Ok(()));
    let bad_loss = LinkConfig {
        loss_pct: 101.0,
        ..ok.clone()
    };
    assert!(matches!(
        bad_loss.validate(),
        Err(LinkConfigError::OverHundred { name: "loss", .. })
    ));
    let nan = LinkConfig {
        jitter_ms: f64::NAN,
        ..ok.clone()
    };
    assert!(nan.validate().is_err());
    let neg = LinkConfig {
        latency_ms: -1.0,
        ..ok.clone()
    };
    assert!(neg.validate().is_err());
    let inf = LinkConfig {
        latency_ms: f64::INFINITY,
        ..ok.clone()
    };
    assert!(inf.validate().is_err());

    // Garbage in must not panic (Duration::from_secs_f64 would on NaN).
    let wild = LinkConfig {
        latency_ms: f64::INFINITY,
        jitter_ms: f64::NAN,
        loss_pct: -5.0,
        loss_burst: 0.0,
        dup_pct: 1e9,
        outage: None,
        trace: None,
    };
    let mut link = LinkSim::new(wild, 1);
    let t = Instant::now();
    link.push(t, 1u8);
    assert_eq!(link.stats().duplicated, 1);
    assert!(link.pop_ready(t).is_empty());
}

#[test]
fn a_new_connection_meets_only_what_is_left_of_the_cut() {
    let link = LinkConfig {
        outage: Some("3:4".parse().unwrap()),
        ..LinkConfig::default()
    };
    let first = Instant::now();
    let at = |s: f64| first + Duration::from_secs_f64(s);
    let left = |s: f64| link.for_new_connection(first, at(s)).outage;
    let outage = |after: f64, length: f64| {
        Some(Outage {
            after: Duration::from_secs_f64(after),
            length: Duration::from_secs_f64(length),
        })
    };
    assert_eq!(left(1.0), outage(2.0, 4.0), "before the cut: all of it");
    assert_eq!(left(5.0), outage(0.0, 2.0), "during it: the rest");
    assert_eq!(left(7.0), None, "after it: none");
    assert_eq!(
        LinkConfig::default()
            .for_new_connection(first, at(1.0))
            .outage,
        None
    );
}

#[test]
fn an_outage_loses_everything_inside_it_counted_from_the_first_packet() {
    let outage: Outage = "1:0.5".parse().unwrap();
    assert_eq!(outage.after, Duration::from_secs(1));
    assert_eq!(outage.length, Duration::from_millis(500));
    for bad in ["1", "a:1", "1:-1", "-1:1", "1:inf", ""] {
        assert!(bad.parse::<Outage>().is_err(), "{bad:?}");
    }
    let cfg = LinkConfig {
        outage: Some(outage),
        ..LinkConfig::default()
    };
    assert!(!cfg.is_passthrough());
    let mut link = LinkSim::new(cfg, 1);
    let t0 = Instant::now();
    let ms = |n| t0 + Duration::from_millis(n);
    // One packet every 100 ms for 2 s, starting at t0.
    let mut got = Vec::new();
    for n in 0..20u64 {
        link.push(ms(n * 100), n);
        got.extend(link.pop_ready(ms(n * 100)));
    }
    // Lost: sent at 1000..1499 ms after the first packet.
    let expected: Vec<u64> = (0..20).filter(|n| !(10..15).contains(n)).collect();
    assert_eq!(got, expected);
    assert_eq!(link.stats().lost, 5);
}

#[test]
fn a_trace_drives_delay_and_loss_over_time_and_the_same_seed_gives_the_same_fate() {
    use crate::net::link_trace::{LinkSample, LinkTrace};
    let sample = |t_ms, rtt_ms, jitter_ms, loss_pct| LinkSample {
        t_ms,
        rtt_ms,
        jitter_ms,
        loss_pct,
    };
    let trace = LinkTrace::new(vec![
        sample(0, 40.0, 0.0, 0.0),
        sample(1000, 200.0, 20.0, 30.0),
        sample(2000, 60.0, 0.0, 100.0),
    ])
    .unwrap();
    let cfg = LinkConfig {
        trace: Some(trace),
        ..LinkConfig::default()
    };
    assert!(!cfg.is_passthrough());
    let t0 = Instant::now();
    // One packet every 10 ms for 3 s; each delivery's (id, delay in ms).
    let run = |seed| {
        let mut link = LinkSim::new(cfg.clone(), seed);
        for i in 0..300u32 {
            let at = t0 + ms(u64::from(i) * 10);
            link.push(at, (at, i));
        }
        let mut fates = Vec::new();
        for step in 0..4000u64 {
            let now = t0 + ms(step);
            for (sent, id) in link.pop_ready(now) {
                fates.push((id, (now - sent).as_millis() as u64));
            }
        }
        fates
    };
    let fates = run(7);
    assert_eq!(fates, run(7), "the same trace and seed: the same fate");
    assert_ne!(fates, run(8));
    // 0-1 s: 20 ms one way, nothing lost; 1-2 s: 90 ms + up to 20 ms
    // of jitter, 30 % lost.
    let first: Vec<_> = fates.iter().filter(|(id, _)| *id < 100).collect();
    assert_eq!(first.len(), 100);
    assert!(first.iter().all(|(_, d)| *d == 20), "{first:?}");
    let second: Vec<_> = fates
        .iter()
        .filter(|(id, _)| (100..200).contains(id))
        .collect();
    assert!((55..=85).contains(&second.len()), "{} of 100", second.len());
    assert!(
        second.iter().all(|(_, d)| (90..=110).contains(d)),
        "{second:?}"
    );
    assert!(second.iter().any(|(_, d)| *d > 95), "jitter applied");
    // 2.0-2.1 s: the last sample, a cut; then the trace loops to 0 s.
    assert!(
        fates.iter().all(|(id, _)| !(200..210).contains(id)),
        "the cut loses all"
    );
    let looped: Vec<_> = fates.iter().filter(|(id, _)| *id >= 210).collect();
    assert_eq!(looped.len(), 90, "looped to the first sample");
    assert!(looped.iter().all(|(_, d)| *d == 20), "{looped:?}");
    // A connection made 1.5 s into the match meets the trace there.
    let later = cfg.for_new_connection(t0, t0 + ms(1500));
    let mut link = LinkSim::new(later, 1);
    let t1 = t0 + ms(1500);
    for i in 0..20u32 {
        link.push(t1, i);
    }
    assert!(link.pop_ready(t1 + ms(89)).is_empty());
    let got = link.pop_ready(t1 + ms(110)).len();
    assert!((5..20).contains(&got), "{got}");
}
