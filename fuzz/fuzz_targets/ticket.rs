//! Rejoin tickets as read back from the data folder or local storage:
//! `String::from_utf8` (what the file store does after its 4 KiB bounded
//! read) then `rejoin::Ticket::parse`, which `app::tickets::claims` calls.
//! An accepted ticket written with `to_text` reads back the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use twinstar_netcode::testing::rejoin::Ticket;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(ticket) = Ticket::parse(text) else {
        return;
    };
    let again = ticket.to_text();
    assert_eq!(Ticket::parse(&again).as_ref().ok(), Some(&ticket));
    assert_eq!(Ticket::parse(&again).map(|t| t.to_text()).ok(), Some(again));
});
