//! `twinstar serve` in the page: a browser cannot listen for players, so
//! the command exists (the command line is the same everywhere) and says
//! so. The native side runs the signaling server.

/// `twinstar serve`'s arguments: none reach a page.
#[derive(Debug, Default, clap::Args)]
pub struct ServeArgs {}

/// Why `serve` did not run, as natively.
#[derive(Debug)]
pub enum ServeError {
    /// What was asked cannot be done.
    BadInput(String),
    /// It could not go on (never here).
    Runtime(String),
}

/// Refuses: a page cannot host a server.
pub fn serve(_: &ServeArgs) -> Result<(), ServeError> {
    Err(ServeError::BadInput(
        "a browser cannot run a server: run `twinstar serve` on a computer".into(),
    ))
}
