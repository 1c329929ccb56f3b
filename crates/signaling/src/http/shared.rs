//! What every request handler and connection task shares: the rooms (one
//! registry behind a lock), the metrics, the ICE policy, the per-address
//! limits and the server's closing state. Below both `server` (which makes
//! it) and `connection` (which reads it), so neither reaches into the other.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};
use web_time::Duration;

use tokio::sync::watch;

use crate::http::turn::IcePolicy;
use crate::http::web::WebClient;
use crate::ops::metrics::{Metrics, RoomCounts};
use crate::ops::reports::ReportsFile;
use crate::rooms::directory::Directory;
use crate::rooms::limits::AddressLimits;
use crate::rooms::registry::Registry;
use twinstar_signaling_protocol::RoomCode;

/// The shared registry, locked briefly by every connection task.
#[derive(Clone, Debug, Default)]
pub struct RoomState(Arc<Mutex<Registry>>);

impl RoomState {
    pub(crate) fn lock(&self) -> MutexGuard<'_, Registry> {
        // A panic while holding the lock leaves bookkeeping that is still
        // usable (every update is a few map operations); keep serving.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Members of the room with this code.
    pub fn members_of(&self, code: &RoomCode) -> usize {
        self.lock().members(code.canonical())
    }

    pub fn room_count(&self) -> usize {
        self.lock().room_count()
    }

    pub fn counts(&self) -> RoomCounts {
        self.lock().counts()
    }
}

/// What every request handler and connection task shares.
#[derive(Clone)]
pub(crate) struct Shared {
    pub rooms: RoomState,
    pub metrics: Metrics,
    pub ice: Arc<IcePolicy>,
    pub limits: AddressLimits,
    pub draining: Arc<AtomicBool>,
    /// Turns true when every connection must close now.
    pub closing: watch::Receiver<bool>,
    pub idle_timeout: Duration,
    pub web: Option<WebClient>,
    pub trust_forwarded: bool,
    /// The room list shared with other nodes, if any.
    pub directory: Option<Arc<Directory>>,
    /// Where players' reports go (`--reports`), if anywhere.
    pub reports: Option<ReportsFile>,
    /// The ranked replays, when the server has a verifier.
    pub replays: Option<crate::ranking::replay_state::Replays>,
}
