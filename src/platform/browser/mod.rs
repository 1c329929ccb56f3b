//! The browser build's side of the platform seam. Here, the page the game
//! runs in as the game uses it: local storage, downloads, the file picker,
//! the server that served the page and the ICE offer it fetched (the
//! page's entry, the link's command and the console, is `web::page`). In
//! its modules, the same platform API as `platform/native/`, over them;
//! `platform/mod.rs` picks one.

use wasm_bindgen::JsCast;

pub mod assets;
pub mod boards;
pub mod downloads;
pub mod encoder;
pub mod lan;
pub mod net;
pub mod records;
pub mod rooms;
pub mod screen;
pub mod server;
pub mod text_field;

pub fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

/// One line on the browser console.
pub fn log(text: &str) {
    web_sys::console::log_1(&text.into());
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
/// see web/index.html), unparsed; `None` when the server offers none.
pub fn page_ice_text() -> Option<String> {
    read_text("twinstarIce")
}

/// `window.NAME` when it is a string (what the page's script keeps there).
pub fn read_text(name: &str) -> Option<String> {
    let window: wasm_bindgen::JsValue = window()?.into();
    js_sys::Reflect::get(&window, &name.into())
        .ok()?
        .as_string()
}

/// The page's safe-area insets (`window.twinstarSafeArea`, kept by
/// web/index.html): `[top, right, bottom, left]` in CSS pixels.
pub fn safe_area() -> Option<[f32; 4]> {
    let window: wasm_bindgen::JsValue = window()?.into();
    let value = js_sys::Reflect::get(&window, &"twinstarSafeArea".into()).ok()?;
    let array: &js_sys::Array = wasm_bindgen::JsCast::dyn_ref(&value)?;
    let mut insets = [0.0; 4];
    for (i, inset) in insets.iter_mut().enumerate() {
        *inset = array.get(i as u32).as_f64()? as f32;
    }
    Some(insets)
}

/// Sets `window.NAME` to `text`, for scripts that read the page.
pub fn publish(name: &str, text: &str) {
    if let Some(window) = window() {
        let _ = js_sys::Reflect::set(&window.into(), &name.into(), &text.into());
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
                    super::files::memory::insert(&path, bytes);
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

/// Says `text` over the page (web/index.html's `twinstarSay`), where the
/// game has no window to say it in: a replay's link that names none.
pub fn say(text: &str) {
    let Some(window) = window() else {
        return;
    };
    let say = js_sys::Reflect::get(&window.clone().into(), &"twinstarSay".into());
    if let Ok(say) = say.and_then(|f| f.dyn_into::<js_sys::Function>()) {
        let _ = say.call1(&window.into(), &text.into());
    }
}
