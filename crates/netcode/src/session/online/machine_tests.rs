//! The online match's decisions, one by one: messages while playing, the
//! link's silences, the partner leaving, keeping and knocking, the end of
//! the match, and the catch-ups both ways. The five bugs of the last round
//! each have a test here that fails on the old decision (named `bug_*`),
//! and so do the two that two machines on a simulated wire found
//! (`machine_wire.rs`).

use super::*;
use crate::net::rejoin::{CHUNK_FRAMES, encode_catch_up_after};

const WINDOW: Duration = Duration::from_secs(30);
const MATCH: u64 = 77;
const PEER: u32 = 2;

fn settings(local: usize) -> Settings {
    Settings {
        local,
        reconnect_window: WINDOW,
        rejoinable: true,
        match_id: MATCH,
    }
}

pub(super) fn agreement(peer_confirmed: Frame) -> Agreement {
    Agreement {
        names: [None, None],
        local_handle: 0,
        seed: 9,
        preset: "default".into(),
        rtt_ms: 20.0,
        jitter_ms: 1.0,
        input_delay: 2,
        peer_version: "test".into(),
        match_id: MATCH,
        rejoin: true,
        peer_confirmed,
    }
}

/// The catch-up a side that has confirmed `frames` sends one that has
/// confirmed `known`, ending with `CaughtUp`.
pub(super) fn catch_up(known: Frame, frames: Frame) -> Vec<Message> {
    let inputs = vec![[0u8; 2]; frames as usize];
    let checksums: Vec<u128> = (1..=frames as usize / CHUNK_FRAMES)
        .map(|i| i as u128)
        .collect();
    encode_catch_up_after(known, &inputs, &checksums, 99)
}

/// One machine, its clock, and what the shell would see.
struct Test {
    machine: Machine<u32, u8, 2>,
    now: Instant,
    seen: Seen,
    /// What the first poll's tick said.
    first: Vec<Output<u32, u8, 2>>,
}

impl Test {
    fn new(local: usize) -> Test {
        Test::with(settings(local), None)
    }

    fn with(settings: Settings, rejoined: Option<(History<u8, 2>, Frame)>) -> Test {
        let mut test = Test {
            machine: Machine::new(settings, rejoined),
            now: Instant::now(),
            seen: Seen {
                confirmed: 540,
                ..Seen::default()
            },
            first: Vec::new(),
        };
        // The shell's every poll starts with a tick.
        test.first = test.tick();
        test
    }

    fn later(&mut self, by: Duration) -> &mut Self {
        self.now += by;
        self
    }

    fn on(&mut self, event: Event<u32>) -> Vec<Output<u32, u8, 2>> {
        self.machine.handle(self.now, event)
    }

    fn tick(&mut self) -> Vec<Output<u32, u8, 2>> {
        self.on(Event::Tick(self.seen))
    }

    fn hear(&mut self, message: Message) -> Vec<Output<u32, u8, 2>> {
        self.hear_all(vec![message])
    }

    /// One read of the channel.
    fn hear_all(&mut self, messages: Vec<Message>) -> Vec<Output<u32, u8, 2>> {
        self.on(Event::Received(messages.into_iter().map(Ok).collect()))
    }

    /// GGRS reports the peer silent (it has been for 0.5 s).
    fn silent(&mut self) -> Vec<Output<u32, u8, 2>> {
        self.on(Event::Interrupted {
            timeout: WINDOW - INTERRUPTION_NOTICE,
        })
    }

    /// Silent long enough to pause, and the tick that pauses.
    fn pause(&mut self) -> Vec<Output<u32, u8, 2>> {
        self.silent();
        self.later(RECONNECT_AFTER - INTERRUPTION_NOTICE);
        self.tick()
    }

    fn partner_left(&mut self) -> Vec<Output<u32, u8, 2>> {
        self.on(Event::Room(room::Output::PartnerLeft(PEER)))
    }

    fn agreed(&mut self, peer: u32, peer_confirmed: Frame) -> Vec<Output<u32, u8, 2>> {
        let agreed = room::Output::Agreed(peer, agreement(peer_confirmed));
        self.on(Event::Room(agreed))
    }

    fn last_frame(&mut self) -> Vec<Output<u32, u8, 2>> {
        self.on(Event::LastFrame {
            frame: 600,
            checksum: 5,
        })
    }
}

fn stop_of(outputs: &[Output<u32, u8, 2>]) -> Option<Stop> {
    outputs.iter().find_map(|o| match o {
        Output::Stop(stop) => Some(stop.clone()),
        _ => None,
    })
}

fn sent(outputs: &[Output<u32, u8, 2>]) -> Vec<Message> {
    (outputs.iter())
        .filter_map(|o| match o {
            Output::Send(m) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

fn told_spectators(outputs: &[Output<u32, u8, 2>]) -> Vec<Message> {
    (outputs.iter())
        .filter_map(|o| match o {
            Output::TellSpectators(m) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

fn resumed(outputs: &[Output<u32, u8, 2>]) -> bool {
    outputs.iter().any(|o| matches!(o, Output::Resume(_)))
}

fn done() -> Message {
    Message::Done {
        frame: 600,
        checksum: 5,
    }
}

// ---- Messages while playing ----

#[test]
fn a_late_ping_is_answered_with_its_pong() {
    let mut t = Test::new(0);
    assert_eq!(
        sent(&t.hear(Message::Ping { seq: 4 })),
        vec![Message::Pong { seq: 4 }]
    );
}

#[test]
fn chat_and_relayed_lines_go_to_the_room_chat() {
    let mut t = Test::new(0);
    let out = t.hear(Message::Chat { text: "hi".into() });
    assert!(matches!(&out[..], [Output::Chat { text }] if text == "hi"));
    let relayed = Message::Relayed {
        from: "S1".into(),
        frame: 7,
        text: "yo".into(),
    };
    let out = t.hear(relayed);
    assert!(matches!(&out[..], [Output::Relayed { from, text }] if from == "S1" && text == "yo"));
}

#[test]
fn other_phases_messages_are_dropped_while_playing() {
    let mut t = Test::new(0);
    let mut strays = vec![Message::Pong { seq: 1 }, Message::Busy];
    strays.extend(catch_up(0, 120));
    assert!(t.hear_all(strays).is_empty());
    assert!(!t.machine.stopped());
}

#[test]
fn bytes_that_do_not_decode_end_the_match_as_a_protocol_error() {
    let mut t = Test::new(0);
    let out = t.on(Event::Received(vec![Err(HandshakeError::Malformed {
        bytes: 3,
    })]));
    assert!(matches!(
        stop_of(&out),
        Some(Stop::Protocol(ProtocolError::Control(_)))
    ));
}

#[test]
fn a_desync_the_peer_reports_ends_the_match_and_is_not_echoed() {
    let mut t = Test::new(0);
    let out = t.hear(Message::Desync {
        frame: 60,
        sender: 1,
        receiver: 2,
    });
    assert_eq!(
        stop_of(&out),
        Some(Stop::Desync {
            frame: 60,
            ours: 2,
            theirs: 1
        })
    );
    let report = Event::FoundDesync {
        frame: 60,
        ours: 2,
        theirs: 1,
    };
    assert!(t.on(report).is_empty(), "the peer knows already");
}

#[test]
fn a_desync_we_find_is_told_to_the_peer() {
    let mut t = Test::new(1);
    let out = t.on(Event::FoundDesync {
        frame: 600,
        ours: 3,
        theirs: 4,
    });
    assert_eq!(
        sent(&out),
        vec![Message::Desync {
            frame: 600,
            sender: 3,
            receiver: 4
        }]
    );
}

fn desync_state(frame: Frame) -> DesyncState {
    DesyncState {
        frame,
        checksum: 9,
        world: vec![1, 2],
        inputs_from: 0,
        inputs: vec![0, 0],
    }
}

fn peer_states(outputs: &[Output<u32, u8, 2>]) -> Vec<Frame> {
    (outputs.iter())
        .filter_map(|o| match o {
            Output::PeerDesyncState(s) => Some(s.frame),
            _ => None,
        })
        .collect()
}

#[test]
fn the_peers_desync_evidence_is_heard_with_its_desync_and_after_the_stop() {
    let mut t = Test::new(0);
    // Its `Desync` and its evidence in one read: the stop does not drop
    // the evidence behind it, nor does it hear the chat after it.
    let desync = Message::Desync {
        frame: 60,
        sender: 1,
        receiver: 2,
    };
    let chat = Message::Chat { text: "gg".into() };
    let out = t.hear_all(vec![
        desync,
        Message::DesyncState(desync_state(60)),
        chat.clone(),
    ]);
    assert!(stop_of(&out).is_some());
    assert_eq!(peer_states(&out), [60]);
    // Before the stop: the shell carries out nothing after a stop.
    assert!(matches!(out.last(), Some(Output::Stop(_))), "{out:?}");
    assert!(!out.iter().any(|o| matches!(o, Output::Chat { .. })));
    // Stopped: evidence is still heard, nothing else is.
    let out = t.hear_all(vec![chat, Message::DesyncState(desync_state(70))]);
    assert_eq!(peer_states(&out), [70]);
    assert_eq!(out.len(), 1, "{out:?}");
}

#[test]
fn a_bye_mid_match_is_the_peer_leaving() {
    let mut t = Test::new(0);
    let out = t.hear(Message::Bye {
        reason: "the player left".into(),
    });
    assert!(matches!(&out[0], Output::PeerLeft { reason } if reason == "the player left"));
    assert_eq!(
        stop_of(&out),
        Some(Stop::PeerLost(PeerGone::Left {
            reason: "the player left".into()
        }))
    );
}

#[test]
fn once_stopped_only_a_goodbye_and_a_desync_report_are_said() {
    let mut t = Test::new(0);
    t.on(Event::Received(vec![Err(HandshakeError::Malformed {
        bytes: 1,
    })]));
    assert!(t.machine.stopped());
    assert!(t.hear(Message::Ping { seq: 1 }).is_empty());
    assert!(t.pause().is_empty(), "a stopped match does not pause");
    let out = t.on(Event::Goodbye("it could not follow our messages".into()));
    assert_eq!(sent(&out).len(), 1);
    assert_eq!(told_spectators(&out).len(), 1);
}

// ---- The link's silences ----

#[test]
fn a_silence_counts_from_before_ggrs_noticed_it_and_ends_when_packets_come_back() {
    let mut t = Test::new(0);
    t.silent();
    assert!(t.machine.interrupted());
    assert_eq!(
        t.machine.gives_up_in(t.now),
        Some(WINDOW - INTERRUPTION_NOTICE)
    );
    t.later(Duration::from_millis(700));
    let out = t.on(Event::Resumed);
    assert!(
        matches!(&out[..], [Output::LinkResumed { silent }] if *silent == Duration::from_millis(1200))
    );
    assert!(!t.machine.interrupted());
}

#[test]
fn a_silence_shorter_than_the_threshold_does_not_pause() {
    for local in [0, 1] {
        let mut t = Test::new(local);
        t.silent();
        t.later(RECONNECT_AFTER - INTERRUPTION_NOTICE - Duration::from_millis(1));
        assert!(t.tick().is_empty());
        assert_eq!(t.machine.paused(), None);
    }
}

#[test]
fn player_2_knocks_after_two_seconds_of_silence() {
    let mut t = Test::new(1);
    let out = t.pause();
    assert!(matches!(&out[..], [Output::Knock { silent }] if *silent == RECONNECT_AFTER));
    assert_eq!(t.machine.paused(), Some(Paused::Knocking));
}

/// a66ddd2 (bug 5, with the next test): player 1 reopened its signaling
/// at once, which told a player 2 that had not knocked yet that its
/// partner left, so player 2 kept too and neither knocked.
#[test]
fn bug_5_player_1_keeps_and_reopens_its_signaling_only_a_second_later() {
    let mut t = Test::new(0);
    let out = t.pause();
    assert!(matches!(&out[..], [Output::Keep { again: false }]));
    assert_eq!(t.machine.paused(), Some(Paused::Keeping));
    t.later(KEEPER_REOPENS_AFTER - Duration::from_millis(1));
    assert!(t.tick().is_empty(), "reopened before player 2 knocked");
    t.later(Duration::from_millis(1));
    assert!(matches!(&t.tick()[..], [Output::ReopenSignaling]));
}

impl Test {
    /// This side did not run for `stalled` (SIGSTOP, a frozen page): the
    /// first poll after it.
    fn thaw(&mut self, stalled: Duration) -> Vec<Output<u32, u8, 2>> {
        self.later(stalled);
        self.seen.stalled = stalled;
        let out = self.tick();
        self.seen.stalled = Duration::ZERO;
        out
    }
}

/// Issue 36: player 2 stopped for 15 s came back to a player 1 that had
/// kept the match and reopened its signaling; the first thing it heard was
/// player 1's old connection leaving, which it took for a crash, so it kept
/// too, and both waited for the other until the window closed.
#[test]
fn player_2_back_from_a_stall_knocks_at_once_and_is_not_misled_by_the_keepers_reopen() {
    let mut t = Test::new(1);
    let stall = Duration::from_secs(15);
    let out = t.thaw(stall);
    assert!(
        matches!(&out[..], [Output::Stalled { stalled }, Output::Knock { silent }]
            if *stalled == stall && *silent == stall),
        "{out:?}"
    );
    assert_eq!(t.machine.paused(), Some(Paused::Knocking));
    // Player 1's old connection leaving is not a crash to wait out.
    assert!(t.partner_left().is_empty());
    assert_eq!(t.machine.paused(), Some(Paused::Knocking));
    // The window counts from when we stopped: 15 s of it are gone.
    assert!(matches!(
        &t.tick()[..],
        [Output::StartAttempt { attempt: 1, timeout }] if *timeout == ATTEMPT_TIMEOUT
    ));
    t.on(Event::Knocked(Knock::Failed));
    t.later(Duration::from_secs(14));
    assert!(matches!(
        &t.tick()[..],
        [Output::StartAttempt { attempt: 2, timeout }] if *timeout == Duration::from_secs(1)
    ));
}

#[test]
fn player_1_back_from_a_stall_keeps_the_match_for_the_knocking_player_2() {
    let mut t = Test::new(0);
    let out = t.thaw(Duration::from_secs(15));
    assert!(
        matches!(
            &out[..],
            [Output::Stalled { .. }, Output::Keep { again: false }]
        ),
        "{out:?}"
    );
    assert_eq!(t.machine.paused(), Some(Paused::Keeping));
    // The window counts from when we stopped.
    t.later(WINDOW - Duration::from_secs(15) - Duration::from_millis(1));
    assert_eq!(stop_of(&t.tick()), None);
    t.later(Duration::from_millis(1));
    assert!(matches!(stop_of(&t.tick()), Some(Stop::PeerLost(_))));
}

#[test]
fn a_stall_shorter_than_the_pause_threshold_is_only_reported() {
    for local in [0, 1] {
        let mut t = Test::new(local);
        let stall = RECONNECT_AFTER - Duration::from_millis(1);
        let out = t.thaw(stall);
        assert!(
            matches!(&out[..], [Output::Stalled { stalled }] if *stalled == stall),
            "{out:?}"
        );
        assert_eq!(t.machine.paused(), None);
        // Below the notice, not even that.
        assert!(t.thaw(STALL_NOTICE - Duration::from_millis(1)).is_empty());
    }
}

#[test]
fn a_stall_longer_than_the_window_ends_the_match_at_the_next_poll() {
    for local in [0, 1] {
        let mut t = Test::new(local);
        t.thaw(WINDOW + Duration::from_secs(1));
        assert!(
            matches!(stop_of(&t.tick()), Some(Stop::PeerLost(_))),
            "player {}",
            local + 1
        );
    }
}

#[test]
fn a_stall_after_both_dones_does_not_pause() {
    let mut t = Test::new(1);
    t.last_frame();
    t.hear(done());
    let out = t.thaw(Duration::from_secs(15));
    assert!(matches!(&out[..], [Output::Stalled { .. }]), "{out:?}");
    assert_eq!(t.machine.paused(), None);
}

#[test]
fn the_partners_away_pauses_the_match_at_once_by_our_role() {
    let mut keeper = Test::new(0);
    let out = keeper.hear(Message::Away);
    assert!(
        matches!(
            &out[..],
            [Output::PartnerAway, Output::Keep { again: false }]
        ),
        "{out:?}"
    );
    assert!(keeper.machine.partner_away());
    // Nothing was cut: player 1 keeps its signaling socket.
    keeper.later(Duration::from_secs(5));
    assert!(keeper.tick().is_empty());
    let mut knocker = Test::new(1);
    let out = knocker.hear(Message::Away);
    assert!(
        matches!(&out[..], [Output::PartnerAway, Output::Knock { silent }] if silent.is_zero()),
        "{out:?}"
    );
    // The window counts from the Away.
    keeper.later(WINDOW - Duration::from_secs(5) - Duration::from_millis(1));
    assert_eq!(stop_of(&keeper.tick()), None);
    keeper.later(Duration::from_millis(1));
    assert!(matches!(stop_of(&keeper.tick()), Some(Stop::PeerLost(_))));
}

#[test]
fn our_page_back_from_the_background_pauses_by_role_even_after_a_short_hide() {
    for (local, knocks) in [(0, false), (1, true)] {
        let mut t = Test::new(local);
        assert!(t.machine.can_go_away());
        // Short, but long enough for player 2's `Away` to have reached
        // player 1 before it knocks.
        let hidden = AWAY_HEARD_WITHIN + Duration::from_millis(100);
        t.seen.away_since = Some(t.now);
        let out = t.thaw(hidden);
        t.seen.away_since = None;
        if knocks {
            assert!(
                matches!(&out[..], [Output::Knock { silent }] if *silent == hidden),
                "{out:?}"
            );
        } else {
            assert!(
                matches!(&out[..], [Output::Keep { again: false }]),
                "{out:?}"
            );
        }
        assert!(!t.machine.can_go_away(), "paused: no second Away");
        assert!(!t.machine.partner_away(), "our own pause");
    }
}

/// A page that kept running after going to the background (a loaded
/// machine, a browser that does not stop hidden pages at once): player 1
/// keeps at once, player 2 knocks only once its `Away` has had time to
/// reach player 1 over the old connection, which the knock's new one
/// replaces at the server (CI: player 1 heard a silence instead of the
/// `Away`).
#[test]
fn our_away_reaches_player_1_before_player_2_knocks() {
    let mut keeper = Test::new(0);
    keeper.seen.away_since = Some(keeper.now);
    let out = keeper.tick();
    assert!(
        matches!(&out[..], [Output::Keep { again: false }]),
        "{out:?}"
    );

    let mut t = Test::new(1);
    t.seen.away_since = Some(t.now);
    assert!(t.tick().is_empty(), "knocked before the Away could arrive");
    t.seen.away_since = None;
    t.later(AWAY_HEARD_WITHIN - Duration::from_millis(1));
    assert!(t.tick().is_empty(), "knocked before the Away could arrive");
    t.later(Duration::from_millis(1));
    let out = t.tick();
    assert!(
        matches!(&out[..], [Output::Knock { silent }] if *silent == AWAY_HEARD_WITHIN),
        "{out:?}"
    );
    assert!(!t.machine.can_go_away(), "paused: no second Away");
}

/// A page that ran after going to the background knocked, then froze: its
/// attempt ran out its time meanwhile.
#[test]
fn an_attempt_begun_before_a_stall_is_replaced_at_once() {
    let mut t = Test::new(1);
    t.seen.away_since = Some(t.now);
    t.tick();
    t.seen.away_since = None;
    t.later(AWAY_HEARD_WITHIN);
    assert!(matches!(&t.tick()[..], [Output::Knock { .. }]));
    assert!(matches!(
        &t.tick()[..],
        [Output::StartAttempt { attempt: 1, .. }]
    ));
    let out = t.thaw(Duration::from_secs(10));
    assert!(
        matches!(
            &out[..],
            [
                Output::Stalled { .. },
                Output::DropAttempt,
                Output::StartAttempt { attempt: 2, .. }
            ]
        ),
        "{out:?}"
    );
}

#[test]
fn a_match_that_cannot_pause_neither_says_nor_heeds_away() {
    let mut quick = Test::with(
        Settings {
            rejoinable: false,
            ..settings(1)
        },
        None,
    );
    assert!(!quick.machine.can_go_away());
    assert!(quick.hear(Message::Away).is_empty());
    assert_eq!(quick.machine.paused(), None);
    // Both Dones said: nothing is left to pause for.
    let mut ended = Test::new(0);
    ended.last_frame();
    ended.hear(done());
    assert!(!ended.machine.can_go_away());
    assert!(ended.hear(Message::Away).is_empty());
    assert_eq!(ended.machine.paused(), None);
}

#[test]
fn with_spectators_watching_player_1_keeps_its_signaling_socket() {
    let mut t = Test::new(0);
    t.seen.spectators = true;
    t.pause();
    t.later(Duration::from_secs(5));
    assert!(t.tick().is_empty());
}

#[test]
fn a_quick_match_never_pauses_and_the_ggrs_timeout_ends_it() {
    let mut t = Test::with(
        Settings {
            rejoinable: false,
            ..settings(1)
        },
        None,
    );
    assert!(t.pause().is_empty());
    assert_eq!(t.machine.paused(), None);
    let out = t.on(Event::Disconnected);
    assert_eq!(
        stop_of(&out),
        Some(Stop::PeerLost(PeerGone::StoppedResponding(
            Duration::from_secs(30)
        )))
    );
}

#[test]
fn with_no_reconnect_window_two_seconds_of_silence_lose_the_peer() {
    let zero = Settings {
        reconnect_window: Duration::ZERO,
        ..settings(0)
    };
    assert_eq!(zero.disconnect_timeout(), DISCONNECT_TIMEOUT);
    assert!(!zero.can_pause());
    let mut t = Test::with(zero, None);
    assert!(t.pause().is_empty());
    let out = t.on(Event::Disconnected);
    assert_eq!(
        stop_of(&out),
        Some(Stop::PeerLost(PeerGone::StoppedResponding(
            Duration::from_secs(2)
        )))
    );
}

// ---- The partner leaving ----

#[test]
fn the_partner_leaving_mid_match_pauses_to_keep_on_either_side() {
    for local in [0, 1] {
        let mut t = Test::new(local);
        let out = t.partner_left();
        assert!(matches!(&out[..], [Output::Keep { again: false }]));
        assert_eq!(t.machine.paused(), Some(Paused::Keeping));
        assert_eq!(t.machine.gives_up_in(t.now), Some(WINDOW));
        // A crash is no cut of our network: our signaling stays.
        t.later(Duration::from_secs(5));
        assert!(t.tick().is_empty());
    }
}

#[test]
fn the_partner_leaving_a_quick_match_ends_it() {
    let mut t = Test::with(
        Settings {
            rejoinable: false,
            ..settings(0)
        },
        None,
    );
    let out = t.partner_left();
    assert_eq!(stop_of(&out), Some(Stop::PeerLost(PeerGone::Closed)));
}

#[test]
fn the_partner_leaving_after_both_dones_is_expected() {
    let mut t = Test::new(0);
    t.hear(done());
    t.last_frame();
    assert!(t.partner_left().is_empty());
    assert!(t.machine.peer_gone());
    assert_eq!(t.machine.peer_done(), Some((600, 5)));
    assert_eq!(t.machine.paused(), None);
}

#[test]
fn the_partner_leaving_a_quick_match_after_our_done_is_expected() {
    let mut t = Test::with(
        Settings {
            rejoinable: false,
            ..settings(0)
        },
        None,
    );
    t.last_frame();
    assert!(t.partner_left().is_empty());
    assert!(t.machine.peer_gone());
}

/// 961acf4: a drop after our `Done` but before the peer's counted as the
/// peer leaving, so we ended "completed, alone" while it tried to come
/// back for our last inputs.
#[test]
fn bug_4_a_drop_between_the_two_dones_pauses_as_mid_match() {
    let mut t = Test::new(0);
    t.last_frame();
    let out = t.partner_left();
    assert!(matches!(&out[..], [Output::Keep { again: false }]));
    assert!(!t.machine.peer_gone());
    assert_eq!(t.machine.paused(), Some(Paused::Keeping));
    // A silence between the Dones pauses too, on either side.
    for local in [0, 1] {
        let mut t = Test::new(local);
        t.last_frame();
        assert!(!t.pause().is_empty());
        assert!(t.machine.paused().is_some());
    }
}

/// Found by the wire's property: a drop after the peer's `Done` but
/// before our own last frame was confirmed (its last inputs were on the
/// dropped link) ended the match after the 5 s end wait ("left after its
/// last frame"), while the peer, which had not heard our `Done`, waited
/// out its window: both failed a match a reconnect would have finished.
#[test]
fn bug_6_a_drop_after_the_peers_done_but_before_our_end_pauses_for_its_last_inputs() {
    let mut t = Test::new(0);
    t.hear(done());
    let out = t.partner_left();
    assert!(matches!(&out[..], [Output::Keep { again: false }]));
    assert!(!t.machine.peer_gone());
    for local in [0, 1] {
        let mut t = Test::new(local);
        t.hear(done());
        assert!(!t.pause().is_empty(), "player {}", local + 1);
        assert!(t.machine.paused().is_some());
    }
}

/// Found by the wire's property: one side heard both `Done`s and left
/// (completed); the other's copy of that `Done` was lost with the link, so
/// it paused for a peer that was gone and failed at the end of its
/// window: one match, completed on one side and failed on the other.
#[test]
fn bug_7_a_pause_after_our_last_frame_that_the_window_ends_completes_alone() {
    for local in [0, 1] {
        let mut t = Test::new(local);
        t.last_frame();
        t.pause();
        assert!(t.machine.paused().is_some());
        t.later(WINDOW - RECONNECT_AFTER);
        let out = t.tick();
        assert_eq!(stop_of(&out), None, "player {}: {out:?}", local + 1);
        assert_eq!(t.machine.paused(), None);
        // `lifecycle` reads: our Done went, the peer is gone, no checksum
        // of its own: completed, ours standing alone.
        assert!(t.machine.done_said() && t.machine.peer_gone());
        assert_eq!(t.machine.peer_done(), None);
        assert!(t.last_frame().is_empty());
    }
}

#[test]
fn a_silence_after_the_peers_done_does_not_pause() {
    for local in [0, 1] {
        let mut t = Test::new(local);
        t.hear(done());
        t.last_frame();
        assert!(t.pause().is_empty());
        assert_eq!(t.machine.paused(), None);
    }
}

// ---- Keeping the match in the room ----

#[test]
fn keeping_ends_the_match_when_the_window_counted_from_the_silence_is_over() {
    let mut t = Test::new(0);
    t.seen.spectators = true;
    t.pause();
    assert_eq!(t.machine.gives_up_in(t.now), Some(WINDOW - RECONNECT_AFTER));
    t.later(WINDOW - RECONNECT_AFTER - Duration::from_millis(1));
    assert!(t.tick().is_empty());
    t.later(Duration::from_millis(1));
    assert_eq!(
        stop_of(&t.tick()),
        Some(Stop::PeerLost(PeerGone::DidNotRejoin(WINDOW)))
    );
}

#[test]
fn a_lost_signaling_connection_is_reopened_every_two_seconds_until_a_player_is_agreed() {
    let mut t = Test::new(0);
    t.partner_left();
    assert!(t.tick().is_empty(), "our signaling is up");
    t.on(Event::SignalingLost);
    assert!(matches!(&t.tick()[..], [Output::ReopenSignaling]));
    t.on(Event::SignalingLost);
    t.later(REOPEN_EVERY - Duration::from_millis(1));
    assert!(t.tick().is_empty(), "too soon");
    t.later(Duration::from_millis(1));
    assert!(matches!(&t.tick()[..], [Output::ReopenSignaling]));
    t.agreed(5, 0);
    t.on(Event::SignalingLost);
    t.later(REOPEN_EVERY);
    assert!(t.tick().is_empty(), "the agreed player's channel is on it");
}

#[test]
fn a_socket_the_server_has_not_answered_is_replaced_when_due() {
    let mut t = Test::new(0);
    t.partner_left();
    t.seen.signaling_unanswered = true;
    assert!(matches!(&t.tick()[..], [Output::ReopenSignaling]));
    t.later(REOPEN_EVERY);
    assert!(matches!(&t.tick()[..], [Output::ReopenSignaling]));
    t.seen.signaling_unanswered = false;
    t.later(REOPEN_EVERY);
    assert!(t.tick().is_empty());
}

#[test]
fn the_player_back_is_sent_what_it_lacks_and_its_catch_up_resumes_the_match() {
    let mut t = Test::new(0);
    t.partner_left();
    t.later(Duration::from_secs(3));
    let out = t.agreed(5, 300);
    assert!(matches!(&out[..], [Output::SendCatchUp { known: 300 }]));
    // It had confirmed 560 frames, we 540: it sends the 20 we lack.
    let mut out = t.hear_all(catch_up(540, 560));
    let Some(Output::Resume(Resume::Rejoined {
        peer,
        history,
        waited,
        agreement,
    })) = out.pop()
    else {
        panic!("not resumed: {out:?}");
    };
    assert_eq!(
        (peer, history.0.frames, waited),
        (5, 560, Duration::from_secs(3))
    );
    assert_eq!(agreement.peer_confirmed, 300);
    assert_eq!(t.machine.paused(), None);
    assert!(!t.machine.interrupted());
}

/// 2a76444: the room stayed "playing" with the gone rejoiner, and every
/// retry was told `Busy` until the window ended.
#[test]
fn bug_2_a_rejoiner_that_leaves_before_its_catch_up_frees_the_room_for_its_next_try() {
    let mut t = Test::new(0);
    t.partner_left();
    t.agreed(5, 0);
    t.hear_all(catch_up(540, 600)[..1].to_vec());
    let out = t.on(Event::Room(room::Output::PartnerLeft(5)));
    assert!(matches!(&out[..], [Output::Keep { again: true }]));
    // Its next try is agreed afresh, and its catch-up starts over.
    assert!(matches!(
        &t.agreed(6, 0)[..],
        [Output::SendCatchUp { known: 0 }]
    ));
    let out = t.hear_all(catch_up(540, 600));
    assert!(
        matches!(
            out.last(),
            Some(Output::Resume(Resume::Rejoined { peer: 6, .. }))
        ),
        "{out:?}"
    );
}

#[test]
fn newcomers_leaving_or_refused_are_the_rooms_own_business() {
    let mut t = Test::new(0);
    t.partner_left();
    t.agreed(5, 0);
    assert!(t.on(Event::Room(room::Output::PartnerLeft(9))).is_empty());
    let refused = room::Output::Failed(8, HandshakeError::Tie);
    assert!(t.on(Event::Room(refused)).is_empty());
    assert!(
        t.on(Event::Room(room::Output::LeftUnconnected(7)))
            .is_empty()
    );
    // A second agreement while one catches up is not taken.
    assert!(t.agreed(6, 0).is_empty());
    let out = t.hear_all(catch_up(540, 540));
    assert!(matches!(
        out.last(),
        Some(Output::Resume(Resume::Rejoined { peer: 5, .. }))
    ));
}

/// 2a76444: what followed `CaughtUp` in the same read (a `Done`, a `Bye`,
/// chat) was dropped, so a match paused at its end waited 5 s for a `Done`
/// that had arrived.
#[test]
fn bug_3_messages_after_caught_up_belong_to_the_match_played_on() {
    let mut t = Test::new(0);
    t.partner_left();
    t.agreed(5, 600);
    let mut batch = catch_up(540, 600);
    batch.push(done());
    batch.push(Message::Chat {
        text: "back".into(),
    });
    let out = t.hear_all(batch);
    assert!(resumed(&out));
    assert_eq!(t.machine.peer_done(), Some((600, 5)));
    assert!(matches!(out.last(), Some(Output::Chat { text }) if text == "back"));
    // And a Bye after it is the peer leaving the match played on.
    let mut t = Test::new(0);
    t.partner_left();
    t.agreed(5, 600);
    let mut batch = catch_up(540, 600);
    batch.push(Message::Bye {
        reason: "bored".into(),
    });
    let out = t.hear_all(batch);
    assert_eq!(
        stop_of(&out),
        Some(Stop::PeerLost(PeerGone::Left {
            reason: "bored".into()
        }))
    );
}

#[test]
fn a_catch_up_that_does_not_add_up_ends_the_match_as_a_protocol_error() {
    let mut t = Test::new(0);
    t.partner_left();
    t.agreed(5, 0);
    // It claims 600 frames but sends none of the 60 we lack.
    let out = t.hear(Message::CaughtUp {
        frame: 600,
        checksum: 1,
    });
    assert!(matches!(
        stop_of(&out),
        Some(Stop::Protocol(ProtocolError::CatchUp(_)))
    ));
}

#[test]
fn while_keeping_with_no_one_agreed_the_old_partners_messages_are_dropped() {
    let mut t = Test::new(0);
    t.partner_left();
    let mut late = vec![done(), Message::Ping { seq: 1 }];
    late.extend(catch_up(0, 600));
    assert!(t.hear_all(late).is_empty());
    assert_eq!(t.machine.peer_done(), None);
    assert!(t.on(Event::Disconnected).is_empty(), "GGRS is not running");
}

// ---- Knocking on a fresh connection ----

#[test]
fn knocking_starts_one_attempt_bounded_by_its_timeout_and_the_window() {
    let mut t = Test::new(1);
    t.pause();
    assert!(matches!(
        &t.tick()[..],
        [Output::StartAttempt { attempt: 1, timeout }] if *timeout == ATTEMPT_TIMEOUT
    ));
    t.later(Duration::from_secs(5));
    assert!(t.tick().is_empty(), "one attempt at a time");
    // The last attempt gets what is left of the window.
    t.on(Event::Knocked(Knock::Failed));
    t.later(WINDOW - RECONNECT_AFTER - Duration::from_secs(9));
    assert!(matches!(
        &t.tick()[..],
        [Output::StartAttempt { attempt: 2, timeout }] if *timeout == Duration::from_secs(4)
    ));
}

#[test]
fn a_failed_attempt_is_retried_a_second_later() {
    let mut t = Test::new(1);
    t.pause();
    t.tick();
    t.on(Event::Knocked(Knock::Failed));
    t.later(RETRY_AFTER - Duration::from_millis(1));
    assert!(t.tick().is_empty());
    t.later(Duration::from_millis(1));
    assert!(matches!(
        &t.tick()[..],
        [Output::StartAttempt { attempt: 2, .. }]
    ));
}

/// a66ddd2 (bug 5): a knock that met a restarted player 1 claiming its
/// own slot resumed a new match as if it were this one.
#[test]
fn bug_5_a_knock_that_meets_another_match_is_a_failed_attempt() {
    for (rejoin, match_id) in [(true, MATCH + 1), (false, MATCH)] {
        let mut t = Test::new(1);
        t.pause();
        t.tick();
        let knock = Knock::Agreed {
            rejoin,
            match_id,
            peer_confirmed: 0,
        };
        assert!(t.on(Event::Knocked(knock)).is_empty());
        assert_eq!(t.machine.paused(), Some(Paused::Knocking));
        t.later(RETRY_AFTER);
        assert!(matches!(
            &t.tick()[..],
            [Output::StartAttempt { attempt: 2, .. }]
        ));
    }
}

#[test]
fn a_knock_agreed_on_this_match_adopts_it_sends_our_catch_up_and_resumes() {
    let mut t = Test::new(1);
    t.pause();
    t.tick();
    t.later(Duration::from_millis(800));
    let knock = Knock::Agreed {
        rejoin: true,
        match_id: MATCH,
        peer_confirmed: 520,
    };
    let out = t.on(Event::Knocked(knock));
    assert!(
        matches!(
            &out[..],
            [
                Output::Adopt,
                Output::SendCatchUp { known: 520 },
                Output::Resume(Resume::Reconnected { attempts: 1, silent })
            ] if *silent == Duration::from_millis(2800)
        ),
        "{out:?}"
    );
    assert_eq!(t.machine.paused(), None);
    assert!(!t.machine.interrupted());
}

#[test]
fn knocking_ends_the_match_when_the_window_is_over() {
    let mut t = Test::new(1);
    t.pause();
    t.later(WINDOW - RECONNECT_AFTER);
    assert_eq!(
        stop_of(&t.tick()),
        Some(Stop::PeerLost(PeerGone::CouldNotReconnect(WINDOW)))
    );
}

#[test]
fn a_simulated_network_cut_holds_the_attempts_back() {
    let mut t = Test::new(1);
    t.pause();
    t.seen.network_cut = Some(Duration::from_millis(300));
    assert!(t.tick().is_empty());
    t.later(Duration::from_millis(300));
    t.seen.network_cut = None;
    assert!(matches!(
        &t.tick()[..],
        [Output::StartAttempt { attempt: 1, .. }]
    ));
}

#[test]
fn while_knocking_the_room_and_the_old_channel_are_not_listened_to() {
    let mut t = Test::new(1);
    t.pause();
    assert!(t.hear(done()).is_empty());
    assert!(t.partner_left().is_empty());
    assert!(t.agreed(5, 0).is_empty());
    assert_eq!(t.machine.paused(), Some(Paused::Knocking));
}

// ---- The end of the match ----

#[test]
fn our_done_goes_once_to_the_peer_and_the_spectators() {
    let mut t = Test::new(0);
    let out = t.last_frame();
    assert_eq!(sent(&out), vec![done()]);
    assert_eq!(told_spectators(&out), vec![done()]);
    assert!(t.machine.done_said());
    assert!(t.last_frame().is_empty(), "said once");
    assert!(t.machine.done_said());
}

#[test]
fn the_peers_done_first_then_ours() {
    let mut t = Test::new(1);
    t.hear(Message::Done {
        frame: 600,
        checksum: 8,
    });
    assert_eq!(t.machine.peer_done(), Some((600, 8)));
    assert!(!t.machine.done_said());
    assert_eq!(sent(&t.last_frame()), vec![done()]);
    assert_eq!(t.machine.peer_done(), Some((600, 8)));
}

/// 8919490: a match paused at its last frame sent its `Done` into the
/// dropped link, and the end wait ran out during the pause.
#[test]
fn bug_1_our_done_waits_for_the_restored_link() {
    let mut t = Test::new(1);
    t.pause();
    assert!(t.last_frame().is_empty(), "sent into the dropped link");
    assert!(!t.machine.done_said(), "the end wait must not start");
    t.tick();
    let knock = Knock::Agreed {
        rejoin: true,
        match_id: MATCH,
        peer_confirmed: 600,
    };
    assert!(resumed(&t.on(Event::Knocked(knock))));
    assert_eq!(sent(&t.last_frame()), vec![done()]);
    assert!(t.machine.done_said());
}

#[test]
fn a_done_that_went_before_a_drop_goes_again_over_the_restored_link() {
    let mut t = Test::new(0);
    t.last_frame();
    t.partner_left();
    assert!(t.last_frame().is_empty());
    assert!(!t.machine.done_said());
    t.agreed(5, 600);
    assert!(resumed(&t.hear_all(catch_up(540, 600))));
    assert_eq!(sent(&t.last_frame()), vec![done()], "it may have been lost");
}

#[test]
fn a_bye_after_the_end_is_expected() {
    let mut t = Test::new(0);
    t.last_frame();
    let out = t.hear(Message::Bye {
        reason: "the match reached its last frame".into(),
    });
    assert!(matches!(&out[..], [Output::PeerLeft { .. }]));
    assert!(t.machine.peer_gone());
    assert!(!t.machine.stopped());
}

#[test]
fn ggrs_losing_the_peer_after_the_end_is_expected() {
    let mut t = Test::new(0);
    t.hear(done());
    assert!(t.on(Event::Disconnected).is_empty());
    assert!(t.machine.peer_gone());
}

#[test]
fn a_goodbye_tells_the_spectators_unless_our_done_told_them_the_end() {
    let mut t = Test::new(0);
    let out = t.on(Event::Goodbye("the player left".into()));
    let bye = Message::Bye {
        reason: "the player left".into(),
    };
    assert_eq!(sent(&out), vec![bye.clone()]);
    assert_eq!(told_spectators(&out), vec![bye]);
    t.last_frame();
    let out = t.on(Event::Goodbye("the match reached its last frame".into()));
    assert_eq!(sent(&out).len(), 1);
    assert!(told_spectators(&out).is_empty());
}

// ---- A rejoiner's own start ----

#[test]
fn a_rejoiner_sends_its_catch_up_and_re_simulates_the_keepers_at_its_first_poll() {
    let mut receiver = CatchUpReceiver::after(0);
    let history = (receiver.read(catch_up(0, 120).into_iter().map(Ok).collect()))
        .expect("a catch-up")
        .expect("complete")
        .0;
    let mut t = Test::with(settings(1), Some((history, 120)));
    let out = std::mem::take(&mut t.first);
    assert!(
        matches!(&out[..], [Output::SendCatchUp { known: 120 }, Output::CatchUp(h)] if h.0.frames == 120),
        "{out:?}"
    );
    assert!(t.tick().is_empty(), "once");
}
