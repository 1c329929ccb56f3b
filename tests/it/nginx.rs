//! `twinstar serve` behind nginx with the shipped deploy/nginx.conf (its
//! four marked values substituted): the page and /healthz over https, and
//! two native players meeting over wss through it. Needs `nginx`
//! (scripts/test.sh installs Debian's).

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{LIMIT, Server, Twinstar, peer_args, scratch};

#[test]
fn players_meet_over_wss_through_nginx() {
    let dir = scratch("nginx");
    let certs = dir.join("certs");
    common::certificate(&certs, "server");
    let node = Server::start_with(&["--trust-forwarded"], &[]);
    let port = common::free_loopback_port();
    let shipped =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/nginx.conf"))
            .unwrap();
    let site = shipped
        .replace("listen 443 ssl;", &format!("listen 127.0.0.1:{port} ssl;"))
        .replace("server_name play.example.org;", "server_name 127.0.0.1;")
        .replace(
            "/etc/letsencrypt/live/play.example.org/fullchain.pem",
            certs.join("server.pem").to_str().unwrap(),
        )
        .replace(
            "/etc/letsencrypt/live/play.example.org/privkey.pem",
            certs.join("server.key").to_str().unwrap(),
        )
        .replace("http://127.0.0.1:3536", &format!("http://{}", node.addr));
    assert_ne!(site, shipped);
    assert!(
        !site.contains("example.org") && !site.contains(":3536;"),
        "{site}"
    );
    let main = format!(
        "master_process off;\npid {dir}/nginx.pid;\nerror_log {dir}/error.log;\nevents {{}}\nhttp {{\n  access_log off;\n  client_body_temp_path {dir};\n  proxy_temp_path {dir};\n  fastcgi_temp_path {dir};\n  uwsgi_temp_path {dir};\n  scgi_temp_path {dir};\n{site}\n}}\n",
        dir = dir.display()
    );
    std::fs::write(dir.join("nginx.conf"), main).unwrap();
    let nginx = Command::new("nginx")
        .arg("-p")
        .arg(&dir)
        .arg("-c")
        .arg(dir.join("nginx.conf"))
        .args(["-g", "daemon off;"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("nginx is installed (apt-get install nginx; scripts/test.sh does)");
    // One process (`master_process off` in the test's wrapper config):
    // killing it leaves no orphaned worker holding the port.
    let _nginx = common::Reaped(nginx);
    let ca = certs.join("ca.pem");
    let curl = |path: &str| {
        let out = Command::new("curl")
            .args(["-s", "-w", "\n%{http_code}", "--cacert"])
            .arg(&ca)
            .arg(format!("https://127.0.0.1:{port}{path}"))
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let started = Instant::now();
    while !curl("/healthz").ends_with("200") {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "nginx did not come up"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(curl("/healthz"), "ok\n\n200");

    let url = format!("wss://127.0.0.1:{port}");
    let spawn = |args: Vec<&str>| {
        let mut command = common::command(&dir, &args);
        command.env("SSL_CERT_FILE", &ca);
        Twinstar::spawn_command(command)
    };
    let host = spawn(peer_args(
        "host",
        Some("N9X-4TW"),
        &url,
        "240",
        &["--no-record"],
    ));
    std::thread::sleep(Duration::from_millis(300));
    let join = spawn(peer_args(
        "join",
        Some("N9X4TW"),
        &url,
        "240",
        &["--no-record"],
    ));
    let (h, j) = (host.finish(LIMIT), join.finish(LIMIT));
    assert_eq!(h.code(), Some(0), "{}", h.report("host", 30));
    assert_eq!(j.code(), Some(0), "{}", j.report("join", 30));
    assert_eq!(h.summary()["checksum"], j.summary()["checksum"]);
    assert_eq!(h.summary()["frames"], 240);
}
