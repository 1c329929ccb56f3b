//! `twinstar serve`: the signaling server's command, run in this process
//! (the same as `twinstar-server`). The page's side says it cannot.

pub use twinstar_signaling::cli::{ServeArgs, ServeError, serve};
