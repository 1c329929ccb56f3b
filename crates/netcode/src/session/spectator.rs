//! Watching a match: a replay still being written. The player who streams
//! it (`online/spectators.rs`) sends the confirmed frames as wire chunks
//! (`net::protocol::chunk`), those that end on the 60-frame grid with the
//! checksum after their last frame; this backend buffers them, steps them
//! through the simulation (recording them like any confirmed frame) and
//! checks every checksum sent (once a second of match), so a spectator that
//! drifted from the players says so instead of showing another match.
//!
//! Pacing: frames more than [`FAST_FORWARD`] behind the newest one
//! received are stepped at once (a late spectator is brought up to the
//! present, silently: no effects or sounds for minutes of play), down to
//! [`KEEP_BEHIND`]; after that one frame per due frame, two while more
//! than [`CATCH_UP_ABOVE`] wait, so the clock drift between the players'
//! machine and this one never builds up. `Done` ends the match at its
//! frame; `Bye` ends it after the frames received.
//!
//! Chat: the player passes on every line of the room as `Relayed`, with
//! the frame it recorded the line at; the line is shown when the match
//! reaches that frame (the window ages lines by frame) and recorded there,
//! so a spectator's replay has the players' chat at the streaming player's
//! frames. Our own lines go to the player as `Chat`, are shown at once,
//! and are recorded when they come back relayed.
//!
//! The viewer may pause ([`WatchControl::TogglePause`]: frames keep
//! arriving and wait); resumed, it plays on from where it was, behind
//! live, until [`WatchControl::JumpToLive`] fast-forwards it back.

use std::collections::VecDeque;
use web_time::Instant;

use matchbox_socket::{PeerId, PeerState, WebRtcChannel};

use super::backend::Backend;
use super::chat::{Action, Chat, ChatError, ChatLine, Command, player_name, same_name, valid_name};
use super::desync::{Evidence, Forensics};
use super::frame_log::FrameLog;
use super::report::{FrameReport, FrameState};
use super::server_desk::ServerDesk;
use super::simulation::Simulation;
use super::{MatchSummary, PeerGone, ProtocolError, SessionError};
use crate::net::connect::Transport;
use crate::net::control::ControlChannel;
use crate::net::handshake::Message;
use crate::net::protocol::chunk::Chunk;
use crate::net::protocol::phase::{Heard, Spectating};
use crate::net::rejoin::CatchUpReceiver;
use crate::net::room_code::RoomCode;
use crate::net::watch::WatchConnection;
use crate::replay::EventKind;
use crate::{Frame, Game, hex_checksum};

/// Frames received but not shown beyond this many (half a second) are
/// stepped at once.
const FAST_FORWARD: usize = 30;
/// What a fast-forward leaves to show at normal speed: 0.3 s.
pub(super) const KEEP_BEHIND: usize = 18;
/// More than this many waiting: two frames per due frame.
const CATCH_UP_ABOVE: usize = 24;

/// What the window shows of a spectator ("watching K7Q-2XM - 0.3 s behind
/// live").
#[derive(Clone, Debug)]
pub struct WatchStatus {
    /// The room being watched.
    pub room: RoomCode,
    /// Frames received but not shown yet, in seconds.
    pub behind_s: f64,
    /// Where the viewer is in the stream.
    pub state: WatchState,
}

/// Where the viewer of a watched match is: one of these at a time (a pause
/// is said before the end, the end before being behind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatchState {
    /// Following live: a backlog over half a second is fast-forwarded.
    Live,
    /// Playing on from where a pause left it, behind live
    /// ([`WatchControl::JumpToLive`] catches up).
    Behind,
    /// The viewer paused the stream.
    Paused,
    /// The match ended (its end or the player's goodbye arrived): the rest
    /// plays out.
    Ended,
}

/// A spectator's own part in the room: what it says.
#[derive(Clone, Debug, Default)]
pub struct SpectatorOptions {
    /// Chat lines sent once the stream reaches their frame (`--say`: 0).
    pub say: Vec<(Frame, String)>,
    /// Debug aid for tests ([`crate::testing::flood_chat`]): chat messages
    /// per second sent to the player, mostly junk.
    pub(crate) chat_flood_per_second: u32,
}

/// What the viewer of a watched match can do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatchControl {
    /// Pause, or resume from where it was (behind live).
    TogglePause,
    /// Fast-forward to the present and follow live again.
    JumpToLive,
}

pub(super) struct SpectatorBackend<G: Game<N>, const N: usize> {
    control: ControlChannel,
    peer: PeerId,
    room: RoomCode,
    receiver: CatchUpReceiver<G::Input, N>,
    /// Received, not yet stepped: chunks, and how far into the first.
    pending: VecDeque<Chunk<G::Input, N>>,
    pending_at: usize,
    /// Frames received (0..received).
    received: Frame,
    /// Frames in the match when the player answered: until they are all
    /// here, this spectator is still catching up.
    so_far: Frame,
    /// `Done`: the match's last frame and its checksum.
    done: Option<(Frame, u128)>,
    /// `Bye`: why the match ended early.
    bye: Option<String>,
    /// The match ended in a desync: the streaming player's evidence (ours
    /// joins it once our world reaches its frame).
    desync: Forensics<G, N>,
    started: Instant,
    /// When the frames first sent were all stepped (or the backlog first
    /// fell to what is shown at normal speed).
    caught_up: Option<Instant>,
    /// Sum and count of the backlog (frames) at every due frame once
    /// caught up, for the mean `behind_live_ms`.
    behind_sum: u64,
    behind_samples: u64,
    fast_forwarded: Frame,
    paused: bool,
    /// Following live: fast-forwards keep it near the present. Off after a
    /// pause until the viewer jumps back.
    live: bool,
    /// The viewer asked to jump to live: fast-forward whatever is over
    /// [`KEEP_BEHIND`] at the next frame.
    jump: bool,
    chat: Chat,
    /// What this spectator asks the room's server (a report).
    desk: ServerDesk,
    /// The players' names, player 1's first (as the player sent them, if
    /// they are names).
    players: [String; N],
    /// Chat lines accepted, to be recorded once the match reaches their
    /// frame (in frame order).
    unrecorded: VecDeque<ChatLine>,
    // Last: dropped after everything that runs on it.
    _ggrs_channel: WebRtcChannel,
    transport: Transport,
}

impl<G: Game<N>, const N: usize> SpectatorBackend<G, N> {
    pub(super) fn new(
        connection: WatchConnection<G::Input, N>,
        options: SpectatorOptions,
    ) -> Result<Self, SessionError> {
        let WatchConnection::<G::Input, N> {
            transport,
            ggrs_channel,
            control,
            peer,
            received,
            early,
            started,
            room,
            so_far,
            name,
            server,
            seat,
            players,
            ..
        } = connection;
        let players = checked_players(&players);
        if !valid_name(&name) {
            return Err(SessionError::Protocol(ProtocolError::BadName(name)));
        }
        // Our partner is the streaming player; we hear it relayed, by name.
        let chat = Chat::new(name, String::new())
            .with_greeting(options.say)
            .with_flood(options.chat_flood_per_second, G::INFO.fps);
        let desk = ServerDesk::for_spectator(&server, room.clone(), seat);
        let mut backend = SpectatorBackend {
            control,
            peer,
            room,
            receiver: received,
            pending: VecDeque::new(),
            pending_at: 0,
            received: 0,
            so_far,
            done: None,
            bye: None,
            desync: Forensics::default(),
            started,
            caught_up: None,
            behind_sum: 0,
            behind_samples: 0,
            fast_forwarded: 0,
            paused: false,
            live: true,
            jump: false,
            chat,
            desk,
            players,
            unrecorded: VecDeque::new(),
            _ggrs_channel: ggrs_channel,
            transport,
        };
        backend.take_chunks();
        for message in early {
            backend.on_message(message)?;
        }
        Ok(backend)
    }

    fn take_chunks(&mut self) {
        self.pending.extend(self.receiver.take_chunks());
        self.received = self.receiver.frames();
    }

    /// Frames received and not stepped yet.
    fn backlog(&self) -> usize {
        let queued: usize = self.pending.iter().map(|c| c.frames.len()).sum();
        queued - self.pending_at
    }

    fn on_message(&mut self, message: Spectating) -> Result<(), SessionError> {
        match message {
            Spectating::CatchUp { chunks } => {
                self.receiver
                    .add(&chunks)
                    .map_err(|e| SessionError::Protocol(ProtocolError::Stream(e.into())))?;
                self.take_chunks();
            }
            Spectating::Done { frame, checksum } => {
                self.done.get_or_insert((frame, checksum));
            }
            Spectating::Bye { reason } => {
                if self.done.is_none() && self.bye.is_none() {
                    tracing::warn!("the match ended at frame {}: {reason}", self.received);
                    self.bye = Some(reason);
                }
            }
            Spectating::Relayed { from, frame, text } => {
                let now = Instant::now();
                if let Some(mut line) = self.chat.receive_relayed(now, frame, &from, &text) {
                    if line.from != self.chat.name() {
                        tracing::info!("chat {line}");
                    }
                    // Recorded in order: a frame before the last one's (only
                    // a broken player sends that) is recorded with it.
                    if let Some(last) = self.unrecorded.back() {
                        line.frame = line.frame.max(last.frame);
                    }
                    self.unrecorded.push_back(line);
                }
            }
            Spectating::WatchRefused { reason } => {
                return Err(SessionError::Protocol(ProtocolError::WatchRefused {
                    reason,
                }));
            }
            Spectating::DesyncState(state) => match Evidence::from_message(state) {
                Ok(theirs) if self.desync.theirs.is_none() => self.desync.theirs = Some(theirs),
                Ok(_) => {}
                Err(e) => tracing::warn!("the streaming player's desync evidence: {e}"),
            },
            // A repeat of the answer to a repeated `Watch`.
            Spectating::Streaming { .. } => {}
        }
        Ok(())
    }

    /// Steps the next received frame; checks its chunk's checksum at the
    /// chunk's end. `report` `None`: fast-forward (no events).
    fn step_one(
        &mut self,
        sim: &mut Simulation<G, N>,
        log: &mut FrameLog<G::Input, N>,
        report: Option<&mut FrameReport<G, N>>,
    ) -> Result<bool, SessionError> {
        let Some(chunk) = self.pending.front() else {
            return Ok(false);
        };
        let inputs: [G::Input; N] = chunk.frames[self.pending_at];
        let (chunk_len, expected) = (chunk.frames.len(), chunk.checksum);
        sim.step_known(inputs, log, report, false);
        // Before the stream's own check: a player's desync evidence for
        // this frame explains the mismatch that check would find.
        self.check_desync(sim, log)?;
        self.pending_at += 1;
        if self.pending_at == chunk_len {
            self.pending.pop_front();
            self.pending_at = 0;
            let ours = G::checksum(sim.world());
            if let Some(expected) = expected
                && ours != expected
            {
                return Err(SessionError::OutOfSync {
                    frame: G::frame(sim.world()),
                    ours,
                    theirs: expected,
                });
            }
        }
        self.record_chat(log);
        if let Some((frame, checksum)) = self.done
            && G::frame(sim.world()) == frame
            && G::checksum(sim.world()) != checksum
        {
            return Err(SessionError::OutOfSync {
                frame,
                ours: G::checksum(sim.world()),
                theirs: checksum,
            });
        }
        Ok(true)
    }

    /// Records the chat lines whose frame the match has reached.
    fn record_chat(&mut self, log: &mut FrameLog<G::Input, N>) {
        while let Some(line) = self.unrecorded.front()
            && line.frame <= log.confirmed()
        {
            log.event(EventKind::Chat, &line.detail());
            self.unrecorded.pop_front();
        }
    }

    /// Our `--say` lines once connected, and the debug flood.
    fn service_chat(&mut self, log: &mut FrameLog<G::Input, N>) {
        for text in self.chat.take_greeting(log.confirmed()) {
            if let Err(e) = self.say(&text, log) {
                tracing::warn!("--say {text:?} not sent: {e}");
            }
        }
    }

    fn say(&mut self, text: &str, log: &FrameLog<G::Input, N>) -> Result<(), ChatError> {
        let frame = log.confirmed();
        match self.chat.command(frame, text) {
            Command::Line => {}
            Command::Answered => return Ok(()),
            Command::Act(Action::Kick(_)) => {
                let why = "only the room's host can remove spectators";
                self.chat.notice(frame, why);
                return Ok(());
            }
            Command::Act(Action::Report { name, reason }) => {
                self.desk.report(&mut self.chat, frame, &name, &reason);
                return Ok(());
            }
        }
        let line = self.chat.say(Instant::now(), log.confirmed(), text)?;
        self.control.send(&Message::Chat { text: line.text });
        Ok(())
    }

    /// Frames to show before the match's end, if it is known.
    /// The match ended in a desync and our world has reached its frame:
    /// our own evidence (the world as we simulated the stream) against the
    /// streaming player's, and the same verdict as the players'.
    fn check_desync(
        &mut self,
        sim: &Simulation<G, N>,
        log: &FrameLog<G::Input, N>,
    ) -> Result<(), SessionError> {
        let Some(theirs) = &self.desync.theirs else {
            return Ok(());
        };
        if G::frame(sim.world()) != theirs.frame || self.desync.ours.is_some() {
            return Ok(());
        }
        let (frame, theirs) = (theirs.frame, theirs.checksum);
        let ours = G::checksum(sim.world());
        self.desync.ours = Some(Evidence::gather(frame, ours, sim, log));
        self.desync.room = Some(self.room.to_string());
        self.desync.spectator = Some(self.chat.name().to_owned());
        Err(SessionError::Desync {
            frame,
            ours,
            theirs,
        })
    }

    fn end(&self) -> Option<Frame> {
        match (self.done, &self.bye) {
            (Some((frame, _)), _) => Some(frame),
            (None, Some(_)) => Some(self.received),
            (None, None) => None,
        }
    }
}

impl<G: Game<N>, const N: usize> Backend<G, N> for SpectatorBackend<G, N> {
    fn advance(
        &mut self,
        _inputs: [G::Input; N],
        sim: &mut Simulation<G, N>,
        log: &mut FrameLog<G::Input, N>,
    ) -> Result<FrameReport<G, N>, SessionError> {
        let mut report = FrameReport::default();
        for text in self.chat.flood_due() {
            self.control.send(&Message::Chat { text });
        }
        if self.paused {
            report.state = FrameState::Waiting;
            return Ok(report);
        }
        let backlog = self.backlog();
        let jump = std::mem::take(&mut self.jump) && backlog > KEEP_BEHIND;
        if (self.live && backlog > FAST_FORWARD) || jump {
            let started = Instant::now();
            let skip = backlog - KEEP_BEHIND;
            for _ in 0..skip {
                self.step_one(sim, log, None)?;
            }
            self.fast_forwarded += skip as Frame;
            let detail = format!(
                "fast-forwarded {skip} frames to frame {} in {} ms",
                G::frame(sim.world()),
                started.elapsed().as_millis()
            );
            tracing::info!("{detail}");
        }
        let backlog = self.backlog();
        // Brought up to the present: every frame of the match so far has
        // arrived and been stepped, and no fast-forward is pending (the
        // backlog may settle anywhere up to CATCH_UP_ABOVE, not below
        // KEEP_BEHIND: one frame arrives per frame stepped).
        let all_so_far = self.received > 0
            && self.received >= self.so_far
            && G::frame(sim.world()) >= self.so_far
            && backlog <= FAST_FORWARD;
        if all_so_far && self.caught_up.is_none() {
            let now = Instant::now();
            self.caught_up = Some(now);
            eprintln!(
                "{}: brought up to the present (frame {} of the match) {} ms after starting to connect",
                G::INFO.name,
                G::frame(sim.world()),
                now.duration_since(self.started).as_millis()
            );
        }
        if self.caught_up.is_some() && self.end().is_none() && self.live {
            self.behind_sum += backlog as u64;
            self.behind_samples += 1;
        }
        let steps = if self.live && backlog > CATCH_UP_ABOVE {
            2
        } else {
            1
        };
        for step in 0..steps {
            if !self.step_one(sim, log, Some(&mut report))? {
                // A second (catch-up) step without a frame: the due one ran.
                if step == 0 {
                    report.state = FrameState::Waiting;
                }
                break;
            }
        }
        Ok(report)
    }

    fn poll(
        &mut self,
        _sim: &mut Simulation<G, N>,
        log: &mut FrameLog<G::Input, N>,
    ) -> Result<(), SessionError> {
        // The inputs stepped, for a desync report's comparison.
        log.keep_history();
        for received in self.control.receive() {
            let message =
                received.map_err(|e| SessionError::Protocol(ProtocolError::Stream(e.into())))?;
            // A `Hello` meant for a partner (a player that took us for
            // one, until it heard our `Watch`) is not ours.
            if let Heard::Expected(message) = message.heard_as::<Spectating>() {
                self.on_message(message)?;
            }
        }
        self.record_chat(log);
        self.service_chat(log);
        self.desk.take_answers(&mut self.chat, log.confirmed());
        if let Some(end) = self.end() {
            log.set_limit(Some(end));
            return Ok(());
        }
        let changes = self
            .transport
            .socket_mut()
            .try_update_peers()
            .unwrap_or_default();
        if changes.contains(&(self.peer, PeerState::Disconnected)) {
            return Err(SessionError::PeerLost(PeerGone::StreamClosed));
        }
        Ok(())
    }

    fn service(&mut self) {
        self.control.flush();
    }

    fn desync_forensics(&self) -> Option<&Forensics<G, N>> {
        self.desync.ours.as_ref().map(|_| &self.desync)
    }

    fn fill_summary(&self, summary: &mut MatchSummary) {
        summary.connection = "watch".to_string();
        summary.bytes_received = self.control.bytes_received;
        let chat = self.chat.counters();
        summary.chat_sent = Some(chat.sent);
        summary.chat_received = Some(chat.received);
        summary.chat_dropped = Some(chat.dropped);
        summary.caught_up_ms = self
            .caught_up
            .map(|t| t.duration_since(self.started).as_millis() as u64);
        summary.behind_live_ms = (self.behind_samples > 0).then(|| {
            let frames = self.behind_sum as f64 / self.behind_samples as f64;
            (frames * 1000.0 / f64::from(G::INFO.fps)).round() as u64
        });
        if let Some((frame, checksum)) = self.done {
            tracing::info!(
                "the players ended at frame {frame} with checksum {}",
                hex_checksum(checksum)
            );
        }
    }

    fn can_chat(&self) -> bool {
        true
    }

    fn send_chat(&mut self, text: &str, log: &mut FrameLog<G::Input, N>) -> Result<(), ChatError> {
        self.say(text, log)
    }

    fn player_names(&self) -> [String; N] {
        self.players.clone()
    }

    fn take_chat(&mut self) -> Vec<ChatLine> {
        self.chat.take_new()
    }

    fn watch_status(&self) -> Option<WatchStatus> {
        Some(WatchStatus {
            room: self.room.clone(),
            behind_s: self.backlog() as f64 / f64::from(G::INFO.fps),
            state: if self.paused {
                WatchState::Paused
            } else if self.end().is_some() {
                WatchState::Ended
            } else if self.live {
                WatchState::Live
            } else {
                WatchState::Behind
            },
        })
    }

    fn watch_control(&mut self, control: WatchControl) {
        match control {
            WatchControl::TogglePause if self.paused => {
                self.paused = false;
                tracing::info!("resumed, {} frames behind live", self.backlog());
            }
            WatchControl::TogglePause => {
                self.paused = true;
                self.live = false;
            }
            WatchControl::JumpToLive => {
                self.paused = false;
                self.live = true;
                self.jump = true;
            }
        }
    }
}

/// The players' names a streaming player sent, if both are names (and
/// differ); `P1` and `P2` otherwise.
fn checked_players<const N: usize>(sent: &[String]) -> [String; N] {
    let distinct = |i: usize| sent[..i].iter().all(|other| !same_name(other, &sent[i]));
    match <&[String; N]>::try_from(sent) {
        Ok(names) if (0..N).all(|i| valid_name(&names[i]) && distinct(i)) => names.clone(),
        _ => std::array::from_fn(player_name),
    }
}
