//! The screen's edges as the platform knows them: a phone's safe area in
//! the page, nothing natively (macroquad gives a desktop window no insets).

/// The safe-area insets, `[top, right, bottom, left]` in logical (CSS)
/// pixels, as web/index.html reads them from `env(safe-area-inset-*)`;
/// zeros natively and where the page has not said.
pub fn safe_area() -> [f32; 4] {
    #[cfg(target_arch = "wasm32")]
    {
        super::browser::safe_area().unwrap_or([0.0; 4])
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        [0.0; 4]
    }
}

/// Publishes the touch controls' layout (JSON) as `window.twinstarTouchLayout`
/// for tools that touch the page's buttons; nothing natively.
pub fn publish_touch_layout(json: &str) {
    #[cfg(target_arch = "wasm32")]
    super::browser::publish("twinstarTouchLayout", json);
    #[cfg(not(target_arch = "wasm32"))]
    let _ = json;
}
