// On Windows the game is a GUI program: a double-click opens its window
// and no console; platform::native::console attaches to a terminal it was started
// from, and shows errors in a message box when there is none.
#![cfg_attr(windows, windows_subsystem = "windows")]

/// The command line's command natively; in the browser, the page link's.
fn main() -> std::process::ExitCode {
    twinstar::app::main()
}
