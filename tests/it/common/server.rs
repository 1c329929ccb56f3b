//! `twinstar serve`, the signaling server, as a process.

use std::ffi::OsStr;
use std::net::{SocketAddr, TcpStream};
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use super::Twinstar;

/// `twinstar serve` on a free loopback port, accepting TCP from the moment
/// [`Server::start`] returns until it is dropped (killed and reaped).
///
/// The port is the one the system picks for `--bind 127.0.0.1:0`, read back
/// from the server's own report: choosing a free port up front and passing
/// it would race with the other tests binding ports in parallel.
pub struct Server {
    /// `ws://127.0.0.1:PORT` (`wss://` with TLS)
    pub url: String,
    pub addr: SocketAddr,
    process: Twinstar,
}

impl Server {
    /// Starts the server; fails if it has not reported its address and
    /// accepted a TCP connection within 10 s.
    pub fn start() -> Self {
        Self::start_with(&[], &[])
    }

    /// [`Server::start`] with more arguments after `serve --bind
    /// 127.0.0.1:0 --metrics-bind 127.0.0.1:0`, and environment variables
    /// set. (Metrics on a free port: the default's, 9536, is the machine's
    /// and tests run side by side.)
    pub fn start_with(args: &[&str], envs: &[(&str, &OsStr)]) -> Self {
        Self::start_of(super::BIN, args, envs)
    }

    /// [`Server::start`] over TLS (`wss://`, `https://`) with this
    /// certificate and key (see [`super::certificate`]).
    pub fn start_tls(cert: &std::path::Path, key: &std::path::Path) -> Self {
        let (cert, key) = (cert.to_str().unwrap(), key.to_str().unwrap());
        Self::start_with(&["--tls-cert", cert, "--tls-key", key], &[])
    }

    /// [`Server::start_with`] from another binary that takes `serve`
    /// (`twinstar-server`, [`super::server_bin`]).
    pub fn start_of(bin: &str, args: &[&str], envs: &[(&str, &OsStr)]) -> Self {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut all = vec![
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--metrics-bind",
            "127.0.0.1:0",
        ];
        all.extend_from_slice(args);
        let mut command = super::command_of(bin, &std::env::temp_dir(), &all);
        command.envs(envs.iter().copied());
        let mut process = Twinstar::spawn_command(command);
        let fail = |process: &Twinstar, why: &str| -> ! {
            panic!(
                "twinstar serve {why}; stderr:\n{}",
                super::tail(&process.stderr(), 40)
            )
        };
        let url = loop {
            // Only a whole line: a half-written address would be wrong.
            let stderr = process.stderr();
            let reported = stderr
                .split_inclusive('\n')
                .filter(|line| line.ends_with('\n'))
                .find_map(|line| {
                    let at = line.find("wss://").or_else(|| line.find("ws://"))?;
                    Some(
                        line[at..]
                            .chars()
                            .take_while(|c| !c.is_whitespace() && *c != ')')
                            .collect::<String>(),
                    )
                });
            if let Some(url) = reported {
                break url;
            }
            if !process.is_running() {
                fail(&process, "ended before reporting its address");
            }
            if Instant::now() > deadline {
                fail(&process, "did not report its address within 10 s");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let addr: SocketAddr = url
            .trim_start_matches("wss://")
            .trim_start_matches("ws://")
            .parse()
            .unwrap_or_else(|e| fail(&process, &format!("reported {url} ({e})")));
        while TcpStream::connect_timeout(&addr, Duration::from_secs(1)).is_err() {
            if !process.is_running() {
                fail(&process, "ended before accepting TCP");
            }
            if Instant::now() > deadline {
                fail(
                    &process,
                    &format!("did not accept TCP on {addr} within 10 s"),
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Server { url, addr, process }
    }

    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// One sample of its `GET /metrics` (`name` with its labels, as
    /// printed), `None` when absent or unreachable. Asked on its metrics
    /// listener, whose address its start-up line gives
    /// (`metrics on http://ADDR/metrics`): the public port answers 404.
    pub fn metric(&self, name: &str) -> Option<f64> {
        let (_, text) = super::http_get(self.metrics_addr()?, "/metrics")?;
        twinstar_signaling::sample(&text, name)
    }

    /// The metrics listener's address, from its start-up line.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        let stderr = self.process.stderr();
        let at = stderr.find("metrics on http://")? + "metrics on http://".len();
        stderr[at..].split('/').next()?.parse().ok()
    }

    /// What it has written to stderr so far.
    pub fn stderr(&self) -> String {
        self.process.stderr()
    }

    /// Waits until stderr contains `needle` (see [`Twinstar::wait_for`]).
    pub fn wait_for(&mut self, needle: &str, limit: Duration) -> bool {
        self.process.wait_for(needle, limit)
    }

    pub fn is_alive(&mut self) -> bool {
        self.process.is_running()
    }

    /// SIGKILL, no goodbye to anyone; returns the reaped status.
    pub fn kill(&mut self) -> ExitStatus {
        self.process.kill()
    }
}
