//! The signaling server's request paths: `RoomRequest::from_path`, which
//! the admission callback and the room task call on the URL path of every
//! websocket upgrade. An accepted room's canonical path means the same.
//! The same bytes as a query: `SeatToken::from_query` (a player's seat
//! token); an accepted token reads back the same from its text. And as the
//! lobby's queries: `ClientQuery::parse` (a room URL's name, version,
//! public flag, quick-match level and round trip; what it accepts, written
//! back by `to_query`, reads the same) and `RoomsQuery::parse` (`GET
//! /rooms`'s version and cursor).
#![no_main]

use libfuzzer_sys::fuzz_target;
use twinstar_signaling_protocol::{
    ClientQuery, RoomRequest, RoomsQuery, SEAT_PARAM, SeatToken, WATCH_PREFIX,
};

fuzz_target!(|data: &[u8]| {
    let Ok(path) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(Some(token)) = SeatToken::from_query(Some(path)) {
        let again = format!("{SEAT_PARAM}={token}");
        assert_eq!(SeatToken::from_query(Some(&again)), Ok(Some(token)));
    }
    if let Ok(query) = ClientQuery::parse(Some(path)) {
        let again = query.to_query();
        assert_eq!(ClientQuery::parse(again.as_deref()), Ok(query));
    }
    let _ = RoomsQuery::parse(Some(path));
    match RoomRequest::from_path(Some(path)) {
        Ok(RoomRequest::Code(code)) => {
            assert_eq!(
                RoomRequest::from_path(Some(code.canonical())),
                Ok(RoomRequest::Code(code))
            );
        }
        Ok(RoomRequest::Watch(code)) => {
            let again = format!("{WATCH_PREFIX}{}", code.canonical());
            assert_eq!(
                RoomRequest::from_path(Some(&again)),
                Ok(RoomRequest::Watch(code))
            );
        }
        Ok(RoomRequest::Quick) | Err(_) => {}
    }
});
