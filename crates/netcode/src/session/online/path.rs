//! The path WebRTC found to the peer (host, server-reflexive, relay...),
//! for the overlay and the summary, and logged anew after a reconnect,
//! which may take another.

use matchbox_socket::{PeerId, WebRtcSocket};

use crate::GameInput;
use crate::net::connect::connection_kind;
use crate::replay::EventKind;
use crate::session::frame_log::FrameLog;

/// The kind of path to the peer, once WebRTC knows it.
#[derive(Default)]
pub(super) struct Path {
    pub(super) kind: Option<&'static str>,
    /// A reconnect happened: log the new path once it is known.
    pub(super) log_next: bool,
}

impl Path {
    /// WebRTC's view of the path to `peer` on `socket`, once it is known.
    pub(super) fn note<I: GameInput, const N: usize>(
        &mut self,
        socket: &WebRtcSocket,
        peer: PeerId,
        log: &mut FrameLog<I, N>,
    ) {
        if self.kind.is_none()
            && let Some(pair) = socket.candidate_pair(peer)
        {
            let kind = connection_kind(pair.remote);
            let kind = if pair.is_relayed() { "relay" } else { kind };
            tracing::info!("connection: {kind} ({pair:?})");
            self.kind = Some(kind);
            if std::mem::take(&mut self.log_next) {
                log.event(
                    EventKind::Resumed,
                    &format!("path after reconnecting: {kind}"),
                );
            }
        }
    }

    /// A new session: its path is WebRTC's to find again.
    pub(super) fn restart(&mut self) {
        self.kind = None;
    }
}
