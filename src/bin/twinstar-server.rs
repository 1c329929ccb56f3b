//! `twinstar-server`: the signaling server alone, with exactly the options
//! of `twinstar serve` (`twinstar-server serve ...` is also accepted, so a
//! command line from the docs works with either binary). For operators: it
//! leaves out the game's window, sound and gamepads, so it links none of
//! the desktop libraries (no ALSA, udev, X11 or GL; checked by
//! tests/it/server_binary.rs) and runs on a headless server as it is.

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    use clap::Parser;
    use twinstar::app;
    use twinstar::cli::ServeArgs;

    /// The twinstar signaling server: pairs players by room code, serves
    /// the web client, hands out ICE servers; /healthz and /metrics.
    #[derive(Parser)]
    #[command(name = "twinstar-server", version)]
    struct ServerCli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|first| first == "serve") {
        args.remove(1);
    }
    app::main_of::<ServerCli>("twinstar-server", args, |cli| {
        (app::serve(&cli.serve), false)
    })
}

#[cfg(target_arch = "wasm32")]
fn main() {}
