//! The network services that differ between a native build and the
//! browser, each one function with one signature on both: natively this
//! process asks the server itself (and may start one on this machine); in
//! the browser the page's script has asked, or a page cannot ask at all.

use twinstar_netcode::net::ice::IceOffer;
use twinstar_netcode::tasks::NetRuntime;

/// The server this binary was built for (`TWINSTAR_DEFAULT_SERVER` in the
/// build's environment), unchecked; none in the browser, whose page has
/// its own origin (see [`default_server`]).
pub fn built_in_server() -> Option<&'static str> {
    #[cfg(not(target_arch = "wasm32"))]
    return option_env!("TWINSTAR_DEFAULT_SERVER");
    #[cfg(target_arch = "wasm32")]
    None
}

/// The server a client uses when nobody named one and none is built in:
/// natively this machine's default port; in the browser the server that
/// served the page (`None` for a page that does not say).
pub fn default_server() -> Option<String> {
    #[cfg(target_arch = "wasm32")]
    return super::browser::page_server();
    #[cfg(not(target_arch = "wasm32"))]
    Some(format!(
        "ws://127.0.0.1:{}",
        twinstar_netcode::net::signaling::DEFAULT_PORT
    ))
}

/// What `server` offers at `GET /ice`. Natively asked now; in the browser
/// the page fetched its own server's offer when it loaded (web/index.html)
/// and another server's is not the page's to ask, so that is `None`.
pub fn ice_offer(server: &str) -> Result<Option<IceOffer>, String> {
    #[cfg(not(target_arch = "wasm32"))]
    return twinstar_netcode::net::signaling::native_client::fetch_ice_offer(server);
    #[cfg(target_arch = "wasm32")]
    {
        use super::browser;
        if browser::page_server().as_deref() != Some(server.trim_end_matches('/')) {
            return Ok(None);
        }
        let Some(text) = browser::page_ice_text() else {
            return Ok(None);
        };
        match IceOffer::parse(&text) {
            Ok(offer) => Ok(Some(offer)),
            Err(e) => {
                tracing::warn!("unreadable ICE offer from the page: {e}");
                Ok(None)
            }
        }
    }
}

/// The round trip to `server` in ms: natively the fastest of a few
/// `GET /healthz` on one connection; `None` in the browser, which sends
/// none (a page's fetches are timed by the browser's own queues).
pub fn round_trip_ms(server: &str) -> Option<u32> {
    #[cfg(not(target_arch = "wasm32"))]
    return twinstar_netcode::net::signaling::native_client::round_trip_ms(server);
    #[cfg(target_arch = "wasm32")]
    {
        let _ = server;
        None
    }
}

/// `server` as another machine reaches it: natively a server on this
/// machine's loopback is named by this machine's LAN address; the browser
/// cannot know that address, so `server` as it is.
pub fn shared_url(server: &str) -> String {
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(port) = server.strip_prefix("ws://127.0.0.1:") {
        return format!("ws://{}:{port}", twinstar_signaling::cli::lan_address());
    }
    server.to_owned()
}

/// Why [`local_server`] has none.
#[derive(Debug)]
pub enum NoLocalServer {
    /// The page says nothing of its server (browser): the player names one.
    Unnamed,
    /// Nothing answered on this machine and starting a server failed.
    StartFailed(String),
}

/// The server a client falls back on when nobody named one, and whether a
/// browser can play there. Natively this machine's default port, started
/// in-process for a `host` when nothing answers there (without a web
/// client when none is found, so browsers cannot); in the browser the
/// page's own server.
pub fn local_server(host: bool, runtime: &NetRuntime) -> Result<(String, bool), NoLocalServer> {
    #[cfg(target_arch = "wasm32")]
    {
        let _ = (host, runtime);
        default_server()
            .map(|url| (url, true))
            .ok_or(NoLocalServer::Unnamed)
    }
    #[cfg(not(target_arch = "wasm32"))]
    native::local_server(host, runtime)
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use super::{NetRuntime, NoLocalServer};
    use std::net::{Ipv4Addr, SocketAddr, TcpStream};
    use twinstar_netcode::net::signaling::DEFAULT_PORT;
    use twinstar_signaling::WebClient;
    use twinstar_signaling::cli::lan_address;
    use web_time::Duration;

    pub(super) fn local_server(
        host: bool,
        runtime: &NetRuntime,
    ) -> Result<(String, bool), NoLocalServer> {
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
}
