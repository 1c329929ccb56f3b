//! Room codes as typed or read from a link: `RoomCode::parse`. An accepted
//! code parses back to itself from its display form and its canonical form.
#![no_main]

use libfuzzer_sys::fuzz_target;
use twinstar_netcode::RoomCode;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(code) = RoomCode::parse(text) else {
        return;
    };
    assert!((6..=8).contains(&code.canonical().len()));
    assert_eq!(RoomCode::parse(&code.to_string()).as_ref(), Ok(&code));
    assert_eq!(RoomCode::parse(code.canonical()).as_ref(), Ok(&code));
});
