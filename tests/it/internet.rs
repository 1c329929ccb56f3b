//! `twinstar serve` as a community runs it on the internet, as processes on
//! loopback: TLS with a private CA (trusted through `SSL_CERT_FILE`), a
//! certificate renewed under a waiting room, ICE servers and TURN REST
//! credentials handed out without the secret ever showing, and a seat held
//! by a silent client freed within the default idle limit.

use crate::common;

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{LIMIT, Server, Twinstar, certificate, peer_args, scratch};

/// The serial number of the certificate the server at `addr` presents.
fn served_serial(addr: &str) -> String {
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "openssl s_client -connect {addr} </dev/null 2>/dev/null | openssl x509 -noout -serial"
        ))
        .output()
        .expect("openssl runs");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn file_serial(pem: &Path) -> String {
    let out = Command::new("openssl")
        .args(["x509", "-noout", "-serial", "-in"])
        .arg(pem)
        .output()
        .expect("openssl runs");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A peer (see [`peer_args`]) with `SSL_CERT_FILE` set to `ca`.
fn peer_trusting(dir: &Path, ca: &Path, args: &[&str]) -> Twinstar {
    let mut command = common::command(dir, args);
    command.env("SSL_CERT_FILE", ca);
    Twinstar::spawn_command(command)
}

fn copy(from: &Path, to: &Path) {
    // Write then rename, as certificate tools do: never a half-written file.
    let tmp = to.with_extension("tmp");
    std::fs::copy(from, &tmp).unwrap();
    std::fs::rename(&tmp, to).unwrap();
}

#[test]
fn players_meet_over_wss_across_a_certificate_renewal() {
    let dir = scratch("internet-tls");
    let certs = dir.join("certs");
    let (first_cert, first_key) = certificate(&certs, "first");
    let (second_cert, second_key) = certificate(&certs, "second");
    let ca = certs.join("ca.pem");
    // The files the server is told about; renewal rewrites them.
    let (cert, key) = (certs.join("live.pem"), certs.join("live.key"));
    copy(&first_cert, &cert);
    copy(&first_key, &key);
    let server = Server::start_tls(&cert, &key);
    assert!(server.url.starts_with("wss://"), "{}", server.url);
    let addr = server.addr.to_string();
    assert_eq!(served_serial(&addr), file_serial(&first_cert));

    // The page and the operator's endpoints over https.
    let curl = |path: &str| {
        let out = Command::new("curl")
            .args(["-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert"])
            .arg(&ca)
            .arg(format!("https://{addr}{path}"))
            .output()
            .expect("curl runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert_eq!(curl("/healthz"), "200");
    // Not on the public port: its own listener (common::Server::metric).
    assert_eq!(curl("/metrics"), "404");
    assert_eq!(curl("/livez"), "200");

    // Without the CA, a player is told what to do, and it is bad input.
    let untrusted = common::run(
        &dir,
        &peer_args("join", Some("ZZZ-ZZZZ"), &server.url, "60", &[]),
        LIMIT,
    );
    assert_eq!(
        untrusted.code(),
        Some(2),
        "{}",
        untrusted.report("join", 20)
    );
    assert!(
        untrusted.stderr.contains("SSL_CERT_FILE"),
        "{}",
        untrusted.stderr
    );

    // The host waits in its room while the certificate is renewed.
    let host = peer_trusting(
        &dir,
        &ca,
        &peer_args(
            "host",
            Some("K7Q-2XM"),
            &server.url,
            "300",
            &["--no-record"],
        ),
    );
    std::thread::sleep(Duration::from_secs(1));
    copy(&second_cert, &cert);
    copy(&second_key, &key);
    let renewed = Instant::now();
    while served_serial(&addr) != file_serial(&second_cert) {
        assert!(
            renewed.elapsed() < Duration::from_secs(15),
            "the renewed certificate was not picked up"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    eprintln!("renewed certificate served after {:?}", renewed.elapsed());

    // The joiner arrives over the new certificate and finds the host.
    let join = peer_trusting(
        &dir,
        &ca,
        &peer_args("join", Some("K7Q2XM"), &server.url, "300", &["--no-record"]),
    );
    let (h, j) = (host.finish(LIMIT), join.finish(LIMIT));
    assert_eq!(h.code(), Some(0), "{}", h.report("host", 30));
    assert_eq!(j.code(), Some(0), "{}", j.report("join", 30));
    let (hs, js) = (h.summary(), j.summary());
    assert_eq!(hs["frames"], 300);
    assert_eq!(hs["checksum"], js["checksum"]);
    assert!(hs["checksum"].is_string());
}

#[test]
fn ice_servers_come_from_the_server_and_the_secret_never_shows() {
    let dir = scratch("internet-ice");
    let secret_file = dir.join("turn-secret");
    let secret = "correct-horse-battery-staple";
    std::fs::write(&secret_file, format!("{secret}\n")).unwrap();
    let mut server = Server::start_with(
        &[
            "--stun",
            "stun:127.0.0.1:3478",
            "--turn",
            "turn:127.0.0.1:3478?transport=udp",
            "--turn-secret-file",
            secret_file.to_str().unwrap(),
            "--turn-ttl",
            "2h",
        ],
        &[("RUST_LOG", OsStr::new("debug"))],
    );
    let url = server.url.clone();
    // The players name no ICE server: the server's are used (the 127.0.0.1
    // STUN/TURN URLs answer nothing; host candidates still connect).
    let args = |role: &'static str, code: &'static str| -> Vec<String> {
        let mut a: Vec<String> = vec![role.into()];
        if role == "host" {
            a.push("--room".into());
        }
        a.extend(
            [
                code,
                "--server",
                &url,
                "--headless",
                "--bot",
                "--frames",
                "120",
                "--json",
                "--no-record",
            ]
            .map(String::from),
        );
        a
    };
    let spawn = |a: &[String]| {
        let mut command = common::command(&dir, &a.iter().map(String::as_str).collect::<Vec<_>>());
        command.env("RUST_LOG", "info,twinstar=debug");
        Twinstar::spawn_command(command)
    };
    let host = spawn(&args("host", "R3M-9TQ"));
    std::thread::sleep(Duration::from_millis(300));
    let join = spawn(&args("join", "R3M9TQ"));
    let (h, j) = (host.finish(LIMIT), join.finish(LIMIT));
    assert_eq!(h.code(), Some(0), "{}", h.report("host", 30));
    assert_eq!(j.code(), Some(0), "{}", j.report("join", 30));
    assert_eq!(h.summary()["checksum"], j.summary()["checksum"]);
    for (who, out) in [("host", &h), ("join", &j)] {
        assert!(
            out.stderr.contains("ICE servers from") && out.stderr.contains("1 TURN"),
            "{who} did not take the server's ICE servers:\n{}",
            out.stderr
        );
        assert!(!out.stderr.contains(secret) && !out.stdout.contains(secret));
    }
    assert!(server.wait_for("joined (2/2)", Duration::from_secs(5)));
    let log = server.stderr();
    assert!(!log.contains(secret), "the secret is in the server's log");
    assert!(log.contains("REST credentials, valid 2h"), "{log}");
    // Each player was handed its own credential.
    assert_eq!(
        server.metric("twinstar_turn_credentials_issued_total"),
        Some(2.0)
    );

    // The secret given neither way: a TURN URL without it is refused at start.
    let refused = common::run(
        &dir,
        &[
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--turn",
            "turn:127.0.0.1:3478",
        ],
        LIMIT,
    );
    assert_eq!(refused.code(), Some(2), "{}", refused.report("serve", 10));
    assert!(
        refused.stderr.contains("--turn-secret"),
        "{}",
        refused.stderr
    );
}

#[test]
fn a_seat_held_by_a_silent_client_is_free_again_within_the_default_limit() {
    let dir = scratch("internet-silent");
    let server = Server::start();
    let url = format!("{}/Q4R-7VX", server.url);
    // Two websockets open the room and then never read or write again:
    // a machine that lost power.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let silent: Vec<_> = (0..2)
        .map(|_| {
            runtime
                .block_on(tokio_tungstenite::connect_async(url.as_str()))
                .unwrap()
                .0
        })
        .collect();
    let went_silent = Instant::now();
    // Meanwhile the room is full for a real player.
    let refused = common::run(
        &dir,
        &peer_args(
            "host",
            Some("Q4R-7VX"),
            &server.url,
            "120",
            &["--no-record"],
        ),
        LIMIT,
    );
    assert!(
        refused.stderr.contains("room Q4R-7VX is full"),
        "{}",
        refused.report("host", 10)
    );
    // Until the server has closed both.
    while server.metric("twinstar_clients") != Some(0.0) {
        assert!(
            went_silent.elapsed() < Duration::from_secs(35),
            "still {:?} clients after {:?}",
            server.metric("twinstar_clients"),
            went_silent.elapsed()
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    let freed = went_silent.elapsed();
    eprintln!("seats freed after {freed:?}");
    assert!(
        freed >= Duration::from_secs(20),
        "freed before the limit: {freed:?}"
    );
    assert!(freed <= Duration::from_secs(30), "freed after {freed:?}");
    assert_eq!(
        server.metric(r#"twinstar_refusals_total{reason="silent"}"#),
        Some(2.0)
    );
    // And the room takes a new pair.
    let (host, join) = common::host_then_join(
        &dir,
        &server.url,
        ("Q4R-7VX", "Q4R7VX"),
        "120",
        &["--no-record"],
        &["--no-record"],
    );
    let (h, j) = (host.finish(LIMIT), join.finish(LIMIT));
    assert_eq!(h.code(), Some(0), "{}", h.report("host", 30));
    assert_eq!(j.code(), Some(0), "{}", j.report("join", 30));
    assert_eq!(h.summary()["checksum"], j.summary()["checksum"]);
    drop(silent);
}
