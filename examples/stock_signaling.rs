//! matchbox's own full-mesh signaling server, unchanged: no room caps, no
//! refusals. Against it, a third player can enter a room where two are
//! already playing, which is what `tests/it/connect_refusals.rs` exercises (the
//! test runs the same server in-process; this binary is for trying it by
//! hand).
//!
//! ```text
//! cargo run --example stock_signaling -- [ADDR]     # default 127.0.0.1:3536
//! ```

use std::net::SocketAddr;
use std::process::ExitCode;

fn main() -> ExitCode {
    let arg = std::env::args().nth(1);
    let addr: SocketAddr = match arg.as_deref().unwrap_or("127.0.0.1:3536").parse() {
        Ok(addr) => addr,
        Err(e) => {
            eprintln!(
                "stock_signaling: bad address {arg:?} ({e}); usage: stock_signaling [IP:PORT]"
            );
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("stock_signaling: cannot start a runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let mut server = matchbox_signaling::SignalingServer::full_mesh_builder(addr).build();
    let bound = match server.bind() {
        Ok(bound) => bound,
        Err(e) => {
            eprintln!("stock_signaling: cannot bind {addr}: {e}");
            return ExitCode::from(2);
        }
    };
    eprintln!("stock_signaling: full-mesh matchbox server on ws://{bound}");
    match runtime.block_on(server.serve()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("stock_signaling: {e}");
            ExitCode::from(1)
        }
    }
}
