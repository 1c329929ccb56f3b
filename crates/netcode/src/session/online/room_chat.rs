//! Room chat on a player: its own lines, the other player's, and, on the
//! player who streams the match, its spectators'. Every line this player
//! accepts is recorded in its replay at its confirmed frame and passed on
//! as `Message::Relayed` (with that frame) to whoever cannot have had it:
//! the spectators get every line (a spectator's own comes back to it as
//! the frame it is recorded at), the other player gets the spectators'
//! (this player's own lines it hears directly, as `Chat`).

use crate::{Game, GameInfo, GameInput};
use web_time::Instant;

use super::spectators::Spectators;
use super::{OnlineBackend, OnlineOptions};
use crate::net::connect::ConnectOptions;
use crate::net::control::ControlChannel;
use crate::net::handshake::{Agreement, Message};
use crate::replay::EventKind;
use crate::session::chat::{Action, Chat, ChatError, ChatLine, Command, player_names};
use crate::session::frame_log::FrameLog;
use crate::session::server_desk::ServerDesk;

/// Who else must hear a line this player accepted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Relay {
    /// The spectators only: the other player said it, or heard it from us.
    Spectators,
    /// The other player too: a spectator said it.
    Everyone,
}

/// The room around the two players: what is said in it, the spectators
/// this player streams to, and what it asks the room's server about them
/// (figures, kicks, reports).
pub(super) struct Audience {
    pub(super) chat: Chat,
    pub(super) desk: ServerDesk,
    pub(super) spectators: Spectators,
}

impl Audience {
    /// A match's room as it begins (or resumes, `rejoined`): the players'
    /// names from `agreement`, nobody watching yet.
    pub(super) fn for_match(
        game: &GameInfo,
        agreement: &Agreement,
        options: &OnlineOptions,
        connect_options: &ConnectOptions,
        rejoined: bool,
    ) -> Self {
        let local = agreement.local_handle;
        let names = player_names(&agreement.names);
        let chat = Chat::new(names[local].clone(), names[1 - local].clone())
            .with_greeting(options.say.clone())
            .with_flood(options.chat_flood_per_second, game.fps);
        Audience {
            chat,
            desk: ServerDesk::for_player(connect_options, rejoined),
            spectators: Spectators::default(),
        }
    }
}

/// The parts of a match the room chat works with, borrowed together.
pub(super) struct RoomChat<'a> {
    chat: &'a mut Chat,
    control: &'a mut ControlChannel,
    spectators: &'a mut Spectators,
    desk: &'a ServerDesk,
}

impl<G: Game<N>, const N: usize> OnlineBackend<G, N> {
    /// The room chat, handed the chat's state, the channel and the
    /// spectators.
    pub(super) fn room_chat(&mut self) -> RoomChat<'_> {
        RoomChat {
            chat: &mut self.audience.chat,
            control: &mut self.wire.control,
            spectators: &mut self.audience.spectators,
            desk: &self.audience.desk,
        }
    }
}

impl RoomChat<'_> {
    /// Our line: to the other player, into the replay, to the spectators
    /// (a `/command` is carried out here instead, see `Chat::command`).
    pub(super) fn say<I: GameInput, const N: usize>(
        &mut self,
        text: &str,
        log: &mut FrameLog<I, N>,
    ) -> Result<(), ChatError> {
        let frame = log.confirmed();
        match self.chat.command(frame, text) {
            Command::Line => {}
            Command::Answered => return Ok(()),
            Command::Act(Action::Kick(name)) => {
                let peer = self.spectators.named(&name);
                let asked = self
                    .desk
                    .kick(self.chat, frame, &name, peer.map(|p| p.to_string()));
                // The stream stops now; the spectator is told once the
                // server has the ban (`OnlineBackend::poll`), or now when
                // there is no server to ask.
                match peer {
                    Some(peer) if asked => self.spectators.stop(peer),
                    Some(peer) => self.spectators.remove(self.control, peer),
                    None => {}
                }
                return Ok(());
            }
            Command::Act(Action::Report { name, reason }) => {
                self.desk.report(self.chat, frame, &name, &reason);
                return Ok(());
            }
        }
        let line = self.chat.say(Instant::now(), log.confirmed(), text)?;
        self.control.send(&Message::Chat {
            text: line.text.clone(),
        });
        self.record_and_relay(&line, log, Relay::Spectators);
        Ok(())
    }

    /// The other player's `Chat`.
    pub(super) fn hear_partner<I: GameInput, const N: usize>(
        &mut self,
        text: &str,
        log: &mut FrameLog<I, N>,
    ) {
        if let Some(line) = self.chat.receive(Instant::now(), log.confirmed(), text) {
            self.record_and_relay(&line, log, Relay::Spectators);
        }
    }

    /// A spectator's line that the other player passed on (it streams to
    /// them): recorded at our own confirmed frame, like its lines.
    pub(super) fn hear_relayed<I: GameInput, const N: usize>(
        &mut self,
        from: &str,
        text: &str,
        log: &mut FrameLog<I, N>,
    ) {
        let now = Instant::now();
        if let Some(line) = self.chat.receive_relayed(now, log.confirmed(), from, text)
            && line.from != self.chat.name()
        {
            self.record_and_relay(&line, log, Relay::Spectators);
        }
    }

    /// The spectators' `Chat`s since the last call, each under its own
    /// sender's limit; from anyone we do not stream to, dropped.
    pub(super) fn hear_spectators<I: GameInput, const N: usize>(
        &mut self,
        log: &mut FrameLog<I, N>,
    ) {
        let (said, overflow) = self.control.take_others_chat();
        self.chat.count_dropped(overflow);
        let now = Instant::now();
        for (peer, text) in said {
            let Some((name, limit)) = self.spectators.chat_of(peer) else {
                self.chat.count_dropped(1);
                continue;
            };
            if let Some(line) = self
                .chat
                .receive_from(now, log.confirmed(), name, limit, &text)
            {
                self.record_and_relay(&line, log, Relay::Everyone);
            }
        }
    }

    /// Once the match runs: the `--say` lines (the first call), and the
    /// debug flood's messages due since the last call.
    pub(super) fn service<I: GameInput, const N: usize>(&mut self, log: &mut FrameLog<I, N>) {
        for text in self.chat.take_greeting(log.confirmed()) {
            if let Err(e) = self.say(&text, log) {
                tracing::warn!("--say {text:?} not sent: {e}");
            }
        }
        for text in self.chat.flood_due() {
            self.control.send(&Message::Chat { text });
        }
    }

    fn record_and_relay<I: GameInput, const N: usize>(
        &mut self,
        line: &ChatLine,
        log: &mut FrameLog<I, N>,
        relay: Relay,
    ) {
        tracing::info!("chat {line}");
        log.event(EventKind::Chat, &line.detail());
        let relayed = line.relayed();
        if relay == Relay::Everyone {
            self.control.send(&relayed);
        }
        self.spectators.send_all(self.control, &relayed);
    }
}
