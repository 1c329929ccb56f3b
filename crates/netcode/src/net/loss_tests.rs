use super::*;

/// Feeds frames `0..n` except those `lost(f)` drops, in order.
fn feed(meter: &mut LossMeter, frames: std::ops::Range<i32>, lost: impl Fn(i32) -> bool) {
    for f in frames.filter(|&f| !lost(f)) {
        meter.heard(f);
    }
}

fn stats(meter: &LossMeter) -> LossStats {
    meter.stats().expect("enough frames settled")
}

#[test]
fn a_clean_stream_has_no_loss_and_needs_two_seconds_to_say_so() {
    let mut m = LossMeter::default();
    feed(&mut m, 0..(MIN_SETTLED as i32), |_| false);
    // The newest frames are still awaited: not enough settled yet.
    assert_eq!(m.stats(), None);
    feed(&mut m, (MIN_SETTLED as i32)..1000, |_| false);
    assert_eq!(stats(&m), LossStats::NONE);
}

#[test]
fn single_losses_and_bursts_are_told_apart() {
    // One in 20 lost alone: 5 %, bursts of 1.
    let mut m = LossMeter::default();
    feed(&mut m, 0..1200, |f| f % 20 == 7);
    assert_eq!(stats(&m).rate, 0.05);
    assert_eq!(stats(&m).mean_burst, 1.0);
    // Three in a row out of every 60: 5 % again, in bursts of 3.
    let mut m = LossMeter::default();
    feed(&mut m, 0..1200, |f| f % 60 < 3);
    assert_eq!(stats(&m).rate, 0.05);
    assert_eq!(stats(&m).mean_burst, 3.0);
}

#[test]
fn reordering_and_duplicates_are_not_loss_but_very_late_is() {
    let mut m = LossMeter::default();
    // Pairs swapped (jitter above the frame spacing), every message
    // twice (a duplicating path, GGRS's resends).
    for pair in (0..1000).step_by(2) {
        for f in [pair + 1, pair, pair + 1] {
            m.heard(f);
        }
    }
    assert_eq!(stats(&m), LossStats::NONE);
    // A message REORDER_HORIZON frames behind a later one came too late
    // to matter: lost, once.
    let mut m = LossMeter::default();
    feed(&mut m, 0..320, |f| f == 300);
    m.heard(300);
    feed(&mut m, 320..800, |_| false);
    assert_eq!(stats(&m).rate, 1.0 / 600.0);
}

#[test]
fn the_window_forgets_old_loss_and_a_new_sequence_starts_again() {
    let mut m = LossMeter::default();
    // The highest frame and the 15 before it are still awaited: up to
    // 615 settles 0..600.
    feed(&mut m, 0..616, |f| f % 10 == 3);
    assert_eq!(stats(&m).rate, 0.1);
    // Ten clean seconds later the loss is gone from the window.
    feed(&mut m, 616..1316, |_| false);
    assert_eq!(stats(&m), LossStats::NONE);
    // A rejoin's session counts from frame 0 again: a new sequence,
    // not 1,300 frames of loss or a sender stuck in the past.
    feed(&mut m, 0..100, |f| f % 4 == 1);
    assert_eq!(m.stats(), None);
    feed(&mut m, 100..416, |f| f % 4 == 1);
    assert_eq!(stats(&m).rate, 0.25);
    // The match's total keeps all three stretches: 60 + 2 (frames 603
    // and 613 settled in the clean stretch) + 100 lost of 600 + 700 +
    // 400 settled.
    assert_eq!(m.total().map(|t| t.rate), Some(162.0 / 1700.0));
}

#[test]
fn a_burst_cut_by_the_window_edge_still_counts_once() {
    // A burst of 6 then clean frames until the burst straddles the
    // window's start: the part still inside is one burst.
    let mut m = LossMeter::default();
    feed(&mut m, 0..30, |_| false);
    feed(&mut m, 30..700, |f| (100..106).contains(&f));
    let s = stats(&m);
    assert_eq!(s.rate, 6.0 / 600.0);
    assert_eq!(s.mean_burst, 6.0);
    // Move the window to frames 103..=702: 3 lost frames, one burst.
    feed(&mut m, 700..719, |_| false);
    assert_eq!(stats(&m).rate, 3.0 / 600.0);
    assert_eq!(stats(&m).mean_burst, 3.0);
}

/// Two GGRS sessions over the game's socket, one direction through a
/// simulated link losing 10 % of its packets: the receiving socket's
/// meter reads that loss off GGRS's own input messages (the frame
/// numbers `socket::wire` decodes), and the clean direction none.
#[test]
fn a_real_ggrs_stream_through_a_lossy_link_is_measured() {
    use crate::net::link_sim::LinkConfig;
    use crate::net::socket::{GgrsSocket, memory_pair};
    use ggrs::{GgrsRequest, PlayerType, SessionBuilder, SessionState};

    struct Config;
    impl ggrs::Config for Config {
        type Input = u8;
        type InputPredictor = ggrs::PredictRepeatLast;
        type State = u32;
        type Address = u8;
    }
    let (a, b) = memory_pair();
    let lossy = LinkConfig {
        loss_pct: 10.0,
        ..LinkConfig::default()
    };
    let a = GgrsSocket::with_link(a, lossy, 7);
    let b = GgrsSocket::new(b);
    let (a_stats, b_stats) = (a.stats_handle(), b.stats_handle());
    let session = |me: usize, socket| {
        SessionBuilder::<Config>::new()
            .add_player(PlayerType::Local, me)
            .and_then(|s| s.add_player(PlayerType::Remote(1 - me as u8), 1 - me))
            .and_then(|s| s.start_p2p_session(socket))
            .expect("a session")
    };
    let mut sessions = [session(0, a), session(1, b)];
    let mut frames = [0u32; 2];
    let start = web_time::Instant::now();
    while frames.iter().any(|&f| f < 1500) {
        assert!(start.elapsed().as_secs() < 60, "stuck at {frames:?}");
        for (i, s) in sessions.iter_mut().enumerate() {
            s.poll_remote_clients();
            if s.current_state() != SessionState::Running || frames[i] >= 1500 {
                continue;
            }
            s.add_local_input(i, (frames[i] / 7 % 3) as u8).unwrap();
            let Ok(requests) = s.advance_frame() else {
                continue;
            };
            for request in requests {
                if let GgrsRequest::SaveGameState { cell, frame } = request {
                    cell.save(frame, Some(0), None);
                }
            }
            frames[i] += 1;
        }
    }
    // b hears a through the lossy link; a hears b cleanly.
    let heard_by_b = b_stats.loss().expect("b counted 10 s of frames");
    assert!(
        (0.06..0.14).contains(&heard_by_b.rate),
        "b measured {heard_by_b:?} of 10 %"
    );
    assert_eq!(a_stats.loss(), Some(LossStats::NONE));
}

proptest::proptest! {
    /// Against a plain count: whatever is lost and however the rest
    /// is reordered within the horizon, the meter counts exactly the
    /// settled frames that never arrived, and their runs.
    #[test]
    fn counts_what_a_plain_tally_counts(
        lost in proptest::collection::vec(proptest::bool::weighted(0.15), 200..700),
        shuffle in proptest::collection::vec(0usize..8, 700),
    ) {
        let n = lost.len();
        // Arrival order: each frame delayed by a few slots, so frames
        // overtake one another by less than the horizon.
        let mut arrivals: Vec<(usize, i32)> = (0..n)
            .filter(|&f| f == 0 || !lost[f])
            .map(|f| (f + shuffle[f], f as i32))
            .collect();
        arrivals.sort();
        let mut m = LossMeter::default();
        for &(_, f) in &arrivals {
            m.heard(f);
        }
        // Frames settled: up to REORDER_HORIZON behind the highest heard.
        let highest = arrivals.iter().map(|a| a.1).max().unwrap() as usize;
        let settled = (highest + 1).saturating_sub(REORDER_HORIZON as usize);
        let first = arrivals[0].1 as usize;
        let outcomes: Vec<bool> = (first..settled).map(|f| lost[f] && f != 0).collect();
        let window = &outcomes[outcomes.len().saturating_sub(WINDOW)..];
        let want_lost = window.iter().filter(|&&l| l).count();
        let want_bursts = window
            .iter()
            .enumerate()
            .filter(|&(i, &l)| l && (i == 0 || !window[i - 1]))
            .count();
        proptest::prop_assert_eq!(m.lost, want_lost);
        proptest::prop_assert_eq!(m.bursts, want_bursts);
        proptest::prop_assert_eq!(m.settled.len(), window.len());
    }
}
