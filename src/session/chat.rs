//! Room chat: short text lines between the players of a room. Lines travel
//! on the reliable control channel (`Message::Chat`), never into the
//! simulation; each peer writes both sides' lines into its replay as `chat`
//! events, timed by the frame.
//!
//! What a peer sends is untrusted. Every line, ours and theirs, goes
//! through [`validate`] (at most [`MAX_CHARS`] characters after trimming,
//! printable text only) and a per-sender [`RateLimiter`]; a line from the
//! peer that fails either is dropped and counted (`dropped`), with one log
//! line for the first drop only, so a flood costs neither a stall nor a
//! screen of logs. Memory stays bounded: [`HISTORY`] lines are kept, and a
//! rejected line is never stored (decoding it allocated at most the bytes
//! matchbox had already received).
//!
//! The core (`validate`, `RateLimiter`, `Chat::say`, `Chat::receive`) is
//! pure, with the clock passed in; the few `*_over` functions at the end
//! are the glue the online backend calls with its control channel and
//! replay log.

use std::collections::VecDeque;
use web_time::{Duration, Instant};

use super::frame_log::FrameLog;
use crate::net::control::ControlChannel;
use crate::net::handshake::Message;
use crate::replay::EventKind;
use crate::sim::Frame;

/// Longest line, in characters (not bytes) after trimming: a sentence, and
/// still one or two lines on the screen.
pub const MAX_CHARS: usize = 120;
/// Lines kept for the frontend (the newest; older ones are forgotten).
pub const HISTORY: usize = 50;
/// Lines a sender may send at once, then one per [`REFILL`].
///
/// Why these numbers: a person types a line in a few seconds at best, so
/// one a second never holds back a conversation; a burst of 5 lets a
/// player (or `--say` at the start) send a few lines together, and it
/// bounds a flood to 5 lines on screen and in the replay plus one a second.
pub const BURST: u32 = 5;
/// One line of allowance comes back this often.
pub const REFILL: Duration = Duration::from_secs(1);
/// Extra burst allowed to the peer's lines: what the sender spaced a
/// second apart can arrive closer together after a varying network delay
/// (a line delayed 1.5 s followed by one that is not). Lines sent within
/// our own limit arrive within `BURST + n` per window as long as the delay
/// varies by less than `n` seconds, so an honest peer's lines are dropped
/// only after a longer hiccup (which reliable delivery then bunches up).
pub const NETWORK_SLACK: u32 = 2;

/// One chat line: who said it (`P1`, `P2`) and at which frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatLine {
    /// Frames recorded when the line was sent or received (the replay
    /// event's frame).
    pub frame: Frame,
    pub from: String,
    pub text: String,
}

impl ChatLine {
    /// The replay event's detail: `P2: text`.
    pub fn detail(&self) -> String {
        format!("{}: {}", self.from, self.text)
    }

    /// A line from a `chat` replay event (see [`ChatLine::detail`]);
    /// `None` when the detail is not of that form or the text is not a
    /// valid line (a replay is as untrusted as a peer).
    pub fn from_event(frame: Frame, detail: &str) -> Option<ChatLine> {
        let (from, text) = detail.split_once(": ")?;
        let from_ok =
            !from.is_empty() && from.len() <= 8 && from.chars().all(|c| c.is_ascii_alphanumeric());
        if !from_ok {
            return None;
        }
        let text = validate(text).ok()?;
        Some(ChatLine {
            frame,
            from: from.to_string(),
            text: text.to_string(),
        })
    }

    /// The sender's player index (0 for `P1`, 1 for `P2`), if it is a player.
    pub fn player(&self) -> Option<usize> {
        match self.from.as_str() {
            "P1" => Some(0),
            "P2" => Some(1),
            _ => None,
        }
    }
}

impl std::fmt::Display for ChatLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.from, self.text)
    }
}

/// Why a line was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChatError {
    #[error("nothing to send")]
    Empty,
    #[error("too long: {chars} characters, at most {MAX_CHARS}")]
    TooLong { chars: usize },
    #[error("{0:?} is not printable text")]
    NotPrintable(char),
    #[error("too fast: at most {BURST} lines at once, then one a second")]
    RateLimited,
    #[error("chat needs another player (local and synctest matches have no one to talk to)")]
    NoPeer,
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
/// of the [`invisible`] ones, and no whitespace but the plain space (tabs,
/// line and paragraph separators, odd-width spaces). Letters of any
/// script pass: the replay and the log keep them; the window's bitmap font
/// shows what it has no glyph for as `?`.
pub fn printable(c: char) -> bool {
    !c.is_control() && !invisible(c) && (c == ' ' || !c.is_whitespace())
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
pub struct RateLimiter {
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
    /// The peer's lines accepted.
    pub received: u32,
    /// The peer's messages dropped: invalid or over its rate.
    pub dropped: u32,
}

/// One peer's view of the room's chat.
#[derive(Debug)]
pub struct Chat {
    local: String,
    remote: String,
    own_limit: RateLimiter,
    peer_limit: RateLimiter,
    history: VecDeque<ChatLine>,
    /// Lines ever added to `history`, and how many of them the frontend
    /// has taken: the untaken ones are the newest `added - taken` (capped
    /// by what the history still holds).
    added: u64,
    taken: u64,
    counters: ChatCounters,
    /// Lines to send after the first frame (`--say`).
    greeting: Vec<String>,
    /// Debug aid: junk and valid messages per second sent to the peer.
    flood_per_second: u32,
    flood_owed: f64,
    flood_sent: u64,
}

impl Chat {
    /// The chat of player `local` (0 or 1) with player `remote`.
    pub fn new(local: usize, remote: usize) -> Self {
        Chat {
            local: format!("P{}", local + 1),
            remote: format!("P{}", remote + 1),
            own_limit: RateLimiter::new(BURST, REFILL),
            peer_limit: RateLimiter::new(BURST + NETWORK_SLACK, REFILL),
            history: VecDeque::with_capacity(HISTORY),
            added: 0,
            taken: 0,
            counters: ChatCounters::default(),
            greeting: Vec::new(),
            flood_per_second: 0,
            flood_owed: 0.0,
            flood_sent: 0,
        }
    }

    /// Lines sent right after the first frame (`--say`).
    pub fn with_greeting(mut self, lines: Vec<String>) -> Self {
        self.greeting = lines;
        self
    }

    /// Debug aid (`--debug-chat-flood N`): sends N messages a second to the
    /// peer, most of them junk.
    pub fn with_flood(mut self, per_second: u32) -> Self {
        self.flood_per_second = per_second;
        self
    }

    pub fn counters(&self) -> ChatCounters {
        self.counters
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
            from: self.local.clone(),
            text: text.to_string(),
        };
        self.remember(line.clone());
        Ok(line)
    }

    /// A line from the peer at `frame`: the accepted line, or `None` when
    /// it is dropped (counted; the first drop is logged).
    pub fn receive(&mut self, now: Instant, frame: Frame, text: &str) -> Option<ChatLine> {
        let checked = validate(text).and_then(|text| {
            if self.peer_limit.allow(now) {
                Ok(text)
            } else {
                Err(ChatError::RateLimited)
            }
        });
        let text = match checked {
            Ok(text) => text,
            Err(e) => {
                if self.counters.dropped == 0 {
                    tracing::warn!(
                        "dropped a chat message from {} ({e}); later drops are only counted",
                        self.remote
                    );
                }
                self.counters.dropped = self.counters.dropped.saturating_add(1);
                return None;
            }
        };
        self.counters.received = self.counters.received.saturating_add(1);
        let line = ChatLine {
            frame,
            from: self.remote.clone(),
            text: text.to_string(),
        };
        self.remember(line.clone());
        Some(line)
    }

    /// The lines, ours and the peer's, added since the last call (at most
    /// [`HISTORY`]; a frontend that never asks loses only the oldest).
    pub fn take_new(&mut self) -> Vec<ChatLine> {
        let new = (self.added - self.taken).min(self.history.len() as u64) as usize;
        self.taken = self.added;
        self.history
            .iter()
            .skip(self.history.len() - new)
            .cloned()
            .collect()
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

    /// Sends our line to the peer and records it in the replay.
    pub(super) fn say_over(
        &mut self,
        control: &mut ControlChannel,
        log: &mut FrameLog,
        text: &str,
    ) -> Result<(), ChatError> {
        let line = self.say(Instant::now(), log.confirmed(), text)?;
        control.send(&Message::Chat {
            text: line.text.clone(),
        });
        log.event(EventKind::Chat, &line.detail());
        Ok(())
    }

    /// A `Message::Chat` from the peer: checked, and recorded if accepted.
    pub(super) fn received_over(&mut self, log: &mut FrameLog, text: &str) {
        if let Some(line) = self.receive(Instant::now(), log.confirmed(), text) {
            tracing::info!("chat {line}");
            log.event(EventKind::Chat, &line.detail());
        }
    }

    /// Once the match runs: sends the `--say` lines (the first call), and
    /// the debug flood's messages due since the last call.
    pub(super) fn service_over(&mut self, control: &mut ControlChannel, log: &mut FrameLog) {
        for text in std::mem::take(&mut self.greeting) {
            if let Err(e) = self.say_over(control, log, &text) {
                tracing::warn!("--say {text:?} not sent: {e}");
            }
        }
        if self.flood_per_second == 0 {
            return;
        }
        // Called about once a frame; what a frame owes is sent at once.
        self.flood_owed += f64::from(self.flood_per_second) / f64::from(crate::sim::FPS);
        while self.flood_owed >= 1.0 {
            self.flood_owed -= 1.0;
            control.send(&Message::Chat {
                text: flood_message(self.flood_sent),
            });
            self.flood_sent += 1;
        }
    }
}

/// The `n`th message of the debug flood: mostly junk a peer must drop
/// (over-long, far over-long, control and invisible characters, blank),
/// one in six a valid line that only the rate limit stops.
pub fn flood_message(n: u64) -> String {
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
mod tests {
    use super::*;

    #[test]
    fn lines_are_trimmed_and_limited_in_characters_not_bytes() {
        assert_eq!(validate("  gg  "), Ok("gg"));
        assert_eq!(validate(""), Err(ChatError::Empty));
        assert_eq!(validate("   "), Err(ChatError::Empty));
        let longest = "a".repeat(MAX_CHARS);
        assert_eq!(validate(&longest), Ok(longest.as_str()));
        assert_eq!(
            validate(&"a".repeat(MAX_CHARS + 1)),
            Err(ChatError::TooLong {
                chars: MAX_CHARS + 1
            })
        );
        // 120 two-byte characters are 240 bytes and still fit.
        let accents = "é".repeat(MAX_CHARS);
        assert_eq!(validate(&accents), Ok(accents.as_str()));
        // Surrounding spaces do not count.
        let padded = format!("   {longest}   ");
        assert_eq!(validate(&padded), Ok(longest.as_str()));
        // A megabyte is refused without being scanned for printability.
        let huge = "\u{7}".repeat(1 << 20);
        assert!(matches!(validate(&huge), Err(ChatError::TooLong { .. })));
    }

    #[test]
    fn only_printable_text_passes() {
        for bad in [
            "bell\u{7}",
            "esc \u{1b}[31mred",
            "new\nline",
            "tab\there",
            "del\u{7f}",
            "c1 \u{85} inside",
            "rtl \u{202E}olleh",
            "zero\u{200B}width",
            "bom\u{FEFF}",
            "line\u{2028}sep",
            "tag \u{E0041}",
        ] {
            assert!(
                matches!(validate(bad), Err(ChatError::NotPrintable(_))),
                "{bad:?}"
            );
        }
        for good in [
            "gg wp!",
            "héllo wörld",
            "ñ ü 日本語 🚀",
            "100% <ok> {\"json\"}",
        ] {
            assert_eq!(validate(good), Ok(good));
        }
        // The error names the character, escaped.
        assert_eq!(
            validate("a\u{7}").unwrap_err().to_string(),
            "'\\u{7}' is not printable text"
        );
    }

    #[test]
    fn the_rate_limit_allows_a_burst_then_one_a_second() {
        let t0 = Instant::now();
        let s = Duration::from_secs;
        let mut limit = RateLimiter::new(5, s(1));
        let allowed = (0..8).filter(|_| limit.allow(t0)).count();
        assert_eq!(allowed, 5);
        // Half a second later: nothing back yet.
        assert!(!limit.allow(t0 + Duration::from_millis(500)));
        // One second: one line back, then none.
        assert!(limit.allow(t0 + s(1)));
        assert!(!limit.allow(t0 + s(1)));
        // Three seconds later: three back.
        let later = t0 + s(4);
        assert_eq!((0..10).filter(|_| limit.allow(later)).count(), 3);
        // A long quiet: the whole burst, and no more.
        let quiet = t0 + s(100);
        assert_eq!((0..10).filter(|_| limit.allow(quiet)).count(), 5);
        // Steady at one a second: every line passes, forever.
        let mut steady = RateLimiter::new(5, s(1));
        assert!((0..1000).all(|i| steady.allow(t0 + s(i))));
    }

    #[test]
    fn our_lines_are_checked_counted_and_kept() {
        let t0 = Instant::now();
        let mut chat = Chat::new(0, 1);
        let line = chat.say(t0, 7, "  hello  ").unwrap();
        assert_eq!(
            line,
            ChatLine {
                frame: 7,
                from: "P1".into(),
                text: "hello".into()
            }
        );
        assert_eq!(line.detail(), "P1: hello");
        assert_eq!(
            chat.say(t0, 7, "\u{7}"),
            Err(ChatError::NotPrintable('\u{7}'))
        );
        for _ in 1..BURST {
            chat.say(t0, 8, "more").unwrap();
        }
        assert_eq!(chat.say(t0, 9, "one too many"), Err(ChatError::RateLimited));
        assert_eq!(chat.counters().sent, BURST);
        assert_eq!(chat.counters().dropped, 0);
        assert!(chat.say(t0 + REFILL, 70, "later").is_ok());
    }

    #[test]
    fn the_peers_junk_and_flood_are_dropped_and_counted() {
        let t0 = Instant::now();
        let mut chat = Chat::new(1, 0);
        let hi = chat.receive(t0, 3, "hi").unwrap();
        assert_eq!(hi.from, "P1");
        assert_eq!(hi.player(), Some(0));
        assert_eq!(chat.receive(t0, 3, &"z".repeat(MAX_CHARS + 1)), None);
        assert_eq!(chat.receive(t0, 3, "\u{1b}[2J"), None);
        assert_eq!(chat.receive(t0, 3, ""), None);
        assert_eq!(
            chat.counters(),
            ChatCounters {
                sent: 0,
                received: 1,
                dropped: 3
            }
        );
        // A flood of valid lines: the burst (with its network slack) and
        // then one a second get through.
        let mut accepted = 1; // "hi"
        for i in 0..10_000u64 {
            let now = t0 + Duration::from_millis(i); // 10 s of 1000 a second
            if chat.receive(now, 3, &format!("spam {i}")).is_some() {
                accepted += 1;
            }
        }
        let allowed = BURST + NETWORK_SLACK + 9; // burst at 0 s, refills at 1..=9 s
        assert_eq!(accepted, allowed);
        assert_eq!(chat.counters().received, allowed);
        assert_eq!(chat.counters().dropped, 3 + 10_000 - (allowed - 1));
        // Junk costs no allowance: after a refill a valid line still passes.
        assert!(
            chat.receive(t0 + Duration::from_secs(30), 9, "\u{7}")
                .is_none()
        );
        assert!(
            chat.receive(t0 + Duration::from_secs(30), 9, "back")
                .is_some()
        );
    }

    #[test]
    fn every_flood_message_but_the_plain_one_is_junk() {
        for n in 0..12 {
            let text = flood_message(n);
            assert_eq!(validate(&text).is_ok(), n % 6 == 0, "{n}: {text:?}");
        }
    }

    #[test]
    fn history_is_bounded_and_new_lines_are_taken_once() {
        let mut t = Instant::now();
        let mut chat = Chat::new(0, 1);
        chat.say(t, 1, "one").unwrap();
        chat.receive(t, 2, "two").unwrap();
        let taken: Vec<String> = chat.take_new().into_iter().map(|l| l.detail()).collect();
        assert_eq!(taken, ["P1: one", "P2: two"]);
        assert!(chat.take_new().is_empty());
        // Far more lines than the history holds, never taken.
        for i in 0..(3 * HISTORY as u32) {
            t += REFILL;
            chat.receive(t, i, &format!("line {i}")).unwrap();
        }
        assert_eq!(chat.history().count(), HISTORY);
        let taken = chat.take_new();
        assert_eq!(taken.len(), HISTORY);
        assert_eq!(
            taken.last().map(|l| l.text.as_str()),
            Some(format!("line {}", 3 * HISTORY - 1).as_str())
        );
        assert!(chat.take_new().is_empty());
    }

    #[test]
    fn replay_details_parse_back_and_bad_ones_do_not() {
        let line = ChatLine {
            frame: 42,
            from: "P2".into(),
            text: "gg: well played".into(),
        };
        assert_eq!(ChatLine::from_event(42, &line.detail()), Some(line));
        for bad in [
            "no separator",
            ": empty sender",
            "P1: \u{7}",
            "P 1: x",
            "P1: ",
        ] {
            assert_eq!(ChatLine::from_event(0, bad), None, "{bad:?}");
        }
    }
}
