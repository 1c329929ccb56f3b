//! The lobby's shared vocabulary: a player's display name, the version tag
//! a client plays (rooms and quick-match partners must share it), what a
//! client asks for in its room URL's query (`?public=1&name=Ana&...`), and
//! the public room list a server answers `GET /rooms` with.
//!
//! A name is not an identity: anyone may pick any name, two players may
//! pick the same one. It is for people to read, nothing else.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::{SEAT_PARAM, SeatToken, SeatTokenError};

/// The most characters a name may have.
pub const MAX_NAME_CHARS: usize = 16;
/// The most characters a version tag may have.
pub const MAX_VERSION_CHARS: usize = 32;
/// Rooms in one `GET /rooms` answer; `next` pages on.
pub const ROOMS_PAGE: usize = 100;
/// The path of the public room list.
pub const ROOMS_PATH: &str = "/rooms";
/// The highest level (best wave) a client may claim: self-reported, so it
/// only orders quick-match partners.
pub const MAX_LEVEL: u32 = 10_000;
/// The highest round trip to the server a client may report, in ms.
pub const MAX_RTT_MS: u32 = 60_000;

/// A player's display name: 1 to [`MAX_NAME_CHARS`] letters, digits,
/// spaces, `_` and `-`, without spaces around.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct PlayerName(String);

/// Why a name was refused, in one line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Empty after trimming, or longer than [`MAX_NAME_CHARS`].
    #[error("a name needs 1 to {MAX_NAME_CHARS} characters")]
    Length,
    /// A character a name may not hold.
    #[error("a name may hold only letters, digits, spaces, '_' and '-' (not {0:?})")]
    Character(char),
}

impl PlayerName {
    /// `text` trimmed, if it is a name.
    pub fn parse(text: &str) -> Result<PlayerName, NameError> {
        let name = text.trim();
        let count = name.chars().count();
        if count == 0 || count > MAX_NAME_CHARS {
            return Err(NameError::Length);
        }
        if let Some(bad) = name
            .chars()
            .find(|&c| !(c.is_alphanumeric() || c == ' ' || c == '_' || c == '-'))
        {
            return Err(NameError::Character(bad));
        }
        Ok(PlayerName(name.to_owned()))
    }

    /// The name, trimmed.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The name as shown beside others that share it: `Ana`, `Ana (2)`,
    /// ... for the `nth` (from 1) player of that name in a room.
    pub fn nth(&self, nth: usize) -> String {
        match nth {
            0 | 1 => self.0.clone(),
            n => format!("{} ({n})", self.0),
        }
    }
}

impl<'de> Deserialize<'de> for PlayerName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        PlayerName::parse(&text).map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for PlayerName {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a client plays, as it names it (the game's protocol and simulation
/// versions, e.g. `6.3`): rooms list it, `?version=` filters by it, quick
/// match pairs only equal ones. The server compares tags, nothing more.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct VersionTag(String);

/// Why a version tag (or a challenge) was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a version is 1 to {MAX_VERSION_CHARS} letters, digits, '.', '+' or '-'")]
pub struct VersionError;

impl VersionTag {
    /// `text`, if it is 1 to [`MAX_VERSION_CHARS`] ASCII letters, digits,
    /// `.`, `+` or `-` (not trimmed).
    pub fn parse(text: &str) -> Result<VersionTag, VersionError> {
        let ok = !text.is_empty()
            && text.len() <= MAX_VERSION_CHARS
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-'));
        if ok {
            Ok(VersionTag(text.to_owned()))
        } else {
            Err(VersionError)
        }
    }

    /// The tag as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for VersionTag {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        VersionTag::parse(&text).map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for VersionTag {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a client says about itself in its room URL's query. Every field is
/// optional (an older client sends at most `seat`); unknown parameters are
/// ignored, so a newer client can add some; a known one given twice, or
/// one that does not parse, is refused.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientQuery {
    /// The seat token to join with (`seat`): a later connection with it
    /// takes the seat back.
    pub seat: Option<SeatToken>,
    /// A host asking for its room to be listed (`public=1`).
    pub public: bool,
    /// The player's name (`name`): a public room's host, listed.
    pub name: Option<PlayerName>,
    /// What the client plays (`version`): a public room's, listed; quick
    /// match pairs only equal ones.
    pub version: Option<VersionTag>,
    /// Quick match: the best wave this player reached online.
    pub level: Option<u32>,
    /// Quick match: the client's measured round trip to the server.
    pub rtt_ms: Option<u32>,
    /// Quick match: pair only with a client that names the same challenge
    /// (e.g. `daily-2026-11-28`: both want today's daily-challenge seed).
    /// Letters, digits, `.`, `+` and `-`, like a version.
    pub challenge: Option<VersionTag>,
}

/// Why a query was refused, in one line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// `seat` is no seat token.
    #[error("{0}")]
    Seat(SeatTokenError),
    /// `name` is no name.
    #[error("invalid name: {0}")]
    Name(NameError),
    /// `version` is no version tag.
    #[error("invalid version: {0}")]
    Version(VersionError),
    /// `challenge` is no version tag.
    #[error("invalid challenge: {0}")]
    Challenge(VersionError),
    /// A number parameter (named) is not a whole number from 0 to its
    /// maximum (given).
    #[error("'{0}' must be a whole number from 0 to {1}")]
    Number(&'static str, u32),
    /// `public` is neither 0 nor 1.
    #[error("'public' is 0 or 1")]
    Public,
    /// A parameter (named) given more than once.
    #[error("'{0}' is given twice")]
    Twice(&'static str),
}

// The query parameters, as the client writes them.
/// [`ClientQuery::public`]'s parameter.
pub const PUBLIC_PARAM: &str = "public";
/// [`ClientQuery::name`]'s parameter.
pub const NAME_PARAM: &str = "name";
/// [`ClientQuery::version`]'s parameter.
pub const VERSION_PARAM: &str = "version";
/// [`ClientQuery::level`]'s parameter.
pub const LEVEL_PARAM: &str = "level";
/// [`ClientQuery::rtt_ms`]'s parameter.
pub const RTT_PARAM: &str = "rtt";
/// [`ClientQuery::challenge`]'s parameter.
pub const CHALLENGE_PARAM: &str = "challenge";

impl ClientQuery {
    /// Parses a URL's query (without `?`), percent-decoded.
    pub fn parse(query: Option<&str>) -> Result<ClientQuery, QueryError> {
        let mut out = ClientQuery::default();
        let Some(query) = query else { return Ok(out) };
        let mut seen: Vec<&'static str> = Vec::new();
        let mut once = |name: &'static str| {
            if seen.contains(&name) {
                return Err(QueryError::Twice(name));
            }
            seen.push(name);
            Ok(())
        };
        let number = |name: &'static str, text: &str, max: u32| {
            text.parse::<u32>()
                .ok()
                .filter(|n| *n <= max)
                .ok_or(QueryError::Number(name, max))
        };
        for (key, value) in form_urlencoded::parse(query.as_bytes()) {
            match key.as_ref() {
                SEAT_PARAM => {
                    once(SEAT_PARAM)?;
                    out.seat = Some(SeatToken::parse(&value).map_err(QueryError::Seat)?);
                }
                PUBLIC_PARAM => {
                    once(PUBLIC_PARAM)?;
                    out.public = match value.as_ref() {
                        "1" => true,
                        "0" => false,
                        _ => return Err(QueryError::Public),
                    };
                }
                NAME_PARAM => {
                    once(NAME_PARAM)?;
                    out.name = Some(PlayerName::parse(&value).map_err(QueryError::Name)?);
                }
                VERSION_PARAM => {
                    once(VERSION_PARAM)?;
                    out.version = Some(VersionTag::parse(&value).map_err(QueryError::Version)?);
                }
                LEVEL_PARAM => {
                    once(LEVEL_PARAM)?;
                    out.level = Some(number(LEVEL_PARAM, &value, MAX_LEVEL)?);
                }
                RTT_PARAM => {
                    once(RTT_PARAM)?;
                    out.rtt_ms = Some(number(RTT_PARAM, &value, MAX_RTT_MS)?);
                }
                CHALLENGE_PARAM => {
                    once(CHALLENGE_PARAM)?;
                    out.challenge = Some(VersionTag::parse(&value).map_err(QueryError::Challenge)?);
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// The query a client appends to its room URL (`None` when empty).
    pub fn to_query(&self) -> Option<String> {
        let mut out = form_urlencoded::Serializer::new(String::new());
        if let Some(seat) = &self.seat {
            out.append_pair(SEAT_PARAM, &seat.to_string());
        }
        if self.public {
            out.append_pair(PUBLIC_PARAM, "1");
        }
        if let Some(name) = &self.name {
            out.append_pair(NAME_PARAM, name.as_str());
        }
        if let Some(version) = &self.version {
            out.append_pair(VERSION_PARAM, version.as_str());
        }
        if let Some(level) = self.level {
            out.append_pair(LEVEL_PARAM, &level.to_string());
        }
        if let Some(rtt) = self.rtt_ms {
            out.append_pair(RTT_PARAM, &rtt.to_string());
        }
        if let Some(challenge) = &self.challenge {
            out.append_pair(CHALLENGE_PARAM, challenge.as_str());
        }
        Some(out.finish()).filter(|q| !q.is_empty())
    }
}

/// Whether a listed room waits for its second player or plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RoomStatus {
    /// Its host waits for a second player.
    Waiting,
    /// Both players are in.
    Playing,
}

/// One public room in `GET /rooms`. The match figures are the host's own
/// report (checked for range by the server, shown, never trusted).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomListing {
    /// The code to join or watch, as players write it (`K7Q-2XM`).
    pub code: String,
    /// The host's name.
    pub host: PlayerName,
    /// Waiting for a second player, or playing.
    pub state: RoomStatus,
    /// What the host plays (its client's version tag).
    pub version: VersionTag,
    /// When the room was listed, in Unix seconds (the server's clock).
    pub created_s: u64,
    /// The match's wave, as the host last reported it (while it plays).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wave: Option<u32>,
    /// The match's score, as the host last reported it (while it plays).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<u64>,
    /// Seconds the match has run, as the host last reported it (while it
    /// plays).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_s: Option<u32>,
    /// Spectators watching, as the server counts them (while it plays).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spectators: Option<u32>,
}

impl RoomListing {
    /// Where the room stands in the list, newest first, the same on every
    /// node (a list merged from several servers pages consistently): its
    /// creation second, then a hash of its code (and, for the rare two
    /// rooms that share both, the code itself: see [`RoomListing::order`]).
    pub fn order_key(&self) -> u64 {
        // FNV-1a: fixed, so every build and node agrees.
        let mut hash: u32 = 0x811c_9dc5;
        for byte in self.code.bytes() {
            hash = (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193);
        }
        (self.created_s.min((1 << 40) - 1) << 24) | u64::from(hash & 0xff_ffff)
    }

    /// The list's order, newest first, without ties: the key, then the
    /// code. A page's `next` cursor is its last room's.
    pub fn order(&self) -> (u64, &str) {
        (self.order_key(), &self.code)
    }

    /// The cursor that continues after this room.
    fn cursor(&self) -> String {
        format!("{}.{}", self.order_key(), self.code)
    }
}

/// The answer to `GET /rooms`: newest first, at most [`ROOMS_PAGE`];
/// `next`, when there are more, is the `cursor` for the next page.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomsPage {
    /// The page's rooms, newest first.
    pub rooms: Vec<RoomListing>,
    /// The cursor of the next page, if there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

impl RoomsPage {
    /// The page `query` asks for out of `rooms` (in any order, each code
    /// once): its version only, after its cursor, newest first.
    pub fn of(mut rooms: Vec<RoomListing>, query: &RoomsQuery) -> RoomsPage {
        rooms.retain(|r| query.version.as_ref().is_none_or(|v| *v == r.version));
        if let Some((key, code)) = &query.cursor {
            rooms.retain(|r| r.order() < (*key, code.as_str()));
        }
        rooms.sort_by(|a, b| b.order().cmp(&a.order()));
        let more = rooms.len() > ROOMS_PAGE;
        rooms.truncate(ROOMS_PAGE);
        let next = more
            .then(|| rooms.last().map(RoomListing::cursor))
            .flatten();
        RoomsPage { rooms, next }
    }
}

/// What `GET /rooms` was asked: rooms of one version, after a cursor.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoomsQuery {
    /// Only rooms of this version (`version`); all when `None`.
    pub version: Option<VersionTag>,
    /// Rooms listed before this one (a `next` from an earlier page: the
    /// last room's order key and code).
    pub cursor: Option<(u64, String)>,
}

/// Why a `GET /rooms` query was refused, in one line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RoomsQueryError {
    /// `version` is no version tag.
    #[error("invalid version: {0}")]
    Version(VersionError),
    /// `cursor` is not in the form of a page's `next` (`KEY.CODE`).
    #[error("invalid cursor (pass the 'next' of an earlier answer)")]
    Cursor,
    /// `version` or `cursor` given more than once.
    #[error("'{0}' is given twice")]
    Twice(&'static str),
}

impl RoomsQuery {
    /// Parses a `GET /rooms` URL's query (without `?`), percent-decoded;
    /// unknown parameters are ignored.
    pub fn parse(query: Option<&str>) -> Result<RoomsQuery, RoomsQueryError> {
        let mut out = RoomsQuery::default();
        let Some(query) = query else { return Ok(out) };
        for (key, value) in form_urlencoded::parse(query.as_bytes()) {
            match key.as_ref() {
                "version" if out.version.is_some() => {
                    return Err(RoomsQueryError::Twice("version"));
                }
                "version" => {
                    out.version = Some(VersionTag::parse(&value).map_err(RoomsQueryError::Version)?)
                }
                "cursor" if out.cursor.is_some() => return Err(RoomsQueryError::Twice("cursor")),
                "cursor" => out.cursor = Some(parse_cursor(&value).ok_or(RoomsQueryError::Cursor)?),
                _ => {}
            }
        }
        Ok(out)
    }
}

/// `KEY.CODE`, as [`RoomsPage`]'s `next` writes it.
fn parse_cursor(text: &str) -> Option<(u64, String)> {
    let (key, code) = text.split_once('.')?;
    let digits = !key.is_empty() && key.len() <= 20 && key.bytes().all(|b| b.is_ascii_digit());
    let code_ok = !code.is_empty()
        && code.len() <= 16
        && code.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if !(digits && code_ok) {
        return None;
    }
    Some((key.parse().ok()?, code.to_owned()))
}

#[cfg(test)]
#[path = "lobby_tests.rs"]
mod tests;
