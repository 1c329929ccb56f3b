//! Everything the reliable channel carries, and its version: [`Message`]
//! (the handshake's `Hello`, probes and `Measured`; the match's `Done`,
//! `Bye`, `Desync`; catch-ups, chat, spectators' `Watch` and `Streaming`),
//! the claims a rejoiner makes, and what goes wrong reading a peer's bytes
//! ([`HandshakeError`]). The envelope is `super` (`encode`, `decode`); the
//! handshake (`net::handshake`) and every phase after it use these types
//! and are used by none of them.

use serde::{Deserialize, Serialize};

use crate::{Frame, GameInfo};

/// Bumped whenever the handshake, the control messages, their encoding or
/// the GGRS input encoding changes (2: `Chat`, `CatchUp`, `CaughtUp`,
/// rejoin claims in `Hello`, which a version-1 peer could not decode; 3:
/// `Watch`, `WatchRefused`, spectators' catch-up and `Done`; 4: `Relayed`
/// chat lines and the spectator's chat name in `Streaming`; 5: the binary
/// envelope of `net::protocol` instead of JSON, catch-up chunks as bytes;
/// 6: `Hello::confirmed`, and a resumed match's catch-up both ways; 7:
/// players' and spectators' display names in `Hello`, `Watch` and
/// `Streaming`; 8: `Away`; 9: `DesyncState`; 10: the game's name in
/// `Hello` and `Watch`, as the netcode became a library; 11: no input
/// delay in `Hello`, which no peer read: the delay is the handshake's
/// agreement).
pub const PROTOCOL_VERSION: u32 = 11;
/// What this build plays, as the signaling server's room list and quick
/// match compare it: the protocol and simulation versions (`6.3`), which
/// are what must match for two builds to play together.
pub fn version_tag(game: &GameInfo) -> crate::net::signaling::VersionTag {
    crate::net::signaling::VersionTag::parse(&format!("{PROTOCOL_VERSION}.{}", game.sim_version))
        .expect("two numbers and a dot are a version tag")
}

/// Which command started this peer; decides who is player 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Opens a room and is player 1.
    Host,
    /// Joins a room by its code and is player 2.
    Join,
    /// Asks the server for any partner; the server decides who hosts.
    Quick,
}

impl Role {
    /// The role's name in summaries, replays and window titles.
    pub fn name(self) -> &'static str {
        match self {
            Role::Host => "host",
            Role::Join => "join",
            Role::Quick => "quick",
        }
    }
}

/// What a peer tells the other before anything else.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hello {
    /// The control protocol's version ([`PROTOCOL_VERSION`]).
    pub protocol: u32,
    /// The game's name: builds of two games never play each other.
    pub game: String,
    /// The game's version (its build).
    pub game_version: String,
    /// The simulation's version: only builds with the same one play together.
    pub sim_version: u32,
    /// Host or joiner.
    pub role: Role,
    /// Breaks the tie when both peers have the same role (quick match).
    pub nonce: u64,
    /// The seed and preset this peer would use as player 1.
    pub seed: u64,
    /// The rule preset's name, one of the game's.
    pub preset: String,
    /// Matches this peer played in this room and may rejoin (from its
    /// rejoin tickets, at most one per player slot: more do not decode).
    #[serde(default, deserialize_with = "claims::deserialize")]
    pub rejoin: Vec<Claim>,
    /// Set by a peer whose partner dropped: it keeps match `match_id` as
    /// player `player` and admits only the other player of that match.
    #[serde(default)]
    pub resume: Option<Claim>,
    /// With `rejoin` or `resume`: the frames of that match this peer has
    /// confirmed (0 after a crash). Each side sends the other the
    /// confirmed frames it lacks, so both resume from the later one.
    #[serde(default)]
    pub confirmed: Frame,
    /// The player's display name (`--name`), empty for none. A name is not
    /// an identity; one that is not a valid name is taken as none.
    #[serde(default)]
    pub name: String,
}

/// A player of one match: "match M, player P" (P is 1 or 2). A claim of
/// any other player does not decode: the `Hello` carrying it is malformed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "ClaimFields")]
pub struct Claim {
    /// The match, as its agreement named it.
    pub match_id: u64,
    /// The player's number, 1 or 2.
    pub player: u8,
}

/// A claim as it arrives, before its player number is checked.
#[derive(Deserialize)]
struct ClaimFields {
    match_id: u64,
    player: u8,
}

impl TryFrom<ClaimFields> for Claim {
    type Error = String;

    fn try_from(fields: ClaimFields) -> Result<Claim, String> {
        match fields.player {
            1 | 2 => Ok(Claim {
                match_id: fields.match_id,
                player: fields.player,
            }),
            other => Err(format!("a claim of player {other}: players are 1 and 2")),
        }
    }
}

impl Claim {
    /// The other player of the same match (player 1's for anything but 1,
    /// so a number that slipped past decoding cannot underflow).
    pub fn partner(self) -> Claim {
        Claim {
            match_id: self.match_id,
            player: if self.player == 1 { 2 } else { 1 },
        }
    }
}

impl Hello {
    /// The `Hello` this build of `game` sends as `role`, offering `seed` and `preset`.
    pub fn new(game: &GameInfo, role: Role, seed: u64, preset: &str) -> Self {
        Hello {
            protocol: PROTOCOL_VERSION,
            game: game.name.to_string(),
            game_version: game.version.to_string(),
            sim_version: game.sim_version,
            role,
            nonce: rand::random(),
            seed,
            preset: preset.to_string(),
            rejoin: Vec::new(),
            resume: None,
            confirmed: 0,
            name: String::new(),
        }
    }

    /// How a peer names its build in a version mismatch.
    pub(crate) fn describe(&self) -> String {
        format!(
            "{} {} (protocol {}, simulation {})",
            self.game, self.game_version, self.protocol, self.sim_version
        )
    }

    /// Whether a peer that sent this plays the same game as `ours`, at the
    /// same protocol and simulation versions.
    pub(crate) fn same_build(&self, ours: &Hello) -> bool {
        self.protocol == ours.protocol
            && self.game == ours.game
            && self.sim_version == ours.sim_version
    }
}

/// A `Hello`'s claims, read one by one up to one per player slot, so a
/// peer's length prefix never sizes an allocation.
mod claims {
    use serde::de::{Deserializer, Error, SeqAccess, Visitor};

    use super::Claim;
    use crate::game::MAX_PLAYERS as PLAYERS;

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Claim>, D::Error> {
        d.deserialize_seq(Claims)
    }

    struct Claims;

    impl<'de> Visitor<'de> for Claims {
        type Value = Vec<Claim>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "at most {PLAYERS} rejoin claims")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Claim>, A::Error> {
            let mut claims = Vec::new();
            while let Some(claim) = seq.next_element()? {
                if claims.len() == PLAYERS {
                    return Err(A::Error::custom("more rejoin claims than player slots"));
                }
                claims.push(claim);
            }
            Ok(claims)
        }
    }
}

/// Everything that crosses the reliable channel, in `net::protocol`'s
/// envelope. The variants' order is the wire's: a new one goes last, and
/// any change bumps [`PROTOCOL_VERSION`]. (As JSON, for test transcripts:
/// `{"pong":{"seq":3}}`, `"busy"`.)
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Message {
    /// The first message: who this peer is and what it offers.
    Hello(Hello),
    /// A latency probe.
    Ping {
        /// The probe's number.
        seq: u32,
    },
    /// The answer to a `Ping`.
    Pong {
        /// The number of the probe answered.
        seq: u32,
    },
    /// What the sender measured of the link.
    Measured {
        /// The median round trip, in microseconds.
        rtt_us: u64,
        /// The round trip's jitter, in microseconds.
        jitter_us: u64,
    },
    /// End of a `--frames N` match: the confirmed checksum at frame N.
    Done {
        /// The last frame of the match.
        frame: Frame,
        #[serde(with = "hex_checksum_field")]
        /// The confirmed checksum there.
        checksum: u128,
    },
    /// The player left on purpose (Esc, window closed).
    Bye {
        /// Why, in words.
        reason: String,
    },
    /// The sender detected a desync: its checksum and ours at `frame`, so
    /// both players see the same report even if one end noticed first.
    Desync {
        /// The frame whose checksums differ.
        frame: Frame,
        #[serde(with = "hex_checksum_field")]
        /// The sender's checksum there.
        sender: u128,
        #[serde(with = "hex_checksum_field")]
        /// The receiver's checksum there, as the sender heard it.
        receiver: u128,
    },
    /// The answer to a `Hello` from anyone but the partner: this peer is
    /// already paired (its match runs or its handshake does). A signaling
    /// server without room caps (matchbox's stock full mesh) lets a third
    /// player into a room; this tells it why nobody will play with it.
    Busy,
    /// To a rejoining player: the next confirmed frames of the match, as
    /// replay chunks (`net::rejoin::encode_catch_up`).
    CatchUp {
        #[serde(with = "serde_bytes")]
        /// Replay chunks of confirmed frames.
        chunks: Vec<u8>,
    },
    /// The catch-up is complete: `frame` frames, the world's checksum after
    /// them. Both peers start a new GGRS session from there.
    CaughtUp {
        /// Frames caught up on.
        frame: Frame,
        #[serde(with = "hex_checksum_field")]
        /// The world's checksum after them.
        checksum: u128,
    },
    /// A room chat line (`session::chat`). Never part of the simulation;
    /// the receiver checks it (length, printable, rate) before keeping it.
    Chat {
        /// The line.
        text: String,
    },
    /// A spectator asks the player it reached to stream the match to it,
    /// every 500 ms until the first `CatchUp` arrives (a message sent
    /// before the far end's channel opens is lost). The player answers
    /// with the confirmed match so far (`CatchUp`, no `CaughtUp`), then a
    /// `CatchUp` of each few new confirmed frames, and `Done` or `Bye`.
    Watch(Watch),
    /// The answer to a `Watch` this player cannot serve (another version).
    WatchRefused {
        /// Why, in words.
        reason: String,
    },
    /// The answer to a `Watch`, before the match's frames: what a spectator
    /// needs to simulate them, how many frames the match so far has (the
    /// `CatchUp`s right after carry them), the spectator's name in the
    /// room's chat (the one it asked for, made unique, or `S1`, `S2`, ...),
    /// and the players' (player 1's first).
    Streaming {
        /// The match's seed.
        seed: u64,
        /// The match's rule preset.
        preset: String,
        /// Frames the match has so far.
        frame: Frame,
        /// The spectator's name in the room's chat.
        name: String,
        /// The players' names, player 1's first.
        players: Vec<String>,
    },
    /// A chat line passed on by the streaming player: a spectator's to the
    /// other player, everyone's to the spectators (a spectator's own line
    /// comes back to it this way). `frame` is the streaming player's
    /// confirmed frame when it recorded the line: where the line stands in
    /// its replay, and so in every spectator's. Checked like `Chat`.
    Relayed {
        /// Who wrote the line.
        from: String,
        /// The streaming player's confirmed frame when it recorded the line.
        frame: Frame,
        /// The line.
        text: String,
    },
    /// The sender's game stops running for a while (its page went to the
    /// background, where a browser stops its frames): pause the match at
    /// once by role, as after a silence, instead of predicting through
    /// seconds of missing inputs. The sender pauses by its own role when it
    /// runs again, and the match resumes through a fresh connection.
    Away,
    /// After a desync, both players' evidence for a report that explains
    /// it (`session::desync`).
    DesyncState(DesyncState),
}

/// One player's evidence after a desync: its checksum at `frame`, its
/// world there (plain old data, deflated; empty if it kept no copy), and
/// the inputs of both players it confirmed for frames `inputs_from..`
/// (one byte per player per frame, player 1's first).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DesyncState {
    /// The desync's frame.
    pub frame: Frame,
    #[serde(with = "hex_checksum_field")]
    /// The player's checksum at `frame`.
    pub checksum: u128,
    #[serde(with = "serde_bytes")]
    /// Its world at `frame`, deflated (empty: it kept no copy).
    pub world: Vec<u8>,
    /// The first frame of `inputs`.
    pub inputs_from: Frame,
    #[serde(with = "serde_bytes")]
    /// Confirmed inputs, one byte per player per frame.
    pub inputs: Vec<u8>,
}

/// A spectator's request to watch: the versions it runs (the same as
/// players need), and the display name it would like (empty for none).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Watch {
    /// The control protocol's version.
    pub protocol: u32,
    /// The game's name.
    pub game: String,
    /// The simulation's version.
    pub sim_version: u32,
    /// The game's version.
    pub game_version: String,
    #[serde(default)]
    /// The name the spectator would like (empty: none).
    pub name: String,
}

impl Watch {
    /// The `Watch` this build of `game` sends.
    pub fn this_build(game: &GameInfo) -> Watch {
        Watch {
            protocol: PROTOCOL_VERSION,
            game: game.name.to_string(),
            sim_version: game.sim_version,
            game_version: game.version.to_string(),
            name: String::new(),
        }
    }

    /// Why this build of `ours` cannot stream to the spectator that sent
    /// this, if it cannot.
    pub fn mismatch(&self, ours: &GameInfo) -> Option<String> {
        let Watch {
            protocol,
            game,
            sim_version,
            game_version,
            ..
        } = self;
        (*protocol != PROTOCOL_VERSION || game != ours.name || *sim_version != ours.sim_version)
            .then(|| {
                format!(
                    "version mismatch: the players run {} {} (protocol {PROTOCOL_VERSION}, simulation {}), the spectator {game} {game_version} (protocol {protocol}, simulation {sim_version}); both need the same version",
                    ours.name, ours.version, ours.sim_version
                )
            })
    }
}

/// Checksums: 16 bytes on the wire; 32 hex digits in JSON (test
/// transcripts), where one that does not parse fails the whole message.
mod hex_checksum_field {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    use crate::checksum::parse_hex_checksum;
    use crate::hex_checksum;

    pub fn serialize<S: Serializer>(checksum: &u128, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            s.serialize_str(&hex_checksum(*checksum))
        } else {
            s.serialize_bytes(&checksum.to_le_bytes())
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
        if d.is_human_readable() {
            let text = <&str>::deserialize(d)?;
            return parse_hex_checksum(text).map_err(D::Error::custom);
        }
        let bytes = <&[u8]>::deserialize(d)?;
        let bytes: [u8; 16] = bytes
            .try_into()
            .map_err(|_| D::Error::custom("a checksum is 16 bytes"))?;
        Ok(u128::from_le_bytes(bytes))
    }
}

impl Message {
    /// The message in its envelope (`net::protocol`).
    pub fn encode(&self) -> Vec<u8> {
        super::encode(self)
    }

    /// A message from its envelope; sizes are checked before anything is
    /// allocated, and another version is a [`HandshakeError::VersionMismatch`].
    pub fn decode(bytes: &[u8]) -> Result<Message, HandshakeError> {
        super::decode(bytes)
    }
}

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
/// Why a handshake failed.
pub enum HandshakeError {
    #[error(
        "version mismatch: this is {ours}, the other player runs {theirs}; both need the same version"
    )]
    /// The peers run builds that cannot play together.
    VersionMismatch {
        /// This build's versions.
        ours: String,
        /// The other peer's.
        theirs: String,
    },
    #[error(
        "the other player sent a {bytes}-byte message that is not a twinstar handshake (another program or an incompatible version?)"
    )]
    /// A message that is not a handshake's.
    Malformed {
        /// Its length.
        bytes: usize,
    },
    #[error("the host plays preset '{0}', which this build does not know")]
    /// The host's rule preset is not one this build knows.
    UnknownPreset(String),
    #[error("both peers drew the same tie-break number; try again")]
    /// Both peers drew the same tie-break number.
    Tie,
    /// The peer answered our `Hello` with `Busy`; `net::connect` names the
    /// room.
    #[error("a match is already running with the other player")]
    MatchRunning,
    /// A newcomer reached a match that waits for its dropped player.
    #[error(
        "the match in this room is paused, waiting for player {waiting_for} to rejoin; only that player can join it now"
    )]
    Paused {
        /// The player the match waits for, 1 or 2.
        waiting_for: u8,
    },
    /// A rejoin ticket of another match (or of the player who is still there).
    #[error(
        "the match in this room is not the one you left (it waits for player {waiting_for} of another match to rejoin)"
    )]
    NotThisMatch {
        /// The player the match waits for, 1 or 2.
        waiting_for: u8,
    },
    #[error("both peers hold a paused match, but not the two seats of the same one")]
    /// Both peers hold a paused match, but not the two seats of one.
    BothResuming,
}
