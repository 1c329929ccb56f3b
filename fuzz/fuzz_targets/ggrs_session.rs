//! GGRS datagrams past the decoder: two real GGRS P2P sessions play over
//! the in-memory channel pair, each behind our `GgrsSocket` (so every
//! datagram goes through `socket::decode`), configured like the game's
//! (`session/online.rs`: 2 players, prediction window 8, desync detection
//! on), with the game's `Input`. Into the victim's inbox come, as if from
//! its peer, the fuzzer's datagrams: raw bytes, or a packet the peer really
//! sent with bytes changed. GGRS must reject or absorb them without a
//! panic (matchbox's own adapter would already have panicked on the raw
//! ones; ours drops what does not decode, and this target checks what
//! decodes).
#![no_main]

use std::sync::{Arc, Mutex};

use arbitrary::{Arbitrary, Unstructured};
use ggrs::{DesyncDetection, GgrsRequest, P2PSession, PlayerType, SessionBuilder, SessionState};
use libfuzzer_sys::fuzz_target;
use matchbox_socket::Packet;
use twinstar_netcode::testing::socket::{
    ChannelClosed, GgrsSocket, MemoryChannel, PacketChannel, memory_pair,
};
use twinstar::sim::Input;

struct Config;

impl ggrs::Config for Config {
    type Input = Input;
    type InputPredictor = ggrs::PredictRepeatLast;
    // The game's state is the 64 KB world; a frame counter serves here.
    type State = u64;
    type Address = u8;
}

/// The victim's channel: the memory channel, plus what the fuzzer injects
/// (delivered as from the peer), and a copy of what arrives honestly.
struct Tap {
    inner: MemoryChannel,
    injected: Arc<Mutex<Vec<Vec<u8>>>>,
    seen: Arc<Mutex<Vec<Vec<u8>>>>,
}

impl PacketChannel for Tap {
    type Addr = u8;

    fn send_packet(&mut self, to: &u8, packet: Packet) -> Result<(), ChannelClosed> {
        self.inner.send_packet(to, packet)
    }

    fn receive_packets(&mut self) -> Vec<(u8, Packet)> {
        let mut packets = self.inner.receive_packets();
        self.seen
            .lock()
            .unwrap()
            .extend(packets.iter().map(|(_, p)| p.to_vec()));
        let injected = std::mem::take(&mut *self.injected.lock().unwrap());
        packets.extend(injected.into_iter().map(|b| (1, Packet::from(b))));
        packets
    }
}

fn session<C: PacketChannel<Addr = u8> + Send + Sync + 'static>(
    channel: C,
    local: usize,
) -> P2PSession<Config> {
    SessionBuilder::<Config>::new()
        .with_num_players(2)
        .expect("players")
        .with_max_prediction_window(8)
        .with_input_delay(2)
        .with_desync_detection_mode(DesyncDetection::On { interval: 10 })
        .add_player(PlayerType::Local, local)
        .expect("local")
        .add_player(PlayerType::Remote(1 - local as u8), 1 - local)
        .expect("remote")
        .start_p2p_session(GgrsSocket::new(channel))
        .expect("session")
}

/// Fulfils requests on a frame counter, as the driver does on the world.
fn fulfil(state: &mut u64, requests: Vec<GgrsRequest<Config>>) {
    for request in requests {
        match request {
            GgrsRequest::SaveGameState { cell, frame } => {
                cell.save(frame, Some(*state), Some(u128::from(*state)));
            }
            GgrsRequest::LoadGameState { cell, .. } => {
                *state = cell.load().expect("a saved state");
            }
            GgrsRequest::AdvanceFrame { inputs } => {
                *state =
                    state.wrapping_add(1 + u64::from(inputs[0].0.0) + u64::from(inputs[1].0.0));
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});

fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let (a, b) = memory_pair();
    let injected = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let tap = Tap {
        inner: a,
        injected: Arc::clone(&injected),
        seen: Arc::clone(&seen),
    };
    let mut victim = session(tap, 0);
    let mut peer = session(b, 1);
    let (mut victim_state, mut peer_state) = (0u64, 0u64);
    for step in 0..u.int_in_range(20..=120)? {
        if step > 4 && u.ratio(1, 3)? {
            let datagram = if u.arbitrary()? {
                Vec::<u8>::arbitrary(u)?
            } else {
                let seen = seen.lock().unwrap();
                let Some(mut packet) =
                    (!seen.is_empty()).then(|| seen[step as usize % seen.len()].clone())
                else {
                    continue;
                };
                drop(seen);
                for _ in 0..u.int_in_range(1..=3)? {
                    let at = u.choose_index(packet.len())?;
                    packet[at] = u.arbitrary()?;
                }
                packet
            };
            injected.lock().unwrap().push(datagram);
        }
        victim.poll_remote_clients();
        peer.poll_remote_clients();
        let _ = victim.events().count();
        let _ = peer.events().count();
        if victim.current_state() == SessionState::Running {
            let input = Input(u.arbitrary()?);
            if victim.add_local_input(0, input).is_ok()
                && let Ok(requests) = victim.advance_frame()
            {
                fulfil(&mut victim_state, requests);
            }
        }
        if peer.current_state() == SessionState::Running {
            let input = Input(u.arbitrary()?);
            if peer.add_local_input(1, input).is_ok()
                && let Ok(requests) = peer.advance_frame()
            {
                fulfil(&mut peer_state, requests);
            }
        }
    }
    Ok(())
}
