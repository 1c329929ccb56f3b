//! Link traces: the conditions one peer saw over a match, sample by
//! sample, written by `--record-link` and replayed through the link
//! simulator by `--link-trace` ([`super::link_sim`]).
//!
//! One sample per 100 ms, not one line per packet: the simulator is driven
//! by rates (one-way delay, jitter, loss), and a peer cannot observe a
//! packet's one-way delay anyway (the clocks are not shared) nor which of
//! its own packets the other side lost. What it can observe is the round
//! trip (GGRS's ping), the spread of the other side's input messages'
//! arrival times, and which of them never came. 100 ms is six frames at
//! 60 fps: fine enough for a Wi-Fi burst or a cut of a few hundred
//! milliseconds, and a minute is 600 lines (about 12 KB), small enough to
//! attach to a bug report and read by eye.
//!
//! The text format (version 1):
//!
//! ```text
//! twinstar link trace v1
//! # recorded_by: host
//! # any_key: any value
//! t_ms,rtt_ms,jitter_ms,loss_pct
//! 0,40.0,3.1,0.0
//! 100,41.0,2.7,16.7
//! ```
//!
//! - `t_ms`: the sample's start, milliseconds after recording started,
//!   strictly increasing;
//! - `rtt_ms`: the last round trip measured (GGRS's ping, every ~200 ms);
//! - `jitter_ms`: the spread of the peer's input messages' arrival times in
//!   the sample, as the width of the simulator's uniform extra delay
//!   (`3.41 x` the median difference between consecutive messages' transit
//!   times, which is what a uniform `[0, J]` delay gives);
//! - `loss_pct`: the share of the peer's input messages that never came
//!   (as [`super::loss`] counts them, settled ~16 frames late), or 100 in a
//!   silence of 300 ms or more (a cut: nothing at all arrived).
//!
//! Replayed, each side's outgoing link at time `t` follows the sample in
//! force: one-way delay `(rtt - jitter) / 2` plus a uniform `[0, jitter]`
//! (so the mean round trip is the recorded one), loss `loss_pct`. The
//! trace loops when the match outlasts it. The dice are the simulator's
//! seeded ones: the same trace and seed give the same fate per packet.

use std::fmt::Write as _;
use std::sync::Arc;
use web_time::{Duration, Instant};

/// The first line of a version-1 trace.
const MAGIC: &str = "twinstar link trace v";
/// The version this build writes and reads.
pub const LINK_TRACE_VERSION: u32 = 1;
/// The columns' line.
const COLUMNS: &str = "t_ms,rtt_ms,jitter_ms,loss_pct";
/// Milliseconds per sample when recording.
pub const SAMPLE_MS: u64 = 100;
/// Samples a trace may hold: ten hours of 100 ms samples.
const MAX_SAMPLES: usize = 360_000;
/// Meta lines a trace may hold.
const MAX_META: usize = 256;
/// Largest round trip or jitter accepted, in milliseconds.
const MAX_MS: f64 = 60_000.0;
/// Samples of silence that make a cut (300 ms: GGRS sends something at
/// least every 200 ms while the path is up).
const SILENT_SAMPLES_FOR_CUT: usize = 3;
/// A uniform `[0, J]` delay: the median |difference| of two draws is
/// `J (1 - 1/sqrt 2)`.
const MEDIAN_DIFF_TO_WIDTH: f64 = 1.0 / (1.0 - std::f64::consts::FRAC_1_SQRT_2);

/// One sample of a link: what was in force from `t_ms` to the next one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkSample {
    /// Milliseconds after the trace's start.
    pub t_ms: u64,
    /// Round trip, milliseconds.
    pub rtt_ms: f64,
    /// Width of the uniform extra one-way delay, milliseconds.
    pub jitter_ms: f64,
    /// Packets lost, percent.
    pub loss_pct: f64,
}

/// Why a trace did not parse: the line (1-based) and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {what}")]
pub struct LinkTraceError {
    /// The line, counting from 1.
    pub line: usize,
    /// What was wrong with it.
    pub what: String,
}

/// The conditions one peer saw, sample by sample (see the module's page
/// for the format). Cheap to clone: the samples are shared.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkTrace {
    meta: Vec<(String, String)>,
    samples: Arc<[LinkSample]>,
    /// Where a link made later in the match starts in the trace.
    offset: Duration,
    /// For a reliable channel: the delay only, no loss.
    delay_only: bool,
}

impl LinkTrace {
    /// A trace of `samples` (checked as a parsed one is).
    pub fn new(samples: Vec<LinkSample>) -> Result<LinkTrace, LinkTraceError> {
        for (i, s) in samples.iter().enumerate() {
            check_sample(s).map_err(|what| LinkTraceError { line: i + 1, what })?;
            if i > 0 && s.t_ms <= samples[i - 1].t_ms {
                return Err(LinkTraceError {
                    line: i + 1,
                    what: "t_ms must increase from one sample to the next".into(),
                });
            }
        }
        if samples.is_empty() {
            return Err(LinkTraceError {
                line: 0,
                what: "a trace needs at least one sample".into(),
            });
        }
        Ok(LinkTrace {
            meta: Vec::new(),
            samples: samples.into(),
            offset: Duration::ZERO,
            delay_only: false,
        })
    }

    /// Reads a trace's text.
    pub fn parse(text: &str) -> Result<LinkTrace, LinkTraceError> {
        let err = |line: usize, what: String| LinkTraceError { line, what };
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim_end()));
        let first = lines.next().map_or("", |(_, l)| l);
        let version = first
            .strip_prefix(MAGIC)
            .and_then(|v| v.parse::<u32>().ok())
            .ok_or_else(|| {
                err(
                    1,
                    format!(
                        "not a link trace: the first line must be '{MAGIC}{LINK_TRACE_VERSION}'"
                    ),
                )
            })?;
        if version != LINK_TRACE_VERSION {
            return Err(err(
                1,
                format!("a version {version} trace; this build reads version {LINK_TRACE_VERSION}"),
            ));
        }
        let mut meta = Vec::new();
        let mut columns = false;
        let mut samples: Vec<LinkSample> = Vec::new();
        for (n, line) in lines {
            if line.trim().is_empty() {
                continue;
            }
            if let Some(rest) = line.strip_prefix('#') {
                if columns {
                    continue; // a comment among the samples
                }
                let (key, value) = rest
                    .split_once(':')
                    .ok_or_else(|| err(n, "expected '# key: value'".into()))?;
                let key = key.trim();
                if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    return Err(err(
                        n,
                        format!("a key of letters, digits and _, got '{key}'"),
                    ));
                }
                if meta.len() == MAX_META {
                    return Err(err(n, format!("more than {MAX_META} '# key: value' lines")));
                }
                meta.push((key.to_string(), value.trim().to_string()));
                continue;
            }
            if !columns {
                if line.trim() != COLUMNS {
                    return Err(err(n, format!("expected the columns' line '{COLUMNS}'")));
                }
                columns = true;
                continue;
            }
            if samples.len() == MAX_SAMPLES {
                return Err(err(n, format!("more than {MAX_SAMPLES} samples")));
            }
            let sample = parse_sample(line).map_err(|what| err(n, what))?;
            if samples.last().is_some_and(|last| sample.t_ms <= last.t_ms) {
                return Err(err(
                    n,
                    "t_ms must increase from one sample to the next".into(),
                ));
            }
            samples.push(sample);
        }
        if samples.is_empty() {
            let line = text.lines().count().max(1);
            return Err(err(line, "the trace has no samples".into()));
        }
        let mut trace = LinkTrace::new(samples)?;
        trace.meta = meta;
        Ok(trace)
    }

    /// The trace as text (what [`LinkTrace::parse`] reads back).
    pub fn to_text(&self) -> String {
        let mut out = format!("{MAGIC}{LINK_TRACE_VERSION}\n");
        for (key, value) in &self.meta {
            let _ = writeln!(out, "# {key}: {}", value.replace(['\n', '\r'], " "));
        }
        out.push_str(COLUMNS);
        out.push('\n');
        for s in self.samples.iter() {
            let _ = writeln!(
                out,
                "{},{:.1},{:.1},{:.1}",
                s.t_ms, s.rtt_ms, s.jitter_ms, s.loss_pct
            );
        }
        out
    }

    /// The samples, in time order.
    pub fn samples(&self) -> &[LinkSample] {
        &self.samples
    }

    /// A `# key: value` line's value.
    pub fn meta(&self, key: &str) -> Option<&str> {
        self.meta
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Sets a `# key: value` line (`key`: letters, digits and `_`; other
    /// characters become `_`).
    pub fn set_meta(&mut self, key: &str, value: impl Into<String>) {
        let key: String = key
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let value = value.into();
        match self.meta.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => *v = value,
            None => self.meta.push((key, value)),
        }
    }

    /// How long the trace lasts before it loops: to the end of its last
    /// sample (one sample period after its start).
    pub fn length(&self) -> Duration {
        let last = self.samples.last().map_or(0, |s| s.t_ms);
        Duration::from_millis(last + SAMPLE_MS)
    }

    /// The sample in force `elapsed` after a link following this trace
    /// started (looping past the end).
    pub(crate) fn at(&self, elapsed: Duration) -> LinkSample {
        let period = self.length().as_millis().max(1);
        let t = ((elapsed + self.offset).as_millis() % period) as u64;
        let i = self.samples.partition_point(|s| s.t_ms <= t);
        let mut s = self.samples[i.saturating_sub(1)];
        if self.delay_only {
            s.loss_pct = 0.0;
        }
        s
    }

    /// One-way delay, jitter and loss for a link following the sample in
    /// force `elapsed` after it started.
    pub(crate) fn one_way_at(&self, elapsed: Duration) -> (f64, f64, f64) {
        let s = self.at(elapsed);
        let latency = ((s.rtt_ms - s.jitter_ms) / 2.0).max(0.0);
        (latency, s.jitter_ms, s.loss_pct)
    }

    /// The same trace for a link made `since` after the first one.
    pub(crate) fn starting_later(&self, since: Duration) -> LinkTrace {
        LinkTrace {
            offset: self.offset + since,
            ..self.clone()
        }
    }

    /// The same trace without its losses (a reliable channel's delay).
    pub(crate) fn delay_only(&self) -> LinkTrace {
        LinkTrace {
            delay_only: true,
            ..self.clone()
        }
    }
}

fn check_sample(s: &LinkSample) -> Result<(), String> {
    let fields = [
        ("rtt_ms", s.rtt_ms, MAX_MS),
        ("jitter_ms", s.jitter_ms, MAX_MS),
        ("loss_pct", s.loss_pct, 100.0),
    ];
    for (name, value, max) in fields {
        if !value.is_finite() || !(0.0..=max).contains(&value) {
            return Err(format!(
                "{name} must be a number from 0 to {max}, got {value}"
            ));
        }
    }
    if s.t_ms > 36_000_000 {
        return Err(format!(
            "t_ms must be at most 36000000 (ten hours), got {}",
            s.t_ms
        ));
    }
    Ok(())
}

fn parse_sample(line: &str) -> Result<LinkSample, String> {
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    let [t, rtt, jitter, loss] = fields[..] else {
        return Err(format!(
            "expected 4 comma-separated numbers ({COLUMNS}), got {} fields",
            fields.len()
        ));
    };
    let number = |name: &str, v: &str| {
        v.parse::<f64>()
            .map_err(|_| format!("{name} must be a number, got '{v}'"))
    };
    let t_ms = t
        .parse::<u64>()
        .map_err(|_| format!("t_ms must be a whole number of milliseconds, got '{t}'"))?;
    let sample = LinkSample {
        t_ms,
        rtt_ms: number("rtt_ms", rtt)?,
        jitter_ms: number("jitter_ms", jitter)?,
        loss_pct: number("loss_pct", loss)?,
    };
    check_sample(&sample)?;
    Ok(sample)
}

/// The sample being gathered.
#[derive(Clone, Debug, Default)]
struct Gathering {
    /// Datagrams of any kind heard.
    packets: u32,
    /// |difference| of consecutive input messages' transit times, ms.
    diffs: Vec<f64>,
}

/// Writes a trace while a match plays, from what the GGRS socket hears
/// (every datagram; each new input frame's arrival) and what the session
/// measures (GGRS's ping; the loss meter's totals). Pure: the caller
/// passes the time in.
#[derive(Clone, Debug)]
pub(crate) struct LinkRecorder {
    /// Milliseconds between two frames of the sender.
    frame_ms: f64,
    start: Option<Instant>,
    /// Samples closed so far.
    samples: Vec<LinkSample>,
    now: Gathering,
    rtt_ms: f64,
    /// The loss meter's (settled, lost) totals at the sample's start, and
    /// the latest.
    loss_base: (u64, u64),
    loss_now: (u64, u64),
    /// The last input frame heard and its arrival (new highest frames only).
    last_input: Option<(i32, Instant)>,
    jitter_ms: f64,
    silent: usize,
}

impl LinkRecorder {
    /// A recorder for a sender running at `fps`, starting with the
    /// handshake's round trip.
    pub(crate) fn new(fps: u32, rtt_ms: f64) -> Self {
        LinkRecorder {
            frame_ms: 1000.0 / f64::from(fps.max(1)),
            start: None,
            samples: Vec::new(),
            now: Gathering::default(),
            rtt_ms: if rtt_ms.is_finite() {
                rtt_ms.clamp(0.0, MAX_MS)
            } else {
                0.0
            },
            loss_base: (0, 0),
            loss_now: (0, 0),
            last_input: None,
            jitter_ms: 0.0,
            silent: 0,
        }
    }

    /// Starts the clock (the first call of anything starts it too).
    pub(crate) fn start(&mut self, now: Instant) {
        self.catch_up(now);
    }

    /// A datagram arrived at `now`.
    pub(crate) fn packet(&mut self, now: Instant) {
        self.catch_up(now);
        self.now.packets += 1;
    }

    /// An input message whose last frame is `frame` arrived at `now`.
    pub(crate) fn input(&mut self, now: Instant, frame: i32) {
        self.catch_up(now);
        match self.last_input {
            Some((last, _)) if frame <= last => {}
            Some((last, at)) if frame == last + 1 => {
                let gap = now.saturating_duration_since(at).as_secs_f64() * 1000.0;
                self.now.diffs.push((gap - self.frame_ms).abs());
                self.last_input = Some((frame, now));
            }
            _ => self.last_input = Some((frame, now)),
        }
    }

    /// The session's latest figures at `now`: GGRS's ping, and the loss
    /// meter's (settled, lost) totals.
    pub(crate) fn measured(&mut self, now: Instant, rtt_ms: Option<f64>, loss: (u64, u64)) {
        self.catch_up(now);
        if let Some(rtt) = rtt_ms.filter(|r| r.is_finite()) {
            self.rtt_ms = rtt.clamp(0.0, MAX_MS);
        }
        self.loss_now = loss;
    }

    /// Closes every sample that ended by `now`.
    fn catch_up(&mut self, now: Instant) {
        let start = *self.start.get_or_insert(now);
        let elapsed = now.saturating_duration_since(start).as_millis() as u64;
        while (self.samples.len() as u64 + 1) * SAMPLE_MS <= elapsed
            && self.samples.len() < MAX_SAMPLES
        {
            self.close();
        }
    }

    fn close(&mut self) {
        let gathered = std::mem::take(&mut self.now);
        let mut diffs = gathered.diffs;
        if !diffs.is_empty() {
            diffs.sort_by(f64::total_cmp);
            let median = diffs[diffs.len() / 2];
            self.jitter_ms = (median * MEDIAN_DIFF_TO_WIDTH).min(MAX_MS);
        }
        let settled = self.loss_now.0.saturating_sub(self.loss_base.0);
        let lost = self.loss_now.1.saturating_sub(self.loss_base.1);
        self.loss_base = self.loss_now;
        let loss_pct = if settled == 0 {
            0.0
        } else {
            (100.0 * lost as f64 / settled as f64).min(100.0)
        };
        self.samples.push(LinkSample {
            t_ms: self.samples.len() as u64 * SAMPLE_MS,
            rtt_ms: self.rtt_ms,
            jitter_ms: self.jitter_ms,
            loss_pct,
        });
        if gathered.packets == 0 {
            self.silent += 1;
        } else {
            self.silent = 0;
        }
        if self.silent >= SILENT_SAMPLES_FOR_CUT {
            let n = self.samples.len();
            let from = n - self.silent.min(n);
            for s in &mut self.samples[from..] {
                s.loss_pct = 100.0;
            }
        }
    }

    /// The trace so far (the samples closed by `now`), if any.
    pub(crate) fn trace(&mut self, now: Instant) -> Option<LinkTrace> {
        self.catch_up(now);
        let mut trace = LinkTrace::new(self.samples.clone()).ok()?;
        trace.set_meta("sample_ms", SAMPLE_MS.to_string());
        Some(trace)
    }
}

#[cfg(test)]
#[path = "link_trace_tests.rs"]
mod tests;
