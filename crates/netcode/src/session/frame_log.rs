//! Which frames are final, and their recording. Every simulated frame is
//! logged (inputs, and the checksum after it once GGRS saves it); a frame is
//! confirmed once its inputs can no longer change, and only confirmed frames
//! reach the replay, each exactly once, in order.

use super::SessionError;
use super::telemetry::Recorder;
use crate::net::rejoin::CHUNK_FRAMES;
use crate::replay::telemetry::sidecar_path;
use crate::replay::{EventKind, Writer};
use crate::{Frame, GameInput};

/// Recent simulated frames. Longer than any rollback (GGRS predicts at most
/// `MAX_PREDICTION` frames ahead), so a frame is confirmed before its entry
/// is overwritten.
const LOG_LEN: usize = 64;

#[derive(Clone, Copy, Debug)]
struct Entry<I, const N: usize> {
    /// The frame these inputs advanced from.
    frame: Frame,
    inputs: [I; N],
    /// Checksum of the world after the frame, once GGRS saved it.
    checksum_after: Option<u128>,
}

/// The log of `N` players' inputs `I`.
pub(super) struct FrameLog<I, const N: usize> {
    entries: Box<[Option<Entry<I, N>>; LOG_LEN]>,
    /// Frames confirmed (and recorded, if recording) so far: 0..confirmed.
    confirmed: Frame,
    /// Checksum of the world after `confirmed` frames, where known (online).
    confirmed_checksum: u128,
    /// Confirm no frame at or beyond this (the end of a `--frames N` match).
    limit: Option<Frame>,
    recorder: Option<Writer<I, N>>,
    /// The finished recording's path, for the summary.
    replay_path: Option<String>,
    /// Online: every confirmed frame's inputs and the checksum after every
    /// `CHUNK_FRAMES` of them, to catch up a player who rejoins.
    history: Option<ConfirmedInputs<I, N>>,
    /// Online and recording: the network's telemetry, written beside the
    /// replay when it finishes (`replay::telemetry`).
    telemetry: Option<Recorder>,
    /// The finished telemetry's path and size, for the summary.
    telemetry_file: Option<(String, u64)>,
}

/// The whole confirmed match, about 2 bytes a frame (72 KB for 10 minutes).
pub(super) struct ConfirmedInputs<I, const N: usize> {
    pub inputs: Vec<[I; N]>,
    /// The checksum after frame `(i + 1) × CHUNK_FRAMES`.
    pub checksums: Vec<u128>,
}

impl<I, const N: usize> Default for ConfirmedInputs<I, N> {
    fn default() -> Self {
        ConfirmedInputs {
            inputs: Vec::new(),
            checksums: Vec::new(),
        }
    }
}

impl<I: GameInput, const N: usize> FrameLog<I, N> {
    pub(super) fn new(initial_checksum: u128) -> Self {
        FrameLog {
            entries: Box::new([None; LOG_LEN]),
            confirmed: 0,
            confirmed_checksum: initial_checksum,
            limit: None,
            recorder: None,
            replay_path: None,
            history: None,
            telemetry: None,
            telemetry_file: None,
        }
    }

    /// Keeps every confirmed frame's inputs from now on (online play).
    pub(super) fn keep_history(&mut self) {
        self.history.get_or_insert_with(ConfirmedInputs::default);
    }

    pub(super) fn history(&self) -> Option<&ConfirmedInputs<I, N>> {
        self.history.as_ref()
    }

    /// A frame confirmed elsewhere (a rejoin's catch-up), re-simulated
    /// here: `checksum` is asked for at chunk ends and at the last frame,
    /// the match's last frame included (a catch-up may run past it: the
    /// confirmed checksum must be of the frame confirmed last).
    pub(super) fn confirm_caught_up(
        &mut self,
        inputs: [I; N],
        checksum: impl Fn() -> u128,
        last: bool,
    ) {
        let after = self.confirmed + 1;
        if self.limit.is_some_and(|n| after > n) {
            return;
        }
        let chunk_end = (after as usize).is_multiple_of(CHUNK_FRAMES);
        let last = last || self.limit == Some(after);
        let known = (chunk_end || last).then(&checksum);
        self.record(inputs, || known.unwrap_or_else(&checksum));
        self.remember(inputs, || known.unwrap_or_else(&checksum));
        self.confirmed = after;
        if let Some(sum) = known {
            self.confirmed_checksum = sum;
        }
    }

    fn remember(&mut self, inputs: [I; N], checksum: impl FnOnce() -> u128) {
        if let Some(history) = &mut self.history {
            history.inputs.push(inputs);
            if history.inputs.len() % CHUNK_FRAMES == 0 {
                history.checksums.push(checksum());
            }
        }
    }

    pub(super) fn confirmed(&self) -> Frame {
        self.confirmed
    }

    pub(super) fn confirmed_checksum(&self) -> u128 {
        self.confirmed_checksum
    }

    pub(super) fn set_limit(&mut self, limit: Option<Frame>) {
        self.limit = limit;
    }

    /// Every frame up to the limit is confirmed.
    pub(super) fn limit_reached(&self) -> bool {
        self.limit.is_some_and(|n| self.confirmed >= n)
    }

    /// A step from `frame` with these inputs (maybe a re-simulation).
    pub(super) fn stepped(&mut self, frame: Frame, inputs: [I; N]) {
        self.entries[frame as usize % LOG_LEN] = Some(Entry {
            frame,
            inputs,
            checksum_after: None,
        });
    }

    /// GGRS saved the world at `frame`: the checksum after frame − 1.
    pub(super) fn saved(&mut self, frame: Frame, checksum: u128) {
        let Some(before) = frame.checked_sub(1) else {
            return;
        };
        if let Some(entry) = &mut self.entries[before as usize % LOG_LEN]
            && entry.frame == before
        {
            entry.checksum_after = Some(checksum);
        }
    }

    /// All inputs are local: a frame's first simulation is its final one.
    /// `checksum` is asked for only when it is recorded.
    pub(super) fn confirm_first_simulation(
        &mut self,
        after: Frame,
        inputs: [I; N],
        checksum: impl FnOnce() -> u128,
    ) {
        if self.limit.is_some_and(|n| after > n) {
            return;
        }
        self.record(inputs, checksum);
        self.confirmed = after;
    }

    /// Confirms logged frames before `through` (GGRS's confirmed frame + 1,
    /// in the world's frame numbers). Call right
    /// after an advance's requests were fulfilled: any rollback its inputs
    /// needed has run, so the log holds each frame's final inputs.
    pub(super) fn confirm_through(
        &mut self,
        through: Frame,
        newest: Frame,
    ) -> Result<(), SessionError> {
        let limit = through.min(newest).min(self.limit.unwrap_or(Frame::MAX));
        while self.confirmed < limit {
            let frame = self.confirmed;
            let entry = self.entries[frame as usize % LOG_LEN]
                .filter(|e| e.frame == frame)
                .ok_or(SessionError::MissingState(frame))?;
            // GGRS saves a frame's resulting state at the start of the next
            // advance: the newest frame's checksum comes one call later.
            let Some(checksum) = entry.checksum_after else {
                break;
            };
            self.record(entry.inputs, || checksum);
            self.remember(entry.inputs, || checksum);
            self.confirmed = frame + 1;
            self.confirmed_checksum = checksum;
        }
        Ok(())
    }

    fn record(&mut self, inputs: [I; N], checksum: impl FnOnce() -> u128) {
        if let Some(writer) = &mut self.recorder
            && let Err(e) = writer.frame(inputs, checksum)
        {
            tracing::warn!("recording stopped: {}: {e}", writer.path().display());
            self.recorder = None;
        }
    }

    /// Adds a match event (interruption, delay change, desync) to the replay.
    pub(super) fn event(&mut self, kind: EventKind, detail: &str) {
        let confirmed = self.confirmed;
        if let Some(telemetry) = &mut self.telemetry {
            telemetry.replay_event(confirmed, &kind, detail);
        }
        if let Some(writer) = &mut self.recorder
            && let Err(e) = writer.event(kind, detail)
        {
            tracing::warn!("recording stopped: {}: {e}", writer.path().display());
            self.recorder = None;
        }
    }

    pub(super) fn record_to(&mut self, writer: Writer<I, N>) {
        self.recorder = Some(writer);
    }

    /// Keeps the network's telemetry too, for a sidecar beside the replay
    /// (an online match that records).
    pub(super) fn record_telemetry(&mut self, fps: u32) {
        self.telemetry = Some(Recorder::new(fps));
    }

    /// The telemetry being kept, if any.
    pub(super) fn telemetry(&mut self) -> Option<&mut Recorder> {
        self.telemetry.as_mut()
    }

    /// The telemetry sidecar written and its size in bytes.
    pub(super) fn telemetry_file(&self) -> Option<(&str, u64)> {
        self.telemetry_file.as_ref().map(|(p, n)| (p.as_str(), *n))
    }

    pub(super) fn recording_path(&self) -> Option<std::path::PathBuf> {
        self.recorder.as_ref().map(|w| w.path().to_path_buf())
    }

    pub(super) fn replay_path(&self) -> Option<&str> {
        self.replay_path.as_deref()
    }

    /// Closes the recording with its end record (`last`: the checksum the
    /// run reports, of the world after `confirmed` frames).
    pub(super) fn finish(&mut self, last: u128, reason: &str) {
        if let Some(writer) = self.recorder.take() {
            let path = writer.path().display().to_string();
            let sidecar = sidecar_path(writer.path());
            match writer.finish(last, reason) {
                Ok(_) => self.replay_path = Some(path),
                Err(e) => tracing::warn!("could not finish the replay {path}: {e}"),
            }
            if let Some(telemetry) = self.telemetry.take() {
                let bytes = telemetry.telemetry().encode();
                let written = twinstar_files::create(&sidecar).and_then(|mut out| {
                    use std::io::Write;
                    out.write_all(&bytes)?;
                    out.sync()
                });
                let name = sidecar.display().to_string();
                match written {
                    Ok(()) => self.telemetry_file = Some((name, bytes.len() as u64)),
                    Err(e) => tracing::warn!("could not write the telemetry {name}: {e}"),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_catch_up_past_the_last_frame_confirms_that_frames_checksum() {
        let mut log = FrameLog::<u8, 2>::new(0);
        // The match ends mid-chunk; the catch-up sent runs two chunks.
        let limit = CHUNK_FRAMES as Frame + 5;
        log.set_limit(Some(limit));
        let sent = 2 * CHUNK_FRAMES as Frame;
        for after in 1..=sent {
            // The world's checksum after a frame, as a stand-in: its number.
            log.confirm_caught_up([0, 0], || u128::from(after), after == sent);
        }
        assert_eq!(log.confirmed(), limit);
        assert_eq!(log.confirmed_checksum(), u128::from(limit));
        assert!(log.limit_reached());
    }
}
