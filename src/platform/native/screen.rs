//! A desktop window's screen: no insets (macroquad gives a desktop window
//! none), no page to publish to, no wake lock to take (a desktop's own
//! settings decide when it sleeps), and a display only if the session has one.

/// The safe-area insets, `[top, right, bottom, left]`: zeros natively.
pub fn safe_area() -> [f32; 4] {
    [0.0; 4]
}

/// Nothing natively: no page for tools to read the touch layout from.
pub fn publish_touch_layout(_json: &str) {}

/// Whether a window can open: an X11 or Wayland display is named.
pub fn display_available() -> bool {
    std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some()
}

/// Whether a frame that draws nothing keeps the last picture on screen:
/// not in a desktop window, whose double buffer would show an older one.
pub const UNDRAWN_FRAME_KEEPS_PICTURE: bool = false;

/// Nothing natively: the page's wake lock has no desktop counterpart here.
pub fn keep_awake(_awake: bool) {}

/// Nothing natively, where `twinstar replay FILE --video OUT.mp4` renders
/// a replay to a file (with its sound): the page's canvas recorder has no
/// desktop counterpart.
pub fn record_canvas(_file: Option<&str>) -> bool {
    false
}
