//! The online match's decisions, written once and free of I/O: when to
//! pause and whether to keep the match in the room (player 1) or knock on
//! a fresh connection (player 2), when the reconnect window is over, how a
//! match ends (our `Done`, the peer's, `Bye`), the catch-ups that resume a
//! match in either direction, and what a drop means at each stage.
//!
//! Sans-IO like [`crate::net::room::Room`] and
//! [`crate::net::handshake::Handshake`]: a `Machine` is told what
//! happened ([`Event`]: the partner's messages, what the room decided, what
//! GGRS reported about the link, the poll's time) and answers with
//! [`Output`]s: messages to send and actions for the shell
//! (`online.rs`), which owns the sockets, the GGRS session, the
//! simulation and the clock. It knows frames only as numbers and peers
//! only as `P` (plain numbers in the tests).
//!
//! A match is in one `Stage` at a time: playing; paused, keeping the
//! match for the other player's claim or knocking on a fresh connection;
//! or ending, once either side said `Done`.

use std::fmt::Debug;

use web_time::{Duration, Instant};

use crate::net::handshake::{Agreement, HandshakeError, Message};
use crate::net::protocol::DesyncState;
use crate::net::protocol::phase::{Heard, Playing};
use crate::net::rejoin::{CatchUpReceiver, History};
use crate::net::room;
use crate::session::{PeerGone, ProtocolError};
use crate::{Frame, GameInput};

/// With no reconnect window: no packet for this long, the peer is lost.
pub(crate) const DISCONNECT_TIMEOUT: Duration = Duration::from_millis(2000);
/// No packet for this long: GGRS reports the link interrupted (the
/// silence began this long before its report).
pub(crate) const INTERRUPTION_NOTICE: Duration = Duration::from_millis(500);
/// Silence after which the match pauses: player 2 opens a fresh connection
/// and player 1 keeps the match for it. GGRS notices silence after 0.5 s;
/// WebRTC's own retransmissions back off from 1 s (then 3, 7, 15 s), so a
/// path that comes back by itself mostly does so within the first second
/// or two. Past that, a fresh connection (about 1 s to agree on a
/// loopback, a few round trips more over the internet) is the faster way
/// back.
pub(crate) const RECONNECT_AFTER: Duration = Duration::from_secs(2);
/// Player 1 reopens its signaling this long after it starts keeping (both
/// count from their own first silence, which a cut starts within a round
/// trip on both sides): taking its seat back earlier tells a player 2 that
/// has not knocked yet that its partner left, and it would keep too.
pub(crate) const KEEPER_REOPENS_AFTER: Duration = Duration::from_secs(1);
/// Pause between a failed knock (server unreachable, no path yet, another
/// match met) and the next.
pub(crate) const RETRY_AFTER: Duration = Duration::from_secs(1);
/// A knock that has not agreed by then is replaced by a fresh one (the
/// WebRTC connection it negotiated during the cut may never open).
pub(crate) const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);
/// After our page said `Away`, player 2 knocks no sooner than this: the
/// knock's new connection takes our seat at the server, which tells player 1
/// that our old connection left, and an `Away` still on its way over it was
/// lost (the page kept running after it was hidden, on a loaded machine:
/// player 1 then heard a silence instead, ledger in docs/testing.md). A
/// page that was really in the background ran no frame for longer.
pub(crate) const AWAY_HEARD_WITHIN: Duration = Duration::from_millis(500);
/// A gap this long between two polls is a stall of our own (the process
/// was stopped, the machine suspended, the page frozen in a background
/// tab): it is reported, and the link's silence is counted from it.
pub(crate) const STALL_NOTICE: Duration = Duration::from_secs(1);
/// How often a lost or unanswered signaling connection is reopened while
/// keeping (a websocket is answered within a few round trips).
pub(crate) const REOPEN_EVERY: Duration = Duration::from_secs(2);

/// What a match is, once and for all.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Our player slot: 0 (player 1, keeps a paused match in the room) or
    /// 1 (player 2, knocks).
    pub local: usize,
    /// How long a dropped match waits for the other player; zero: a drop
    /// ends it (`DISCONNECT_TIMEOUT` of silence, as before rejoins).
    pub reconnect_window: Duration,
    /// The match was made in a room with a code (a quick match has none to
    /// come back by).
    pub rejoinable: bool,
    /// This match's id: a knock must resume this match, not meet another.
    pub match_id: u64,
}

impl Settings {
    /// A dropped match may pause for the other player.
    pub(crate) fn can_pause(&self) -> bool {
        self.rejoinable && !self.reconnect_window.is_zero()
    }

    /// The silence after which GGRS drops the peer.
    pub(crate) fn disconnect_timeout(&self) -> Duration {
        if self.reconnect_window.is_zero() {
            DISCONNECT_TIMEOUT
        } else {
            self.reconnect_window
        }
    }
}

/// What the shell sees at the start of a poll.
#[derive(Clone, Copy, Debug, Default)]
pub struct Seen {
    /// Frames confirmed so far.
    pub confirmed: Frame,
    /// Spectators watch through our signaling socket (reopening it would
    /// cut them off).
    pub spectators: bool,
    /// Our signaling socket has no answer from the server yet (and the
    /// platform replaces such a socket: not in the browser).
    pub signaling_unanswered: bool,
    /// A simulated network cut (`--sim-outage`) is on for this much longer:
    /// no fresh connection gets through it either.
    pub network_cut: Option<Duration>,
    /// Time since the last poll ended (not counting our own work in a poll,
    /// such as re-simulating a catch-up): a stall when long.
    pub stalled: Duration,
    /// Our page went to the background then, and told the partner
    /// (`Message::Away`): the match pauses by role now that it runs again.
    pub away_since: Option<Instant>,
}

/// What happened, as told to `Machine::handle`.
#[derive(Debug)]
pub enum Event<P> {
    /// A poll starts.
    Tick(Seen),
    /// GGRS: no packet for a while; it drops the peer after `timeout` more.
    Interrupted { timeout: Duration },
    /// GGRS: packets again.
    Resumed,
    /// GGRS dropped the peer (its disconnect timeout passed).
    Disconnected,
    /// One read of the partner's messages on the control channel, in
    /// order, each decoded or not.
    Received(Vec<Result<Message, HandshakeError>>),
    /// What the room decided (the partner left, a rejoiner agreed, ...).
    Room(room::Output<P>),
    /// Our signaling connection closed (the match goes on peer to peer).
    SignalingLost,
    /// Our last frame is confirmed: our `Done` is due (told every poll from
    /// then on).
    LastFrame { frame: Frame, checksum: u128 },
    /// A knock's attempt ended.
    Knocked(Knock),
    /// We leave on purpose, or our match ended: the peer is told why.
    Goodbye(String),
    /// We found a desync (GGRS, or the end checksums differ).
    FoundDesync {
        frame: Frame,
        ours: u128,
        theirs: u128,
    },
}

/// How a knock's attempt ended.
#[derive(Debug)]
pub enum Knock {
    /// A handshake agreed: resuming match `match_id` (`rejoin`) or not,
    /// with a peer that has confirmed `peer_confirmed` frames.
    Agreed {
        rejoin: bool,
        match_id: u64,
        peer_confirmed: Frame,
    },
    /// No agreement (server unreachable, no path, timed out).
    Failed,
}

/// What the shell must do, in order.
#[derive(Debug)]
pub enum Output<P, I, const N: usize> {
    /// Send this message to the partner.
    Send(Message),
    /// Tell every spectator this (`Done`, `Bye`), after the frames they
    /// have not had yet.
    TellSpectators(Message),
    /// Send the confirmed frames a peer that has confirmed `known` lacks,
    /// and our end (`CaughtUp`).
    SendCatchUp { known: Frame },
    /// Re-simulate the other side's confirmed frames, checking them.
    CatchUp(Frames<I, N>),
    /// Pause: keep the match in the room for the other player's claim
    /// (pause the room with our resume claim). `again`: the rejoiner left
    /// before its catch-up came.
    Keep { again: bool },
    /// Pause: knock on a fresh connection, after `silent` without packets.
    Knock { silent: Duration },
    /// Start knock number `attempt`, agreeing within `timeout`.
    StartAttempt { attempt: u32, timeout: Duration },
    /// Give up the knock's attempt under way (a fresh one follows).
    DropAttempt,
    /// Replace our signaling connection with a fresh one in the same room.
    ReopenSignaling,
    /// The knock agreed with this match: its connection replaces ours.
    Adopt,
    /// The pause is over: a new GGRS session from the confirmed frame.
    Resume(Resume<P, I, N>),
    /// GGRS hears the peer again after `silent`.
    LinkResumed { silent: Duration },
    /// The partner said its game goes to the background (`Away`): the
    /// pause that follows is for it.
    PartnerAway,
    /// We did not poll for `stalled` (stopped, suspended, frozen): the peer
    /// heard nothing from us for that long.
    Stalled { stalled: Duration },
    /// The peer said `Bye` (recorded, whether it ends the match or not).
    PeerLeft { reason: String },
    /// The partner's chat line.
    Chat { text: String },
    /// A spectator's line the partner passed on.
    Relayed { from: String, text: String },
    /// The partner's evidence after a desync (its world and inputs), for
    /// our report; heard while playing and after the match stopped.
    PeerDesyncState(DesyncState),
    /// The match ends here.
    Stop(Stop),
}

/// How a pause ended.
#[derive(Debug)]
pub enum Resume<P, I, const N: usize> {
    /// The player we kept the match for is back (`agreement`) and has
    /// caught us up (`history`, after its re-simulation on the shell).
    Rejoined {
        peer: P,
        agreement: Box<Agreement>,
        history: Frames<I, N>,
        waited: Duration,
    },
    /// Our knock agreed; the connection adopted carries the other side's
    /// catch-up.
    Reconnected { attempts: u32, silent: Duration },
}

/// The other side's confirmed frames as a catch-up delivered them (shown
/// by their count and size).
pub struct Frames<I, const N: usize>(pub History<I, N>);

impl<I, const N: usize> Debug for Frames<I, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} frames ({} bytes)", self.0.frames, self.0.bytes)
    }
}

/// Why the match ends (the shell's `SessionError`).
#[derive(Clone, Debug, PartialEq)]
pub enum Stop {
    PeerLost(PeerGone),
    Desync {
        frame: Frame,
        ours: u128,
        theirs: u128,
    },
    Protocol(ProtocolError),
}

/// Where the match stands.
enum Stage<P, I, const N: usize> {
    /// Frames are played.
    Playing,
    /// Paused: player 1 (or the player whose partner crashed) keeps the
    /// match in the room for the other player's claim.
    Keeping(Keeping<P, I, N>),
    /// Paused: player 2 opens fresh connections to player 1.
    Knocking(Knocking),
    /// A `--frames N` match reached its end on one side or both.
    Ending(Ending),
    /// The match ended ([`Output::Stop`]): only our goodbye and a desync
    /// report are still said (`done_said`: our `Done` had gone).
    Stopped { done_said: bool },
}

struct Keeping<P, I, const N: usize> {
    since: Instant,
    deadline: Instant,
    /// The player that came back, until its catch-up has arrived.
    agreed: Option<(P, Box<Agreement>)>,
    receiving: CatchUpReceiver<I, N>,
    /// When our signaling may be reopened next.
    next_reopen: Instant,
}

#[derive(Debug)]
struct Knocking {
    /// When the packets stopped.
    since: Instant,
    deadline: Instant,
    /// An attempt is under way.
    attempting: bool,
    next_attempt: Instant,
    attempts: u32,
}

/// Who has said the match is over.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Ending {
    /// We sent our `Done`.
    pub sent_done: bool,
    /// The peer's `Done`: (frame, checksum).
    pub peer_done: Option<(Frame, u128)>,
    /// The peer left since (its connection closed, it said `Bye`, or it
    /// went silent past GGRS's timeout).
    pub peer_gone: bool,
}

/// Which pause, for the overlay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Paused {
    Keeping,
    Knocking,
}

/// While GGRS hears nothing: when the match ends unless packets come back,
/// and when the silence began.
#[derive(Clone, Copy, Debug)]
struct Silence {
    deadline: Instant,
    since: Instant,
}

pub(crate) struct Machine<P, I, const N: usize> {
    settings: Settings,
    stage: Stage<P, I, N>,
    interrupted: Option<Silence>,
    /// The desync being reported came from the peer (not echoed back).
    desync_from_peer: bool,
    /// Our signaling connection closed, or is to be reopened.
    signaling_lost: bool,
    /// The last poll's view.
    seen: Seen,
    /// Our last frame is confirmed (`LastFrame` was told): we need nothing
    /// more from the peer.
    reached_end: bool,
    /// Rejoined after a crash: the keeper's frames to re-simulate at the
    /// first poll, and how many the keeper has confirmed.
    rejoined: Option<(History<I, N>, Frame)>,
    /// The pause began with the partner's `Away` (its game is in the
    /// background), not with a silence.
    partner_away: bool,
    /// Our page went to the background then and said `Away`; the match
    /// has not paused for it yet.
    our_away: Option<Instant>,
}

impl<P: Copy + Eq + Debug, I: GameInput, const N: usize> Machine<P, I, N> {
    /// A match that starts playing (`rejoined`: this player came back
    /// after a crash with the keeper's frames, and the keeper has
    /// confirmed this many).
    pub fn new(settings: Settings, rejoined: Option<(History<I, N>, Frame)>) -> Self {
        Machine {
            settings,
            stage: Stage::Playing,
            interrupted: None,
            desync_from_peer: false,
            signaling_lost: false,
            seen: Seen::default(),
            reached_end: false,
            rejoined,
            partner_away: false,
            our_away: None,
        }
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The pause the match is in, if any.
    pub fn paused(&self) -> Option<Paused> {
        match self.stage {
            Stage::Keeping(_) => Some(Paused::Keeping),
            Stage::Knocking(_) => Some(Paused::Knocking),
            _ => None,
        }
    }

    /// The end of the match as said so far (once either side said `Done`).
    pub fn ending(&self) -> Option<&Ending> {
        match &self.stage {
            Stage::Ending(ending) => Some(ending),
            _ => None,
        }
    }

    /// Our `Done` has gone (and not since a pause).
    pub(crate) fn done_said(&self) -> bool {
        match &self.stage {
            Stage::Ending(ending) => ending.sent_done,
            Stage::Stopped { done_said } => *done_said,
            _ => false,
        }
    }

    /// The peer's `Done`, once it came.
    pub fn peer_done(&self) -> Option<(Frame, u128)> {
        self.ending().and_then(|e| e.peer_done)
    }

    /// The peer left after the match ended.
    pub(crate) fn peer_gone(&self) -> bool {
        self.ending().is_some_and(|e| e.peer_gone)
    }

    /// The match ended ([`Output::Stop`] was said).
    pub fn stopped(&self) -> bool {
        matches!(self.stage, Stage::Stopped { .. })
    }

    /// While the peer is silent: whether, and how long until the match
    /// ends unless it is back.
    #[cfg(test)]
    pub fn interrupted(&self) -> bool {
        self.interrupted.is_some()
    }

    pub fn gives_up_in(&self, now: Instant) -> Option<Duration> {
        (self.interrupted).map(|s| s.deadline.saturating_duration_since(now))
    }

    /// Decides on one event at `now`.
    pub fn handle(&mut self, now: Instant, event: Event<P>) -> Vec<Output<P, I, N>> {
        let mut out = Vec::new();
        // Once stopped, the shell only says goodbye or reports a desync,
        // and hears the partner's desync evidence.
        let last_words = matches!(
            event,
            Event::Goodbye(_) | Event::FoundDesync { .. } | Event::Received(_)
        );
        if self.stopped() && !last_words {
            return out;
        }
        // GGRS runs only while playing or ending: a report from a session
        // given up for a pause is stale.
        let from_ggrs = matches!(
            event,
            Event::Interrupted { .. } | Event::Resumed | Event::Disconnected
        );
        if from_ggrs && self.paused().is_some() {
            return out;
        }
        match event {
            Event::Tick(seen) => self.tick(now, seen, &mut out),
            Event::Interrupted { timeout } => {
                self.interrupted = Some(Silence {
                    deadline: now + timeout,
                    since: now.checked_sub(INTERRUPTION_NOTICE).unwrap_or(now),
                });
            }
            Event::Resumed => {
                let silence = self.interrupted.take();
                let silent =
                    silence.map_or(Duration::ZERO, |s| now.saturating_duration_since(s.since));
                out.push(Output::LinkResumed { silent });
            }
            Event::Disconnected => {
                if !self.peer_left() {
                    let why = PeerGone::StoppedResponding(self.settings.disconnect_timeout());
                    self.stop(Stop::PeerLost(why), &mut out);
                }
            }
            Event::Received(batch) => self.received(now, batch, &mut out),
            Event::Room(event) => self.room_said(now, event, &mut out),
            Event::SignalingLost => self.signaling_lost = true,
            Event::LastFrame { frame, checksum } => {
                self.reached_end = true;
                self.say_done(frame, checksum, &mut out);
            }
            Event::Knocked(knock) => self.knocked(now, knock, &mut out),
            Event::Goodbye(reason) => {
                let bye = Message::Bye { reason };
                if !self.done_said() {
                    out.push(Output::TellSpectators(bye.clone()));
                }
                out.insert(0, Output::Send(bye));
            }
            Event::FoundDesync {
                frame,
                ours,
                theirs,
            } => {
                if !self.desync_from_peer {
                    out.push(Output::Send(Message::Desync {
                        frame,
                        sender: ours,
                        receiver: theirs,
                    }));
                }
            }
        }
        out
    }

    fn stop(&mut self, stop: Stop, out: &mut Vec<Output<P, I, N>>) {
        self.stage = Stage::Stopped {
            done_said: self.done_said(),
        };
        out.push(Output::Stop(stop));
    }

    /// The start of a poll: a rejoiner's catch-ups, a pause's deadline,
    /// reopen and knocks, and whether the silence calls for a pause.
    fn tick(&mut self, now: Instant, seen: Seen, out: &mut Vec<Output<P, I, N>>) {
        self.seen = seen;
        let stalled_since = self.stall(now, out);
        if let Some((history, keeper_confirmed)) = self.rejoined.take() {
            // Rejoined after a crash: we know no frame, the keeper waits
            // for our end all the same.
            out.push(Output::SendCatchUp {
                known: keeper_confirmed,
            });
            out.push(Output::CatchUp(Frames(history)));
        }
        let window = self.settings.reconnect_window;
        match &mut self.stage {
            Stage::Keeping(keeping) => {
                if now >= keeping.deadline && self.reached_end {
                    return self.end_alone();
                }
                if now >= keeping.deadline {
                    let why = PeerGone::DidNotRejoin(window);
                    return self.stop(Stop::PeerLost(why), out);
                }
                // A fresh socket tried during a cut may hang in TCP's
                // backoff: one the server has not answered is replaced when
                // due too. (Not once a player is agreed: its data channel
                // is on this one.)
                let unanswered = self.signaling_lost || seen.signaling_unanswered;
                if keeping.agreed.is_none() && unanswered && now >= keeping.next_reopen {
                    keeping.next_reopen = now + REOPEN_EVERY;
                    self.signaling_lost = false;
                    out.push(Output::ReopenSignaling);
                }
            }
            Stage::Knocking(knocking) => {
                if now >= knocking.deadline && self.reached_end {
                    return self.end_alone();
                }
                if now >= knocking.deadline {
                    let why = PeerGone::CouldNotReconnect(window);
                    return self.stop(Stop::PeerLost(why), out);
                }
                // An attempt begun before our own stall timed out on the
                // clock meanwhile (a page that ran one frame after going to
                // the background knocked, then froze): a fresh one at once.
                if stalled_since.is_some() && knocking.attempting {
                    knocking.attempting = false;
                    knocking.next_attempt = now;
                    out.push(Output::DropAttempt);
                }
                if let Some(cut) = seen.network_cut {
                    let retry = now + cut.min(RETRY_AFTER);
                    knocking.next_attempt = knocking.next_attempt.max(retry);
                }
                if !knocking.attempting && now >= knocking.next_attempt {
                    knocking.attempts += 1;
                    knocking.attempting = true;
                    out.push(Output::StartAttempt {
                        attempt: knocking.attempts,
                        timeout: (knocking.deadline - now).min(ATTEMPT_TIMEOUT),
                    });
                }
            }
            Stage::Playing | Stage::Ending(_) => self.pause_if_due(now, stalled_since, out),
            Stage::Stopped { .. } => {}
        }
    }

    /// While playing or ending: whether our own stall, our page's going
    /// away or the peer's silence calls for a pause by our role.
    fn pause_if_due(
        &mut self,
        now: Instant,
        stalled_since: Option<Instant>,
        out: &mut Vec<Output<P, I, N>>,
    ) {
        // Our own stall as long as the pause threshold: the peer
        // heard nothing from us for that long and has paused
        // (player 1 keeps, player 2 knocks) or soon will. After our
        // page told it we went away, it paused at once. Either way,
        // pause by our role now, counting from when we stopped:
        // waiting for GGRS to notice, player 2 would first hear
        // player 1 reopen its signaling, take it for a crash and
        // keep too, and both would wait for the other (issue 36).
        let stalled =
            stalled_since.filter(|since| now.saturating_duration_since(*since) >= RECONNECT_AFTER);
        // Our `Away` first gets time to reach player 1 before a knock
        // takes our seat ([`AWAY_HEARD_WITHIN`]); player 1 keeps at once.
        if let Some(since) = self.seen.away_since {
            self.our_away.get_or_insert(since);
        }
        let away = self.our_away.filter(|since| {
            self.settings.local == 0 || now.saturating_duration_since(*since) >= AWAY_HEARD_WITHIN
        });
        let ours = [away, stalled].into_iter().flatten().min();
        if let Some(since) = ours
            && self.can_go_away()
        {
            return self.pause_by_role(now, since, out);
        }
        let silent_long = (self.interrupted)
            .is_some_and(|s| now.saturating_duration_since(s.since) >= RECONNECT_AFTER);
        if silent_long && self.can_go_away() {
            let since = self.interrupted.map_or(now, |s| s.since);
            self.pause_by_role(now, since, out);
        }
    }

    /// After a gap between polls of [`STALL_NOTICE`] or more, reports it
    /// and returns when it began.
    fn stall(&mut self, now: Instant, out: &mut Vec<Output<P, I, N>>) -> Option<Instant> {
        let stalled = self.seen.stalled;
        (stalled >= STALL_NOTICE).then(|| {
            out.push(Output::Stalled { stalled });
            now.checked_sub(stalled).unwrap_or(now)
        })
    }

    /// The match may pause (and so our page may say it goes away): it is
    /// played, in a room it can be resumed in, and either side still
    /// needs the other.
    pub(crate) fn can_go_away(&self) -> bool {
        matches!(self.stage, Stage::Playing | Stage::Ending(_))
            && self.settings.can_pause()
            && self.unfinished()
    }

    /// The pause began with the partner's `Away`.
    pub(crate) fn partner_away(&self) -> bool {
        self.paused().is_some() && self.partner_away
    }

    /// Pauses by our role, the window counting from `since`: player 1
    /// keeps the match, player 2 knocks.
    fn pause_by_role(&mut self, now: Instant, since: Instant, out: &mut Vec<Output<P, I, N>>) {
        self.our_away = None;
        let deadline = since + self.settings.reconnect_window;
        self.interrupted = Some(Silence { deadline, since });
        if self.settings.local == 1 {
            self.start_knocking(now, out);
        } else {
            self.start_keeping(now, out);
        }
    }

    /// Player 1 keeps the match at the silence threshold and, unless
    /// spectators watch through its socket, reopens its own signaling
    /// connection too. A websocket that was cut with the rest of its
    /// network sits in TCP's backoff after the network is back (4.3 s
    /// after a 15 s cut, measured); a fresh one, tried every second, is
    /// there within about one.
    fn start_keeping(&mut self, now: Instant, out: &mut Vec<Output<P, I, N>>) {
        self.keep(now, out);
        // After the partner's `Away` nothing was cut: our socket is not
        // stuck, and reopening it would tell the player coming back that
        // we left.
        if !self.seen.spectators && !self.partner_away {
            self.signaling_lost = true;
            if let Stage::Keeping(keeping) = &mut self.stage {
                keeping.next_reopen = now + KEEPER_REOPENS_AFTER;
            }
        }
    }

    /// Pauses to keep the match for the other player's claim; the window
    /// counts from when the packets stopped, if they did.
    fn keep(&mut self, now: Instant, out: &mut Vec<Output<P, I, N>>) {
        let since = self.interrupted.map_or(now, |s| s.since);
        let deadline = since + self.settings.reconnect_window;
        self.interrupted = Some(Silence { deadline, since });
        self.stage = Stage::Keeping(Keeping {
            since: now,
            deadline,
            agreed: None,
            receiving: CatchUpReceiver::default(),
            next_reopen: now,
        });
        out.push(Output::Keep { again: false });
    }

    fn start_knocking(&mut self, now: Instant, out: &mut Vec<Output<P, I, N>>) {
        let since = self.interrupted.map_or(now, |s| s.since);
        self.stage = Stage::Knocking(Knocking {
            since,
            deadline: since + self.settings.reconnect_window,
            attempting: false,
            next_attempt: now,
            attempts: 0,
        });
        out.push(Output::Knock {
            silent: now.saturating_duration_since(since),
        });
    }

    fn knocked(&mut self, now: Instant, knock: Knock, out: &mut Vec<Output<P, I, N>>) {
        let Stage::Knocking(knocking) = &mut self.stage else {
            return;
        };
        match knock {
            // Only this match, resumed: a restarted player 1 that claims
            // its own slot meets a knocking player 2 as a new match.
            Knock::Agreed {
                rejoin: true,
                match_id,
                peer_confirmed,
            } if match_id == self.settings.match_id => {
                let resume = Resume::Reconnected {
                    attempts: knocking.attempts,
                    silent: now.saturating_duration_since(knocking.since),
                };
                self.resume();
                out.push(Output::Adopt);
                out.push(Output::SendCatchUp {
                    known: peer_confirmed,
                });
                out.push(Output::Resume(resume));
            }
            Knock::Agreed { .. } | Knock::Failed => {
                knocking.attempting = false;
                knocking.next_attempt = now + RETRY_AFTER;
            }
        }
    }

    /// The pause is over: the match plays again (an `Ending` starts over:
    /// our `Done` goes again, the end wait restarts).
    fn resume(&mut self) {
        self.stage = Stage::Playing;
        self.interrupted = None;
        self.partner_away = false;
        self.our_away = None;
    }

    /// One of the room's decisions.
    fn room_said(&mut self, now: Instant, event: room::Output<P>, out: &mut Vec<Output<P, I, N>>) {
        let confirmed = self.seen.confirmed;
        match &mut self.stage {
            Stage::Keeping(keeping) => match event {
                // The dropped player is back: send it our confirmed
                // frames after the ones it has; its own come next.
                room::Output::Agreed(peer, agreement) if keeping.agreed.is_none() => {
                    let known = agreement.peer_confirmed;
                    keeping.agreed = Some((peer, Box::new(agreement)));
                    keeping.receiving = CatchUpReceiver::after(confirmed);
                    out.push(Output::SendCatchUp { known });
                }
                // It left before its catch-up came: the room pauses
                // again for its next try.
                room::Output::PartnerLeft(peer)
                    if keeping.agreed.as_ref().is_some_and(|(p, _)| *p == peer) =>
                {
                    keeping.agreed = None;
                    keeping.receiving = CatchUpReceiver::default();
                    out.push(Output::Keep { again: true });
                }
                // Refusals and newcomers leaving are the room's own.
                _ => {}
            },
            Stage::Playing | Stage::Ending(_) => {
                if let room::Output::PartnerLeft(_) = event {
                    self.partner_left(now, out);
                }
            }
            Stage::Knocking(_) | Stage::Stopped { .. } => {}
        }
    }

    /// Either side may still need the other: until the peer's `Done` came
    /// it may lack our last inputs (and our `Done` may have gone down with
    /// the link), and until our own last frame is confirmed we lack its.
    fn unfinished(&self) -> bool {
        self.peer_done().is_none() || !self.reached_end
    }

    /// The window closed after our last frame was confirmed: the peer had
    /// the whole window to come back for our inputs, so it finished
    /// without us hearing its `Done` (it heard ours and left), or it is gone
    /// for good. Our checksum stands alone, as after the end wait; failing
    /// here would end the same match completed on one side and failed on
    /// the other.
    fn end_alone(&mut self) {
        self.interrupted = None;
        self.stage = Stage::Ending(Ending {
            sent_done: true,
            peer_done: None,
            peer_gone: true,
        });
    }

    /// The partner's connection closed. While the match is unfinished it
    /// crashed or was cut, and may come back for what it lacks or bring
    /// what we lack. After both ends, it is expected.
    fn partner_left(&mut self, now: Instant, out: &mut Vec<Output<P, I, N>>) {
        let unfinished = self.unfinished() && self.settings.can_pause();
        if unfinished || !self.peer_left() {
            if !self.settings.can_pause() {
                return self.stop(Stop::PeerLost(PeerGone::Closed), out);
            }
            self.keep(now, out);
        }
    }

    /// The peer left: expected (and recorded) only once the match is
    /// ending; `false` means it left mid-match.
    fn peer_left(&mut self) -> bool {
        match &mut self.stage {
            Stage::Ending(ending) => {
                ending.peer_gone = true;
                true
            }
            _ => false,
        }
    }

    fn received(
        &mut self,
        now: Instant,
        batch: Vec<Result<Message, HandshakeError>>,
        out: &mut Vec<Output<P, I, N>>,
    ) {
        match &mut self.stage {
            Stage::Playing | Stage::Ending(_) => self.heard_playing(now, batch, out),
            Stage::Keeping(keeping) if keeping.agreed.is_some() => {
                self.heard_catching_up(now, batch, out)
            }
            // Stopped: only the partner's evidence after a desync counts.
            Stage::Stopped { .. } => heard_desync_states(batch, out),
            // Paused with no one agreed: the old partner's last words.
            Stage::Keeping(_) | Stage::Knocking(_) => {}
        }
    }

    /// The partner's messages while the match plays or ends, until one
    /// ends it.
    fn heard_playing(
        &mut self,
        now: Instant,
        batch: Vec<Result<Message, HandshakeError>>,
        out: &mut Vec<Output<P, I, N>>,
    ) {
        let mut batch = batch.into_iter();
        for message in batch.by_ref() {
            self.heard_one(now, message, out);
            if self.stopped() {
                break;
            }
        }
        // A partner that found a desync sends its evidence right after its
        // `Desync`, often in the same read: it goes before the stop, which
        // the shell carries out last.
        let mut states = Vec::new();
        heard_desync_states(batch.collect(), &mut states);
        let stop_at = (out.iter().position(|o| matches!(o, Output::Stop(_)))).unwrap_or(out.len());
        out.splice(stop_at..stop_at, states);
    }

    /// One message of the partner's while the match plays or ends.
    fn heard_one(
        &mut self,
        now: Instant,
        message: Result<Message, HandshakeError>,
        out: &mut Vec<Output<P, I, N>>,
    ) {
        // The channel is reliable and both ends run the same version:
        // bytes that do not decode are a broken peer, and guessing (a
        // checksum of 0, say) would report a false desync.
        let message = match message {
            Ok(message) => message,
            Err(e) => return self.stop(Stop::Protocol(ProtocolError::Control(e)), out),
        };
        // Another phase's message: the handshake's last `Pong`s.
        let Heard::Expected(message) = message.heard_as::<Playing>() else {
            return;
        };
        match message {
            Playing::Done { frame, checksum } => self.their_done(frame, checksum),
            Playing::Bye { reason } => {
                out.push(Output::PeerLeft {
                    reason: reason.clone(),
                });
                if !self.peer_left() {
                    let why = PeerGone::Left { reason };
                    self.stop(Stop::PeerLost(why), out);
                }
            }
            Playing::Desync {
                frame,
                sender,
                receiver,
            } => {
                self.desync_from_peer = true;
                let stop = Stop::Desync {
                    frame,
                    ours: receiver,
                    theirs: sender,
                };
                self.stop(stop, out);
            }
            // A late probe from a peer still measuring: answer it.
            Playing::Ping { seq } => out.push(Output::Send(Message::Pong { seq })),
            Playing::Chat { text } => out.push(Output::Chat { text }),
            Playing::Relayed { from, text, .. } => out.push(Output::Relayed { from, text }),
            // Its game stops running (a page in the background): pause now
            // rather than after seconds of predicting and rolling back. It
            // pauses by its own role when it runs again.
            Playing::DesyncState(state) => out.push(Output::PeerDesyncState(state)),
            Playing::Away => {
                if self.can_go_away() {
                    self.partner_away = true;
                    out.push(Output::PartnerAway);
                    self.pause_by_role(now, now, out);
                }
            }
        }
    }

    /// Keeping, with the player back: its catch-up as it arrives; at its
    /// end both sides hold the same confirmed frames and play on. What
    /// follows its `CaughtUp` (its `Done` if the match was at its end, a
    /// `Bye`, chat) belongs to the match played on.
    fn heard_catching_up(
        &mut self,
        now: Instant,
        batch: Vec<Result<Message, HandshakeError>>,
        out: &mut Vec<Output<P, I, N>>,
    ) {
        let Stage::Keeping(keeping) = &mut self.stage else {
            return;
        };
        let (history, after) = match keeping.receiving.read(batch) {
            Ok(Some(read)) => read,
            Ok(None) => return,
            Err(e) => {
                return self.stop(Stop::Protocol(ProtocolError::CatchUp(e)), out);
            }
        };
        let Some((peer, agreement)) = keeping.agreed.take() else {
            return;
        };
        let waited = now.saturating_duration_since(keeping.since);
        self.resume();
        out.push(Output::Resume(Resume::Rejoined {
            peer,
            agreement,
            history: Frames(history),
            waited,
        }));
        self.heard_playing(now, after, out);
    }

    /// Our last frame is confirmed: our `Done` goes now, once. Never while
    /// paused: the other player is away, and it is said once the match
    /// plays again (and the end wait starts then).
    fn say_done(&mut self, frame: Frame, checksum: u128, out: &mut Vec<Output<P, I, N>>) {
        match &mut self.stage {
            Stage::Playing => self.stage = Stage::Ending(Ending::default()),
            Stage::Ending(ending) if !ending.sent_done => {}
            Stage::Ending(_) | Stage::Keeping(_) | Stage::Knocking(_) | Stage::Stopped { .. } => {
                return;
            }
        }
        if let Stage::Ending(ending) = &mut self.stage {
            ending.sent_done = true;
        }
        let done = Message::Done { frame, checksum };
        out.push(Output::Send(done.clone()));
        out.push(Output::TellSpectators(done));
    }

    /// The peer's `Done` arrived (only heard while playing or ending).
    fn their_done(&mut self, frame: Frame, checksum: u128) {
        match &mut self.stage {
            Stage::Playing => {
                self.stage = Stage::Ending(Ending {
                    peer_done: Some((frame, checksum)),
                    ..Ending::default()
                });
            }
            Stage::Ending(ending) => ending.peer_done = Some((frame, checksum)),
            _ => {}
        }
    }
}

/// The partner's desync evidence among `batch` (the rest is not heard: the
/// match has stopped).
fn heard_desync_states<P, I, const N: usize>(
    batch: Vec<Result<Message, HandshakeError>>,
    out: &mut Vec<Output<P, I, N>>,
) {
    for message in batch.into_iter().flatten() {
        if let Heard::Expected(Playing::DesyncState(state)) = message.heard_as::<Playing>() {
            out.push(Output::PeerDesyncState(state));
        }
    }
}

#[cfg(test)]
#[path = "machine_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "machine_wire.rs"]
mod wire;
