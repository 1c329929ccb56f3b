//! An in-process bad-link simulator: delay, jitter, loss and duplication.
//!
//! `tc netem` is not available on our machines, so tests, demos and benchmarks
//! degrade the link inside the process instead. The simulator never sleeps
//! and never reads the clock: the caller passes `now` in, which makes tests
//! exact and lets the socket flush due packets whenever GGRS polls it.
//!
//! Model (per packet):
//! - lost with probability `loss_pct`: independently, or in runs of mean
//!   length `loss_burst` (a two-state chain: after a loss the next packet
//!   is lost with probability `1 - 1/loss_burst`, after a delivery with
//!   the probability that keeps the overall rate at `loss_pct`), as Wi-Fi
//!   and congested paths lose;
//! - otherwise delivered after `latency + U[0, jitter]`, so never earlier than
//!   `latency`; packets sent close together can overtake each other when the
//!   jitter exceeds their spacing, which is the reordering a real path shows;
//! - duplicated with probability `dup_pct`: the copy draws its own delay;
//! - during an `outage` (a cut of the path for a while, counted from the
//!   first packet), every packet is lost;
//! - following a `trace` ([`super::link_trace`]), the delay, jitter and loss
//!   change with time, counted from the first packet: each packet meets the
//!   sample in force when it is sent.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use web_time::{Duration, Instant};

use super::link_trace::LinkTrace;

/// How bad the simulated link is. One direction of a path.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkConfig {
    /// Fixed one-way delay in milliseconds.
    pub latency_ms: f64,
    /// Extra delay, uniform in `[0, jitter_ms]`, per packet.
    pub jitter_ms: f64,
    /// Probability (percent, 0..=100) that a packet is lost.
    pub loss_pct: f64,
    /// Mean length of a run of lost packets; 1 (or 0, the default) for
    /// independent losses.
    pub loss_burst: f64,
    /// Probability (percent, 0..=100) that a delivered packet arrives twice.
    pub dup_pct: f64,
    /// A cut of the path: nothing gets through for a while.
    pub outage: Option<Outage>,
    /// Conditions that change with time (`--link-trace`): each packet's
    /// delay, jitter and loss are the trace's sample in force when it is
    /// sent, in place of the fixed ones above.
    pub trace: Option<LinkTrace>,
}

/// The path is cut `after` the first packet, for `length`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outage {
    /// How long after the first packet the path is cut.
    pub after: Duration,
    /// How long it stays cut.
    pub length: Duration,
}

impl LinkConfig {
    /// This link for a new connection made at `now`, when the first one's
    /// packets started at `first`: a simulated cut is one of the machine's
    /// network, so it cuts whatever connection is made during it, and no
    /// other.
    pub(crate) fn for_new_connection(&self, first: Instant, now: Instant) -> LinkConfig {
        let mut link = self.clone();
        link.trace =
            (self.trace.as_ref()).map(|t| t.starting_later(now.saturating_duration_since(first)));
        link.outage = self.outage.and_then(|o| {
            let ends = first + o.after + o.length;
            let starts = first + o.after;
            (ends > now).then(|| Outage {
                after: starts.saturating_duration_since(now),
                length: ends - now.max(starts),
            })
        });
        link
    }
}

impl std::str::FromStr for Outage {
    type Err = String;

    /// `AT:LEN` in seconds, e.g. `8:3` (fractions allowed: `2.5:0.5`).
    fn from_str(s: &str) -> Result<Self, String> {
        let secs = |t: &str| {
            t.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && (0.0..=86_400.0).contains(v))
                .map(Duration::from_secs_f64)
        };
        let (at, len) = s
            .split_once(':')
            .ok_or_else(|| format!("expected AT:LEN in seconds, e.g. 8:3, got '{s}'"))?;
        match (secs(at), secs(len)) {
            (Some(after), Some(length)) => Ok(Outage { after, length }),
            _ => Err(format!(
                "expected AT:LEN, two numbers of seconds from 0 to 86400, got '{s}'"
            )),
        }
    }
}

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LinkConfigError {
    #[error("{name} must be a finite number >= 0, got {value}")]
    Negative { name: &'static str, value: f64 },
    #[error("{name} is a percentage and must be at most 100, got {value}")]
    OverHundred { name: &'static str, value: f64 },
}

impl LinkConfig {
    /// Checks the ranges (CLI input ends up here; exit 2 on error).
    pub fn validate(&self) -> Result<(), LinkConfigError> {
        let fields = [
            ("latency", self.latency_ms, false),
            ("jitter", self.jitter_ms, false),
            ("loss", self.loss_pct, true),
            ("loss burst", self.loss_burst, false),
            ("duplication", self.dup_pct, true),
        ];
        for (name, value, pct) in fields {
            // `is_finite` is false for NaN and the infinities.
            if !value.is_finite() || value < 0.0 {
                return Err(LinkConfigError::Negative { name, value });
            }
            if pct && value > 100.0 {
                return Err(LinkConfigError::OverHundred { name, value });
            }
        }
        Ok(())
    }

    /// True when the link changes nothing (packets pass through at once).
    pub(crate) fn is_passthrough(&self) -> bool {
        self.latency_ms <= 0.0
            && self.jitter_ms <= 0.0
            && self.loss_pct <= 0.0
            && self.dup_pct <= 0.0
            && self.outage.is_none()
            && self.trace.is_none()
    }
}

/// What the simulator did so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Packets given to `push`.
    pub pushed: u64,
    /// Packets the link lost.
    pub lost: u64,
    /// Extra copies the link made.
    pub duplicated: u64,
    /// Packets (copies included) handed out by `pop_ready`.
    pub delivered: u64,
}

/// xorshift64*: tiny, fast, good enough to roll dice for a test link, and
/// seeded so a degraded run can be repeated.
#[derive(Clone, Debug)]
struct XorShift64Star(u64);

impl XorShift64Star {
    fn new(seed: u64) -> Self {
        // Zero is the one state xorshift never leaves; mix the seed so small
        // seeds (0, 1, 2) do not start on nearby streams either.
        let mixed = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
        XorShift64Star(if mixed == 0 { 1 } else { mixed })
    }

    fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `[0, 1)` from the top 53 bits.
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `pct` percent.
    fn chance(&mut self, pct: f64) -> bool {
        pct > 0.0 && self.unit() * 100.0 < pct
    }
}

/// A queued packet. Ordered by due time, then by the order it was queued, so
/// packets due at the same instant come out in sending order.
struct InFlight<P> {
    due: Instant,
    seq: u64,
    packet: P,
}

impl<P> PartialEq for InFlight<P> {
    fn eq(&self, other: &Self) -> bool {
        (self.due, self.seq) == (other.due, other.seq)
    }
}
impl<P> Eq for InFlight<P> {}
impl<P> PartialOrd for InFlight<P> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<P> Ord for InFlight<P> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.due, self.seq).cmp(&(other.due, other.seq))
    }
}

/// One direction of a simulated link carrying packets of type `P`.
pub(crate) struct LinkSim<P> {
    config: LinkConfig,
    rng: XorShift64Star,
    queue: BinaryHeap<Reverse<InFlight<P>>>,
    next_seq: u64,
    stats: LinkStats,
    /// When the first packet was pushed (the outage counts from there).
    first_push: Option<Instant>,
    /// Whether the last packet was lost (for runs of losses).
    losing: bool,
}

impl<P: Clone> LinkSim<P> {
    /// A link with the given behaviour and dice seed. An invalid config
    /// (negative, NaN, over 100 %) is clamped into range rather than
    /// trusted; call [`LinkConfig::validate`] first to report it instead.
    pub fn new(config: LinkConfig, seed: u64) -> Self {
        let clamp = |v: f64, max: f64| if v.is_nan() { 0.0 } else { v.clamp(0.0, max) };
        let config = LinkConfig {
            // An hour of delay is "never" for a game; it also keeps the
            // Duration arithmetic far from overflow.
            latency_ms: clamp(config.latency_ms, 3_600_000.0),
            jitter_ms: clamp(config.jitter_ms, 3_600_000.0),
            loss_pct: clamp(config.loss_pct, 100.0),
            loss_burst: clamp(config.loss_burst, 1_000_000.0),
            dup_pct: clamp(config.dup_pct, 100.0),
            outage: config.outage,
            trace: config.trace,
        };
        LinkSim {
            config,
            rng: XorShift64Star::new(seed),
            queue: BinaryHeap::new(),
            next_seq: 0,
            stats: LinkStats::default(),
            first_push: None,
            losing: false,
        }
    }

    #[cfg(test)]
    pub(crate) fn config(&self) -> &LinkConfig {
        &self.config
    }

    pub fn stats(&self) -> LinkStats {
        self.stats
    }

    /// Packets in flight (lost ones are never queued).
    #[cfg(test)]
    pub(crate) fn in_flight(&self) -> usize {
        self.queue.len()
    }

    /// When the next queued packet becomes due, if any.
    #[cfg(test)]
    pub(crate) fn next_due(&self) -> Option<Instant> {
        self.queue.peek().map(|Reverse(p)| p.due)
    }

    /// Sends `packet` into the link at time `now`.
    pub fn push(&mut self, now: Instant, packet: P) {
        self.stats.pushed += 1;
        let first = *self.first_push.get_or_insert(now);
        let cut = self.config.outage.is_some_and(|o| {
            let since = now.saturating_duration_since(first);
            since >= o.after && since < o.after + o.length
        });
        if let Some(trace) = &self.config.trace {
            let (latency, jitter, loss) = trace.one_way_at(now.saturating_duration_since(first));
            self.config.latency_ms = latency;
            self.config.jitter_ms = jitter;
            self.config.loss_pct = loss;
        }
        if cut || self.roll_loss() {
            self.stats.lost += 1;
            return;
        }
        if self.rng.chance(self.config.dup_pct) {
            self.stats.duplicated += 1;
            let due = now + self.delay();
            self.enqueue(due, packet.clone());
        }
        let due = now + self.delay();
        self.enqueue(due, packet);
    }

    /// Every packet due at or before `now`, in arrival order.
    pub(crate) fn pop_ready(&mut self, now: Instant) -> Vec<P> {
        let mut ready = Vec::new();
        while self.queue.peek().is_some_and(|Reverse(p)| p.due <= now) {
            if let Some(Reverse(p)) = self.queue.pop() {
                ready.push(p.packet);
            }
        }
        self.stats.delivered += ready.len() as u64;
        ready
    }

    /// Whether the next packet is lost: independently at `loss_pct`, or
    /// in runs of mean length `loss_burst` at the same overall rate.
    fn roll_loss(&mut self) -> bool {
        let (rate, burst) = (self.config.loss_pct / 100.0, self.config.loss_burst);
        let pct = if burst <= 1.0 || rate >= 1.0 {
            self.config.loss_pct
        } else if self.losing {
            100.0 * (1.0 - 1.0 / burst)
        } else {
            // Stationary share of the losing state: enter / (enter + 1/burst).
            100.0 * rate / (burst * (1.0 - rate))
        };
        self.losing = self.rng.chance(pct);
        self.losing
    }

    fn delay(&mut self) -> Duration {
        let jitter = if self.config.jitter_ms > 0.0 {
            self.rng.unit() * self.config.jitter_ms
        } else {
            0.0
        };
        Duration::from_secs_f64((self.config.latency_ms + jitter) / 1000.0)
    }

    fn enqueue(&mut self, due: Instant, packet: P) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.queue.push(Reverse(InFlight { due, seq, packet }));
    }
}

#[cfg(test)]
mod tests {
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
}
