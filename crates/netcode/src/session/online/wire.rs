//! The connection a match runs on: the WebRTC socket to the room and the
//! partner, its control channel, and the message loop and runtime that
//! drive them. A reconnect or a reopened room replaces it whole (the
//! loop must outlive the socket's channels, so they go together).

use matchbox_socket::WebRtcSocket;

use crate::net::control::ControlChannel;
use crate::tasks::{LoopHandle, NetRuntime};

/// The socket and its control channel, with what runs them.
pub(super) struct Wire {
    pub(super) socket: WebRtcSocket,
    pub(super) control: ControlChannel,
    // Last: dropped after everything that runs on it.
    _message_loop: LoopHandle,
    _runtime: NetRuntime,
}

impl Wire {
    pub(super) fn new(
        runtime: NetRuntime,
        socket: WebRtcSocket,
        message_loop: LoopHandle,
        control: ControlChannel,
    ) -> Self {
        Wire {
            socket,
            control,
            _message_loop: message_loop,
            _runtime: runtime,
        }
    }
}
