//! The signaling server's services natively: this process asks the server
//! itself, and may start one on this machine.

use std::net::{Ipv4Addr, SocketAddr, TcpStream};

use twinstar_netcode::connect::NetRuntime;
use twinstar_netcode::signaling::IceOffer;
use twinstar_netcode::signaling::{self, DEFAULT_PORT};
use twinstar_signaling::WebClient;
use twinstar_signaling::cli::lan_address;
use web_time::Duration;

use crate::platform::NoLocalServer;

/// The server this binary was built for (`TWINSTAR_DEFAULT_SERVER` in the
/// build's environment), unchecked.
pub fn built_in_server() -> Option<&'static str> {
    option_env!("TWINSTAR_DEFAULT_SERVER")
}

/// The server a client uses when nobody named one and none is built in:
/// this machine's default port.
pub fn default_server() -> Option<String> {
    Some(format!("ws://127.0.0.1:{DEFAULT_PORT}"))
}

/// What `server` offers at `GET /ice`, asked now.
pub fn ice_offer(server: &str) -> Result<Option<IceOffer>, String> {
    signaling::fetch_ice_offer(server)
}

/// The round trip to `server` in ms: the fastest of a few `GET /healthz`
/// on one connection.
pub fn round_trip_ms(server: &str) -> Option<u32> {
    signaling::round_trip_ms(server)
}

/// `server` as another machine reaches it: a server on this machine's
/// loopback is named by this machine's LAN address.
pub fn shared_url(server: &str) -> String {
    if let Some(port) = server.strip_prefix("ws://127.0.0.1:") {
        return format!("ws://{}:{port}", lan_address());
    }
    server.to_owned()
}

/// The server a client falls back on when nobody named one, and whether a
/// browser can play there: this machine's default port, started in-process
/// for a `host` when nothing answers there (without a web client when none
/// is found, so browsers cannot).
pub fn local_server(host: bool, runtime: &NetRuntime) -> Result<(String, bool), NoLocalServer> {
    let local = SocketAddr::from((Ipv4Addr::LOCALHOST, DEFAULT_PORT));
    let default_url = format!("ws://{local}");
    if !host || TcpStream::connect_timeout(&local, Duration::from_millis(300)).is_ok() {
        if host {
            eprintln!(
                "twinstar: using the signaling server running on this machine; the other player passes --server ws://{}:{DEFAULT_PORT}",
                lan_address()
            );
        }
        return Ok((default_url, true));
    }
    let bind_addr = SocketAddr::from((Ipv4Addr::UNSPECIFIED, DEFAULT_PORT));
    let web = WebClient::find_default();
    let browsers = web.is_some();
    let server = {
        let _guard = runtime.tokio().enter();
        twinstar_signaling::bind(bind_addr, web).map_err(|e| {
            NoLocalServer::StartFailed(format!(
                "no signaling server answers at {default_url} and starting one failed: {e}"
            ))
        })?
    };
    runtime.tokio().spawn(server.serve(std::future::pending()));
    eprintln!(
        "twinstar: started a signaling server on port {DEFAULT_PORT}; the other player passes --server ws://{}:{DEFAULT_PORT}",
        lan_address()
    );
    Ok((default_url, browsers))
}

/// Natively a connection attempt says for itself what failed.
pub fn offline() -> bool {
    false
}
