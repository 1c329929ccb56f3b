//! `twinstar serve` also serves the web client on plain HTTP: the files of
//! a (fake, made here) web client directory, gzip when asked, 404 for
//! everything else, a hint when there is no build; websocket upgrades to
//! `/` and `/ROOM` reach the signaling server as before.

use crate::common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{Server, Twinstar, peer_args, scratch};

const IO_LIMIT: Duration = Duration::from_secs(10);

const INDEX: &[u8] = b"<!DOCTYPE html><title>fake twinstar</title>\n";
const WASM: &[u8] = b"\0asm\x01\0\0\0 not really a module";
/// Not real gzip: only which bytes are sent matters here.
const WASM_GZ: &[u8] = b"\x1f\x8b pretend-gzipped wasm";

/// A fake web client: the four files of the game, the installable app's
/// manifest, worker and an icon, a `.gz` of the wasm only, and a file
/// that must never be served.
fn web_dir(name: &str) -> PathBuf {
    let dir = scratch(name);
    let files: [(&str, &[u8]); 9] = [
        ("index.html", INDEX),
        ("twinstar.js", b"export function main() {}\n"),
        ("twinstar_bg.wasm", WASM),
        ("twinstar_bg.wasm.gz", WASM_GZ),
        ("mq_js_bundle.js", b"var miniquad;\n"),
        ("manifest.webmanifest", b"{\"name\": \"twinstar\"}\n"),
        ("sw.js", b"const VERSION = \"0.1.0-test\";\n"),
        ("icon-192.png", b"\x89PNG not really"),
        ("private.txt", b"not for the web"),
    ];
    for (file, bytes) in files {
        std::fs::write(dir.join(file), bytes).unwrap();
    }
    dir
}

fn serve_web(dir: &Path) -> Server {
    let mut server = Server::start_with(&["--web", dir.to_str().unwrap()], &[]);
    assert!(
        server.wait_for("twinstar: web client at http://", IO_LIMIT),
        "no web client line:\n{}",
        server.stderr()
    );
    server
}

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Where the header ends (the index after `\r\n\r\n`).
fn header_end(bytes: &[u8]) -> Option<usize> {
    bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| i + 4)
}

fn connect(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect_timeout(&addr, IO_LIMIT).unwrap();
    stream.set_read_timeout(Some(IO_LIMIT)).unwrap();
    stream.set_write_timeout(Some(IO_LIMIT)).unwrap();
    stream
}

/// A plain HTTP/1.1 `GET path` with `headers`, read to its end.
fn get(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> Reply {
    let mut stream = connect(addr);
    let mut request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request += &format!("{name}: {value}\r\n");
    }
    request += "\r\n";
    stream.write_all(request.as_bytes()).unwrap();
    let mut bytes = Vec::new();
    stream
        .read_to_end(&mut bytes)
        .unwrap_or_else(|e| panic!("GET {path}: {e}"));
    let end = header_end(&bytes).unwrap_or_else(|| {
        panic!(
            "GET {path}: no complete header in {:?}",
            String::from_utf8_lossy(&bytes)
        )
    });
    let head = String::from_utf8(bytes[..end].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("GET {path}: bad status line in {head:?}"));
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    let reply = Reply {
        status,
        headers,
        body: bytes[end..].to_vec(),
    };
    let length: usize = reply
        .header("content-length")
        .unwrap_or_else(|| panic!("GET {path}: no Content-Length in {head:?}"))
        .parse()
        .unwrap();
    assert_eq!(reply.body.len(), length, "GET {path}: body length");
    reply
}

#[test]
fn the_web_client_is_served_from_web_dir() {
    let dir = web_dir("served");
    let server = serve_web(&dir);
    let port = server.addr.port();
    assert!(
        server.stderr().contains(&format!(
            "twinstar: web client at http://127.0.0.1:{port}/ (a room's link: http://127.0.0.1:{port}/#K7Q-2XM)"
        )),
        "{}",
        server.stderr()
    );

    for path in ["/", "/index.html", "/?from=a-link"] {
        let r = get(server.addr, path, &[("Accept-Encoding", "gzip")]);
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
        assert_eq!(r.header("cache-control"), Some("no-cache"));
        assert_eq!(r.header("content-encoding"), None, "index.html has no .gz");
        assert_eq!(r.body, INDEX, "{path}");
    }
    for js in ["/twinstar.js", "/mq_js_bundle.js"] {
        let r = get(server.addr, js, &[]);
        assert_eq!(r.status, 200, "{js}");
        assert_eq!(
            r.header("content-type"),
            Some("text/javascript; charset=utf-8")
        );
    }
    // The installable app: browsers ignore a manifest or refuse a worker
    // of another type, and a worker cached stale keeps serving an old
    // client (it must be revalidated on every visit).
    for (path, content_type) in [
        ("/manifest.webmanifest", "application/manifest+json"),
        ("/sw.js", "text/javascript; charset=utf-8"),
        ("/icon-192.png", "image/png"),
    ] {
        let r = get(server.addr, path, &[("Accept-Encoding", "gzip")]);
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        assert_eq!(r.header("content-type"), Some(content_type), "{path}");
        assert_eq!(r.header("cache-control"), Some("no-cache"), "{path}");
    }
    // An icon not in the build is a 404, not another file.
    assert_eq!(get(server.addr, "/icon-512.png", &[]).status, 404);

    let plain = get(server.addr, "/twinstar_bg.wasm", &[]);
    assert_eq!(plain.status, 200);
    assert_eq!(plain.header("content-type"), Some("application/wasm"));
    assert_eq!(plain.header("content-encoding"), None);
    assert_eq!(plain.header("vary"), Some("Accept-Encoding"));
    assert_eq!(plain.body, WASM);

    let gzipped = get(
        server.addr,
        "/twinstar_bg.wasm",
        &[("Accept-Encoding", "gzip, deflate, br, zstd")],
    );
    assert_eq!(gzipped.status, 200);
    assert_eq!(gzipped.header("content-type"), Some("application/wasm"));
    assert_eq!(gzipped.header("content-encoding"), Some("gzip"));
    assert_eq!(gzipped.header("vary"), Some("Accept-Encoding"));
    assert_eq!(gzipped.body, WASM_GZ);

    let refused = get(
        server.addr,
        "/twinstar_bg.wasm",
        &[("Accept-Encoding", "gzip;q=0, br")],
    );
    assert_eq!(refused.header("content-encoding"), None);
    assert_eq!(refused.body, WASM);
}

#[test]
fn any_other_path_is_404() {
    let dir = web_dir("others");
    let server = serve_web(&dir);
    for path in [
        "/private.txt",
        "/twinstar_bg.wasm.gz",
        "/../private.txt",
        "/%2e%2e/private.txt",
        "/index.html/",
        "/web/index.html",
        "/K7Q2XM",
        "/quick",
        "/favicon.ico",
    ] {
        let r = get(server.addr, path, &[]);
        assert_eq!(r.status, 404, "{path}: {}", r.text());
        assert_eq!(
            r.header("content-type"),
            Some("text/plain; charset=utf-8"),
            "{path}"
        );
        let text = r.text();
        assert_eq!(text.lines().count(), 1, "{path}: {text:?}");
        assert!(!text.contains("not for the web"), "{path}");
    }
}

#[test]
fn the_default_directory_comes_from_twinstar_web() {
    let dir = web_dir("from-env");
    let mut server = Server::start_with(&[], &[("TWINSTAR_WEB", dir.as_os_str())]);
    assert!(
        server.wait_for("twinstar: web client at http://", IO_LIMIT),
        "{}",
        server.stderr()
    );
    let r = get(server.addr, "/", &[]);
    assert_eq!(r.status, 200);
    assert_eq!(r.body, INDEX);
}

#[test]
fn without_a_build_get_says_how_to_make_one() {
    // Named by the environment but empty: the server runs, without it.
    let empty = scratch("no-build");
    let mut server = Server::start_with(&[], &[("TWINSTAR_WEB", empty.as_os_str())]);
    assert!(
        server.wait_for("twinstar: no web client here", IO_LIMIT),
        "{}",
        server.stderr()
    );
    for path in ["/", "/twinstar_bg.wasm"] {
        let r = get(server.addr, path, &[]);
        assert_eq!(r.status, 404, "{path}");
        assert_eq!(r.header("content-type"), Some("text/plain; charset=utf-8"));
        assert_eq!(
            r.text(),
            "the web client is not built here: run bash scripts/build-web.sh\n"
        );
    }
    // Signaling still works without it.
    let (status, first, _) = websocket(server.addr, "/K7Q2XM");
    assert!(status.starts_with("HTTP/1.1 101"), "{status}");
    assert!(first.contains("IdAssigned"), "{first}");
}

#[test]
fn web_naming_a_directory_without_a_build_is_an_error() {
    let empty = scratch("explicit-empty");
    let out = common::run(
        &empty,
        &["serve", "--bind", "127.0.0.1:0", "--web", "."],
        common::LIMIT,
    );
    assert_eq!(out.code(), Some(2), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("no web client there (no index.html); bash scripts/build-web.sh builds one"),
        "{}",
        out.stderr
    );
}

/// A websocket handshake on `path`: the status line, the text of the
/// first frame the server sends (matchbox's id assignment), and the
/// connection (a client is in its room until it closes).
fn websocket(addr: SocketAddr, path: &str) -> (String, String, TcpStream) {
    let mut stream = connect(addr);
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut bytes = Vec::new();
    let mut buf = [0u8; 4096];
    let end = loop {
        if let Some(end) = header_end(&bytes) {
            break end;
        }
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0, "closed during the handshake: {bytes:?}");
        bytes.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&bytes[..end]).into_owned();
    let status = head.lines().next().unwrap_or("").to_string();
    if !status.starts_with("HTTP/1.1 101") {
        return (status, String::new(), stream);
    }
    let mut frame = bytes[end..].to_vec();
    // An unmasked text frame from the server, length < 64 KiB.
    let need = |frame: &Vec<u8>| -> Option<usize> {
        let len = *frame.get(1)? & 0x7f;
        match len {
            126 => Some(4 + usize::from(u16::from_be_bytes([*frame.get(2)?, *frame.get(3)?]))),
            n => Some(2 + usize::from(n)),
        }
    };
    while need(&frame).is_none_or(|n| frame.len() < n) {
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0, "closed before the first frame: {frame:?}");
        frame.extend_from_slice(&buf[..n]);
    }
    assert_eq!(frame[0] & 0x0f, 1, "not a text frame: {frame:?}");
    let start = if frame[1] & 0x7f == 126 { 4 } else { 2 };
    let text = String::from_utf8_lossy(&frame[start..need(&frame).unwrap()]).into_owned();
    (status, text, stream)
}

#[test]
fn websockets_still_reach_the_signaling_server() {
    let dir = web_dir("websockets");
    let server = serve_web(&dir);
    for path in ["/K7Q2XM", "/", "/quick"] {
        let (status, first, _) = websocket(server.addr, path);
        assert!(status.starts_with("HTTP/1.1 101"), "{path}: {status}");
        assert!(first.contains("IdAssigned"), "{path}: {first}");
    }
    // Refusals before the upgrade are unchanged.
    let (status, ..) = websocket(server.addr, "/not-a-room");
    assert!(status.starts_with("HTTP/1.1 400"), "{status}");
    let (a, _, _a) = websocket(server.addr, "/ABCDEFG");
    let (b, _, _b) = websocket(server.addr, "/ABCDEFG");
    let (c, ..) = websocket(server.addr, "/ABCDEFG");
    assert!(a.contains(" 101") && b.contains(" 101"), "{a} / {b}");
    assert!(c.starts_with("HTTP/1.1 409"), "{c}");
}

/// Two real peers meet through a server that serves the web client too.
#[test]
fn two_players_still_meet_in_a_room() {
    let dir = web_dir("players");
    let server = serve_web(&dir);
    let work = scratch("players-run");
    let host = Twinstar::spawn(
        &work,
        &peer_args(
            "host",
            Some("K7Q-2XM"),
            &server.url,
            "120",
            &["--no-record"],
        ),
    );
    std::thread::sleep(Duration::from_millis(200));
    let join = Twinstar::spawn(
        &work,
        &peer_args(
            "join",
            Some("K7Q-2XM"),
            &server.url,
            "120",
            &["--no-record"],
        ),
    );
    let joined = join.finish(common::LIMIT);
    let hosted = host.finish(common::LIMIT);
    assert_eq!(hosted.code(), Some(0), "{}", hosted.stderr);
    assert_eq!(joined.code(), Some(0), "{}", joined.stderr);
    assert_eq!(hosted.summary()["checksum"], joined.summary()["checksum"]);
    // The host told the other player the browser's way in too.
    let port = server.addr.port();
    assert!(
        hosted.stderr.lines().any(|l| l.starts_with(
            "twinstar: room code K7Q-2XM; the other player runs: twinstar join K7Q-2XM --server "
        ) && l.contains(&format!(":{port}/#K7Q-2XM"))
            && l.contains(", or opens http://")),
        "{}",
        hosted.stderr
    );
}
