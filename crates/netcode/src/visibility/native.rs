//! Natively nothing is hidden: a window's frames go on (see the module).

/// Arms `action` to run once, the moment the page is hidden (`None`
/// disarms). Natively nothing is hidden: the action never runs.
pub fn when_hidden(_action: Option<Box<dyn FnMut()>>) {}

/// When the page was hidden and the armed action ran, once (then `None`
/// until it runs again).
pub fn take_hidden_since() -> Option<web_time::Instant> {
    None
}
