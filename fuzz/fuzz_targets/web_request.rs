//! The signaling server's answer to a plain HTTP request: `web::respond`
//! (what `server.rs` calls on every request that is not a websocket
//! upgrade) with any method, path and headers, for a web client of four
//! small files. It must not panic, must leave upgrades and other methods
//! to matchbox, and may only ever serve one of the client's own files.
#![no_main]

use std::sync::OnceLock;

use arbitrary::{Arbitrary, Unstructured};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use libfuzzer_sys::fuzz_target;
use twinstar_signaling::{WEB_FILES, WebClient, respond};

/// A web client made once, in a temporary folder: each file's body is its
/// name; index.html also has a gzip twin.
fn client() -> &'static (WebClient, Vec<HeaderValue>) {
    static CLIENT: OnceLock<(WebClient, Vec<HeaderValue>)> = OnceLock::new();
    CLIENT.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("twinstar-fuzz-web-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        for (name, _) in WEB_FILES {
            std::fs::write(dir.join(name), name).expect("a file");
        }
        std::fs::write(dir.join("index.html.gz"), b"\x1f\x8b not really").expect("a file");
        let client = WebClient::load(&dir).expect("the client loads");
        let headers = HeaderMap::new();
        let etags = WEB_FILES
            .iter()
            .filter_map(|(name, _)| {
                let response = respond(Some(&client), &Method::GET, &format!("/{name}"), &headers)?;
                response.headers().get(header::ETAG).cloned()
            })
            .collect();
        (client, etags)
    })
}

const NAMES: [&str; 8] = [
    "if-none-match",
    "accept-encoding",
    "upgrade",
    "connection",
    "host",
    "range",
    "x-forwarded-for",
    "cookie",
];

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});

fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let (client, etags) = client();
    let method = match u.int_in_range(0..=3)? {
        0 => Method::GET,
        1 => Method::HEAD,
        2 => Method::POST,
        _ => match Method::from_bytes(&Vec::<u8>::arbitrary(u)?) {
            Ok(m) => m,
            Err(_) => return Ok(()),
        },
    };
    let path = if u.arbitrary()? {
        format!("/{}", u.choose(&WEB_FILES)?.0)
    } else {
        String::arbitrary(u)?
    };
    let mut headers = HeaderMap::new();
    for _ in 0..u.int_in_range(0..=6)? {
        let name = if u.arbitrary()? {
            HeaderName::from_static(u.choose(&NAMES)?)
        } else {
            match HeaderName::from_bytes(&Vec::<u8>::arbitrary(u)?) {
                Ok(name) => name,
                Err(_) => continue,
            }
        };
        let value = if u.arbitrary()? && !etags.is_empty() {
            u.choose(etags)?.clone()
        } else {
            match HeaderValue::from_bytes(&Vec::<u8>::arbitrary(u)?) {
                Ok(value) => value,
                Err(_) => continue,
            }
        };
        headers.append(name, value);
    }
    let upgrade = headers
        .get_all(header::UPGRADE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.to_ascii_lowercase().contains("websocket"));
    let served = respond(Some(client), &method, &path, &headers);
    let answered = !upgrade && (method == Method::GET || method == Method::HEAD);
    assert_eq!(served.is_some(), answered, "{method} {path:?} {headers:?}");
    let Some(response) = served else {
        return Ok(());
    };
    match response.status() {
        StatusCode::OK | StatusCode::NOT_MODIFIED => {
            // Only the client's own files, under their own tags.
            let known = path == "/" || WEB_FILES.iter().any(|(name, _)| path == format!("/{name}"));
            assert!(known, "served {path:?}");
            let tag = response.headers().get(header::ETAG).expect("an ETag");
            assert!(etags.contains(tag));
            if response.status() == StatusCode::NOT_MODIFIED {
                assert!(headers.contains_key(header::IF_NONE_MATCH));
            }
            if response.headers().contains_key(header::CONTENT_ENCODING) {
                assert!(headers.contains_key(header::ACCEPT_ENCODING));
            }
        }
        StatusCode::NOT_FOUND => {}
        other => panic!("{method} {path:?}: {other}"),
    }
    Ok(())
}
