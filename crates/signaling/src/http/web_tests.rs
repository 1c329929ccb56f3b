use super::*;

/// A fresh folder per call: tests run in parallel, and two making the
/// same folder removed each other's files (seen as a flaky NotBuilt).
fn dir_with(name: &str, files: &[(&str, &[u8])]) -> PathBuf {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir()
        .join(format!("twinstar-web-{}", std::process::id()))
        .join(format!("{name}-{call}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, bytes) in files {
        std::fs::write(dir.join(file), bytes).unwrap();
    }
    dir
}

fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
    let mut h = HeaderMap::new();
    for (name, value) in pairs {
        h.append(*name, HeaderValue::from_static(value));
    }
    h
}

fn get(web: Option<&WebClient>, path: &str, pairs: &[(&'static str, &'static str)]) -> Response {
    respond(web, &Method::GET, path, &headers(pairs)).expect("not answered")
}

fn header<'a>(r: &'a Response, name: &str) -> Option<&'a str> {
    r.headers().get(name).map(|v| v.to_str().unwrap())
}

async fn body(r: Response) -> Vec<u8> {
    axum::body::to_bytes(r.into_body(), usize::MAX)
        .await
        .unwrap()
        .to_vec()
}

fn client() -> WebClient {
    let dir = dir_with(
        "full",
        &[
            ("index.html", b"<!DOCTYPE html>hello"),
            ("twinstar.js", b"export {}"),
            ("twinstar_bg.wasm", b"\0asm\x01\0\0\0"),
            ("twinstar_bg.wasm.gz", b"GZ-OF-WASM"),
            ("mq_js_bundle.js", b"var x;"),
            ("manifest.webmanifest", b"{}"),
            ("sw.js", b"self;"),
            ("icon-192.png", b"\x89PNG"),
            ("inspect.html", b"<!doctype html>inspector"),
            ("twinstar_inspect_bg.wasm", b"\0asm-inspector"),
            ("secret.txt", b"not served"),
            ("sounds-bomb.wav", b"RIFF....WAVE"),
            ("sounds-bomb.wav.gz", b"GZ-OF-WAV"),
            ("sprites-background.png", b"\x89PNG-STARS"),
            ("sounds-Bomb.wav", b"not an asset name"),
            ("sounds-.wav", b"not an asset name"),
            ("music-theme.ogg", b"not an asset kind"),
        ],
    );
    WebClient::load(&dir).unwrap()
}

#[tokio::test]
async fn serves_the_games_assets_and_no_other_name_beside_them() {
    let web = client();
    let r = get(
        Some(&web),
        "/sounds-bomb.wav",
        &[("accept-encoding", "gzip")],
    );
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(header(&r, "content-type"), Some("audio/wav"));
    assert_eq!(header(&r, "content-encoding"), Some("gzip"));
    assert_eq!(body(r).await, b"GZ-OF-WAV");
    let r = get(Some(&web), "/sprites-background.png", &[]);
    assert_eq!(header(&r, "content-type"), Some("image/png"));
    assert_eq!(body(r).await, b"\x89PNG-STARS");
    for path in [
        "/sounds-Bomb.wav",
        "/sounds-.wav",
        "/music-theme.ogg",
        "/sounds-bomb.wav.gz",
        "/secret.txt",
    ] {
        assert_eq!(
            get(Some(&web), path, &[]).status(),
            StatusCode::NOT_FOUND,
            "{path}"
        );
    }
    assert!(is_asset_name("sounds-kill_wanderer.wav"));
    assert!(!is_asset_name("sounds-../x.wav"));
    assert!(!is_asset_name("sprites-bg.wav"));
}

#[tokio::test]
async fn serves_the_fixed_files_with_their_types() {
    let web = client();
    for path in ["/", "/index.html"] {
        let r = get(Some(&web), path, &[]);
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(header(&r, "content-type"), Some("text/html; charset=utf-8"));
        assert_eq!(header(&r, "cache-control"), Some("no-cache"));
        assert_eq!(body(r).await, b"<!DOCTYPE html>hello");
    }
    let r = get(Some(&web), "/twinstar.js", &[]);
    assert_eq!(
        header(&r, "content-type"),
        Some("text/javascript; charset=utf-8")
    );
    let r = get(Some(&web), "/twinstar_bg.wasm", &[]);
    assert_eq!(header(&r, "content-type"), Some("application/wasm"));
    assert_eq!(header(&r, "content-encoding"), None);
    assert_eq!(header(&r, "vary"), Some("Accept-Encoding"));
    assert_eq!(body(r).await, b"\0asm\x01\0\0\0");
    // The installable app's files: the types browsers insist on, and
    // the worker always revalidated (a stale one keeps an old client).
    for (path, content_type) in [
        ("/manifest.webmanifest", "application/manifest+json"),
        ("/sw.js", "text/javascript; charset=utf-8"),
        ("/icon-192.png", "image/png"),
    ] {
        let r = get(Some(&web), path, &[]);
        assert_eq!(r.status(), StatusCode::OK, "{path}");
        assert_eq!(header(&r, "content-type"), Some(content_type), "{path}");
        assert_eq!(header(&r, "cache-control"), Some("no-cache"), "{path}");
    }
}

#[tokio::test]
async fn gzip_only_when_accepted_and_present() {
    let web = client();
    let gz = |accept: &'static str| {
        get(
            Some(&web),
            "/twinstar_bg.wasm",
            &[("accept-encoding", accept)],
        )
    };
    let r = gz("gzip, deflate, br");
    assert_eq!(header(&r, "content-encoding"), Some("gzip"));
    assert_eq!(header(&r, "content-type"), Some("application/wasm"));
    assert_eq!(header(&r, "vary"), Some("Accept-Encoding"));
    assert_eq!(body(r).await, b"GZ-OF-WASM");
    for refused in ["br", "gzip;q=0", "*;q=0", "identity", "gzip; q=0.0, *"] {
        let r = gz(refused);
        assert_eq!(header(&r, "content-encoding"), None, "{refused}");
        assert_eq!(body(r).await, b"\0asm\x01\0\0\0", "{refused}");
    }
    assert_eq!(header(&gz("*"), "content-encoding"), Some("gzip"));
    assert_eq!(header(&gz("GZIP;q=0.5"), "content-encoding"), Some("gzip"));
    // No .gz of index.html: plain, and no Vary.
    let r = get(Some(&web), "/", &[("accept-encoding", "gzip")]);
    assert_eq!(header(&r, "content-encoding"), None);
    assert_eq!(header(&r, "vary"), None);
}

#[tokio::test]
async fn anything_else_is_404_and_upgrades_pass_through() {
    let web = client();
    for path in [
        "/secret.txt",
        "/twinstar_bg.wasm.gz",
        "/../Cargo.toml",
        "/%2e%2e/Cargo.toml",
        "/K7Q2XM",
        "/quick",
        "//index.html",
        "/web/index.html",
    ] {
        let r = get(Some(&web), path, &[]);
        assert_eq!(r.status(), StatusCode::NOT_FOUND, "{path}");
        assert_eq!(
            header(&r, "content-type"),
            Some("text/plain; charset=utf-8")
        );
        let text = String::from_utf8(body(r).await).unwrap();
        assert_eq!(text.lines().count(), 1, "{text}");
    }
    let upgrade = headers(&[("connection", "Upgrade"), ("upgrade", "websocket")]);
    assert!(respond(Some(&web), &Method::GET, "/K7Q2XM", &upgrade).is_none());
    assert!(respond(Some(&web), &Method::GET, "/", &upgrade).is_none());
    assert!(respond(None, &Method::GET, "/", &upgrade).is_none());
    assert!(respond(Some(&web), &Method::POST, "/", &HeaderMap::new()).is_none());
    let r = respond(Some(&web), &Method::HEAD, "/", &HeaderMap::new()).unwrap();
    assert_eq!(r.status(), StatusCode::OK);
}

#[tokio::test]
async fn without_a_build_get_says_how_to_make_one() {
    let r = get(None, "/", &[]);
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        header(&r, "content-type"),
        Some("text/plain; charset=utf-8")
    );
    assert_eq!(body(r).await, NOT_BUILT.as_bytes());

    let empty = dir_with("empty", &[("twinstar.js", b"x")]);
    let err = WebClient::load(&empty).unwrap_err();
    assert!(matches!(err, WebError::NotBuilt { .. }), "{err}");
    assert!(WebClient::load(&empty.join("nowhere")).is_err());
}

#[test]
fn an_unchanged_file_is_not_sent_again() {
    let web = client();
    let first = get(Some(&web), "/twinstar.js", &[]);
    let etag = header(&first, "etag").unwrap().to_string();
    let mut h = HeaderMap::new();
    h.insert(IF_NONE_MATCH, HeaderValue::from_str(&etag).unwrap());
    let again = respond(Some(&web), &Method::GET, "/twinstar.js", &h).unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    let other = respond(Some(&web), &Method::GET, "/index.html", &h).unwrap();
    assert_eq!(other.status(), StatusCode::OK);
}

#[test]
fn a_partial_build_serves_what_is_there() {
    let dir = dir_with("partial", &[("index.html", b"i")]);
    let web = WebClient::load(&dir).unwrap();
    assert_eq!(web.dir(), dir);
    assert_eq!(get(Some(&web), "/", &[]).status(), StatusCode::OK);
    assert_eq!(
        get(Some(&web), "/twinstar_bg.wasm", &[]).status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(web.describe(), "index.html 1 B");
}

#[tokio::test]
async fn serves_the_inspector_at_slash_inspect() {
    let web = client();
    for path in ["/inspect", "/inspect.html"] {
        let r = get(Some(&web), path, &[]);
        assert_eq!(r.status(), StatusCode::OK, "{path}");
        assert_eq!(header(&r, "content-type"), Some("text/html; charset=utf-8"));
        assert_eq!(body(r).await, b"<!doctype html>inspector");
    }
    let r = get(Some(&web), "/twinstar_inspect_bg.wasm", &[]);
    assert_eq!(header(&r, "content-type"), Some("application/wasm"));
    assert_eq!(body(r).await, b"\0asm-inspector");
    // Not built into this folder: 404, as any other missing file.
    let r = get(Some(&web), "/inspect.js", &[]);
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        get(Some(&web), "/inspect/", &[]).status(),
        StatusCode::NOT_FOUND
    );
}
