//! A signaling server's `GET /ice` answer: `IceOffer::parse`, which native
//! clients and the page call on the server's bytes, then `into_servers`
//! (every URL checked, as the flags are) and `to_matchbox`, what the WebRTC
//! stack is handed. An accepted offer written back reads the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use twinstar_netcode::signaling::IceOffer;

fuzz_target!(|data: &[u8]| {
    let Ok(body) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(offer) = IceOffer::parse(body) else {
        return;
    };
    let again = IceOffer::parse(&serde_json::to_string(&offer).expect("an offer serialises"))
        .expect("a written offer reads back");
    assert_eq!(again, offer);
    if let Ok(servers) = offer.into_servers() {
        let config = twinstar_netcode::testing::signaling::to_matchbox(&servers);
        assert_eq!(
            config.urls.is_empty(),
            servers.stun.is_empty() && servers.turn.is_none()
        );
    }
});
