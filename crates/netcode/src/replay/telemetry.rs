//! Netcode telemetry: what the network did during an online match, kept
//! in a sidecar file beside its replay (`match.tsr` -> `match.tsn`), so
//! that a replay stays a format-v1 file every reader reads (v1's reader
//! refuses unknown record kinds; a sidecar costs old readers nothing).
//!
//! Three series, all keyed by frame:
//! - per simulated frame: how many frames the advance that first ran it
//!   re-simulated (the rollback's depth), how far GGRS said this side ran
//!   ahead of the peer, and how many advances before it ran no frame
//!   (stalled on the prediction window, or waiting for the peer);
//! - per second of play: the round trip, its jitter, the loss on the path
//!   from the peer, the bytes each way and the ICE path;
//! - events: input delay retuned, stalls, interruptions and resumptions,
//!   reconnects, rejoins, spectators, desyncs, the peer leaving.
//!
//! The file: `TSNET\0`, a format version (u16 LE, 1), the body's length
//! before compression (u32 LE), then the body deflated (miniz_oxide, which
//! the netcode already links for desync reports). The body is columns of
//! LEB128 varints, run-length coded where a value repeats (most frames
//! roll back nothing and run the same frames ahead), so a minute of play
//! with 2 % loss costs well under 2 KB. The reader treats the file as
//! hostile: any bytes give a [`Telemetry`] or a one-line
//! [`TelemetryError`], never a panic, and memory stays bounded.

use std::path::{Path, PathBuf};

use crate::Frame;

/// The file's first bytes.
const MAGIC: [u8; 6] = *b"TSNET\0";
/// The format version this build writes and reads.
const VERSION: u16 = 1;
/// The most a sidecar file may hold (a day of play is ~3 MB).
const MAX_FILE_BYTES: u64 = 8 << 20;
/// The most its body may inflate to.
const MAX_BODY_BYTES: usize = 64 << 20;
/// A sidecar's extension.
const EXTENSION: &str = "tsn";
/// Longest event detail kept, in bytes.
const MAX_DETAIL: usize = 240;

/// An online match's telemetry (see the module's documentation).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Telemetry {
    /// The game's frames per second.
    pub fps: u32,
    /// One sample per frame this side simulated for the first time.
    pub frames: Vec<FrameSample>,
    /// One sample per second of play.
    pub seconds: Vec<SecondSample>,
    /// What happened, in order.
    pub events: Vec<NetEvent>,
}

/// A simulated frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameSample {
    /// The frame (the world's frame number after it).
    pub frame: Frame,
    /// Frames re-simulated by the advance that first ran this one.
    pub rollback: u16,
    /// Frames this side ran ahead of the peer (GGRS's estimate).
    pub ahead: i16,
    /// Advances since the previous frame that ran no frame because GGRS
    /// refused to run further ahead of the peer.
    pub stalls: u16,
    /// The same, waiting for the peer (synchronizing, paused, interrupted).
    pub waits: u16,
}

/// A second of play.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SecondSample {
    /// The frame the second ended at.
    pub frame: Frame,
    /// GGRS's round trip to the peer, in ms (`None`: not measured yet).
    pub rtt_ms: Option<u32>,
    /// The jitter of the last round trips (median absolute deviation), in ms.
    pub jitter_ms: Option<u32>,
    /// Input messages from the peer lost in this second, per mille of
    /// those due (`None`: none were due).
    pub loss_permille: Option<u32>,
    /// Bytes sent to the peer in this second.
    pub bytes_sent: u64,
    /// Bytes received from the peer in this second.
    pub bytes_received: u64,
    /// The ICE path (`host`, `srflx`, `prflx`, `relay`), once known.
    pub path: Option<&'static str>,
}

/// Something that happened to the link or the match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetEvent {
    /// Frames confirmed when it happened (as a replay's events count).
    pub frame: Frame,
    /// `input_delay`, `stall`, `interrupted`, `resumed`, `reconnect`,
    /// `rejoined`, `spectator`, `desync`, `peer_left` (a newer writer's
    /// other names are kept as they are).
    pub kind: String,
    /// What it said, in words (at most 240 bytes).
    pub detail: String,
}

/// The ICE path names a second sample may hold, by their code (0: unknown).
const PATHS: [&str; 5] = ["local", "host", "srflx", "prflx", "relay"];

/// Why a sidecar could not be read (the caller names the file).
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// The file could not be read.
    #[error("{0}")]
    Read(#[from] twinstar_files::ReadError),
    /// It does not start as a telemetry file does.
    #[error("not a telemetry file (no TSNET header)")]
    NotTelemetry,
    /// Another format version.
    #[error("telemetry format version {0}, this build reads {VERSION}")]
    Version(u16),
    /// Its bytes say nonsense: what was wrong.
    #[error("corrupt telemetry: {0}")]
    Corrupt(&'static str),
}

/// The sidecar of the replay at `replay`: its name with the extension
/// `tsn` (`a.tsr` -> `a.tsn`; `a.tsn` itself -> `a.tsn.tsn`).
pub fn sidecar_path(replay: &Path) -> PathBuf {
    if replay.extension().is_some_and(|e| e == EXTENSION) {
        let mut name = replay.as_os_str().to_owned();
        name.push(".");
        name.push(EXTENSION);
        PathBuf::from(name)
    } else {
        replay.with_extension(EXTENSION)
    }
}

/// Reads a sidecar file (at most 8 MiB).
pub fn read(path: &Path) -> Result<Telemetry, TelemetryError> {
    let bytes = twinstar_files::read_limited(path, MAX_FILE_BYTES)?;
    decode(&bytes)
}

impl Telemetry {
    /// The file's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut body = Vec::with_capacity(1024);
        put(&mut body, u64::from(self.fps));
        put(&mut body, self.frames.len() as u64);
        let mut last = 0i64;
        put_runs(
            &mut body,
            self.frames.iter().map(|s| {
                let d = i64::from(s.frame) - last;
                last = i64::from(s.frame);
                d
            }),
        );
        put_runs(&mut body, self.frames.iter().map(|s| i64::from(s.rollback)));
        put_runs(&mut body, self.frames.iter().map(|s| i64::from(s.ahead)));
        put_runs(&mut body, self.frames.iter().map(|s| i64::from(s.stalls)));
        put_runs(&mut body, self.frames.iter().map(|s| i64::from(s.waits)));
        put(&mut body, self.seconds.len() as u64);
        let opt = |v: Option<u32>| v.map_or(0, |v| i64::from(v) + 1);
        let columns: [&dyn Fn(&SecondSample) -> i64; 7] = [
            &|s| i64::from(s.frame),
            &|s| opt(s.rtt_ms),
            &|s| opt(s.jitter_ms),
            &|s| opt(s.loss_permille),
            &|s| s.bytes_sent as i64,
            &|s| s.bytes_received as i64,
            &|s| path_code(s.path),
        ];
        for column in columns {
            let mut last = 0i64;
            for s in &self.seconds {
                let v = column(s);
                put(&mut body, zigzag(v - last));
                last = v;
            }
        }
        put(&mut body, self.events.len() as u64);
        let mut last = 0i64;
        for e in &self.events {
            put(&mut body, zigzag(i64::from(e.frame) - last));
            last = i64::from(e.frame);
            put_text(&mut body, &e.kind);
            put_text(&mut body, clip(&e.detail));
        }
        let mut out = Vec::with_capacity(body.len() / 4 + 16);
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        out.extend_from_slice(&miniz_oxide::deflate::compress_to_vec(&body, 9));
        out
    }
}

/// A sidecar's bytes, checked.
pub fn decode(bytes: &[u8]) -> Result<Telemetry, TelemetryError> {
    let body = inflated_body(bytes)?;
    let mut r = Cursor { bytes: &body };
    let fps = u32::try_from(r.get()?).map_err(|_| TelemetryError::Corrupt("fps"))?;
    let frames = read_frames(&mut r)?;
    let seconds = read_seconds(&mut r)?;
    let events = read_events(&mut r)?;
    if !r.bytes.is_empty() {
        return Err(TelemetryError::Corrupt("bytes after its last event"));
    }
    Ok(Telemetry {
        fps,
        frames,
        seconds,
        events,
    })
}

/// The body after the header, inflated, at most its stated length.
fn inflated_body(bytes: &[u8]) -> Result<Vec<u8>, TelemetryError> {
    if bytes.len() < 12 || bytes[..6] != MAGIC {
        return Err(TelemetryError::NotTelemetry);
    }
    let version = u16::from_le_bytes([bytes[6], bytes[7]]);
    if version != VERSION {
        return Err(TelemetryError::Version(version));
    }
    let length = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
    if length > MAX_BODY_BYTES {
        return Err(TelemetryError::Corrupt("its body claims to be too large"));
    }
    let body = miniz_oxide::inflate::decompress_to_vec_with_limit(&bytes[12..], length)
        .map_err(|_| TelemetryError::Corrupt("its body does not inflate"))?;
    if body.len() != length {
        return Err(TelemetryError::Corrupt("its body has the wrong length"));
    }
    Ok(body)
}

/// The per-frame samples: run-length coded columns, frames as deltas.
fn read_frames(r: &mut Cursor<'_>) -> Result<Vec<FrameSample>, TelemetryError> {
    let corrupt = TelemetryError::Corrupt;
    let n = r.count()?;
    let deltas = r.runs(n)?;
    let rollback = r.runs(n)?;
    let ahead = r.runs(n)?;
    let stalls = r.runs(n)?;
    let waits = r.runs(n)?;
    let mut frames = Vec::with_capacity(n);
    let mut frame = 0i64;
    for i in 0..n {
        frame += deltas[i];
        frames.push(FrameSample {
            frame: Frame::try_from(frame).map_err(|_| corrupt("a frame number"))?,
            rollback: u16::try_from(rollback[i]).map_err(|_| corrupt("a rollback"))?,
            ahead: i16::try_from(ahead[i]).map_err(|_| corrupt("frames ahead"))?,
            stalls: u16::try_from(stalls[i]).map_err(|_| corrupt("stalls"))?,
            waits: u16::try_from(waits[i]).map_err(|_| corrupt("waits"))?,
        });
    }
    Ok(frames)
}

/// The per-second samples: seven delta-coded columns.
fn read_seconds(r: &mut Cursor<'_>) -> Result<Vec<SecondSample>, TelemetryError> {
    let corrupt = TelemetryError::Corrupt;
    let n = r.count()?;
    let mut columns = [(); 7].map(|_| Vec::with_capacity(n));
    for column in &mut columns {
        let mut last = 0i64;
        for _ in 0..n {
            last = last
                .checked_add(unzigzag(r.get()?))
                .ok_or(corrupt("a second's figure"))?;
            column.push(last);
        }
    }
    let small = |v: i64| u32::try_from(v).map_err(|_| corrupt("a second's figure"));
    let opt = |v: i64| -> Result<Option<u32>, TelemetryError> {
        Ok(if v == 0 { None } else { Some(small(v - 1)?) })
    };
    let big = |v: i64| u64::try_from(v).map_err(|_| corrupt("a byte count"));
    let mut seconds = Vec::with_capacity(n);
    let mut columns = columns.map(Vec::into_iter);
    for _ in 0..n {
        let [frame, rtt, jitter, loss, sent, received, path] =
            columns.each_mut().map(|c| c.next().unwrap_or(0));
        seconds.push(SecondSample {
            frame: small(frame)?,
            rtt_ms: opt(rtt)?,
            jitter_ms: opt(jitter)?,
            loss_permille: opt(loss)?,
            bytes_sent: big(sent)?,
            bytes_received: big(received)?,
            path: match path {
                0 => None,
                c => Some(
                    *PATHS
                        .get(c as usize - 1)
                        .ok_or(corrupt("an unknown path"))?,
                ),
            },
        });
    }
    Ok(seconds)
}

/// The events: frames as deltas, then their kind and words.
fn read_events(r: &mut Cursor<'_>) -> Result<Vec<NetEvent>, TelemetryError> {
    let corrupt = TelemetryError::Corrupt;
    let n = r.count()?;
    let mut events = Vec::with_capacity(n);
    let mut frame = 0i64;
    for _ in 0..n {
        frame = frame
            .checked_add(unzigzag(r.get()?))
            .ok_or(corrupt("an event's frame"))?;
        events.push(NetEvent {
            frame: Frame::try_from(frame).map_err(|_| corrupt("an event's frame"))?,
            kind: r.text()?,
            detail: r.text()?,
        });
    }
    Ok(events)
}

fn path_code(path: Option<&str>) -> i64 {
    path.and_then(|p| PATHS.iter().position(|&q| q == p))
        .map_or(0, |i| i as i64 + 1)
}

/// The ICE path name a connection reports, as one of ours (`None`: unknown).
pub(crate) fn known_path(path: Option<&str>) -> Option<&'static str> {
    path.and_then(|p| PATHS.iter().find(|&&q| q == p).copied())
}

fn clip(text: &str) -> &str {
    if text.len() <= MAX_DETAIL {
        return text;
    }
    let mut end = MAX_DETAIL;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_text(out: &mut Vec<u8>, text: &str) {
    put(out, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

/// Runs of equal values: (value zigzagged, run length) pairs.
fn put_runs(out: &mut Vec<u8>, values: impl Iterator<Item = i64>) {
    let mut run: Option<(i64, u64)> = None;
    for v in values {
        run = match run {
            Some((value, n)) if value == v => Some((value, n + 1)),
            Some((value, n)) => {
                put(out, zigzag(value));
                put(out, n);
                Some((v, 1))
            }
            None => Some((v, 1)),
        };
    }
    if let Some((value, n)) = run {
        put(out, zigzag(value));
        put(out, n);
    }
}

struct Cursor<'a> {
    bytes: &'a [u8],
}

impl Cursor<'_> {
    fn get(&mut self) -> Result<u64, TelemetryError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let (&b, rest) = self
                .bytes
                .split_first()
                .ok_or(TelemetryError::Corrupt("it ends early"))?;
            self.bytes = rest;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(TelemetryError::Corrupt("a number runs on"))
    }

    /// A count of items, each of which takes at least a byte that is left
    /// (so a forged count cannot make us allocate past the body).
    fn count(&mut self) -> Result<usize, TelemetryError> {
        let n = self.get()?;
        if n > self.bytes.len() as u64 * 255 {
            return Err(TelemetryError::Corrupt("a count past its end"));
        }
        Ok(n as usize)
    }

    /// `n` values coded as runs.
    fn runs(&mut self, n: usize) -> Result<Vec<i64>, TelemetryError> {
        let mut values = Vec::with_capacity(n.min(self.bytes.len() * 64));
        while values.len() < n {
            let value = unzigzag(self.get()?);
            let run = self.get()?;
            if run == 0 || run > (n - values.len()) as u64 {
                return Err(TelemetryError::Corrupt("a run past its column"));
            }
            values.extend(std::iter::repeat_n(value, run as usize));
        }
        Ok(values)
    }

    fn text(&mut self) -> Result<String, TelemetryError> {
        let n = self.get()?;
        if n > self.bytes.len() as u64 {
            return Err(TelemetryError::Corrupt("a text past its end"));
        }
        let (text, rest) = self.bytes.split_at(n as usize);
        self.bytes = rest;
        String::from_utf8(text.to_vec()).map_err(|_| TelemetryError::Corrupt("a text not UTF-8"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Telemetry {
        Telemetry {
            fps: 60,
            frames: (1..=600)
                .map(|f| FrameSample {
                    frame: f,
                    rollback: if f % 7 == 0 { 3 } else { 0 },
                    ahead: (f % 3) as i16 - 1,
                    stalls: u16::from(f == 300),
                    waits: 0,
                })
                .collect(),
            seconds: (1..=10)
                .map(|s| SecondSample {
                    frame: s * 60,
                    rtt_ms: (s > 1).then_some(100 + s),
                    jitter_ms: Some(3),
                    loss_permille: Some(20),
                    bytes_sent: 4000,
                    bytes_received: 3900 + u64::from(s),
                    path: Some("host"),
                })
                .collect(),
            events: vec![NetEvent {
                frame: 120,
                kind: "input_delay".into(),
                detail: "2 -> 3 frames".into(),
            }],
        }
    }

    #[test]
    fn telemetry_round_trips_and_is_small() {
        let t = sample();
        let bytes = t.encode();
        assert_eq!(decode(&bytes).unwrap(), t);
        assert!(bytes.len() < 400, "{} bytes", bytes.len());
    }

    #[test]
    fn bad_bytes_give_an_error_never_a_panic() {
        let bytes = sample().encode();
        assert!(matches!(
            decode(b"not a sidecar at all"),
            Err(TelemetryError::NotTelemetry)
        ));
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        for i in 6..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x5a;
            let _ = decode(&bad);
        }
        // A body that inflates but says nonsense.
        let mut forged = MAGIC.to_vec();
        forged.extend_from_slice(&VERSION.to_le_bytes());
        let body = [60u8, 0xff, 0xff, 0xff, 0xff, 0x0f];
        forged.extend_from_slice(&(body.len() as u32).to_le_bytes());
        forged.extend_from_slice(&miniz_oxide::deflate::compress_to_vec(&body, 6));
        assert!(decode(&forged).is_err());
    }

    #[test]
    fn the_sidecar_is_named_after_the_replay() {
        assert_eq!(sidecar_path(Path::new("d/a.tsr")), Path::new("d/a.tsn"));
        assert_eq!(sidecar_path(Path::new("a")), Path::new("a.tsn"));
        assert_eq!(sidecar_path(Path::new("a.tsn")), Path::new("a.tsn.tsn"));
    }
}
