//! Parses replay files. Any bytes give a `Replay` or one `ReplayError`.

use std::path::Path;

use thiserror::Error;

use super::format::*;
use crate::sim::{Input, PLAYERS, SIM_VERSION};

/// Files above this size are refused before reading: a 10-minute match is
/// ~30 KB, so this leaves room for hours while bounding memory.
const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Debug, Error)]
pub enum ReplayError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{0} is a directory, not a replay file")]
    IsDirectory(String),
    #[error("the file is empty")]
    Empty,
    #[error("the file is {0} bytes, larger than any replay ({MAX_FILE_BYTES} at most)")]
    TooLarge(u64),
    #[error("not a twinstar replay (bad magic bytes)")]
    BadMagic,
    #[error("replay format version {found}; this build reads version {FORMAT_VERSION}")]
    FormatVersion { found: u16 },
    #[error(
        "replay made by simulation version {found}; this build is version {SIM_VERSION} and would not reproduce it"
    )]
    SimVersion { found: u32 },
    #[error(
        "record at byte {offset} claims {len} bytes (limit {MAX_RECORD_BYTES}): corrupt length"
    )]
    RecordTooLarge { offset: usize, len: u32 },
    #[error("record at byte {offset} (after frame {frame}) is corrupt: checksum mismatch")]
    Corrupt { offset: usize, frame: u32 },
    #[error("record at byte {offset}: {what}")]
    Malformed { offset: usize, what: String },
    #[error("the file ends before its header record")]
    NoHeader,
}

/// Why a replay stops before a proper end record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cut {
    /// The file ends inside a record (a crash mid-write): playable up to here.
    Truncated { at_frame: u32, offset: usize },
    /// All records are whole, but there is no end record.
    NoEnd { at_frame: u32 },
}

impl std::fmt::Display for Cut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cut::Truncated { at_frame, offset } => {
                write!(f, "truncated at frame {at_frame} (byte {offset})")
            }
            Cut::NoEnd { at_frame } => write!(
                f,
                "no end record: the recording stopped at frame {at_frame}"
            ),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Replay {
    pub header: Header,
    /// Inputs of frames 1..=len (index i leads from state i to state i+1).
    pub inputs: Vec<[Input; PLAYERS]>,
    /// (frame, checksum of the state at that frame), in frame order.
    pub checksums: Vec<(u32, u128)>,
    pub events: Vec<ReplayEvent>,
    pub end: Option<EndRecord>,
    pub cut: Option<Cut>,
}

impl Replay {
    pub fn frames(&self) -> u32 {
        self.inputs.len() as u32
    }

    /// The recorded checksum of the last frame (end record, else last chunk).
    pub fn final_checksum(&self) -> Option<(u32, u128)> {
        match &self.end {
            Some(end) => Some((end.frame, end.checksum)),
            None => self.checksums.last().copied(),
        }
    }
}

pub fn read(path: &Path) -> Result<Replay, ReplayError> {
    let io = |source| ReplayError::Io {
        path: path.display().to_string(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_dir() {
        return Err(ReplayError::IsDirectory(path.display().to_string()));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(ReplayError::TooLarge(meta.len()));
    }
    let bytes = std::fs::read(path).map_err(io)?;
    read_bytes(&bytes)
}

pub fn read_bytes(bytes: &[u8]) -> Result<Replay, ReplayError> {
    if bytes.is_empty() {
        return Err(ReplayError::Empty);
    }
    if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
        return Err(ReplayError::BadMagic);
    }
    if bytes.len() < PREAMBLE_LEN {
        return Err(ReplayError::NoHeader);
    }
    let found = u16::from_le_bytes([bytes[8], bytes[9]]);
    if found != FORMAT_VERSION {
        return Err(ReplayError::FormatVersion { found });
    }
    let found = u32::from_le_bytes([bytes[10], bytes[11], bytes[12], bytes[13]]);
    if found != SIM_VERSION {
        return Err(ReplayError::SimVersion { found });
    }

    let mut header: Option<Header> = None;
    let mut inputs: Vec<[Input; PLAYERS]> = Vec::new();
    let mut checksums = Vec::new();
    let mut events = Vec::new();
    let mut end = None;
    let mut cut = None;
    let mut offset = PREAMBLE_LEN;

    while offset < bytes.len() {
        let frame = inputs.len() as u32;
        let rest = &bytes[offset..];
        let malformed = |what: &str| ReplayError::Malformed {
            offset,
            what: what.to_string(),
        };
        let Some((len, rest)) = rest.split_first_chunk::<4>() else {
            cut = Some(Cut::Truncated {
                at_frame: frame,
                offset,
            });
            break;
        };
        let len = u32::from_le_bytes(*len);
        if len > MAX_RECORD_BYTES {
            return Err(ReplayError::RecordTooLarge { offset, len });
        }
        if len == 0 {
            return Err(malformed("empty record"));
        }
        if rest.len() < len as usize + 4 {
            cut = Some(Cut::Truncated {
                at_frame: frame,
                offset,
            });
            break;
        }
        let (body, rest) = rest.split_at(len as usize);
        let check = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]);
        if check != body_check(body) {
            return Err(ReplayError::Corrupt { offset, frame });
        }
        if end.is_some() {
            return Err(malformed("data after the end record"));
        }
        let (kind, payload) = (body[0], &body[1..]);
        if kind != KIND_HEADER && header.is_none() {
            return Err(malformed("the first record is not a header"));
        }
        match kind {
            KIND_HEADER if header.is_some() => return Err(malformed("a second header record")),
            KIND_HEADER => {
                let h: Header = serde_json::from_slice(payload)
                    .map_err(|e| malformed(&format!("bad header: {e}")))?;
                if h.players != PLAYERS as u32 {
                    return Err(malformed(&format!(
                        "{} players; twinstar has {PLAYERS}",
                        h.players
                    )));
                }
                if h.config().is_none() {
                    return Err(malformed("the header's simulation config is unreadable"));
                }
                header = Some(h);
            }
            KIND_CHUNK => {
                let chunk = decode_chunk(payload).map_err(malformed)?;
                if chunk.start != frame {
                    return Err(malformed(&format!(
                        "input chunk starts at frame {}, expected {frame}",
                        chunk.start
                    )));
                }
                inputs.extend_from_slice(&chunk.frames);
                checksums.push((inputs.len() as u32, chunk.checksum));
            }
            KIND_EVENT => {
                let e = serde_json::from_slice(payload)
                    .map_err(|e| malformed(&format!("bad event: {e}")))?;
                events.push(e);
            }
            KIND_END => {
                let e: EndRecord = serde_json::from_slice(payload)
                    .map_err(|e| malformed(&format!("bad end record: {e}")))?;
                if e.frame != frame {
                    return Err(malformed(&format!(
                        "end record says frame {}, the inputs end at {frame}",
                        e.frame
                    )));
                }
                end = Some(e);
            }
            other => return Err(malformed(&format!("unknown record kind {other}"))),
        }
        offset += 4 + len as usize + 4;
    }

    let header = header.ok_or(ReplayError::NoHeader)?;
    if cut.is_none() && end.is_none() {
        cut = Some(Cut::NoEnd {
            at_frame: inputs.len() as u32,
        });
    }
    Ok(Replay {
        header,
        inputs,
        checksums,
        events,
        end,
        cut,
    })
}
