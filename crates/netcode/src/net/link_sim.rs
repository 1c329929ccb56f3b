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

/// Why a [`LinkConfig`] does not check ([`LinkConfig::validate`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LinkConfigError {
    /// A setting below zero, or not a number.
    #[error("{name} must be a finite number >= 0, got {value}")]
    Negative {
        /// The setting's name.
        name: &'static str,
        /// Its value.
        value: f64,
    },
    /// A percentage over 100.
    #[error("{name} is a percentage and must be at most 100, got {value}")]
    OverHundred {
        /// The setting's name.
        name: &'static str,
        /// Its value.
        value: f64,
    },
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
#[path = "link_sim_tests.rs"]
mod tests;
