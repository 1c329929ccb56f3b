//! The shell's half of the machine: each [`Output`] carried out on the
//! channel, the simulation, the GGRS session and the logs, in the order
//! the machine said them.

use crate::Game;
use web_time::Instant;

use super::OnlineBackend;
use super::machine::{Event, Frames, Output, Resume, Stop};
use crate::net::connect::Connection;
use crate::replay::EventKind;
use crate::session::SessionError;
use crate::session::frame_log::FrameLog;
use crate::session::simulation::Simulation;

use matchbox_socket::PeerId;

impl From<Stop> for SessionError {
    fn from(stop: Stop) -> Self {
        match stop {
            Stop::PeerLost(why) => SessionError::PeerLost(why),
            Stop::Desync {
                frame,
                ours,
                theirs,
            } => SessionError::Desync {
                frame,
                ours,
                theirs,
            },
            Stop::Protocol(why) => SessionError::Protocol(why),
        }
    }
}

impl<G: Game<N>, const N: usize> OnlineBackend<G, N> {
    /// Tells the machine `event` now and carries out its answer.
    pub(super) fn feed(
        &mut self,
        event: Event<PeerId>,
        sim: &mut Simulation<G, N>,
        log: &mut FrameLog<G::Input, N>,
    ) -> Result<(), SessionError> {
        let outputs = self.machine.handle(Instant::now(), event);
        self.perform(outputs, None, sim, log)
    }

    /// Carries out the machine's outputs in order; `knocked` is the fresh
    /// connection a knock agreed on, for [`Output::Adopt`].
    pub(super) fn perform(
        &mut self,
        outputs: Vec<Output<PeerId, G::Input, N>>,
        mut knocked: Option<Connection<G::Input, N>>,
        sim: &mut Simulation<G, N>,
        log: &mut FrameLog<G::Input, N>,
    ) -> Result<(), SessionError> {
        let mut adopted = None;
        for output in outputs {
            match output {
                Output::Send(message) => self.wire.control.send(&message),
                Output::TellSpectators(message) => self.tell_spectators(log, &message),
                Output::SendCatchUp { known } => self.send_catch_up(known, log),
                Output::CatchUp(Frames(history)) => self.catch_up(history, sim, log)?,
                Output::Keep { again } => self.keep(again, log),
                Output::Knock { silent } => self.note_knocking(silent, log),
                Output::StartAttempt { attempt, timeout } => {
                    self.start_attempt(attempt, timeout, log)?
                }
                Output::DropAttempt => {
                    if let Some((attempt, _)) = self.redial.attempt.take() {
                        tracing::info!(
                            "reconnect attempt {attempt} dropped: it ran out its time while this side did not run"
                        );
                    }
                }
                Output::ReopenSignaling => self.reopen_room(log)?,
                Output::Adopt => adopted = knocked.take().map(|c| self.adopt(c)),
                Output::Resume(Resume::Rejoined {
                    peer,
                    agreement,
                    history: Frames(history),
                    waited,
                }) => self.rejoined(peer, &agreement, history, waited, sim, log)?,
                Output::Resume(Resume::Reconnected { attempts, silent }) => {
                    if let Some(adopted) = adopted.take() {
                        self.reconnected(adopted, attempts, silent, sim, log)?;
                    }
                }
                Output::LinkResumed { silent } => {
                    let silent = silent.as_millis();
                    tracing::info!("connection resumed after {silent} ms without packets");
                    log.event(EventKind::Resumed, &format!("after {silent} ms"));
                }
                Output::PartnerAway => {
                    let why = format!(
                        "player {}'s game went to the background; the match pauses until it is back",
                        self.remote() + 1
                    );
                    tracing::warn!("{why}");
                    log.event(EventKind::Interrupted, &why);
                }
                Output::Stalled { stalled } => {
                    let ms = stalled.as_millis();
                    tracing::warn!(
                        "this side did not run for {ms} ms (stopped, suspended or in the background); the peer heard nothing from it meanwhile"
                    );
                    log.event(
                        EventKind::Interrupted,
                        &format!("this side did not run for {ms} ms"),
                    );
                }
                Output::PeerLeft { reason } => log.event(EventKind::PeerLeft, &reason),
                Output::Chat { text } => self.room_chat().hear_partner(&text, log),
                Output::Relayed { from, text } => self.room_chat().hear_relayed(&from, &text, log),
                Output::PeerDesyncState(state) => self.heard_desync_state(state),
                Output::Stop(stop) => return Err(stop.into()),
            }
        }
        Ok(())
    }

    /// The messages among `outputs` (what the end of a match, a goodbye or
    /// a desync report says); nothing else comes of those events.
    pub(super) fn say(
        &mut self,
        outputs: Vec<Output<PeerId, G::Input, N>>,
        log: &FrameLog<G::Input, N>,
    ) {
        for output in outputs {
            match output {
                Output::Send(message) => self.wire.control.send(&message),
                Output::TellSpectators(message) => self.tell_spectators(log, &message),
                other => debug_assert!(false, "not a message: {other:?}"),
            }
        }
    }
}
