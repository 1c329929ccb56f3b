//! `twinstar serve`: the signaling server's command, run in this process
//! (the same as `twinstar-server`), ranking uploaded replays with the
//! game's verifier (twinstar-verify). The page's side says it cannot.

use std::sync::Arc;

pub use twinstar_signaling::cli::{ServeArgs, ServeError};

/// Runs the server until SIGTERM or Ctrl-C, ranking replays it verified.
pub fn serve(args: &ServeArgs) -> Result<(), ServeError> {
    twinstar_signaling::cli::serve_with(args, Some(Arc::new(twinstar_verify::TwinstarVerifier)))
}
