//! This frame's keys, clicks and pad moves as screens read them: nothing
//! counts in a screen's first frame (the key that ended the previous
//! screen is still down), and during a match a pad's buttons are the
//! game's, not menu keys. A leaf of the frontend: screens, the chat box
//! and text editing use it; it uses only the pads.

use std::sync::atomic::{AtomicBool, Ordering};

use macroquad::prelude::*;

/// True from a screen's start until its first frame is shown: the key or
/// click that ended the previous screen (still "pressed" in this frame)
/// must not act on the new one.
static SWALLOW_INPUT: AtomicBool = AtomicBool::new(false);

/// Call when a screen starts.
pub fn enter_screen() {
    SWALLOW_INPUT.store(true, Ordering::Relaxed);
}

/// `next_frame`, after which input counts again.
pub async fn end_frame() {
    // Characters no screen read this frame were not typed into anything:
    // macroquad would keep them for the next prompt that opens.
    while get_char_pressed().is_some() {}
    next_frame().await;
    super::pads::start_frame();
    SWALLOW_INPUT.store(false, Ordering::Relaxed);
}

/// True while a match is played: there a pad's A fires and Start is the
/// sim's start, so only B/Back (as Esc) still acts as a key.
static IN_MATCH: AtomicBool = AtomicBool::new(false);

/// A key pressed this frame, unless the screen just started. A pad's menu
/// moves count as the arrows, Enter and Esc (`pads::menu_key`).
pub fn pressed(key: KeyCode) -> bool {
    if SWALLOW_INPUT.load(Ordering::Relaxed) {
        return false;
    }
    let pad_counts = !IN_MATCH.load(Ordering::Relaxed) || key == KeyCode::Escape;
    is_key_pressed(key) || (pad_counts && super::pads::menu_key(key))
}

/// A pad's menu move this frame (as its key), unless the screen just started.
pub fn pad_pressed(key: KeyCode) -> bool {
    !SWALLOW_INPUT.load(Ordering::Relaxed) && super::pads::menu_key(key)
}

/// A pad button pressed this frame, unless the screen just started.
pub fn pad_button(button: crate::input::PadButton) -> bool {
    !SWALLOW_INPUT.load(Ordering::Relaxed) && super::pads::just_pressed(button)
}

/// A mouse click this frame, unless the screen just started.
pub fn clicked(button: MouseButton) -> bool {
    !SWALLOW_INPUT.load(Ordering::Relaxed) && is_mouse_button_pressed(button)
}

/// A match starts or ends (`window::play_match`): pads' buttons become
/// the game's, or menu keys again.
pub(super) fn set_in_match(in_match: bool) {
    IN_MATCH.store(in_match, Ordering::Relaxed);
}
