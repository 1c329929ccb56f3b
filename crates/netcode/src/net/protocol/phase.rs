//! What may arrive in each phase of a connection: one enum per phase,
//! sorted out of the wire's one [`Message`] enum where it is received.
//!
//! The wire keeps one flat enum (one version, variants by index); each
//! receiver asks for its phase's view (`Message::heard_as`) and matches
//! that exhaustively. Every sorting below names every wire variant, so a
//! new message does not compile until each phase has said whether it
//! expects it; and a receiver does not compile until it handles every
//! message its phase expects. What a phase does not expect comes out as
//! [`Heard::Stray`] with the message's name: a late handshake probe, a
//! repeated answer, a message meant for a partner. Receivers drop strays
//! (the channel is shared by phases that overlap by a round trip).
//!
//! | message | connecting | stranger | playing | catching up | spectating |
//! |---|---|---|---|---|---|
//! | `Hello` | ✓ | ✓ | | | |
//! | `Ping` | ✓ | | ✓ (late probe) | | |
//! | `Pong`, `Measured`, `Busy` | ✓ | | | | |
//! | `Watch` | | ✓ | | | |
//! | `Chat` | | ✓ (a spectator's) | ✓ | | |
//! | `Done`, `Bye` | | | ✓ | | ✓ |
//! | `Desync`, `Away` | | | ✓ | | |
//! | `DesyncState` | | | ✓ | | ✓ |
//! | `CatchUp` | | | | ✓ | ✓ |
//! | `CaughtUp` | | | | ✓ | |
//! | `Streaming`, `WatchRefused` | | | | | ✓ |
//! | `Relayed` | | | ✓ | | ✓ |

use super::message::{DesyncState, Hello, Message, Watch};
use crate::Frame;

/// A received message, sorted for the phase it arrived in.
#[derive(Clone, Debug, PartialEq)]
pub enum Heard<T> {
    /// A message this phase acts on.
    Expected(T),
    /// A message of another phase, by name (for a trace line).
    Stray(&'static str),
}

/// A phase's view of the wire: which messages it expects.
pub trait Phase: Sized {
    fn sort(message: Message) -> Heard<Self>;
}

impl Message {
    /// This message as the phase `T` sees it.
    pub(crate) fn heard_as<T: Phase>(self) -> Heard<T> {
        T::sort(self)
    }

    /// The message's name on the wire, for logs.
    pub fn name(&self) -> &'static str {
        match self {
            Message::Hello(_) => "hello",
            Message::Ping { .. } => "ping",
            Message::Pong { .. } => "pong",
            Message::Measured { .. } => "measured",
            Message::Done { .. } => "done",
            Message::Bye { .. } => "bye",
            Message::Desync { .. } => "desync",
            Message::DesyncState(_) => "desync_state",
            Message::Busy => "busy",
            Message::CatchUp { .. } => "catch_up",
            Message::CaughtUp { .. } => "caught_up",
            Message::Chat { .. } => "chat",
            Message::Watch(_) => "watch",
            Message::WatchRefused { .. } => "watch_refused",
            Message::Streaming { .. } => "streaming",
            Message::Relayed { .. } => "relayed",
            Message::Away => "away",
        }
    }
}

/// Two players agreeing on a match (`net::handshake::Handshake`): the
/// versions, the latency probes, and a third player's refusal.
#[derive(Clone, Debug, PartialEq)]
pub enum Connecting {
    Hello(Hello),
    Ping { seq: u32 },
    Pong { seq: u32 },
    Measured { rtt_us: u64, jitter_us: u64 },
    Busy,
}

impl Phase for Connecting {
    fn sort(message: Message) -> Heard<Self> {
        Heard::Expected(match message {
            Message::Hello(hello) => Connecting::Hello(hello),
            Message::Ping { seq } => Connecting::Ping { seq },
            Message::Pong { seq } => Connecting::Pong { seq },
            Message::Measured { rtt_us, jitter_us } => Connecting::Measured { rtt_us, jitter_us },
            Message::Busy => Connecting::Busy,
            stray @ (Message::Done { .. }
            | Message::Bye { .. }
            | Message::Desync { .. }
            | Message::CatchUp { .. }
            | Message::CaughtUp { .. }
            | Message::Chat { .. }
            | Message::Watch(_)
            | Message::WatchRefused { .. }
            | Message::Streaming { .. }
            | Message::Relayed { .. }
            | Message::Away
            | Message::DesyncState(_)) => return Heard::Stray(stray.name()),
        })
    }
}

/// From a peer that is not our partner (`net::room::Room`): who it says it
/// is. Everything else a stranger sends is not for us.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Stranger {
    /// A player: maybe our partner, or our rejoiner.
    Hello(Hello),
    /// A spectator.
    Watch(Watch),
    /// A spectator's chat line.
    Chat { text: String },
}

impl Phase for Stranger {
    fn sort(message: Message) -> Heard<Self> {
        Heard::Expected(match message {
            Message::Hello(hello) => Stranger::Hello(hello),
            Message::Watch(watch) => Stranger::Watch(watch),
            Message::Chat { text } => Stranger::Chat { text },
            stray @ (Message::Ping { .. }
            | Message::Pong { .. }
            | Message::Measured { .. }
            | Message::Done { .. }
            | Message::Bye { .. }
            | Message::Desync { .. }
            | Message::Busy
            | Message::CatchUp { .. }
            | Message::CaughtUp { .. }
            | Message::WatchRefused { .. }
            | Message::Streaming { .. }
            | Message::Relayed { .. }
            | Message::Away
            | Message::DesyncState(_)) => return Heard::Stray(stray.name()),
        })
    }
}

/// From the partner while the match runs (`session::online`).
#[derive(Clone, Debug, PartialEq)]
pub enum Playing {
    Done {
        frame: Frame,
        checksum: u128,
    },
    Bye {
        reason: String,
    },
    Desync {
        frame: Frame,
        sender: u128,
        receiver: u128,
    },
    /// A late probe from a partner still measuring.
    Ping {
        seq: u32,
    },
    Chat {
        text: String,
    },
    Relayed {
        from: String,
        frame: Frame,
        text: String,
    },
    /// The partner's game stops running for a while.
    Away,
    /// The partner's evidence after a desync.
    DesyncState(DesyncState),
}

impl Phase for Playing {
    fn sort(message: Message) -> Heard<Self> {
        Heard::Expected(match message {
            Message::Done { frame, checksum } => Playing::Done { frame, checksum },
            Message::Bye { reason } => Playing::Bye { reason },
            Message::Desync {
                frame,
                sender,
                receiver,
            } => Playing::Desync {
                frame,
                sender,
                receiver,
            },
            Message::Ping { seq } => Playing::Ping { seq },
            Message::Chat { text } => Playing::Chat { text },
            Message::Relayed { from, frame, text } => Playing::Relayed { from, frame, text },
            Message::Away => Playing::Away,
            Message::DesyncState(state) => Playing::DesyncState(state),
            stray @ (Message::Hello(_)
            | Message::Pong { .. }
            | Message::Measured { .. }
            | Message::Busy
            | Message::CatchUp { .. }
            | Message::CaughtUp { .. }
            | Message::Watch(_)
            | Message::WatchRefused { .. }
            | Message::Streaming { .. }) => return Heard::Stray(stray.name()),
        })
    }
}

/// A rejoin's catch-up, on either side (`net::rejoin`): the confirmed
/// frames the other lacks, then the end.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum CatchingUp {
    CatchUp { chunks: Vec<u8> },
    CaughtUp { frame: Frame, checksum: u128 },
}

impl Phase for CatchingUp {
    fn sort(message: Message) -> Heard<Self> {
        Heard::Expected(match message {
            Message::CatchUp { chunks } => CatchingUp::CatchUp { chunks },
            Message::CaughtUp { frame, checksum } => CatchingUp::CaughtUp { frame, checksum },
            stray @ (Message::Hello(_)
            | Message::Ping { .. }
            | Message::Pong { .. }
            | Message::Measured { .. }
            | Message::Done { .. }
            | Message::Bye { .. }
            | Message::Desync { .. }
            | Message::Busy
            | Message::Chat { .. }
            | Message::Watch(_)
            | Message::WatchRefused { .. }
            | Message::Streaming { .. }
            | Message::Relayed { .. }
            | Message::Away
            | Message::DesyncState(_)) => return Heard::Stray(stray.name()),
        })
    }
}

/// From the player a spectator watches (`net::watch`, `session::spectator`).
#[derive(Clone, Debug, PartialEq)]
pub enum Spectating {
    /// The answer to our `Watch`: what the frames need.
    Streaming {
        seed: u64,
        preset: String,
        frame: Frame,
        name: String,
        players: Vec<String>,
    },
    /// Confirmed frames of the match.
    CatchUp {
        chunks: Vec<u8>,
    },
    Done {
        frame: Frame,
        checksum: u128,
    },
    Bye {
        reason: String,
    },
    Relayed {
        from: String,
        frame: Frame,
        text: String,
    },
    WatchRefused {
        reason: String,
    },
    /// The streaming player's evidence after the match ended in a desync.
    DesyncState(DesyncState),
}

impl Phase for Spectating {
    fn sort(message: Message) -> Heard<Self> {
        Heard::Expected(match message {
            Message::Streaming {
                seed,
                preset,
                frame,
                name,
                players,
            } => Spectating::Streaming {
                seed,
                preset,
                frame,
                name,
                players,
            },
            Message::CatchUp { chunks } => Spectating::CatchUp { chunks },
            Message::Done { frame, checksum } => Spectating::Done { frame, checksum },
            Message::Bye { reason } => Spectating::Bye { reason },
            Message::Relayed { from, frame, text } => Spectating::Relayed { from, frame, text },
            Message::WatchRefused { reason } => Spectating::WatchRefused { reason },
            Message::DesyncState(state) => Spectating::DesyncState(state),
            stray @ (Message::Hello(_)
            | Message::Ping { .. }
            | Message::Pong { .. }
            | Message::Measured { .. }
            | Message::Desync { .. }
            | Message::Busy
            | Message::CaughtUp { .. }
            | Message::Chat { .. }
            | Message::Watch(_)
            | Message::Away) => return Heard::Stray(stray.name()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::protocol::tests::one_of_each;

    fn expected<T: Phase>(message: &Message) -> bool {
        matches!(message.clone().heard_as::<T>(), Heard::Expected(_))
    }

    /// The module's table, checked: which phases expect each message.
    #[test]
    fn each_phase_expects_what_the_table_says() {
        let table = [
            ("hello", "CS..."),
            ("ping", "C.P.."),
            ("pong", "C...."),
            ("measured", "C...."),
            ("done", "..P.W"),
            ("bye", "..P.W"),
            ("desync", "..P.."),
            ("busy", "C...."),
            ("catch_up", "...RW"),
            ("caught_up", "...R."),
            ("chat", ".SP.."),
            ("watch", ".S..."),
            ("watch_refused", "....W"),
            ("streaming", "....W"),
            ("relayed", "..P.W"),
            ("away", "..P.."),
            ("desync_state", "..P.W"),
        ];
        let messages = one_of_each();
        assert_eq!(messages.len(), table.len(), "a message is missing here");
        for message in &messages {
            let phases: String = [
                (expected::<Connecting>(message), 'C'),
                (expected::<Stranger>(message), 'S'),
                (expected::<Playing>(message), 'P'),
                (expected::<CatchingUp>(message), 'R'),
                (expected::<Spectating>(message), 'W'),
            ]
            .iter()
            .map(|&(yes, c)| if yes { c } else { '.' })
            .collect();
            let row = table.iter().find(|(name, _)| *name == message.name());
            assert_eq!(
                row.map(|r| r.1),
                Some(phases.as_str()),
                "{}",
                message.name()
            );
        }
    }

    #[test]
    fn a_stray_is_named_and_an_expected_message_keeps_its_fields() {
        assert_eq!(Message::Busy.heard_as::<Playing>(), Heard::Stray("busy"));
        let done = Message::Done {
            frame: 540,
            checksum: 7,
        };
        assert_eq!(
            done.heard_as::<Spectating>(),
            Heard::Expected(Spectating::Done {
                frame: 540,
                checksum: 7
            })
        );
    }
}
