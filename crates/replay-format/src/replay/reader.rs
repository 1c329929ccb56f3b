//! Parses replay files. Any bytes give a `Replay` or one `ReplayError`.

use std::path::Path;

use thiserror::Error;

use super::format::*;
use twinstar_files::{ReadError, read_limited};

use crate::{Frame, Game, GameInfo};

/// Why a replay file could not be read: one line, never a panic.
#[derive(Debug, Error)]
pub enum ReplayError {
    /// Missing, unreadable, not a regular file, or over `MAX_FILE_BYTES`.
    #[error("{0}")]
    File(#[from] ReadError),
    /// The file is empty.
    #[error("the file is empty")]
    Empty,
    /// The file does not start like a replay.
    #[error("not a twinstar replay (bad magic bytes)")]
    BadMagic,
    /// A format version this build cannot read.
    #[error("replay format version {found}; this build reads version {FORMAT_VERSION}")]
    FormatVersion {
        /// The file's format version.
        found: u16,
    },
    #[error(
        "replay made by simulation version {found}; this build is version {ours} and would not reproduce it"
    )]
    /// Recorded by another version of the simulation: it would not re-simulate.
    SimVersion {
        /// The simulation version that recorded the file.
        found: u32,
        /// This build's.
        ours: u32,
    },
    #[error(
        "record at byte {offset} claims {len} bytes (limit {MAX_RECORD_BYTES}): corrupt length"
    )]
    /// A record longer than the format allows.
    RecordTooLarge {
        /// Where the record starts in the file.
        offset: usize,
        /// The length it claims.
        len: u32,
    },
    /// A record whose check does not match its bytes.
    #[error("record at byte {offset} (after frame {frame}) is corrupt: checksum mismatch")]
    Corrupt {
        /// Where the record starts in the file.
        offset: usize,
        /// The frames read before it.
        frame: Frame,
    },
    /// A record that does not decode.
    #[error("record at byte {offset}: {what}")]
    Malformed {
        /// Where the record starts in the file.
        offset: usize,
        /// What is wrong with it.
        what: String,
    },
    /// No header record.
    #[error("the file ends before its header record")]
    NoHeader,
}

/// Why a replay stops before a proper end record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cut {
    /// The file ends inside a record (a crash mid-write): playable up to here.
    Truncated {
        /// Frames read before the cut.
        at_frame: Frame,
        /// Where the cut record starts in the file.
        offset: usize,
    },
    /// All records are whole, but there is no end record.
    NoEnd {
        /// Frames read in all.
        at_frame: Frame,
    },
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

/// A replay as read: the header, every confirmed input, the recorded checksums and events, and how it ended.
#[derive(Clone, Debug)]
pub struct Replay<I, const N: usize> {
    /// Who played what, where and how.
    pub header: Header,
    /// Inputs of frames 1..=len (index i leads from state i to state i+1).
    pub inputs: Vec<[I; N]>,
    /// (frame, checksum of the state at that frame), in frame order.
    pub checksums: Vec<(u32, u128)>,
    /// Chat lines and other events, by frame.
    pub events: Vec<ReplayEvent>,
    /// The end record, if the match ended cleanly.
    pub end: Option<EndRecord>,
    /// Where the file was cut short, if it was (a crash): everything before is kept.
    pub cut: Option<Cut>,
}

impl<I, const N: usize> Replay<I, N> {
    /// Frames recorded.
    pub fn frames(&self) -> Frame {
        self.inputs.len() as u32
    }
}

/// Reads and parses a replay file: a regular file of at most
/// `MAX_FILE_BYTES`, read through a bounded reader (see `crate::platform::files`).
pub fn read<G: Game<N>, const N: usize>(path: &Path) -> Result<Replay<G::Input, N>, ReplayError> {
    let bytes = read_limited(path, MAX_FILE_BYTES)?;
    read_bytes::<G, N>(&bytes)
}

/// A replay of `G` from its bytes.
pub fn read_bytes<G: Game<N>, const N: usize>(
    bytes: &[u8],
) -> Result<Replay<G::Input, N>, ReplayError> {
    check_preamble(bytes, &G::INFO)?;
    let mut log = Log::<G, N>::default();
    let mut offset = PREAMBLE_LEN;
    while offset < bytes.len() {
        let frame = log.inputs.len() as Frame;
        let Some((body, next)) = next_record(bytes, offset, frame)? else {
            let cut = Cut::Truncated {
                at_frame: frame,
                offset,
            };
            return log.finish(Some(cut));
        };
        log.add(body, offset)?;
        offset = next;
    }
    log.finish(None)
}

/// Magic bytes, then the format and simulation versions this build reads.
fn check_preamble(bytes: &[u8], game: &GameInfo) -> Result<(), ReplayError> {
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
    if found != game.sim_version {
        return Err(ReplayError::SimVersion {
            found,
            ours: game.sim_version,
        });
    }
    Ok(())
}

/// The checked body of the record at `offset` and where the next one
/// starts; `None` when the file ends inside it (a cut, not an error).
/// `frame` (frames read so far) only names the place in errors.
fn next_record(
    bytes: &[u8],
    offset: usize,
    frame: Frame,
) -> Result<Option<(&[u8], usize)>, ReplayError> {
    let Some((len, rest)) = bytes[offset..].split_first_chunk::<4>() else {
        return Ok(None);
    };
    let len = u32::from_le_bytes(*len);
    if len > MAX_RECORD_BYTES {
        return Err(ReplayError::RecordTooLarge { offset, len });
    }
    if len == 0 {
        return Err(malformed(offset, "empty record"));
    }
    let Some((body, rest)) = rest.split_at_checked(len as usize) else {
        return Ok(None);
    };
    let Some((check, _)) = rest.split_first_chunk::<4>() else {
        return Ok(None);
    };
    if u32::from_le_bytes(*check) != body_check(body) {
        return Err(ReplayError::Corrupt { offset, frame });
    }
    Ok(Some((body, offset + 4 + len as usize + 4)))
}

fn malformed(offset: usize, what: impl Into<String>) -> ReplayError {
    ReplayError::Malformed {
        offset,
        what: what.into(),
    }
}

/// A replay being assembled record by record.
struct Log<G: Game<N>, const N: usize> {
    header: Option<Header>,
    inputs: Vec<[G::Input; N]>,
    checksums: Vec<(u32, u128)>,
    events: Vec<ReplayEvent>,
    end: Option<EndRecord>,
}

impl<G: Game<N>, const N: usize> Default for Log<G, N> {
    fn default() -> Self {
        Log {
            header: None,
            inputs: Vec::new(),
            checksums: Vec::new(),
            events: Vec::new(),
            end: None,
        }
    }
}

impl<G: Game<N>, const N: usize> Log<G, N> {
    /// Adds one whole, checked record body found at `offset`.
    fn add(&mut self, body: &[u8], offset: usize) -> Result<(), ReplayError> {
        let malformed = |what: String| malformed(offset, what);
        if self.end.is_some() {
            return Err(malformed("data after the end record".into()));
        }
        let (kind, payload) = (body[0], &body[1..]);
        if kind != KIND_HEADER && self.header.is_none() {
            return Err(malformed("the first record is not a header".into()));
        }
        let frame = self.inputs.len() as Frame;
        match kind {
            KIND_HEADER if self.header.is_some() => {
                return Err(malformed("a second header record".into()));
            }
            KIND_HEADER => self.header = Some(parse_header::<G, N>(payload).map_err(malformed)?),
            KIND_CHUNK => {
                let chunk =
                    decode_chunk::<G::Input, N>(payload).map_err(|e| malformed(e.into()))?;
                if chunk.start != frame {
                    return Err(malformed(format!(
                        "input chunk starts at frame {}, expected {frame}",
                        chunk.start
                    )));
                }
                self.inputs.extend_from_slice(&chunk.frames);
                self.checksums
                    .push((self.inputs.len() as u32, chunk.checksum));
            }
            KIND_EVENT => {
                let event = serde_json::from_slice(payload)
                    .map_err(|e| malformed(format!("bad event: {e}")))?;
                self.events.push(event);
            }
            KIND_END => {
                let end: EndRecord = serde_json::from_slice(payload)
                    .map_err(|e| malformed(format!("bad end record: {e}")))?;
                if end.frame != frame {
                    return Err(malformed(format!(
                        "end record says frame {}, the inputs end at {frame}",
                        end.frame
                    )));
                }
                self.end = Some(end);
            }
            other => return Err(malformed(format!("unknown record kind {other}"))),
        }
        Ok(())
    }

    /// The replay, given where (if anywhere) the file was cut short.
    fn finish(self, truncated: Option<Cut>) -> Result<Replay<G::Input, N>, ReplayError> {
        let header = self.header.ok_or(ReplayError::NoHeader)?;
        let frames = self.inputs.len() as Frame;
        let cut = match (truncated, &self.end) {
            (Some(cut), _) => Some(cut),
            (None, None) => Some(Cut::NoEnd { at_frame: frames }),
            (None, Some(_)) => None,
        };
        Ok(Replay {
            header,
            inputs: self.inputs,
            checksums: self.checksums,
            events: self.events,
            end: self.end,
            cut,
        })
    }
}

fn parse_header<G: Game<N>, const N: usize>(payload: &[u8]) -> Result<Header, String> {
    let header: Header = serde_json::from_slice(payload).map_err(|e| format!("bad header: {e}"))?;
    let name = G::INFO.name;
    if !header.game.is_empty() && header.game != name {
        return Err(format!("a replay of {}, not of {name}", header.game));
    }
    if header.players != N as u32 {
        return Err(format!("{} players; {name} has {N}", header.players));
    }
    let Some(config) = header.config::<G::Config>() else {
        return Err("the header's simulation config is unreadable".into());
    };
    G::check_config(&config)
        .map_err(|e| format!("the header's simulation config cannot be simulated: {e}"))?;
    Ok(header)
}
