//! Appends a match to a replay file as it is played.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::format::*;
use bytemuck::Pod;
use twinstar_files::OutFile;

use crate::{Frame, GameInfo};

/// Writes whole records only, flushing after each chunk (one second of
/// play), so after a crash or `kill -9` the file is readable up to the last
/// complete second.
pub struct Writer<I, const N: usize> {
    out: OutFile,
    path: PathBuf,
    pending: Vec<[I; N]>,
    /// Frames written in complete chunks so far.
    written: u32,
    body: Vec<u8>,
}

impl<I: Pod + PartialEq, const N: usize> Writer<I, N> {
    /// Creates (or replaces) the file and writes the preamble (with
    /// `game`'s simulation version) and header.
    pub fn create(path: &Path, game: &GameInfo, header: &Header) -> io::Result<Self> {
        let mut out = twinstar_files::create(path)?;
        out.write_all(&MAGIC)?;
        out.write_all(&FORMAT_VERSION.to_le_bytes())?;
        out.write_all(&game.sim_version.to_le_bytes())?;
        let mut writer = Writer {
            out,
            path: path.to_path_buf(),
            pending: Vec::with_capacity(CHECKSUM_INTERVAL as usize),
            written: 0,
            body: Vec::new(),
        };
        let json = serde_json::to_vec(header).map_err(io::Error::other)?;
        writer.record(KIND_HEADER, &json)?;
        writer.out.flush()?;
        Ok(writer)
    }

    /// The file it writes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Frames recorded so far (including ones not yet on disk).
    pub fn frames(&self) -> Frame {
        self.written + self.pending.len() as u32
    }

    /// Records one confirmed frame: its inputs and the checksum of the world
    /// after it (asked for only at chunk ends, once a second).
    pub fn frame(
        &mut self,
        inputs: [I; N],
        checksum_after: impl FnOnce() -> u128,
    ) -> io::Result<()> {
        self.pending.push(inputs);
        if self.pending.len() as u32 == CHECKSUM_INTERVAL {
            self.write_chunk(checksum_after())?;
        }
        Ok(())
    }

    /// Records a match event (delay change, interruption, desync, ...).
    pub fn event(&mut self, kind: EventKind, detail: &str) -> io::Result<()> {
        let event = ReplayEvent {
            frame: self.frames(),
            kind,
            detail: detail.into(),
        };
        let json = serde_json::to_vec(&event).map_err(io::Error::other)?;
        self.record(KIND_EVENT, &json)?;
        self.out.flush()
    }

    /// Writes the last partial chunk and the end record; `last_checksum` is
    /// the world's after the last recorded frame.
    pub fn finish(mut self, last_checksum: u128, reason: &str) -> io::Result<PathBuf> {
        if !self.pending.is_empty() {
            self.write_chunk(last_checksum)?;
        }
        let end = EndRecord {
            frame: self.written,
            checksum: last_checksum,
            reason: reason.into(),
        };
        let json = serde_json::to_vec(&end).map_err(io::Error::other)?;
        self.record(KIND_END, &json)?;
        self.out.sync()?;
        Ok(self.path)
    }

    fn write_chunk(&mut self, checksum_after: u128) -> io::Result<()> {
        let mut payload = Vec::with_capacity(64);
        encode_chunk(self.written, &self.pending, checksum_after, &mut payload);
        self.written += self.pending.len() as u32;
        self.pending.clear();
        self.record(KIND_CHUNK, &payload)?;
        self.out.flush()
    }

    fn record(&mut self, kind: u8, payload: &[u8]) -> io::Result<()> {
        self.body.clear();
        self.body.push(kind);
        self.body.extend_from_slice(payload);
        let len = u32::try_from(self.body.len())
            .ok()
            .filter(|&n| n <= MAX_RECORD_BYTES);
        let len = len.ok_or_else(|| io::Error::other("replay record too large"))?;
        self.out.write_all(&len.to_le_bytes())?;
        self.out.write_all(&self.body)?;
        self.out.write_all(&body_check(&self.body).to_le_bytes())
    }
}
