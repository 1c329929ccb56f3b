//! The connection a match runs on: the room's transport (socket, message
//! loop, runtime) and its control channel. A reconnect or a reopened room
//! replaces it whole.

use crate::net::connect::Transport;
use crate::net::control::ControlChannel;

/// The control channel and the transport under it.
pub(super) struct Wire {
    pub(super) control: ControlChannel,
    // Last: dropped after the channel that runs on it.
    pub(super) transport: Transport,
}
