//! Format v1 byte layout. See `docs/replay-format.md` for the prose version.
//!
//! ```text
//! file   = MAGIC (8) | format version u16 | sim version u32 | record*
//! record = body length u32 | body | check u32
//! body   = kind u8 | payload
//! check  = low 32 bits of XXH3-64(body)
//! ```
//! All integers little-endian.

use bytemuck::Pod;
use serde::{Deserialize, Serialize};

use crate::input_runs::{put_input_runs, read_input_runs};

use crate::{Frame, Game};

/// The first 8 bytes of every replay file.
pub const MAGIC: [u8; 8] = *b"TWINSTAR";
/// The format version this build writes and reads (after [`MAGIC`]).
pub const FORMAT_VERSION: u16 = 1;
/// Bytes before the first record.
pub const PREAMBLE_LEN: usize = 8 + 2 + 4;
/// Largest body a reader accepts: an absurd length prefix is an error, not
/// an allocation.
pub const MAX_RECORD_BYTES: u32 = 64 * 1024;
/// Frames per input chunk, and so between recorded checksums: one second.
/// Also how often the writer flushes at 60 fps.
pub use crate::input_runs::CHECKSUM_INTERVAL;

/// The largest input-chunk record on disk for two players' one-byte
/// inputs (twinstar's, Pong's): every input changing on every frame (one
/// run per frame), with the length, kind and check around it.
const MAX_CHUNK_RECORD_BYTES: u64 = 4 + 1 + (4 + 1 + 2 * 2 * CHECKSUM_INTERVAL as u64 + 16) + 4;
/// Files above this size are refused, and no more is ever read: a 24-hour
/// match of two players with one-byte inputs and a new input on every frame
/// is about 23 MB (86,400 of those chunks), so this leaves room for its
/// events while bounding memory.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
const _: () = assert!(24 * 3600 * MAX_CHUNK_RECORD_BYTES < MAX_FILE_BYTES / 2);

pub const KIND_HEADER: u8 = 1;
pub const KIND_CHUNK: u8 = 2;
pub const KIND_EVENT: u8 = 3;
pub const KIND_END: u8 = 4;

/// What a replay needs to start the same match again, and who played it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// The game's name (`GameInfo::name`); absent in replays written
    /// before the netcode became a library, which were all twinstar's.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub game: String,
    /// The version of the game that recorded it.
    pub game_version: String,
    /// The mode it was recorded in: `synctest`, `local`, or online by role
    /// (`host`, `join`, `quick`).
    pub mode: String,
    /// The match's seed.
    pub seed: u64,
    /// Preset name, or "custom".
    pub preset: String,
    /// The exact bytes of the game's config, hex: the rules, whatever the
    /// preset table says in a later build.
    pub config_hex: String,
    /// Players in the match.
    pub players: u32,
    /// The input delay the match was played with, in frames.
    pub input_delay: u32,
    /// When the match started, in milliseconds since the Unix epoch.
    pub start_unix_ms: u64,
    /// The room code, for an online match.
    pub room: Option<String>,
    /// The peers' ids in the room, for an online match.
    pub peers: Vec<String>,
    /// The players' names in the match (player 1's first), when they gave
    /// any: a replay shows who played. Absent in older replays.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
}

impl Header {
    /// The players' names, player 1's first: the recorded ones if they
    /// are two valid chat names, else `P1` and `P2`.
    /// Records the players' names, unless they are the defaults `P1` and
    /// `P2` (which a replay without names shows anyway).
    pub fn set_player_names<const N: usize>(&mut self, names: [String; N]) {
        let defaults = std::array::from_fn(crate::names::player_name);
        self.names = if names == defaults {
            Vec::new()
        } else {
            names.to_vec()
        };
    }

    /// The players' names, player 1's first (`P1`, `P2` where none was recorded).
    pub fn player_names<const N: usize>(&self) -> [String; N] {
        use crate::names::{player_name, valid_name};
        match <&[String; N]>::try_from(self.names.as_slice()) {
            Ok(names) if names.iter().all(|n| valid_name(n)) => names.clone(),
            _ => std::array::from_fn(player_name),
        }
    }

    /// The header of a match of `G` played in `mode` from `seed` by
    /// `config`'s rules.
    pub fn new<G: Game<N>, const N: usize>(mode: &str, seed: u64, config: &G::Config) -> Self {
        let start_unix_ms = web_time::SystemTime::now()
            .duration_since(web_time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        Header {
            game: G::INFO.name.to_string(),
            game_version: G::INFO.version.to_string(),
            mode: mode.to_string(),
            seed,
            preset: G::preset_name(config).unwrap_or("custom").to_string(),
            config_hex: bytemuck::bytes_of(config)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
            players: N as u32,
            input_delay: 0,
            start_unix_ms,
            room: None,
            peers: Vec::new(),
            names: Vec::new(),
        }
    }

    /// The recorded rules, if the hex is well formed.
    pub fn config<C: Pod>(&self) -> Option<C> {
        let hex = self.config_hex.as_bytes();
        if hex.len() != 2 * std::mem::size_of::<C>() {
            return None;
        }
        let bytes: Option<Vec<u8>> = hex
            .chunks(2)
            .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok())
            .collect();
        bytemuck::try_pod_read_unaligned(&bytes?).ok()
    }
}

/// Something that happened during the match, other than inputs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayEvent {
    /// The number of frames recorded when it happened.
    pub frame: Frame,
    /// What happened.
    pub kind: EventKind,
    /// Its particulars, for people to read (each kind says what).
    pub detail: String,
}

/// What an event record says happened. In the file it is the snake_case
/// name (`peer_left`); `docs/replay-format.md` lists the same names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum EventKind {
    /// The input delay was retuned; detail: `old -> new frames at frame F (rtt, jitter)`.
    InputDelay,
    /// No packet from the peer for a while; detail: the time left before giving up.
    Interrupted,
    /// Packets flow again after an interruption.
    Resumed,
    /// The peers' checksums differ; detail: the frame and both checksums.
    Desync,
    /// The peer ended the match; detail: its reason.
    PeerLeft,
    /// A player whose connection was lost came back and the match went on
    /// from its confirmed frame; detail: who, the frame, the wait and the
    /// catch-up's size.
    Rejoined,
    /// A room chat line, ours or the peer's; detail: `P2: text`.
    Chat,
    /// A kind this build does not know (a newer writer's): kept and shown as
    /// it is, so one new kind does not make a whole replay unreadable.
    Other(String),
}

impl EventKind {
    /// Every kind this build writes.
    pub const WRITTEN: [EventKind; 7] = [
        EventKind::InputDelay,
        EventKind::Interrupted,
        EventKind::Resumed,
        EventKind::Desync,
        EventKind::PeerLeft,
        EventKind::Rejoined,
        EventKind::Chat,
    ];

    /// The name in the file.
    pub fn as_str(&self) -> &str {
        match self {
            EventKind::InputDelay => "input_delay",
            EventKind::Interrupted => "interrupted",
            EventKind::Resumed => "resumed",
            EventKind::Desync => "desync",
            EventKind::PeerLeft => "peer_left",
            EventKind::Rejoined => "rejoined",
            EventKind::Chat => "chat",
            EventKind::Other(name) => name,
        }
    }
}

impl From<String> for EventKind {
    fn from(name: String) -> Self {
        EventKind::WRITTEN
            .into_iter()
            .find(|kind| kind.as_str() == name)
            .unwrap_or(EventKind::Other(name))
    }
}

impl From<EventKind> for String {
    fn from(kind: EventKind) -> Self {
        kind.as_str().to_string()
    }
}

impl std::fmt::Display for EventKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The end record: how the match ended, written last.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EndRecord {
    /// Frames recorded in all.
    pub frame: Frame,
    /// The state checksum after the last recorded frame.
    pub checksum: u128,
    /// Why the match ended, for people to read.
    pub reason: String,
}

/// One chunk of consecutive frames: inputs run-length encoded per player,
/// then the state checksum after the chunk's last frame.
///
/// ```text
/// start u32 | count u8 | per player: (input u8, run u8)* summing to count
/// | checksum u128
/// ```
pub fn encode_chunk<I: Pod + PartialEq, const N: usize>(
    start: Frame,
    frames: &[[I; N]],
    checksum: u128,
    out: &mut Vec<u8>,
) {
    debug_assert!(!frames.is_empty() && frames.len() <= u8::MAX as usize);
    out.extend_from_slice(&start.to_le_bytes());
    out.push(frames.len() as u8);
    put_input_runs(frames, out);
    out.extend_from_slice(&checksum.to_le_bytes());
}

/// A decoded chunk.
pub struct Chunk<I, const N: usize> {
    /// Frames recorded before this chunk (its first frame's number).
    pub start: u32,
    /// Each frame's inputs, one per player.
    pub frames: Vec<[I; N]>,
    /// The state checksum after the chunk's last frame.
    pub checksum: u128,
}

/// Decodes a chunk payload; `Err` says what is wrong with it.
pub fn decode_chunk<I: Pod, const N: usize>(payload: &[u8]) -> Result<Chunk<I, N>, &'static str> {
    let mut cur = Cursor(payload);
    let start = u32::from_le_bytes(cur.take()?);
    let [count] = cur.take::<1>()?;
    if count == 0 {
        return Err("empty input chunk");
    }
    let (frames, used) = read_input_runs(cur.0, count as usize)?;
    cur.0 = &cur.0[used..];
    let checksum = u128::from_le_bytes(cur.take()?);
    if !cur.0.is_empty() {
        return Err("trailing bytes after an input chunk");
    }
    Ok(Chunk {
        start,
        frames,
        checksum,
    })
}

struct Cursor<'a>(&'a [u8]);

impl Cursor<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], &'static str> {
        let (head, rest) = self
            .0
            .split_first_chunk::<N>()
            .ok_or("input chunk ends early")?;
        self.0 = rest;
        Ok(*head)
    }
}

/// Low 32 bits of XXH3-64 of a record body.
pub fn body_check(body: &[u8]) -> u32 {
    xxhash_rust::xxh3::xxh3_64(body) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_game::TestGame;

    #[test]
    fn chunk_round_trip() {
        let frames: Vec<[u8; 2]> = (0..60u8).map(|i| [i / 10, i % 3]).collect();
        let mut bytes = Vec::new();
        encode_chunk(120, &frames, 0xDEAD_BEEF, &mut bytes);
        let chunk = decode_chunk::<u8, 2>(&bytes).unwrap();
        assert_eq!((chunk.start, chunk.checksum), (120, 0xDEAD_BEEF));
        assert_eq!(chunk.frames, frames);
    }

    #[test]
    fn held_buttons_compress() {
        let frames = vec![[0x10u8, 0]; 60];
        let mut bytes = Vec::new();
        encode_chunk(0, &frames, 0, &mut bytes);
        assert_eq!(bytes.len(), 4 + 1 + 2 + 2 + 16);
    }

    #[test]
    fn event_kinds_keep_their_names_and_unknown_ones_survive() {
        for kind in EventKind::WRITTEN {
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.as_str()));
            assert_eq!(serde_json::from_str::<EventKind>(&json).unwrap(), kind);
        }
        let names = EventKind::WRITTEN.map(|k| k.as_str().to_string());
        assert_eq!(
            names,
            [
                "input_delay",
                "interrupted",
                "resumed",
                "desync",
                "peer_left",
                "rejoined",
                "chat"
            ]
        );
        let event: ReplayEvent =
            serde_json::from_str(r#"{"frame":3,"kind":"solar_flare","detail":""}"#).unwrap();
        assert_eq!(event.kind, EventKind::Other("solar_flare".into()));
    }

    /// The format page lists exactly the kinds that are written.
    #[test]
    fn the_format_page_lists_the_written_event_kinds() {
        let page = include_str!("../../../../docs/replay-format.md");
        let table = page
            .split("Event kinds this build writes")
            .nth(1)
            .expect("the page has the event kinds table");
        let listed: Vec<&str> = table
            .lines()
            .skip_while(|l| !l.starts_with('|'))
            .take_while(|l| l.starts_with('|'))
            .filter_map(|l| l.split('`').nth(1))
            .collect();
        let written = EventKind::WRITTEN.map(|k| k.as_str().to_string());
        assert_eq!(listed, written, "docs/replay-format.md");
    }

    #[test]
    fn header_config_round_trip() {
        let stress = TestGame::preset("stress").unwrap();
        let header = Header::new::<TestGame, 2>("local", 9, &stress);
        assert_eq!(header.config(), Some(stress));
        assert_eq!(header.game, "testgame");
        let broken = Header {
            config_hex: "zz".into(),
            ..header
        };
        assert_eq!(broken.config::<crate::test_game::Rules>(), None);
    }
}
