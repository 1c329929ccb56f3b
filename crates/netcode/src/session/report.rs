//! What the session layer's parts hand each other every frame: GGRS's type
//! bundle for a game ([`GgrsConfig`]) and what one `advance` did
//! ([`FrameReport`]). Below the simulation and the backends, which both
//! use them.

use std::marker::PhantomData;

use crate::{Frame, Game};

/// GGRS type bundle for a game `G` of `N` players. `A` is the peer
/// address type of the transport.
pub struct GgrsConfig<G, A, const N: usize>(PhantomData<(G, A)>);

impl<G, A, const N: usize> ggrs::Config for GgrsConfig<G, A, N>
where
    G: Game<N>,
    A: Clone + PartialEq + Eq + std::hash::Hash + Send + Sync + std::fmt::Debug + 'static,
{
    type Input = G::Input;
    type InputPredictor = ggrs::PredictRepeatLast;
    type State = G::State;
    type Address = A;
}

/// What one `advance` did.
pub struct FrameReport<G: Game<N>, const N: usize> {
    /// Frames simulated for the first time.
    pub new_frames: u32,
    /// Frames simulated again after a rollback.
    pub resimulated: u32,
    /// Events of every frame simulated in this advance, tagged with the
    /// frame whose step emitted them. A frame simulated twice in one advance
    /// (a rollback) keeps only its last simulation's events, so frontends
    /// can diff them against what they already showed (`frontend::effects`).
    pub events: Vec<(Frame, G::Event)>,
    /// The lowest and highest frame simulated in this advance (frame numbers
    /// after the step), when any was.
    pub simulated: Option<(Frame, Frame)>,
    /// The inputs the newest simulated frame was stepped with (online, the
    /// other player's is GGRS's prediction until it is confirmed).
    pub inputs: Option<[G::Input; N]>,
    /// Whether the due frame ran, and if not, why.
    pub state: FrameState,
}

/// What became of the frame an `advance` was asked to run: one of these,
/// never two (a backend that cannot run the frame returns at once, with
/// nothing simulated).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FrameState {
    /// The frame ran: the report's counts, events and inputs say what was
    /// simulated (a watched match may step two frames to catch up).
    #[default]
    Ran,
    /// Online: GGRS refused to run further ahead of the peer (a stall):
    /// nothing was simulated; the frame is counted in the summary's
    /// `stalled_frames`.
    Stalled,
    /// Nothing to run yet: online, the session is still synchronizing with
    /// the peer or the match is paused; watching, the stream is paused or
    /// its next frame has not arrived.
    Waiting,
    /// The match is over (it ended, or failed in this advance): nothing
    /// was simulated, and [`Match::next`](crate::session::Match::next) says
    /// `Over`.
    Over,
}

impl<G: Game<N>, const N: usize> Default for FrameReport<G, N> {
    fn default() -> Self {
        FrameReport {
            new_frames: 0,
            resimulated: 0,
            events: Vec::new(),
            simulated: None,
            inputs: None,
            state: FrameState::Ran,
        }
    }
}

impl<G: Game<N>, const N: usize> std::fmt::Debug for FrameReport<G, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameReport<Twinstar, PLAYERS>")
            .field("new_frames", &self.new_frames)
            .field("resimulated", &self.resimulated)
            .field("events", &self.events)
            .field("simulated", &self.simulated)
            .field("inputs", &self.inputs)
            .field("state", &self.state)
            .finish()
    }
}
