//! Network trouble made on purpose, for tests: the simulated link
//! (`--sim-*`) every GGRS socket and fresh connection of the match is made
//! with, and garbage datagrams sent to the partner's GGRS channel.

use web_time::Instant;

use futures::channel::mpsc::UnboundedSender;
use matchbox_socket::{Packet, PeerId};

use crate::net::link_sim::LinkConfig;
use crate::net::socket::{GgrsSocket, SharedChannel};

/// The simulated link and the garbage owed to the partner.
pub(super) struct Noise {
    link: LinkConfig,
    seed: u64,
    /// When the first GGRS session started (a simulated cut counts from its
    /// first packet, about then).
    session_started: Instant,
    garbage: Option<UnboundedSender<(PeerId, Packet)>>,
    garbage_per_second: u32,
    /// Carried between frames, since a second's garbage rarely divides
    /// into whole datagrams a frame.
    garbage_owed: f64,
}

impl Noise {
    /// `garbage`: a sender on the GGRS channel, when `garbage_per_second`
    /// asks for any. Call it as the first session starts.
    pub(super) fn new(
        link: LinkConfig,
        seed: u64,
        garbage: Option<UnboundedSender<(PeerId, Packet)>>,
        garbage_per_second: u32,
    ) -> Self {
        Noise {
            link,
            seed,
            session_started: Instant::now(),
            garbage,
            garbage_per_second,
            garbage_owed: 0.0,
        }
    }

    /// The simulated link for a connection or session made `now`: a
    /// simulated cut counts from the first session's start.
    pub(super) fn for_new_connection(&self, now: Instant) -> LinkConfig {
        self.link.for_new_connection(self.session_started, now)
    }

    /// A GGRS socket on `channel` for a session started `now`.
    pub(super) fn ggrs_socket(
        &self,
        channel: SharedChannel,
        now: Instant,
    ) -> GgrsSocket<SharedChannel> {
        GgrsSocket::with_link(channel, self.for_new_connection(now), self.seed)
    }

    /// One frame's share of the garbage, to `peer` (`fps`: the game's
    /// frames a second).
    pub(super) fn send_garbage(&mut self, peer: PeerId, fps: u32) {
        let Some(sender) = &self.garbage else { return };
        self.garbage_owed += f64::from(self.garbage_per_second) / f64::from(fps);
        while self.garbage_owed >= 1.0 {
            self.garbage_owed -= 1.0;
            let len = 1 + rand::random::<u8>() as usize % 120;
            let bytes: Vec<u8> = (0..len).map(|_| rand::random()).collect();
            let _ = sender.unbounded_send((peer, Packet::from(bytes)));
        }
    }
}
