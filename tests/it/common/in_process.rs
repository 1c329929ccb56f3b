//! A signaling server inside the test process (the library, not the
//! binary), on a free loopback port, serving until dropped.

use std::net::SocketAddr;

pub struct InProcessServer {
    /// `ws://127.0.0.1:PORT`.
    pub url: String,
    _runtime: tokio::runtime::Runtime,
}

impl InProcessServer {
    pub fn start() -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let bound = {
            let _guard = runtime.enter();
            twinstar_signaling::bind(SocketAddr::from(([127, 0, 0, 1], 0)), None).unwrap()
        };
        let url = format!("ws://{}", bound.local_addr());
        runtime.spawn(bound.serve(std::future::pending()));
        InProcessServer {
            url,
            _runtime: runtime,
        }
    }
}
