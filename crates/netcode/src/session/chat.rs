//! Room chat: short text lines between the players and spectators of a
//! room. Lines travel on the reliable control channel (`Message::Chat`
//! between the players and from a spectator to the player who streams to
//! it; `Message::Relayed` for what that player passes on), never into the
//! simulation; each peer writes the lines into its replay as `chat` events,
//! timed by the frame.
//!
//! What a peer sends is untrusted. Every line, ours and theirs, goes
//! through [`validate`] (at most [`MAX_CHARS`] characters after trimming,
//! printable text only) and a `RateLimiter` for its sender; a line that
//! fails either is dropped and counted (`dropped`), with one log line for
//! the first drop only, so a flood costs neither a stall nor a screen of
//! logs. Memory stays bounded: [`HISTORY`] lines are kept, and a rejected
//! line is never stored (decoding it allocated at most the bytes matchbox
//! had already received).
//!
//! This is the pure core, with the clock passed in: the backends send,
//! relay and record (`online/room_chat.rs`, `spectator.rs`).

use std::collections::VecDeque;
use web_time::{Duration, Instant};

use crate::Frame;
pub(crate) use crate::names::{player_name, spectator_name, valid_name};
use crate::net::handshake::Message;
use crate::net::signaling::{MAX_SPECTATORS, PlayerName};

/// Longest line, in characters (not bytes) after trimming: a sentence, and
/// still one or two lines on the screen.
pub const MAX_CHARS: usize = 120;
/// Lines kept for the frontend (the newest; older ones are forgotten), and
/// the most a spectator arriving late is sent of the chat so far.
pub const HISTORY: usize = 50;
/// Names kept of others heard from, and of those muted.
const HEARD: usize = 16;
/// Lines a sender may send at once, then one per `REFILL`.
///
/// Why these numbers: a person types a line in a few seconds at best, so
/// one a second never holds back a conversation; a burst of 5 lets a
/// player (or `--say` at the start) send a few lines together, and it
/// bounds a flood to 5 lines on screen and in the replay plus one a second.
pub const BURST: u32 = 5;
/// One line of allowance comes back this often.
pub(crate) const REFILL: Duration = Duration::from_secs(1);
/// Extra burst allowed to the peer's lines: what the sender spaced a
/// second apart can arrive closer together after a varying network delay
/// (a line delayed 1.5 s followed by one that is not). Lines sent within
/// our own limit arrive within `BURST + n` per window as long as the delay
/// varies by less than `n` seconds, so an honest peer's lines are dropped
/// only after a longer hiccup (which reliable delivery then bunches up).
pub const NETWORK_SLACK: u32 = 2;
/// Senders whose lines the streaming player relays: both players and every
/// spectator. Relayed lines share one limit of all their allowances
/// together (one line back every [`REFILL`] / `ROOM_SENDERS`), which also
/// covers the [`HISTORY`] a late spectator is sent at once.
const ROOM_SENDERS: u32 = MAX_SPECTATORS as u32 + 2;
const _: () = assert!(HISTORY as u32 <= ROOM_SENDERS * (BURST + NETWORK_SLACK));

/// One chat line: who said it (`P1`, `P2`, `S1`) and at which frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatLine {
    /// Frames recorded when the line was sent or received (the replay
    /// event's frame); on a spectator, the streaming player's.
    pub frame: Frame,
    /// Who said it (a player's or spectator's name).
    pub from: String,
    /// What was said.
    pub text: String,
}

impl ChatLine {
    /// The line as the players pass it on (to the partner and the
    /// spectators).
    pub(crate) fn relayed(&self) -> Message {
        Message::Relayed {
            from: self.from.clone(),
            frame: self.frame,
            text: self.text.clone(),
        }
    }

    /// The replay event's detail: `P2: text`.
    pub fn detail(&self) -> String {
        format!("{}: {}", self.from, self.text)
    }

    /// A line from a `chat` replay event (see [`ChatLine::detail`]);
    /// `None` when the detail is not of that form or the text is not a
    /// valid line (a replay is as untrusted as a peer).
    pub fn from_event(frame: Frame, detail: &str) -> Option<ChatLine> {
        let (from, text) = detail.split_once(": ")?;
        if !valid_name(from) {
            return None;
        }
        let text = validate(text).ok()?;
        Some(ChatLine {
            frame,
            from: from.to_string(),
            text: text.to_string(),
        })
    }
}

impl std::fmt::Display for ChatLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.from, self.text)
    }
}

/// The players' names in the chat, player 1's first: their display names
/// (`P1`, `P2` for none), the second of two equal ones as `Ana (2)`.
pub fn player_names(names: &[Option<PlayerName>; 2]) -> [String; 2] {
    let first = names[0]
        .as_ref()
        .map_or_else(|| player_name(0), PlayerName::to_string);
    let second = names[1]
        .as_ref()
        .map_or_else(|| player_name(1), PlayerName::to_string);
    let second = unique_name(&second, &[first.as_str()]);
    [first, second]
}

/// `wanted`, or `wanted (2)`, `wanted (3)`, ...: the first that none of
/// `taken` is (letter case aside).
pub(crate) fn unique_name(wanted: &str, taken: &[&str]) -> String {
    let free = |name: &str| !taken.iter().any(|t| same_name(t, name));
    (1..100)
        .map(|n| match n {
            1 => wanted.to_owned(),
            n => format!("{wanted} ({n})"),
        })
        .find(|name| free(name))
        .unwrap_or_else(|| wanted.to_owned())
}

/// Two names are the same one whatever their letter case.
pub(crate) fn same_name(a: &str, b: &str) -> bool {
    a.to_lowercase() == b.to_lowercase()
}

/// Why a line was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChatError {
    /// An empty line.
    #[error("nothing to send")]
    Empty,
    /// Longer than the limit, in characters.
    #[error("too long: {chars} characters, at most {MAX_CHARS}")]
    TooLong {
        /// The line's length in characters.
        chars: usize,
    },
    /// A character that cannot be shown.
    #[error("{0:?} is not printable text")]
    NotPrintable(char),
    /// Too many lines too fast.
    #[error("too fast: at most {BURST} lines at once, then one a second")]
    RateLimited,
    /// No one to read it: a local or synctest match.
    #[error("chat needs another player (local and synctest matches have no one to talk to)")]
    NoPeer,
    /// A name that is not allowed in the chat.
    #[error("the sender's name is not a chat name")]
    BadName,
}

/// Characters that are not control characters but print nothing or change
/// how the rest of the line is shown: the soft hyphen, zero-width
/// characters, bidirectional overrides and isolates (which can make a line
/// read backwards in a terminal or a log), the byte-order mark,
/// interlinear annotations and tag characters.
fn invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}'
        | '\u{061C}'
        | '\u{180E}'
        | '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}'
        | '\u{FEFF}'
        | '\u{FFF9}'..='\u{FFFB}'
        | '\u{E0000}'..='\u{E007F}')
}

/// Printable text: no control characters (Unicode's Cc: C0, DEL, C1), none
/// of the `invisible` ones, and no whitespace but the plain space (tabs,
/// line and paragraph separators, odd-width spaces). Letters of any
/// script pass: the replay and the log keep them; the window's bitmap font
/// shows what it has no glyph for as `?`.
pub fn printable(c: char) -> bool {
    !c.is_control() && !invisible(c) && (c == ' ' || !c.is_whitespace())
}

impl ChatLine {
    /// Longest line, in characters (not bytes) after trimming.
    pub const MAX_CHARS: usize = MAX_CHARS;
    /// Lines a frontend keeps (the newest), and the most a spectator
    /// arriving late is sent of the chat so far.
    pub const HISTORY: usize = HISTORY;
    /// Lines a sender may send at once, then one a second.
    pub const BURST: u32 = BURST;

    /// Checks a line before it is sent: trimmed of surrounding
    /// whitespace, not empty, at most [`ChatLine::MAX_CHARS`] characters,
    /// printable. Returns the trimmed line.
    pub fn validate(text: &str) -> Result<&str, ChatError> {
        validate(text)
    }
}

/// Checks a line, ours or the peer's: trimmed of surrounding whitespace,
/// not empty, at most [`MAX_CHARS`] characters, printable. Returns the
/// trimmed line.
pub fn validate(text: &str) -> Result<&str, ChatError> {
    // A huge message is refused by its byte length before it is trimmed or
    // scanned: 120 characters of at most 4 bytes each, with room to spare
    // for surrounding spaces, never come near 16 bytes a character.
    if text.len() > 16 * MAX_CHARS {
        return Err(ChatError::TooLong {
            chars: text.chars().count(),
        });
    }
    let text = text.trim();
    if text.is_empty() {
        return Err(ChatError::Empty);
    }
    let chars = text.chars().count();
    if chars > MAX_CHARS {
        return Err(ChatError::TooLong { chars });
    }
    match text.chars().find(|&c| !printable(c)) {
        Some(c) => Err(ChatError::NotPrintable(c)),
        None => Ok(text),
    }
}

/// A token bucket of `burst` lines, one line back every `interval`, with
/// the clock passed in. Kept as the instant the bucket would be full again
/// (the "theoretical arrival time" of the generic cell rate algorithm):
/// the same decisions as counting tokens, in whole `Instant`s, no floats.
#[derive(Clone, Debug)]
pub(crate) struct RateLimiter {
    burst: u32,
    interval: Duration,
    /// When the allowance is whole again; `None` before the first line.
    full_at: Option<Instant>,
}

impl RateLimiter {
    pub fn new(burst: u32, interval: Duration) -> Self {
        RateLimiter {
            burst: burst.max(1),
            interval,
            full_at: None,
        }
    }

    /// The limit on one other sender's lines: our own, with the network's
    /// slack.
    pub(crate) fn for_peer() -> Self {
        RateLimiter::new(BURST + NETWORK_SLACK, REFILL)
    }

    /// Takes one line's allowance at `now` if there is one.
    pub fn allow(&mut self, now: Instant) -> bool {
        let full_at = self.full_at.map_or(now, |t| t.max(now));
        // Each line in the bucket pushes "full again" one interval later;
        // `burst` lines fit, so it may be at most burst - 1 intervals away.
        if full_at.duration_since(now) > self.interval * (self.burst - 1) {
            return false;
        }
        self.full_at = Some(full_at + self.interval);
        true
    }
}

/// What the summary reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChatCounters {
    /// Our lines that went out.
    pub sent: u32,
    /// Others' lines accepted.
    pub received: u32,
    /// Others' messages dropped: invalid, over their rate, or from no one
    /// we listen to.
    pub dropped: u32,
    /// Others' lines not shown (nor relayed) because we muted their sender.
    pub muted: u32,
}

/// What `/help` answers (and any command it does not know).
pub(crate) const COMMANDS_HELP: &str = "commands: /who (names in the room), /mute NAME, /unmute NAME, /kick NAME (the host, a spectator), /report NAME REASON, /help";

/// What a typed line was, for the backend that owns the chat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Not a command: a line to send.
    Line,
    /// A command the chat answered itself (see `Chat::take_new`).
    Answered,
    /// A command the backend carries out, then tells the outcome with
    /// [`Chat::notice`].
    Act(Action),
}

/// A command that reaches beyond the chat: the server must act.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// `/kick NAME`: the host removes a spectator from the room.
    Kick(String),
    /// `/report NAME REASON`: the room's last lines go to the server's
    /// operator with the reason.
    Report {
        /// Whom the line is about.
        name: String,
        /// Why, in the reporter's words.
        reason: String,
    },
}

/// Who answers a command: the line shown to the one who typed it only.
pub(crate) const NOTICE_FROM: &str = "*";

/// One peer's view of the room's chat.
#[derive(Debug)]
pub struct Chat {
    /// Our name (`P1`, `S2`) and the other player's.
    name: String,
    partner: String,
    own_limit: RateLimiter,
    partner_limit: RateLimiter,
    /// Lines the streaming player passes on, from the whole room.
    relayed_limit: RateLimiter,
    history: VecDeque<ChatLine>,
    /// Lines ever added to `history`, and how many of them the frontend
    /// has taken: the untaken ones are the newest `added - taken` (capped
    /// by what the history still holds).
    added: u64,
    taken: u64,
    counters: ChatCounters,
    /// Lines to send once the match reaches their frame (`--say`: 0).
    greeting: Vec<(Frame, String)>,
    /// Senders whose lines we no longer show or relay (`/mute`): names
    /// match whatever the case typed.
    muted: Vec<String>,
    /// Others heard from so far, beside the two players (for `/who`, and
    /// the names commands take).
    heard: Vec<String>,
    /// Answers to commands, for the frontend only (never sent, relayed or
    /// recorded).
    notices: Vec<ChatLine>,
    /// Debug aid: junk and valid messages per second to send.
    /// Debug flood: lines owed per frame (0: none).
    flood_per_frame: f64,
    flood_owed: f64,
    flood_sent: u64,
}

impl Chat {
    /// The chat of `name` (`P1`), whose partner is the player `partner`
    /// (`P2`; a spectator hears only relayed lines, its partner's too).
    pub fn new(name: String, partner: String) -> Self {
        Chat {
            name,
            partner,
            own_limit: RateLimiter::new(BURST, REFILL),
            partner_limit: RateLimiter::for_peer(),
            relayed_limit: RateLimiter::new(
                ROOM_SENDERS * (BURST + NETWORK_SLACK),
                REFILL / ROOM_SENDERS,
            ),
            history: VecDeque::with_capacity(HISTORY),
            added: 0,
            taken: 0,
            counters: ChatCounters::default(),
            greeting: Vec::new(),
            muted: Vec::new(),
            heard: Vec::new(),
            notices: Vec::new(),
            flood_per_frame: 0.0,
            flood_owed: 0.0,
            flood_sent: 0,
        }
    }

    /// Lines to send once the match reaches their frame (`--say` at 0,
    /// `--debug-say-at` later), each as if typed then.
    pub(crate) fn with_greeting(mut self, lines: Vec<(Frame, String)>) -> Self {
        self.greeting = lines;
        self
    }

    /// Debug aid (`--debug-chat-flood N`): N messages a second, most of
    /// them junk, for [`Chat::flood_due`].
    /// `fps`: the game's frames a second.
    pub(crate) fn with_flood(mut self, per_second: u32, fps: u32) -> Self {
        self.flood_per_frame = f64::from(per_second) / f64::from(fps.max(1));
        self
    }

    /// This side's name in the room's chat.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The other player's name (empty on a spectator).
    pub fn partner(&self) -> &str {
        &self.partner
    }

    /// How many lines were sent, received and refused so far.
    pub fn counters(&self) -> ChatCounters {
        self.counters
    }

    /// Others' messages dropped before they reached the chat (a spectator
    /// we do not stream to, a full queue).
    pub(crate) fn count_dropped(&mut self, n: u32) {
        self.counters.dropped = self.counters.dropped.saturating_add(n);
    }

    /// A typed line that starts with `/` is a command, never sent:
    /// `/who`, `/mute NAME`, `/unmute NAME` and `/help` are answered here
    /// (any case; an unknown one gets `/help`'s answer); `/kick NAME` and
    /// `/report NAME REASON` are checked here and handed back as an
    /// [`Action`]. Muting covers the sender's lines for the rest of the
    /// match: not shown, and not relayed to spectators by the streaming
    /// player.
    pub fn command(&mut self, frame: Frame, text: &str) -> Command {
        let Some(command) = text.trim().strip_prefix('/') else {
            return Command::Line;
        };
        let (verb, rest) = command.split_once(' ').unwrap_or((command, ""));
        let verb = verb.to_ascii_lowercase();
        let rest = rest.trim();
        // Names may hold spaces: a command's name is the rest of the line,
        // or for a report the longest name in the room it starts with.
        let (name, rest) = match verb.as_str() {
            "report" => self.split_name(rest),
            _ => (self.known(rest), ""),
        };
        let name = Some(name).filter(|n| !n.is_empty());
        let answer = match (verb.as_str(), name) {
            ("kick" | "report" | "mute", Some(name)) if same_name(&name, &self.name) => {
                format!("you cannot {verb} yourself")
            }
            ("kick", Some(name)) => return Command::Act(Action::Kick(name)),
            ("report", Some(_)) if rest.is_empty() => "say why: /report NAME REASON".into(),
            ("report", Some(name)) if !self.in_room(&name) => {
                format!("nobody called {name} is in the room (/who)")
            }
            ("report", Some(name)) => {
                return Command::Act(Action::Report {
                    name,
                    reason: rest.to_owned(),
                });
            }
            ("kick", None) => "whom? /kick NAME (a spectator: /who)".into(),
            ("report", None) => "whom? /report NAME REASON".into(),
            ("who", _) => {
                let mut names = vec![format!("{} (you)", self.name), self.partner.clone()];
                names.extend(self.heard.iter().cloned());
                format!("in the room: {}", names.join(", "))
            }
            ("mute", Some(name)) => {
                if !self.is_muted(&name) && self.muted.len() < HEARD {
                    self.muted.push(name.clone());
                }
                format!("{name} is muted for the rest of the match (/unmute {name})")
            }
            ("unmute", Some(name)) => {
                let was = self.is_muted(&name);
                self.muted.retain(|m| !same_name(m, &name));
                if was {
                    format!("{name} is no longer muted")
                } else {
                    format!("{name} was not muted")
                }
            }
            _ => COMMANDS_HELP.into(),
        };
        self.notice(frame, answer);
        Command::Answered
    }

    /// A line for this player only (an answer to a command, what became
    /// of an [`Action`]): shown, never sent, relayed or recorded.
    pub fn notice(&mut self, frame: Frame, text: impl Into<String>) {
        self.notices.push(ChatLine {
            frame,
            from: NOTICE_FROM.into(),
            text: text.into(),
        });
    }

    /// Whether `name` is a player or someone heard from.
    fn in_room(&self, name: &str) -> bool {
        self.names().any(|n| same_name(n, name))
    }

    /// Everyone this chat knows by name: us, the other player, and whoever
    /// else was heard (on a spectator, both players once they spoke).
    fn names(&self) -> impl Iterator<Item = &str> {
        let us = [self.name.as_str(), self.partner.as_str()];
        (us.into_iter())
            .chain(self.heard.iter().map(String::as_str))
            .filter(|n| !n.is_empty())
    }

    /// `typed` as the room knows it, if someone is called that (any
    /// case); else as typed.
    fn known(&self, typed: &str) -> String {
        let found = self.names().find(|n| same_name(n, typed));
        found.unwrap_or(typed).to_owned()
    }

    /// A name and what follows it: the longest name in the room `text`
    /// starts with (then a space), else its first word.
    fn split_name<'t>(&self, text: &'t str) -> (String, &'t str) {
        let mut names: Vec<&str> = self.names().collect();
        names.sort_by_key(|n| std::cmp::Reverse(n.chars().count()));
        for name in names {
            let count = name.chars().count();
            let cut = text
                .char_indices()
                .nth(count)
                .map_or(text.len(), |(i, _)| i);
            if same_name(&text[..cut], name) && text[cut..].starts_with(' ') {
                return (name.to_owned(), text[cut..].trim());
            }
        }
        let (first, rest) = text.split_once(' ').unwrap_or((text, ""));
        (self.known(first), rest.trim())
    }

    /// The room's last lines as this player saw them (`P1: text`), oldest
    /// first: what a report carries.
    pub(crate) fn last_lines(&self) -> Vec<String> {
        self.history.iter().map(ChatLine::detail).collect()
    }

    /// Whether lines from `name` are muted.
    pub(crate) fn is_muted(&self, name: &str) -> bool {
        self.muted.iter().any(|m| same_name(m, name))
    }

    /// Our line at `frame`, checked against the rules and our own rate.
    pub fn say(&mut self, now: Instant, frame: Frame, text: &str) -> Result<ChatLine, ChatError> {
        let text = validate(text)?;
        if !self.own_limit.allow(now) {
            return Err(ChatError::RateLimited);
        }
        self.counters.sent = self.counters.sent.saturating_add(1);
        let line = ChatLine {
            frame,
            from: self.name.clone(),
            text: text.to_string(),
        };
        self.remember(line.clone());
        Ok(line)
    }

    /// A line from the other player at `frame`: the accepted line, or
    /// `None` when it is dropped (counted; the first drop is logged).
    pub fn receive(&mut self, now: Instant, frame: Frame, text: &str) -> Option<ChatLine> {
        let checked = check(text, &mut self.partner_limit, now);
        let from = self.partner.clone();
        self.admit(frame, &from, checked)
    }

    /// A spectator's line, on the player who streams to it, under that
    /// spectator's own `limit`.
    pub(crate) fn receive_from(
        &mut self,
        now: Instant,
        frame: Frame,
        from: &str,
        limit: &mut RateLimiter,
        text: &str,
    ) -> Option<ChatLine> {
        let checked = check(text, limit, now);
        self.admit(frame, from, checked)
    }

    /// A line the streaming player passed on (`Message::Relayed`), at the
    /// frame it says. Our own line coming back is returned (to be
    /// recorded) but neither counted nor shown again.
    pub(crate) fn receive_relayed(
        &mut self,
        now: Instant,
        frame: Frame,
        from: &str,
        text: &str,
    ) -> Option<ChatLine> {
        if from == self.name {
            let text = validate(text).ok()?;
            return Some(ChatLine {
                frame,
                from: from.to_string(),
                text: text.to_string(),
            });
        }
        let checked = if valid_name(from) {
            check(text, &mut self.relayed_limit, now)
        } else {
            Err(ChatError::BadName)
        };
        self.admit(frame, from, checked)
    }

    /// Keeps a checked line from `from`, or counts (and the first time
    /// logs) why it was dropped.
    fn admit(
        &mut self,
        frame: Frame,
        from: &str,
        checked: Result<&str, ChatError>,
    ) -> Option<ChatLine> {
        let text = match checked {
            Ok(text) => text,
            Err(e) => {
                if self.counters.dropped == 0 {
                    tracing::warn!(
                        "dropped a chat message from {} ({e}); later drops are only counted",
                        if valid_name(from) { from } else { "a peer" }
                    );
                }
                self.counters.dropped = self.counters.dropped.saturating_add(1);
                return None;
            }
        };
        if self.is_muted(from) {
            self.counters.muted = self.counters.muted.saturating_add(1);
            return None;
        }
        if !self.in_room(from) && self.heard.len() < HEARD {
            self.heard.push(from.to_string());
        }
        self.counters.received = self.counters.received.saturating_add(1);
        let line = ChatLine {
            frame,
            from: from.to_string(),
            text: text.to_string(),
        };
        self.remember(line.clone());
        Some(line)
    }

    /// The lines, ours and others', added since the last call (at most
    /// [`HISTORY`]; a frontend that never asks loses only the oldest).
    pub(crate) fn take_new(&mut self) -> Vec<ChatLine> {
        let new = (self.added - self.taken).min(self.history.len() as u64) as usize;
        self.taken = self.added;
        let mut lines: Vec<ChatLine> = self
            .history
            .iter()
            .skip(self.history.len() - new)
            .cloned()
            .collect();
        // Answers to our commands: shown here only.
        lines.append(&mut self.notices);
        lines
    }

    /// The newest lines, oldest first.
    pub fn history(&self) -> impl Iterator<Item = &ChatLine> {
        self.history.iter()
    }

    fn remember(&mut self, line: ChatLine) {
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        self.history.push_back(line);
        self.added += 1;
    }

    /// The `--say` lines due by `frame`, each once, in order.
    pub(crate) fn take_greeting(&mut self, frame: Frame) -> Vec<String> {
        let (due, later) = std::mem::take(&mut self.greeting)
            .into_iter()
            .partition(|(at, _)| *at <= frame);
        self.greeting = later;
        due.into_iter().map(|(_, text)| text).collect()
    }

    /// The debug flood's messages due since the last call (called about
    /// once a frame; what a frame owes goes at once).
    pub(crate) fn flood_due(&mut self) -> Vec<String> {
        if self.flood_per_frame == 0.0 {
            return Vec::new();
        }
        self.flood_owed += self.flood_per_frame;
        let mut due = Vec::new();
        while self.flood_owed >= 1.0 {
            self.flood_owed -= 1.0;
            due.push(flood_message(self.flood_sent));
            self.flood_sent += 1;
        }
        due
    }
}

/// A line from another sender: valid, and within its sender's `limit`
/// (junk costs no allowance).
fn check<'a>(text: &'a str, limit: &mut RateLimiter, now: Instant) -> Result<&'a str, ChatError> {
    let text = validate(text)?;
    if limit.allow(now) {
        Ok(text)
    } else {
        Err(ChatError::RateLimited)
    }
}

/// The `n`th message of the debug flood: mostly junk a peer must drop
/// (over-long, far over-long, control and invisible characters, blank),
/// one in six a valid line that only the rate limit stops.
pub(crate) fn flood_message(n: u64) -> String {
    match n % 6 {
        0 => format!("flood line {n}"),
        1 => "x".repeat(MAX_CHARS + 1),
        2 => "y".repeat(4000),
        3 => format!("bell\u{7} and escape \u{1b}[31m {n}"),
        4 => format!("reversed \u{202E}{n}"),
        _ => " \t ".to_string(),
    }
}

#[cfg(test)]
#[path = "chat_tests.rs"]
mod tests;
