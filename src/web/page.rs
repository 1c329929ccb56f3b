//! The browser build's entry: the command the page's link asks for, run
//! with log lines on the console (`app::conclude_in_page` reports how it
//! ended). What the game needs of the page (storage, downloads, the file
//! picker) is `platform::browser`, below the game. Browser only.

use std::io::Write;

use super::link::args_from_fragment;
use crate::app::{self, Report};
use crate::cli::Cli;

/// The browser build's `main`.
pub fn start() {
    console_error_panic_hook::set_once();
    tracing_subscriber::fmt()
        .with_writer(|| ConsoleLine(Vec::new()))
        .with_ansi(false)
        // The default timer reads std's clock, which panics here.
        .without_time()
        .with_env_filter(tracing_subscriber::EnvFilter::new("twinstar=info"))
        .init();
    let fragment = crate::platform::browser::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    let args = match args_from_fragment(&fragment) {
        Ok(args) => args,
        Err(e) => return app::conclude_in_page(Err(app::Failure::BadInput(e.to_string()))),
    };
    tracing::info!(
        "twinstar {} in the browser: {args:?}",
        env!("CARGO_PKG_VERSION")
    );
    let cli = match Cli::try_parse_args(std::iter::once("twinstar".to_string()).chain(args)) {
        Ok(cli) => cli,
        Err(message) => return app::conclude_in_page(Err(app::Failure::BadInput(message))),
    };
    match app::run(cli) {
        // The window runs on the page's event loop and reports by itself.
        Ok(Report::Running) => {}
        result => app::conclude_in_page(result),
    }
}

/// A tracing event, buffered and logged as one console line when dropped.
struct ConsoleLine(Vec<u8>);

impl Write for ConsoleLine {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for ConsoleLine {
    fn drop(&mut self) {
        let text = String::from_utf8_lossy(&self.0);
        let text = text.trim_end();
        if !text.is_empty() {
            crate::platform::browser::log(text);
        }
    }
}
