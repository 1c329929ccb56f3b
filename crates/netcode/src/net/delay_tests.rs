use super::*;

/// The frame rate the policy was tuned at.
const FPS: u32 = 60;
const NO_LOSS: LossStats = LossStats::NONE;

#[test]
fn the_netplay_table_and_its_boundaries() {
    let cases = [
        (0.0, 1),
        (24.9, 1),
        (25.0, 2),
        (59.9, 2),
        (60.0, 3),
        (99.9, 3),
        (100.0, 4),
        (130.0, 5),
        (155.0, 6),
        (179.9, 6),
        (180.0, 7),
        (400.0, 7),
    ];
    for (rtt, frames) in cases {
        assert_eq!(table_delay(rtt), frames, "rtt {rtt}");
    }
    assert_eq!("table".parse::<DelaySetting>(), Ok(DelaySetting::Table));
    assert_eq!(DelaySetting::Table.to_string(), "table");
    assert!("9".parse::<DelaySetting>().is_err());
}

#[test]
fn policy_table() {
    // (rtt, jitter) -> frames for a calm player; the table
    // docs/architecture/input-delay.md quotes.
    let cases = [
        (0.0, 0.0, 0),
        (20.0, 2.0, 0),
        (40.0, 0.0, 0),
        (80.0, 0.0, 1),
        (100.0, 10.0, 2),
        (120.0, 0.0, 2),
        (160.0, 0.0, 3),
        (200.0, 0.0, 4),
        (200.0, 20.0, 6),
        (2000.0, 0.0, MAX_INPUT_DELAY),
    ];
    for (rtt, jitter, want) in cases {
        assert_eq!(
            input_delay_at(FPS, rtt, jitter, CALM_CHANGES_PER_S, NO_LOSS),
            want,
            "rtt {rtt} jitter {jitter}"
        );
    }
    // A busy player (and anyone before their input was seen): the
    // second row of the table.
    let busy = [
        (0.0, 0.0, 0),
        (40.0, 0.0, 0),
        (80.0, 0.0, 1),
        (100.0, 10.0, 3),
        (120.0, 0.0, 2),
        (160.0, 0.0, 3),
        (200.0, 0.0, 5),
        (200.0, 20.0, 7),
    ];
    for (rtt, jitter, want) in busy {
        assert_eq!(
            input_delay_for(FPS, rtt, jitter),
            want,
            "rtt {rtt} jitter {jitter}"
        );
        assert_eq!(input_delay_at(FPS, rtt, jitter, 6.0, NO_LOSS), want);
    }
}

/// The links of BENCHMARKS.md's human-input grid where the calm policy
/// left p99 rollback at 3 frames (RTT and jitter as the handshake
/// measured them): a busy player gets the frame more, a calm one not;
/// and the neighbouring links, where the calm pick kept p99 at 2, keep
/// it for a busy player too.
#[test]
fn busy_players_get_a_margin_where_late_packets_show() {
    // (rtt, jitter, calm pick, busy pick)
    let cases = [
        (165.4, 0.3, 3, 4), // RTT 160, no jitter
        (144.4, 6.5, 3, 4), // RTT 120, jitter 20
        (191.1, 7.6, 5, 5), // RTT 160, jitter 20
        (125.8, 0.8, 2, 2), // RTT 120, no jitter
        (84.7, 1.5, 1, 1),  // RTT 80, no jitter
        (105.2, 6.8, 2, 2), // RTT 80, jitter 20
        (228.0, 6.6, 6, 6), // RTT 200, jitter 20
    ];
    for (rtt, jitter, calm, busy) in cases {
        assert_eq!(
            input_delay_at(FPS, rtt, jitter, 1.7, NO_LOSS),
            calm,
            "calm, rtt {rtt}"
        );
        assert_eq!(
            input_delay_at(FPS, rtt, jitter, 4.0, NO_LOSS),
            busy,
            "busy, rtt {rtt}"
        );
    }
    // More changes never mean less delay; unmeasured counts as busy.
    for rtt in 0..300 {
        let mut last = 0;
        for tenths in 0..80 {
            let d = input_delay_at(FPS, rtt as f64, 8.0, tenths as f64 / 10.0, NO_LOSS);
            assert!(d >= last, "rtt {rtt} rate {tenths}");
            last = d;
        }
        assert_eq!(
            input_delay_at(FPS, rtt as f64, 8.0, f64::NAN, NO_LOSS),
            last
        );
    }
}

fn lossy(rate: f64, mean_burst: f64) -> LossStats {
    LossStats { rate, mean_burst }
}

#[test]
fn loss_adds_frames_only_where_late_inputs_reach_the_p99() {
    let busy = BUSY_CHANGES_PER_S;
    // The grid's lossy links (5 %, one packet at a time) need nothing:
    // the policy without a loss margin already kept p99 there.
    assert_eq!(loss_margin_frames(NO_LOSS, busy), 0.0);
    assert_eq!(loss_margin_frames(lossy(0.05, 1.0), busy), 0.0);
    // 20 % alone: a fifth of the changes a frame late, a whole frame;
    // none of them two frames late.
    assert_eq!(loss_margin_frames(lossy(0.20, 1.0), busy), 1.0);
    // 20 % in runs of 4 (after a loss, 3 in 4 are lost too): late by
    // 2 with 15 %, by 3 with 11 %, by 4 with 8.4 %, by 5 with 6.3 %.
    let bursty = loss_margin_frames(lossy(0.20, 4.0), busy);
    assert!((2.85..2.95).contains(&bursty), "{bursty}");
    // A calm player's rare changes are rarely the late ones.
    assert_eq!(
        loss_margin_frames(lossy(0.20, 4.0), CALM_CHANGES_PER_S),
        0.0
    );
    // More loss, longer runs: never less margin; nonsense counts as none.
    let mut last = 0.0;
    for percent in 0..=100 {
        let mut by_burst = 0.0;
        for burst in 1..10 {
            let m = loss_margin_frames(lossy(f64::from(percent) / 100.0, burst as f64), busy);
            assert!(m >= by_burst && m <= f64::from(MAX_INPUT_DELAY));
            by_burst = m;
        }
        let m = loss_margin_frames(lossy(f64::from(percent) / 100.0, 1.0), busy);
        assert!(m >= last);
        last = m;
    }
    assert_eq!(loss_margin_frames(lossy(f64::NAN, f64::NAN), busy), 0.0);
    // In the policy: RTT 80 ms, no jitter, a busy player: 1 frame on a
    // clean link, 2 at 20 % loss.
    assert_eq!(input_delay_at(FPS, 80.0, 0.0, busy, NO_LOSS), 1);
    assert_eq!(input_delay_at(FPS, 80.0, 0.0, busy, lossy(0.2, 1.0)), 2);
}

#[test]
fn retuner_follows_loss_that_lasts() {
    // A busy player on 80 ms: 1 frame. The path starts losing 20 % in
    // runs of two: up within seconds; and back down once it stops.
    let mut r = Retuner::new(1, FPS);
    let mut frame = 0;
    let busy = |i: u32| 2 + i % 2;
    let clean = |_| Some(NO_LOSS);
    assert_eq!(
        feed_link(&mut r, &mut frame, 10, |_| 80.0, busy, clean),
        Vec::<u32>::new()
    );
    let losing = |_| Some(lossy(0.2, 2.0));
    assert_eq!(
        feed_link(&mut r, &mut frame, 10, |_| 80.0, busy, losing),
        vec![2]
    );
    assert_eq!(
        feed_link(&mut r, &mut frame, 20, |_| 80.0, busy, clean),
        vec![1]
    );
    // Before the meter has counted enough, nothing is assumed.
    let mut r = Retuner::new(1, FPS);
    let mut frame = 0;
    assert_eq!(
        feed_link(&mut r, &mut frame, 20, |_| 80.0, busy, |_| None),
        Vec::<u32>::new()
    );
}

/// No jitter, or a steady link's fraction of a millisecond, leaves the
/// delay in doubt; 20 ms of jitter read as 6 ms (the grid's 80 and
/// 120 ms links) does.
#[test]
fn jitter_is_in_doubt_where_half_or_twice_it_moves_the_delay() {
    for rtt in [0.0, 40.0, 80.0, 120.0, 160.0, 200.0] {
        assert!(!jitter_in_doubt(FPS, rtt, 0.0), "rtt {rtt}");
    }
    assert!(!jitter_in_doubt(FPS, 100.0, 0.5));
    assert!(jitter_in_doubt(FPS, 100.0, 6.0));
    assert!(jitter_in_doubt(FPS, 140.0, 6.0));
}

#[test]
fn policy_is_monotonic_and_total() {
    let mut last = 0;
    for rtt in 0..1000 {
        let d = input_delay_for(FPS, rtt as f64, 5.0);
        assert!(d >= last && d <= MAX_INPUT_DELAY);
        last = d;
    }
    assert_eq!(input_delay_for(FPS, f64::NAN, 0.0), 0);
    assert_eq!(input_delay_for(FPS, -5.0, -5.0), 0);
}

#[test]
fn setting_parses() {
    assert_eq!("auto".parse(), Ok(DelaySetting::Auto));
    assert_eq!("AUTO".parse(), Ok(DelaySetting::Auto));
    assert_eq!("3".parse(), Ok(DelaySetting::Fixed(3)));
    assert!("9".parse::<DelaySetting>().is_err());
    assert!("-1".parse::<DelaySetting>().is_err());
    assert!("fast".parse::<DelaySetting>().is_err());
}

#[test]
fn stats_are_median_and_median_absolute_deviation() {
    assert_eq!(rtt_stats(&[]), None);
    assert_eq!(rtt_stats(&[10.0, 10.0, 10.0]), Some((10.0, 0.0)));
    // Deviations from 13: 3, 1, 1, 87 -> median deviation 2.
    assert_eq!(rtt_stats(&[10.0, 12.0, 14.0, 100.0]), Some((13.0, 2.0)));
    assert_eq!(rtt_stats(&[5.0, 1.0, 3.0]), Some((3.0, 2.0)));
}

/// Feeds `rtt` every sampling interval for `seconds`, from a calm
/// player; returns changes.
fn feed(r: &mut Retuner, frame: &mut u32, seconds: u32, rtt: impl Fn(u32) -> f64) -> Vec<u32> {
    feed_inputs(r, frame, seconds, rtt, |_| 0)
}

/// The same with `inputs(i)` local input changes in interval `i`.
fn feed_inputs(
    r: &mut Retuner,
    frame: &mut u32,
    seconds: u32,
    rtt: impl Fn(u32) -> f64,
    inputs: impl Fn(u32) -> u32,
) -> Vec<u32> {
    feed_link(r, frame, seconds, rtt, inputs, |_| None)
}

/// The same on a link losing `loss(i)` in interval `i`.
fn feed_link(
    r: &mut Retuner,
    frame: &mut u32,
    seconds: u32,
    rtt: impl Fn(u32) -> f64,
    inputs: impl Fn(u32) -> u32,
    loss: impl Fn(u32) -> Option<LossStats>,
) -> Vec<u32> {
    let mut changes = Vec::new();
    for i in 0..seconds * 2 {
        *frame += Retuner::SAMPLE_EVERY;
        if let Some(d) = r.sample(*frame, rtt(i), inputs(i), loss(i)) {
            changes.push(d);
        }
    }
    changes
}

/// 120 ms with 20 ms of jitter either way.
fn jittery(i: u32) -> f64 {
    if i.is_multiple_of(2) { 100.0 } else { 140.0 }
}

#[test]
fn retuner_adds_delay_when_the_player_gets_busy() {
    let mut r = Retuner::new(input_delay_at(FPS, 120.0, 20.0, 0.0, NO_LOSS), FPS);
    assert_eq!(r.current(), 3);
    let mut frame = 0;
    // Calm: one change a second (one every other interval).
    assert_eq!(
        feed_inputs(&mut r, &mut frame, 20, jittery, |i| i % 2),
        Vec::<u32>::new()
    );
    assert_eq!(r.changes_per_s(), Some(1.0));
    // Five changes a second: the same link now needs a frame more.
    let busy = feed_inputs(&mut r, &mut frame, 20, jittery, |i| 2 + i % 2);
    assert_eq!(busy, vec![4]);
    assert_eq!(r.changes_per_s(), Some(5.0));
}

#[test]
fn retuner_gives_a_calm_player_back_the_busy_margin() {
    // The handshake assumes a busy player; once the input is seen to
    // be calm, the margin goes where it is clearly not needed.
    let start = input_delay_for(FPS, 100.0, 20.0);
    assert_eq!(start, 4);
    let mut r = Retuner::new(start, FPS);
    let mut frame = 0;
    let changes = feed_inputs(&mut r, &mut frame, 20, |i| jittery(i) - 20.0, |_| 0);
    assert_eq!(changes, vec![3]);
    // Without any measured input yet, nothing moves: the busy
    // assumption stands for the first samples.
    let mut fresh = Retuner::new(start, FPS);
    let mut frame = 0;
    assert_eq!(
        feed_inputs(&mut fresh, &mut frame, 2, |i| jittery(i) - 20.0, |_| 0),
        Vec::<u32>::new()
    );
}

#[test]
fn retuner_follows_a_lasting_change() {
    let mut r = Retuner::new(input_delay_for(FPS, 40.0, 0.0), FPS);
    let mut frame = 0;
    assert_eq!(feed(&mut r, &mut frame, 10, |_| 40.0), Vec::<u32>::new());
    // The path gets slower for good: one step to the new policy value.
    assert_eq!(feed(&mut r, &mut frame, 20, |_| 200.0), vec![4]);
    // And faster again.
    assert_eq!(feed(&mut r, &mut frame, 20, |_| 40.0), vec![0]);
}

#[test]
fn retuner_steps_up_quickly_and_down_only_after_a_whole_window() {
    // A 4 s stretch of a faster path does not take the delay down...
    let mut r = Retuner::new(input_delay_at(FPS, 200.0, 0.0, 0.0, NO_LOSS), FPS);
    let mut frame = 0;
    let dip = |i: u32| if (20..28).contains(&i) { 80.0 } else { 200.0 };
    assert_eq!(feed(&mut r, &mut frame, 20, dip), Vec::<u32>::new());
    assert_eq!(r.current(), 4);
    // ...while a 4 s stretch of a slower one takes it up.
    let mut r = Retuner::new(input_delay_at(FPS, 80.0, 0.0, 0.0, NO_LOSS), FPS);
    let mut frame = 0;
    let rise = |i: u32| if (20..28).contains(&i) { 200.0 } else { 80.0 };
    assert_eq!(feed(&mut r, &mut frame, 20, rise).first(), Some(&4));
}

#[test]
fn retuner_steps_up_a_little_only_after_a_whole_window() {
    // 120 ms with 20 ms of jitter: a calm player's 3 frames (ideal
    // 2.8). Four seconds of a window reading 16 ms more (ideal 3.3,
    // just past the 0.25 hysteresis) is noise, not a slower path...
    let mut r = Retuner::new(3, FPS);
    let mut frame = 0;
    let bump = |from: u32, to: u32| {
        move |i: u32| jittery(i) + if (from..to).contains(&i) { 16.0 } else { 0.0 }
    };
    assert_eq!(
        feed(&mut r, &mut frame, 30, bump(20, 32)),
        Vec::<u32>::new()
    );
    // ...while a slower path that stays is followed.
    let mut r = Retuner::new(3, FPS);
    let mut frame = 0;
    assert_eq!(feed(&mut r, &mut frame, 30, bump(20, 60)), vec![4]);
}

#[test]
fn retuner_ignores_a_short_spike() {
    let mut r = Retuner::new(input_delay_for(FPS, 60.0, 0.0), FPS);
    let mut frame = 0;
    let changes = feed(
        &mut r,
        &mut frame,
        30,
        |i| if i == 20 { 400.0 } else { 60.0 },
    );
    assert_eq!(changes, Vec::<u32>::new());
}

#[test]
fn retuner_does_not_oscillate_on_a_boundary() {
    // A link whose ideal delay wobbles across the 1-frame boundary.
    let boundary_rtt = 2.0 * (ROLLBACK_BUDGET + 1.0) * (1000.0 / f64::from(FPS));
    let mut r = Retuner::new(1, FPS);
    let mut frame = 0;
    let changes = feed(&mut r, &mut frame, 60, |i| {
        boundary_rtt + if i % 2 == 0 { 3.0 } else { -3.0 }
    });
    assert!(changes.len() <= 1, "oscillated: {changes:?}");
}
