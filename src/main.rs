// On Windows the game is a GUI program: a double-click opens its window
// and no console; platform::native::console attaches to a terminal it was started
// from, and shows errors in a message box when there is none.
#![cfg_attr(windows, windows_subsystem = "windows")]

#[cfg(not(target_arch = "wasm32"))]
use std::process::ExitCode;

#[cfg(not(target_arch = "wasm32"))]
fn main() -> ExitCode {
    use twinstar::app;
    use twinstar::cli::Cli;

    app::main_of::<Cli>("twinstar", std::env::args_os(), |cli| {
        let json = cli.json();
        (app::run(cli), json)
    })
}

/// In the browser: the page's link says what to run (`web::page`).
#[cfg(target_arch = "wasm32")]
fn main() {
    twinstar::web::page::start();
}
