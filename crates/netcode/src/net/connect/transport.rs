//! The one owned bundle under every connection: a room's WebRTC socket,
//! the matchbox message loop that drives it and the runtime that loop runs
//! on. A connecting seat (`connect::RoomLink`), a player's [`Connection`],
//! a spectator's `WatchConnection` and the sessions they become each hold
//! one; a reconnect or a reopened room replaces it whole.
//!
//! Why one type: the loop must outlive the socket (and the socket's
//! channels, which its owners drop before it), and the runtime the loop.
//! Rust drops fields in declaration order, so that order is fixed here,
//! once, instead of in every struct that held the three side by side.
//!
//! [`Connection`]: super::Connection

use matchbox_socket::{PeerId, PeerState, WebRtcChannel, WebRtcSocket};
use web_time::Duration;

use super::{CONTROL_CHANNEL, ConnectError, GGRS_CHANNEL};
use crate::net::ice::{self, IceServers};
use crate::net::room_code::RoomCode;
use crate::net::signaling::{JoinError, classify_socket_error, client_builder};
use crate::tasks::{LoopEnd, LoopHandle, NetRuntime};

/// A room's socket with what runs it, dropped in the order it needs:
/// socket, then its loop, then the runtime.
pub(crate) struct Transport {
    socket: WebRtcSocket,
    /// `None` once the loop's end was read (why it stopped).
    message_loop: Option<LoopHandle>,
    _runtime: NetRuntime,
}

/// The two channels every room peer has (matchbox reports a peer connected
/// only once every channel is open on both sides); `None` only if matchbox
/// did not make one, which [`Transport::open`] rules out.
pub(crate) struct Channels {
    /// Reliable and in order: the handshake, control and chat.
    pub(crate) control: Option<WebRtcChannel>,
    /// Unreliable and unordered, like UDP: GGRS.
    pub(crate) ggrs: Option<WebRtcChannel>,
}

impl Transport {
    /// A socket to `url` (a room URL with its query), its message loop
    /// started on `runtime`, and its two channels.
    pub(crate) fn open(runtime: NetRuntime, url: &str, ice: &IceServers) -> (Transport, Channels) {
        let (mut socket, message_loop) = client_builder(url, ice::to_matchbox(ice))
            .add_reliable_channel()
            .add_unreliable_channel()
            .build();
        let message_loop = runtime.spawn_message_loop(message_loop);
        let channels = Channels {
            control: socket.take_channel(CONTROL_CHANNEL).ok(),
            ggrs: socket.take_channel(GGRS_CHANNEL).ok(),
        };
        let transport = Transport {
            socket,
            message_loop: Some(message_loop),
            _runtime: runtime,
        };
        (transport, channels)
    }

    pub(crate) fn socket(&self) -> &WebRtcSocket {
        &self.socket
    }

    pub(crate) fn socket_mut(&mut self) -> &mut WebRtcSocket {
        &mut self.socket
    }

    /// The peers' changes and whether the server has given us an id; or,
    /// once the socket's message loop has ended, why (`room` names it in
    /// the error).
    pub(crate) fn poll(
        &mut self,
        room: Option<&RoomCode>,
    ) -> Result<(Vec<(PeerId, PeerState)>, bool), ConnectError> {
        if self.message_loop.as_ref().is_some_and(|h| h.is_finished()) {
            return Err(self.loop_error(room));
        }
        match self.socket.try_update_peers() {
            Ok(changes) => Ok((changes, self.socket.id().is_some())),
            Err(_) => Err(self.loop_error(room)),
        }
    }

    /// Why the message loop ended (it only ends on errors or a close).
    fn loop_error(&mut self, room: Option<&RoomCode>) -> ConnectError {
        let Some(mut handle) = self.message_loop.take() else {
            return ConnectError::LoopGone;
        };
        match handle.take_end(Duration::from_secs(1)) {
            Some(LoopEnd::Returned(Err(e))) => classify_socket_error(&e, room).into(),
            Some(LoopEnd::Returned(Ok(()))) => {
                JoinError::Disconnected("the server closed the connection".into()).into()
            }
            Some(LoopEnd::Panicked(why)) => ConnectError::WebRtcFailed(why),
            None => ConnectError::LoopGone,
        }
    }
}
