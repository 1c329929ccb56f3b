//! The GGRS session of a match. GGRS counts frames from 0 in each session,
//! and a rejoin or a reconnect starts a new one from the confirmed frame
//! (over the same GGRS channel, or a fresh connection's), so the session
//! is kept with the match frame it began at.

use crate::Game;
use web_time::{Duration, Instant};

use ggrs::{DesyncDetection, P2PSession, PlayerType, SessionBuilder, SessionState};
use matchbox_socket::PeerId;

use super::OnlineConfig;
use super::machine;
use super::noise::Noise;
use crate::Frame;
use crate::net::handshake::Agreement;
use crate::net::socket::{GgrsSocket, SharedChannel, StatsHandle};
use crate::session::simulation::DESYNC_CHECK_INTERVAL;
use crate::session::{MAX_PREDICTION, SessionError};

/// The GGRS session with the partner, and what outlives it into the next
/// one: the channel it runs on and the traffic counters.
pub(super) struct GgrsSession<G: Game<N>, const N: usize> {
    pub(super) session: P2PSession<OnlineConfig<G, N>>,
    /// The partner, on the connection this session runs over.
    pub(super) peer: PeerId,
    /// GGRS frame 0 of this session is this frame of the match.
    pub(super) base: Frame,
    /// The GGRS channel, kept for the next session after a rejoin.
    pub(super) channel: SharedChannel,
    /// Counted across sessions, so that the summary covers the match.
    pub(super) stats: StatsHandle,
    /// Frames GGRS recommended waiting, until the driver takes them.
    pub(super) skip_frames: u32,
}

impl<G: Game<N>, const N: usize> GgrsSession<G, N> {
    /// The first session of a match whose frame 0 is `base` (not 0 when
    /// this player rejoined), on `socket` over `channel`.
    pub(super) fn start(
        agreement: &Agreement,
        peer: PeerId,
        channel: SharedChannel,
        socket: GgrsSocket<SharedChannel>,
        base: Frame,
        disconnect_timeout: Duration,
    ) -> Result<Self, SessionError> {
        let stats = socket.stats_handle();
        let session = start_session::<G, N>(agreement, peer, socket, disconnect_timeout)?;
        Ok(GgrsSession {
            session,
            peer,
            base,
            channel,
            stats,
            skip_frames: 0,
        })
    }

    /// A new session with `peer` whose frame 0 is `frame`, on our
    /// channel (a fresh connection's, if one was adopted).
    pub(super) fn restart(
        &mut self,
        peer: PeerId,
        agreement: &Agreement,
        frame: Frame,
        noise: &Noise,
        disconnect_timeout: Duration,
    ) -> Result<(), SessionError> {
        let socket = noise
            .ggrs_socket(self.channel.clone(), Instant::now())
            .counting_into(&self.stats);
        self.session = start_session::<G, N>(agreement, peer, socket, disconnect_timeout)?;
        self.peer = peer;
        self.base = frame;
        self.skip_frames = 0;
        Ok(())
    }

    pub(super) fn running(&self) -> bool {
        self.session.current_state() == SessionState::Running
    }

    /// The match frame of this session's frame `frame`.
    pub(super) fn match_frame(&self, frame: ggrs::Frame) -> Frame {
        self.base + Frame::try_from(frame).unwrap_or(0)
    }

    /// The match frames GGRS has confirmed: those before this one.
    pub(super) fn confirmed_through(&self) -> Frame {
        self.match_frame(self.session.confirmed_frame() + 1)
    }
}

/// A P2P session with the peer from the agreement's slots and delay,
/// dropping it after `disconnect_timeout` of silence.
fn start_session<G: Game<N>, const N: usize>(
    agreement: &Agreement,
    peer: PeerId,
    socket: GgrsSocket<SharedChannel>,
    disconnect_timeout: Duration,
) -> Result<P2PSession<OnlineConfig<G, N>>, SessionError> {
    let local = agreement.local_handle;
    SessionBuilder::<OnlineConfig<G, N>>::new()
        .with_num_players(N)
        .map_err(SessionError::ggrs)?
        .with_max_prediction_window(MAX_PREDICTION)
        .with_input_delay(agreement.input_delay as usize)
        .with_desync_detection_mode(DesyncDetection::On {
            interval: DESYNC_CHECK_INTERVAL,
        })
        .with_disconnect_timeout(disconnect_timeout)
        .with_disconnect_notify_delay(machine::INTERRUPTION_NOTICE)
        .add_player(PlayerType::Local, local)
        .map_err(SessionError::ggrs)?
        .add_player(PlayerType::Remote(peer), 1 - local)
        .map_err(SessionError::ggrs)?
        .start_p2p_session(socket)
        .map_err(SessionError::ggrs)
}
