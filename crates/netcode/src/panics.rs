//! Panics that a dependency raises on its own threads, where they end a
//! task or a thread we handle rather than the game: the default report (a
//! thread name, a location, a backtrace hint) would only be noise beside
//! the one line we print for it.

use std::panic::PanicHookInfo;

/// From now on, a panic located in a source file whose path contains
/// `marker` (a crate's name) goes to `quiet` instead of the default
/// report; every other panic keeps the hook it had. Call it once per
/// marker (a `Once` at the call site).
pub fn route_panics_from(marker: &'static str, quiet: fn(&PanicHookInfo)) {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if info.location().is_some_and(|l| l.file().contains(marker)) {
            quiet(info);
        } else {
            previous(info);
        }
    }));
}
