//! The page's screen: a phone's safe area, the touch layout published for
//! test tools, and a canvas always there to draw on.

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

/// Whether a window can open: a page always has its canvas.
pub fn display_available() -> bool {
    true
}
