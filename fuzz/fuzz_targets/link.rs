//! Page links: `web::link::args_from_fragment`, which the browser build
//! calls on the URL fragment (`#K7Q-2XM`, `#watch/...`, `#!command line`).
//! A link to a room gives the room's display form, which links the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use twinstar_netcode::RoomCode;
use twinstar::web::link::args_from_fragment;

fuzz_target!(|data: &[u8]| {
    let Ok(fragment) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(args) = args_from_fragment(fragment) else {
        return;
    };
    // A command line (`#!watch h`, also percent-encoded as `#%21watch h`)
    // may name any code; only a room's display form must link back.
    let is_room = |code: &str| RoomCode::parse(code).is_ok_and(|room| room.to_string() == code);
    if let [verb, code] = args.as_slice()
        && (verb == "join" || verb == "watch")
        && is_room(code)
    {
        let link = if verb == "join" {
            format!("#{code}")
        } else {
            format!("#watch/{code}")
        };
        assert_eq!(args_from_fragment(&link).as_ref(), Ok(&args));
    }
});
