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
mod tests {
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
        let good = "twinstar link trace v1\n# k: v\nt_ms,rtt_ms,jitter_ms,loss_pct\n0,20,1,0\n100,30,2.5,10\n";
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
}
