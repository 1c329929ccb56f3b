//! The web client, served by the signaling server on plain HTTP.
//!
//! `scripts/build-web.sh` builds the browser version of twinstar into
//! `target/web`: `index.html`, the wasm-bindgen glue `twinstar.js`, the
//! module `twinstar_bg.wasm` and macroquad's loader `mq_js_bundle.js`, and
//! what makes it an installable app that opens offline: the web app
//! manifest `manifest.webmanifest`, its icons and the service worker
//! `sw.js`; each but the icons with a gzipped `NAME.gz` beside it; and the
//! game's assets the page fetches after its first frame (sounds, the
//! starfield: [`is_asset_name`]). The server reads exactly those files
//! into memory when it starts ([`WebClient::load`]) and answers a `GET`
//! that is no websocket upgrade from them ([`respond`]): `/` is
//! `index.html`, `/inspect` `inspect.html` (the inspector, its own page
//! and wasm), `/NAME` one of the others, anything else 404. The set of
//! names is fixed when it starts, so no request can reach another file; a
//! rebuild is served after a restart.
//!
//! Websocket upgrades (on `/` and `/ROOM`) pass through to matchbox, as
//! before. Players open `http://HOST:PORT/#K7Q-2XM` (see
//! [`browser_link`]); the fragment never reaches the server.
//!
//! [`browser_link`]: twinstar_signaling_protocol::browser_link

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::header::{
    ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_TYPE, ETAG, HeaderMap, HeaderValue,
    IF_NONE_MATCH, UPGRADE, VARY,
};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use tracing::warn;

use twinstar_files::{ReadError, read_limited};

/// The files of the web client: name, content type. `index.html` first:
/// it is the one a directory must hold to count as a web client. Every
/// file goes out with `Cache-Control: no-cache` (revalidated by its ETag):
/// for `sw.js` that is what lets a browser find a new version on the next
/// visit (a stale worker would keep serving the old client); the others
/// are the worker's to keep offline.
pub const WEB_FILES: [(&str, &str); 14] = [
    ("index.html", "text/html; charset=utf-8"),
    ("twinstar.js", "text/javascript; charset=utf-8"),
    ("twinstar_bg.wasm", "application/wasm"),
    ("mq_js_bundle.js", "text/javascript; charset=utf-8"),
    ("manifest.webmanifest", "application/manifest+json"),
    ("sw.js", "text/javascript; charset=utf-8"),
    ("icon-192.png", "image/png"),
    ("icon-512.png", "image/png"),
    ("icon-maskable-512.png", "image/png"),
    ("apple-touch-icon.png", "image/png"),
    // The inspector (`/inspect`, docs/inspect.md): its page, its script,
    // and its own wasm and glue, which the game's page never loads.
    ("inspect.html", "text/html; charset=utf-8"),
    ("inspect.js", "text/javascript; charset=utf-8"),
    ("twinstar_inspect.js", "text/javascript; charset=utf-8"),
    ("twinstar_inspect_bg.wasm", "application/wasm"),
];

/// The environment variable naming the web client's directory.
pub const WEB_DIR_ENV: &str = "TWINSTAR_WEB";

/// Largest file read (the wasm module is about 1 MB).
const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// What `GET /` answers when the server has no web client.
pub const NOT_BUILT: &str = "the web client is not built here: run bash scripts/build-web.sh\n";

const NOT_FOUND: &str = "not found: the web client is /, /twinstar.js, /twinstar_bg.wasm, /mq_js_bundle.js, \
     /manifest.webmanifest, /sw.js, the icons /icon-192.png, /icon-512.png, \
     /icon-maskable-512.png and /apple-touch-icon.png, the game's assets (/sounds-NAME.wav, \
     /sprites-NAME.png), and the inspector (/inspect, /inspect.js, /twinstar_inspect.js, \
     /twinstar_inspect_bg.wasm)\n";

/// Whether `name` is one of the game's assets a web client may hold: the
/// file `assets/KIND/NAME.EXT` of the repository, flattened by
/// `scripts/build-web.sh` to `KIND-NAME.EXT`: a sound (`sounds-*.wav`) or
/// a sprite (`sprites-*.png`), in lower-case letters, digits and `_`.
pub fn is_asset_name(name: &str) -> bool {
    asset_content_type(name).is_some()
}

fn asset_content_type(name: &str) -> Option<&'static str> {
    let (kind, rest) = name.split_once('-')?;
    let (stem, ext) = rest.rsplit_once('.')?;
    let plain = !stem.is_empty()
        && stem
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    match (kind, ext) {
        ("sounds", "wav") if plain => Some("audio/wav"),
        ("sprites", "png") if plain => Some("image/png"),
        _ => None,
    }
}

/// Why a directory could not be served.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    #[error("{dir}: no web client there (no index.html); bash scripts/build-web.sh builds one")]
    NotBuilt { dir: PathBuf },
    #[error("{path}: {source}")]
    Read { path: PathBuf, source: ReadError },
}

/// One file, as sent.
#[derive(Debug)]
struct WebFile {
    name: String,
    content_type: &'static str,
    body: Bytes,
    /// The `NAME.gz` beside it, if there was one.
    gzip: Option<Bytes>,
    /// Quoted, from the content: a reload that finds it unchanged is a 304.
    etag: HeaderValue,
}

/// The web client's files, in memory. Cloning is cheap.
#[derive(Clone, Debug)]
pub struct WebClient(Arc<Loaded>);

#[derive(Debug)]
struct Loaded {
    dir: PathBuf,
    files: Vec<WebFile>,
}

impl WebClient {
    /// Reads the web client's files from `dir`. `index.html` must be there;
    /// another file missing is logged and answered with 404.
    pub fn load(dir: &Path) -> Result<WebClient, WebError> {
        let read = |name: &str| -> Result<Option<Bytes>, WebError> {
            let path = dir.join(name);
            match read_limited(&path, MAX_FILE_BYTES) {
                Ok(bytes) => Ok(Some(Bytes::from(bytes))),
                Err(e) if e.is_not_found() => Ok(None),
                Err(source) => Err(WebError::Read { path, source }),
            }
        };
        let mut files = Vec::new();
        let mut add = |name: String, content_type: &'static str, body: Bytes| {
            let gzip = read(&format!("{name}.gz"))?;
            let hash = xxhash_rust::xxh3::xxh3_128(&body);
            let etag = HeaderValue::from_str(&format!("\"{:032x}\"", hash))
                .expect("hex digits in quotes are a valid header value");
            files.push(WebFile {
                name,
                content_type,
                body,
                gzip,
                etag,
            });
            Ok::<_, WebError>(())
        };
        for (name, content_type) in WEB_FILES {
            let Some(body) = read(name)? else {
                if name == "index.html" {
                    return Err(WebError::NotBuilt {
                        dir: dir.to_path_buf(),
                    });
                }
                warn!("web client in {}: {name} is missing", dir.display());
                continue;
            };
            add(name.to_string(), content_type, body)?;
        }
        for name in asset_names(dir) {
            if let (Some(content_type), Some(body)) = (asset_content_type(&name), read(&name)?) {
                add(name, content_type, body)?;
            }
        }
        Ok(WebClient(Arc::new(Loaded {
            dir: dir.to_path_buf(),
            files,
        })))
    }

    /// The web client a server uses when not told (`twinstar serve` without
    /// `--web`, and the server `twinstar host` starts): the directory named
    /// by `TWINSTAR_WEB` ([`WEB_DIR_ENV`]) if set, else the first of these
    /// that holds one: `web` beside the executable (a release archive),
    /// `../web` from it (cargo's `target/web`), `../share/twinstar/web` (the
    /// `.deb`). `None`, after a warning, when the named
    /// directory holds no web client, or one cannot be read.
    pub fn find_default() -> Option<WebClient> {
        if let Some(dir) = std::env::var_os(WEB_DIR_ENV).filter(|d| !d.is_empty()) {
            return WebClient::load(Path::new(&dir))
                .map_err(|e| warn!("not serving the web client: {e}"))
                .ok();
        }
        for dir in beside_executable() {
            match WebClient::load(&dir) {
                Ok(web) => return Some(web),
                Err(WebError::NotBuilt { .. }) => continue,
                Err(e) => {
                    warn!("not serving the web client: {e}");
                    return None;
                }
            }
        }
        None
    }

    /// The directory it was read from.
    pub fn dir(&self) -> &Path {
        &self.0.dir
    }

    /// The files it holds and their sizes, e.g. for a log line.
    pub fn describe(&self) -> String {
        let files: Vec<String> = self
            .0
            .files
            .iter()
            .map(|f| match &f.gzip {
                Some(gz) => format!("{} {} B ({} B gzipped)", f.name, f.body.len(), gz.len()),
                None => format!("{} {} B", f.name, f.body.len()),
            })
            .collect();
        files.join(", ")
    }

    fn file(&self, path: &str) -> Option<&WebFile> {
        let name = match path {
            "/" => "index.html",
            "/inspect" => "inspect.html",
            _ => path.strip_prefix('/')?,
        };
        self.0.files.iter().find(|f| f.name == name)
    }
}

/// The names of the game's assets in `dir` ([`is_asset_name`]), sorted;
/// none when it cannot be listed.
fn asset_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| is_asset_name(name))
        .collect();
    names.sort();
    names
}

/// Where a web client sits relative to the executable, in the order
/// tried: `web` beside it (a release archive), `../web` (cargo's
/// `target/debug/twinstar` and `target/release/twinstar` find
/// `target/web`), `../share/twinstar/web` (the `.deb`: `/usr/bin` and
/// `/usr/share/twinstar/web`).
fn beside_executable() -> Vec<PathBuf> {
    let Some(folder) = std::env::current_exe()
        .ok()
        .and_then(|e| Some(e.parent()?.to_path_buf()))
    else {
        return Vec::new();
    };
    let mut dirs = vec![folder.join("web")];
    if let Some(up) = folder.parent() {
        dirs.push(up.join("web"));
        dirs.push(up.join("share/twinstar/web"));
    }
    dirs
}

/// Whether the request asks for a websocket (matchbox's business).
fn is_upgrade(headers: &HeaderMap) -> bool {
    headers
        .get_all(UPGRADE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|protocol| protocol.trim().eq_ignore_ascii_case("websocket"))
}

/// Whether `Accept-Encoding` allows gzip: named (or `*`) with a quality
/// above zero, and not refused by name.
fn accepts_gzip(headers: &HeaderMap) -> bool {
    let mut gzip = None;
    let mut any = None;
    for value in headers.get_all(ACCEPT_ENCODING) {
        let Ok(value) = value.to_str() else { continue };
        for item in value.split(',') {
            let mut parts = item.split(';');
            let coding = parts.next().unwrap_or("").trim();
            let quality = parts
                .filter_map(|p| p.trim().strip_prefix("q="))
                .filter_map(|q| q.trim().parse::<f32>().ok())
                .next_back()
                .unwrap_or(1.0);
            let acceptable = quality > 0.0;
            if coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip") {
                gzip = Some(acceptable);
            } else if coding == "*" {
                any = Some(acceptable);
            }
        }
    }
    gzip.or(any).unwrap_or(false)
}

fn text(status: StatusCode, body: &'static str) -> Response {
    (
        status,
        [
            (CONTENT_TYPE, "text/plain; charset=utf-8"),
            (CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// The answer to a request that is no websocket upgrade: a file of the
/// web client, 404, or (`None`) nothing, for matchbox to handle as before.
/// Only `GET` and `HEAD` are answered here.
pub fn respond(
    web: Option<&WebClient>,
    method: &Method,
    path: &str,
    headers: &HeaderMap,
) -> Option<Response> {
    if is_upgrade(headers) || (method != Method::GET && method != Method::HEAD) {
        return None;
    }
    let Some(web) = web else {
        return Some(text(StatusCode::NOT_FOUND, NOT_BUILT));
    };
    let Some(file) = web.file(path) else {
        return Some(text(StatusCode::NOT_FOUND, NOT_FOUND));
    };
    let mut response = if headers
        .get_all(IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|tag| tag.trim() == file.etag || tag.trim() == "*")
    {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        match &file.gzip {
            Some(gz) if accepts_gzip(headers) => {
                let mut r = Response::new(Body::from(gz.clone()));
                r.headers_mut()
                    .insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
                r
            }
            _ => Response::new(Body::from(file.body.clone())),
        }
    };
    let h = response.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static(file.content_type));
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(ETAG, file.etag.clone());
    if file.gzip.is_some() {
        h.insert(VARY, HeaderValue::from_static("Accept-Encoding"));
    }
    Some(response)
}

#[cfg(test)]
#[path = "web_tests.rs"]
mod tests;
