//! The page's screen: a phone's safe area, the touch layout published for
//! test tools, the screen wake lock during a match, and a canvas always
//! there to draw on.

/// The safe-area insets, `[top, right, bottom, left]` in logical (CSS)
/// pixels, as web/index.html reads them from `env(safe-area-inset-*)`;
/// zeros where the page has not said.
pub fn safe_area() -> [f32; 4] {
    super::safe_area().unwrap_or([0.0; 4])
}

/// Publishes the touch controls' layout (JSON) as `window.twinstarTouchLayout`
/// for tools that touch the page's buttons.
pub fn publish_touch_layout(json: &str) {
    super::publish("twinstarTouchLayout", json);
}

/// Whether a frame that draws nothing keeps the last picture on screen:
/// yes on a WebGL canvas, which the browser presents only once something
/// was drawn into it. Where software GL draws a frame in tens of ms (a
/// phone, headless Chromium), a screen that changes a few times a second
/// then leaves the page's one thread free for the network between them.
pub const UNDRAWN_FRAME_KEEPS_PICTURE: bool = true;

/// Whether a window can open: a page always has its canvas.
pub fn display_available() -> bool {
    true
}

/// Asks the page to keep the screen on (`true`, a match started) or lets
/// it sleep again (`false`): calls `window.twinstarKeepAwake(awake)`, which
/// web/index.html defines over the Screen Wake Lock API (it also lets go
/// while the page is hidden and takes it again on return). A page without
/// the function (an older index.html) is left as it is.
pub fn keep_awake(awake: bool) {
    use wasm_bindgen::JsCast;
    let Some(window) = super::window() else {
        return;
    };
    let Ok(function) = js_sys::Reflect::get(&window, &"twinstarKeepAwake".into()) else {
        return;
    };
    if let Some(function) = function.dyn_ref::<js_sys::Function>() {
        let _ = function.call1(&wasm_bindgen::JsValue::NULL, &awake.into());
    }
}

/// Starts recording the canvas as a video to be offered as the download
/// `file` (`Some`), or stops the recording and offers it (`None`): calls
/// `window.twinstarRecordCanvas(file)`, which web/index.html defines over
/// MediaRecorder (WebM; the picture only). False where the page cannot
/// (no MediaRecorder, no WebM, an older index.html) or nothing was recorded.
pub fn record_canvas(file: Option<&str>) -> bool {
    use wasm_bindgen::JsCast;
    let Some(window) = super::window() else {
        return false;
    };
    let Ok(function) = js_sys::Reflect::get(&window, &"twinstarRecordCanvas".into()) else {
        return false;
    };
    let Some(function) = function.dyn_ref::<js_sys::Function>() else {
        return false;
    };
    let file = file.map_or(wasm_bindgen::JsValue::NULL, Into::into);
    function
        .call1(&wasm_bindgen::JsValue::NULL, &file)
        .is_ok_and(|done| done.is_truthy())
}
