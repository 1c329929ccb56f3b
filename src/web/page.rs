//! The page the browser build runs in: the command its link asks for, log
//! lines and results on the console, settings in local storage, replays
//! as downloads. Browser only.

use std::io::Write;

use wasm_bindgen::JsCast;

use super::link::args_from_fragment;
use crate::app::{self, Report};
use crate::cli::Cli;

/// Prefix of the one console line that says how a command ended (tests
/// read it): `TWINSTAR-RESULT {"exit":0,"summary":{...}}`.
pub const RESULT_PREFIX: &str = "TWINSTAR-RESULT ";

/// The browser build's `main`.
pub fn start() {
    console_error_panic_hook::set_once();
    tracing_subscriber::fmt()
        .with_writer(|| ConsoleLine(Vec::new()))
        .with_ansi(false)
        // The default timer reads std's clock, which panics here.
        .without_time()
        .with_env_filter(tracing_subscriber::EnvFilter::new("twinstar=info"))
        .init();
    let fragment = window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    let args = match args_from_fragment(&fragment) {
        Ok(args) => args,
        Err(e) => return conclude(Err(app::Failure::BadInput(e.to_string()))),
    };
    tracing::info!(
        "twinstar {} in the browser: {args:?}",
        env!("CARGO_PKG_VERSION")
    );
    let cli = match Cli::try_parse_args(std::iter::once("twinstar".to_string()).chain(args)) {
        Ok(cli) => cli,
        Err(message) => return conclude(Err(app::Failure::BadInput(message))),
    };
    match app::run(cli) {
        // The window runs on the page's event loop and reports by itself.
        Ok(Report::Running) => {}
        result => conclude(result),
    }
}

/// Prints how a command ended: the same lines as the native game, then one
/// machine-readable line.
pub fn conclude(result: Result<Report, app::Failure>) {
    let (lines, exit) = app::conclusion(&result, true);
    for line in lines {
        log(&line.text);
    }
    let summary = match &result {
        Ok(Report::Summary(s)) | Err(app::Failure::Runtime(_, Some(s))) => {
            serde_json::to_value(s).ok()
        }
        _ => None,
    };
    let error = result.as_ref().err().map(|f| f.message().to_string());
    let line = serde_json::json!({ "exit": exit, "summary": summary, "error": error });
    log(&format!("{RESULT_PREFIX}{line}"));
}

fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

/// One line on the browser console.
pub fn log(text: &str) {
    web_sys::console::log_1(&text.into());
}

/// A tracing event, buffered and logged as one console line when dropped.
struct ConsoleLine(Vec<u8>);

impl Write for ConsoleLine {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for ConsoleLine {
    fn drop(&mut self) {
        let text = String::from_utf8_lossy(&self.0);
        let text = text.trim_end();
        if !text.is_empty() {
            log(text);
        }
    }
}

/// The signaling server that served this page: `ws://host:port` (`wss://`
/// under https).
pub fn page_server() -> Option<String> {
    let location = window()?.location();
    let host = location.host().ok()?;
    let scheme = match location.protocol().ok()?.as_str() {
        "https:" => "wss",
        _ => "ws",
    };
    Some(format!("{scheme}://{host}"))
}

/// The ICE offer the page fetched from its server (`window.twinstarIce`,
/// see web/index.html); `None` when the server offers none.
pub fn page_ice_offer() -> Option<crate::net::ice::IceOffer> {
    let window: wasm_bindgen::JsValue = window()?.into();
    let text = js_sys::Reflect::get(&window, &"twinstarIce".into())
        .ok()?
        .as_string()?;
    match crate::net::ice::IceOffer::parse(&text) {
        Ok(offer) => Some(offer),
        Err(e) => {
            web_sys::console::warn_1(&format!("twinstar: unreadable ICE offer: {e}").into());
            None
        }
    }
}

fn storage() -> Option<web_sys::Storage> {
    window()?.local_storage().ok()?
}

/// A value from the page's local storage (kept across visits).
pub fn stored(key: &str) -> Option<String> {
    storage()?.get_item(key).ok()?
}

/// Keeps a value in local storage; false when the browser refuses
/// (private mode, quota).
pub fn store(key: &str, value: &str) -> bool {
    storage().is_some_and(|s| s.set_item(key, value).is_ok())
}

/// Offers `bytes` as a file download named `name`.
pub fn download(name: &str, bytes: &[u8]) -> Result<(), String> {
    let fail = |what: &str| format!("cannot offer {name} for download: {what}");
    let array = js_sys::Uint8Array::from(bytes);
    let parts = js_sys::Array::of1(&array);
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/octet-stream");
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options)
        .map_err(|_| fail("no blob"))?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| fail("no URL"))?;
    let document = window()
        .and_then(|w| w.document())
        .ok_or_else(|| fail("no document"))?;
    let anchor: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(|_| fail("no link element"))?
        .dyn_into()
        .map_err(|_| fail("not a link element"))?;
    anchor.set_href(&url);
    anchor.set_download(name);
    anchor.click();
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// Asks the player for a file (the browser's file picker, filtered by
/// `accept`, e.g. ".tsr") and, once picked, keeps it in the page's file
/// store under `dir`, where the game's own file reading finds it.
pub fn pick_file(dir: &std::path::Path, accept: &str) {
    use wasm_bindgen::closure::Closure;
    let Some(document) = window().and_then(|w| w.document()) else {
        return;
    };
    let Some(input) = document
        .create_element("input")
        .ok()
        .and_then(|e| e.dyn_into::<web_sys::HtmlInputElement>().ok())
    else {
        return;
    };
    input.set_type("file");
    input.set_accept(accept);
    let dir = dir.to_path_buf();
    let picked = input.clone();
    let on_change = Closure::once(move || {
        let Some(file) = picked.files().and_then(|files| files.get(0)) else {
            return;
        };
        let path = dir.join(file.name());
        wasm_bindgen_futures::spawn_local(async move {
            match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
                Ok(buffer) => {
                    let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
                    tracing::info!("opened {} ({} bytes)", path.display(), bytes.len());
                    crate::fsutil::memory::insert(&path, bytes);
                }
                Err(_) => tracing::warn!("could not read {}", path.display()),
            }
        });
    });
    input.set_onchange(Some(on_change.as_ref().unchecked_ref()));
    // The element lives until the page closes; so may its handler.
    on_change.forget();
    input.click();
}

/// Forgets a value in local storage.
pub fn unstore(key: &str) {
    if let Some(storage) = storage() {
        let _ = storage.remove_item(key);
    }
}
