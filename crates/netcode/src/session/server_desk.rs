//! What a player or spectator asks its room's signaling server during a
//! match, beside the match itself: the host of a public room lists its
//! figures (wave, score, time) once a second, the host removes a spectator
//! (`/kick`), anyone reports someone (`/report`), and each player says
//! once how its match connected (`/connected`: the time and whether it
//! went direct or through the TURN relay, which only the peers know, for
//! the operator's metrics). The requests go out off
//! the game's loop (`net::signaling::RoomRequests`); their answers come
//! back as chat notices for this player only. Nothing here touches the
//! simulation, the inputs or the replay.

use web_time::{Duration, Instant};

use crate::net::connect::ConnectOptions;
use crate::net::handshake::Role;
use crate::net::signaling::{Answer, ConnectPath, RoomCode, RoomRequests, SeatToken};
use crate::session::chat::Chat;
use crate::{Frame, Game};

/// How often the host of a public room lists its figures (the server
/// takes them at most this often).
const FIGURES_EVERY: Duration = Duration::from_secs(1);

pub(super) struct ServerDesk {
    /// `None` without a room code or a seat token (a quick match, a LAN
    /// server without either): nothing to ask.
    requests: Option<RoomRequests>,
    /// This player hosts a public room: it lists the match's figures.
    lists_figures: bool,
    figures_sent: Option<Instant>,
    figures_refused: bool,
    /// This player still owes the server its connect report: once per
    /// match, never for a rejoin (a match resumed is not a match begun).
    connect_report_due: bool,
}

impl ServerDesk {
    /// A player's desk, from what it connected with; `rejoined`: its
    /// connection resumed a match in progress.
    pub(super) fn for_player(options: &ConnectOptions, rejoined: bool) -> ServerDesk {
        let requests = (options.meeting.room.clone())
            .zip(options.meeting.seat)
            .map(|(code, seat)| RoomRequests::new(&options.meeting.server, code, seat));
        ServerDesk {
            lists_figures: options.lobby.public
                && options.meeting.role == Role::Host
                && requests.is_some(),
            connect_report_due: requests.is_some() && !rejoined,
            requests,
            figures_sent: None,
            figures_refused: false,
        }
    }

    /// A spectator's desk: it may report, nothing else.
    pub(super) fn for_spectator(server: &str, room: RoomCode, seat: SeatToken) -> ServerDesk {
        ServerDesk {
            requests: Some(RoomRequests::new(server, room, seat)),
            lists_figures: false,
            figures_sent: None,
            figures_refused: false,
            connect_report_due: false,
        }
    }

    /// Once the match has begun (`connect_ms` known) and WebRTC has told
    /// the path (`kind`: `host`, `srflx`, `prflx` or `relay`), tells the
    /// server how this player connected, once.
    pub(super) fn report_connect(&mut self, connect_ms: Option<u64>, kind: Option<&str>) {
        if !self.connect_report_due {
            return;
        }
        let (Some(connect_ms), Some(kind)) = (connect_ms, kind) else {
            return;
        };
        self.connect_report_due = false;
        match (&self.requests, ConnectPath::of_kind(kind)) {
            (Some(requests), Some(path)) => requests.connected(connect_ms, path),
            _ => tracing::debug!("no connect report: path {kind}"),
        }
    }

    /// The host's figures, once a second while the match runs.
    pub(super) fn list_figures<G: Game<N>, const N: usize>(
        &mut self,
        state: &G::State,
        now: Instant,
    ) {
        let Some(requests) = self.requests.as_ref().filter(|_| self.lists_figures) else {
            return;
        };
        if self
            .figures_sent
            .is_some_and(|at| now.saturating_duration_since(at) < FIGURES_EVERY)
        {
            return;
        }
        self.figures_sent = Some(now);
        let (level, score) = G::figures(state);
        let elapsed_s = G::frame(state) / G::INFO.fps.max(1);
        requests.stats(level, score, elapsed_s);
    }

    /// The server's answers since the last call: notices into `chat`; a
    /// refusal of the figures is logged once (the match goes on unlisted
    /// figures). Returns the spectators whose kick the server answered
    /// (their peer ids): the host tells them now.
    pub(super) fn take_answers(&mut self, chat: &mut Chat, frame: Frame) -> Vec<String> {
        let mut kicks_answered = Vec::new();
        let Some(requests) = &self.requests else {
            return kicks_answered;
        };
        for answer in requests.answers() {
            match answer {
                Answer::Notice(text) => {
                    tracing::info!("{text}");
                    chat.notice(frame, text);
                }
                Answer::StatsRefused(why) if !self.figures_refused => {
                    self.figures_refused = true;
                    tracing::warn!("the server did not take this room's figures: {why}");
                }
                Answer::StatsRefused(_) => {}
                // An older server answers 404: nothing the player can act on.
                Answer::ConnectRefused(why) => {
                    tracing::info!("the server did not take this match's connect report: {why}");
                }
                Answer::KickAnswered(peer) => kicks_answered.push(peer),
            }
        }
        kicks_answered
    }

    /// `/kick NAME`: `peer` is the spectator of that name this player
    /// streams to, if any (only the host streams to spectators). True when
    /// the server was asked: its answer comes from [`take_answers`]
    /// (Self::take_answers).
    pub(super) fn kick(
        &self,
        chat: &mut Chat,
        frame: Frame,
        name: &str,
        peer: Option<String>,
    ) -> bool {
        let Some(peer) = peer else {
            chat.notice(
                frame,
                format!("no spectator called {name} watches through you (only the host, who streams the match, can remove spectators; /who)"),
            );
            return false;
        };
        match &self.requests {
            Some(requests) => {
                requests.kick(&peer, name);
                true
            }
            None => {
                chat.notice(frame, NO_SERVER);
                false
            }
        }
    }

    /// `/report NAME REASON`, with the room's last lines.
    pub(super) fn report(&self, chat: &mut Chat, frame: Frame, name: &str, reason: &str) {
        match &self.requests {
            Some(requests) => requests.report(name, reason, &chat.last_lines()),
            None => chat.notice(frame, NO_SERVER),
        }
    }
}

/// Why a quick match cannot kick or report.
const NO_SERVER: &str = "this match has no room code, so its server cannot act on it";
