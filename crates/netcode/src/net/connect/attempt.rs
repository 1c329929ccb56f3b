//! One connection attempt, stepped: the room's transport while a seat is
//! asked for, and the seat that decides. [`super::Connector`] steps it in
//! the background; nothing else does.

use std::task::Poll;
use web_time::Instant;

use matchbox_socket::{PeerId, PeerState, WebRtcSocket};

use super::{ConnectError, Seat, Status};
use crate::net::connect::Transport;
use crate::net::room_code::RoomCode;
use crate::tasks::NetRuntime;

/// The room's transport while a seat is asked for: it moves into the
/// connection at the end.
pub(crate) struct RoomLink {
    transport: Option<Transport>,
    /// When the attempt started (the summary's `connect_ms` counts from here).
    pub(crate) started: Instant,
}

impl RoomLink {
    /// The peers' changes and whether the server has given us an id; or,
    /// once the socket's message loop has ended, why.
    pub(crate) fn poll(
        &mut self,
        room: Option<&RoomCode>,
    ) -> Result<(Vec<(PeerId, PeerState)>, bool), ConnectError> {
        let transport = self.transport.as_mut().ok_or(ConnectError::LoopGone)?;
        transport.poll(room)
    }

    pub(crate) fn socket_mut(&mut self) -> Option<&mut WebRtcSocket> {
        self.transport.as_mut().map(Transport::socket_mut)
    }

    /// The transport, for the connection.
    pub(crate) fn take(&mut self) -> Result<Transport, ConnectError> {
        self.transport.take().ok_or(ConnectError::LoopGone)
    }
}

/// A seat asked for over its room's transport.
pub(super) struct Attempt<S> {
    link: RoomLink,
    seat: S,
}

impl<S: Seat> Attempt<S> {
    /// Opens the signaling connection on `runtime` (which the connection
    /// keeps). Does not block.
    pub(super) fn start(runtime: NetRuntime, options: S::Options) -> Self {
        let (transport, channels) = Transport::open(runtime, &S::url(&options), S::ice(&options));
        Attempt {
            link: RoomLink {
                transport: Some(transport),
                started: Instant::now(),
            },
            seat: S::new(options, channels.control, channels.ggrs),
        }
    }

    /// Makes progress; `Ready` once, with the connection or the reason
    /// there is none.
    pub(super) fn poll(&mut self) -> Poll<Result<S::Connection, ConnectError>> {
        match self.seat.step(&mut self.link, Instant::now()) {
            Ok(Some(connection)) => Poll::Ready(Ok(connection)),
            Ok(None) => Poll::Pending,
            Err(e) => Poll::Ready(Err(e)),
        }
    }

    pub(super) fn status(&self) -> Status {
        self.seat.status()
    }

    pub(super) fn seat(&self) -> &S {
        &self.seat
    }
}
