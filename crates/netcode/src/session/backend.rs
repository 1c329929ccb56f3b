//! What a driver runs its world under: GGRS's synctest session for local
//! play, or a P2P session against a peer (`online.rs`). A backend turns one
//! frame's local inputs into GGRS requests and fulfils them on the
//! simulation; what only a network has (events, pacing hints, the end of
//! match exchange) has no-op defaults here.

use crate::{Frame, Game};
use ggrs::{SessionBuilder, SyncTestSession};
use web_time::Duration;

use super::chat::{ChatError, ChatLine};
use super::desync::Forensics;
use super::frame_log::FrameLog;
use super::report::{FrameReport, GgrsConfig};
use super::simulation::Simulation;
use super::{MAX_PREDICTION, MatchSummary, NetStatus, SessionError, WatchControl, WatchStatus};

pub(super) trait Backend<G: Game<N>, const N: usize> {
    /// Hands this frame's local inputs to GGRS and fulfils its requests.
    fn advance(
        &mut self,
        inputs: [G::Input; N],
        sim: &mut Simulation<G, N>,
        log: &mut FrameLog<G::Input, N>,
    ) -> Result<FrameReport<G, N>, SessionError>;

    /// Whether a peer plays too (its inputs arrive late, the match ends
    /// with an exchange of checksums).
    fn has_peer(&self) -> bool {
        false
    }

    /// Receives packets and reacts to what the peer and GGRS report (a
    /// rejoin also restarts the simulation from the confirmed frame).
    fn poll(
        &mut self,
        _sim: &mut Simulation<G, N>,
        _log: &mut FrameLog<G::Input, N>,
    ) -> Result<(), SessionError> {
        Ok(())
    }

    /// How many frames this peer runs ahead of the other.
    fn frames_ahead(&self) -> i32 {
        0
    }

    /// Frames GGRS recommends waiting (taken: reset to 0).
    fn take_skip_frames(&mut self) -> u32 {
        0
    }

    fn net_status(&self) -> Option<NetStatus> {
        None
    }

    /// Online with `record_link`: the link's conditions so far.
    fn link_trace(&self) -> Option<crate::net::link_trace::LinkTrace> {
        None
    }

    /// Watching a match: the room and how far behind the players.
    fn watch_status(&self) -> Option<WatchStatus> {
        None
    }

    /// The players' names in the HUD and the chat, player 1's first.
    fn player_names(&self) -> [String; N] {
        std::array::from_fn(super::chat::player_name)
    }

    /// Watching: pause, resume, jump back to live. Players cannot.
    fn watch_control(&mut self, _control: WatchControl) {}

    fn fill_summary(&self, _summary: &mut MatchSummary) {}

    /// Tells the peer our checksum at the last frame of the match (and
    /// any spectators, after the frames they have not had yet), once:
    /// called on every poll from the end on. Says whether it has gone;
    /// `false` while it cannot (the match is paused for the peer's return).
    fn send_done(&mut self, _frame: Frame, _checksum: u128, _log: &FrameLog<G::Input, N>) -> bool {
        true
    }

    /// The peer's end-of-match report, once it arrived.
    fn peer_done(&self) -> Option<(Frame, u128)> {
        None
    }

    /// The peer closed the connection after the match ended.
    fn peer_gone(&self) -> bool {
        false
    }

    /// Tells the peer we leave on purpose, so it need not wait for a timeout.
    fn say_goodbye(&mut self, _reason: &str, _log: &FrameLog<G::Input, N>) {}

    /// How long to keep the connection serviced after the match ended, so
    /// that the last messages (end checksum, desync report, goodbye) reach
    /// the peer: closing right after sending can lose them.
    fn close_linger(&self) -> Duration {
        Duration::ZERO
    }

    /// One round of that servicing: the network polled, queued messages sent.
    fn service(&mut self) {}

    /// A desync was found (by GGRS or by comparing the end checksums):
    /// count it, record it, tell the peer unless it told us, and send it
    /// our evidence (the world at `frame` in `sim`, the inputs in `log`).
    fn report_desync(
        &mut self,
        _frame: Frame,
        _ours: u128,
        _theirs: u128,
        _sim: &Simulation<G, N>,
        _log: &mut FrameLog<G::Input, N>,
    ) {
    }

    /// After a desync: both sides' evidence, as far as it came.
    fn desync_forensics(&self) -> Option<&Forensics<G, N>> {
        None
    }

    /// Whether anyone can read our chat lines: players online, spectators.
    fn can_chat(&self) -> bool {
        self.has_peer()
    }

    /// Sends a chat line to the peer and records it (`session::chat`).
    /// With no peer there is no one to talk to.
    fn send_chat(
        &mut self,
        _text: &str,
        _log: &mut FrameLog<G::Input, N>,
    ) -> Result<(), ChatError> {
        Err(ChatError::NoPeer)
    }

    /// Chat lines, sent and received, since the last call.
    fn take_chat(&mut self) -> Vec<ChatLine> {
        Vec::new()
    }
}

/// Synctest and local sessions have no peers; their address type is unit.
type LocalConfig<G, const N: usize> = GgrsConfig<G, (), N>;

/// Both players on this machine: GGRS's synctest session, with check
/// distance 0 for plain local play (no saves, no rollback).
pub(super) struct LocalBackend<G: Game<N>, const N: usize> {
    session: SyncTestSession<LocalConfig<G, N>>,
}

impl<G: Game<N>, const N: usize> LocalBackend<G, N> {
    pub(super) fn new(check_distance: usize) -> Result<Self, SessionError> {
        let session = SessionBuilder::<LocalConfig<G, N>>::new()
            .with_num_players(N)
            .map_err(SessionError::ggrs)?
            .with_max_prediction_window(MAX_PREDICTION)
            .with_check_distance(check_distance)
            .start_synctest_session()
            .map_err(SessionError::ggrs)?;
        Ok(LocalBackend { session })
    }
}

impl<G: Game<N>, const N: usize> Backend<G, N> for LocalBackend<G, N> {
    fn advance(
        &mut self,
        inputs: [G::Input; N],
        sim: &mut Simulation<G, N>,
        log: &mut FrameLog<G::Input, N>,
    ) -> Result<FrameReport<G, N>, SessionError> {
        for (handle, input) in inputs.into_iter().enumerate() {
            self.session
                .add_local_input(handle, input)
                .map_err(SessionError::ggrs)?;
        }
        let requests = match self.session.advance_frame() {
            Ok(requests) => requests,
            Err(ggrs::GgrsError::MismatchedChecksum {
                mismatched_frames, ..
            }) => {
                // Our own check on save normally fires first, with both checksums.
                let frame = mismatched_frames.first().copied().unwrap_or(0);
                return Err(sim.ggrs_mismatch(frame));
            }
            Err(e) => return Err(SessionError::ggrs(e)),
        };
        let mut report = FrameReport::default();
        for request in requests {
            sim.fulfil(request, log, &mut report)?;
        }
        // Every input is local, so a frame's first simulation is final.
        if report.new_frames > 0 {
            let world = sim.world();
            log.confirm_first_simulation(G::frame(world), inputs, || G::checksum(world));
        }
        Ok(report)
    }
}
