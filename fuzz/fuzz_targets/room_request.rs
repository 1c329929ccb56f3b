//! A room's requests to the signaling server (issue 34): the JSON bodies
//! of `POST /rooms/CODE/{stats,kick,report}` through
//! `decode_room_request` (what the server calls on every such body), the
//! path through `RoomAction::parse_path`, and a typed chat line through
//! `Chat::command` (what every player and spectator calls on what it
//! types). The first byte picks which; the rest is the input. Accepted
//! bodies and paths read back the same from what they write; a command
//! handed to the backend names someone and, for a report, gives a reason.
#![no_main]

use libfuzzer_sys::fuzz_target;
use twinstar_netcode::testing::chat::{Action, Chat, Command};
use twinstar_signaling_protocol::{
    Checked, HostStats, KickRequest, ReportRequest, RoomAction, decode_room_request,
};

fn round_trip<T>(body: &[u8])
where
    T: Checked + serde::Serialize + for<'de> serde::Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    if let Ok(request) = decode_room_request::<T>(body) {
        let again = serde_json::to_vec(&request).unwrap();
        assert_eq!(decode_room_request::<T>(&again).as_ref(), Ok(&request));
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, body)) = data.split_first() else {
        return;
    };
    match which % 5 {
        0 => round_trip::<HostStats>(body),
        1 => round_trip::<KickRequest>(body),
        2 => round_trip::<ReportRequest>(body),
        3 => {
            let Ok(path) = std::str::from_utf8(body) else {
                return;
            };
            if let Some((code, action)) = RoomAction::parse_path(path) {
                assert_eq!(
                    RoomAction::parse_path(&action.path(&code)),
                    Some((code, action))
                );
            }
        }
        _ => {
            let Ok(text) = std::str::from_utf8(body) else {
                return;
            };
            let mut chat = Chat::new("P1".into(), "P2".into());
            match chat.command(1, text) {
                Command::Act(Action::Kick(name)) => assert!(!name.is_empty()),
                Command::Act(Action::Report { name, reason }) => {
                    assert!(!name.is_empty() && !reason.is_empty());
                }
                Command::Line | Command::Answered => {}
            }
        }
    }
});
