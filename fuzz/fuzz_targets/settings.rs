//! Settings files: `Settings::from_bytes`, which `Settings::load` calls on
//! the file's bytes (and the browser build on its local storage). Accepted
//! settings written with `to_text` read back the same, and that text is
//! stable.
#![no_main]

use libfuzzer_sys::fuzz_target;
use twinstar::settings::Settings;

fuzz_target!(|data: &[u8]| {
    let Ok(settings) = Settings::from_bytes(data.to_vec()) else {
        return;
    };
    let text = settings.to_text();
    let again = Settings::from_bytes(text.clone().into_bytes()).expect("saved settings load");
    // Strict since check_server_url refuses whitespace inside the host
    // ("ws://h /" once loaded as "ws://h ", then as "ws://h": this target's
    // finding, kept in fuzz/regressions/settings/).
    assert_eq!(again, settings);
    assert_eq!(again.to_text(), text);
});
