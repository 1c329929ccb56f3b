//! No text field natively: the window has the keyboard. The type has no
//! values, so a prompt's field is always `None` and its uses compile away.

/// Never made natively (see `platform/browser/text_field.rs`).
pub enum TextField {}

impl TextField {
    /// `None`: natively the window reads the keyboard itself.
    pub fn show(_initial: &str, _placeholder: &str) -> Option<TextField> {
        None
    }

    pub fn value(&self) -> String {
        match *self {}
    }

    pub fn set_value(&self, _text: &str) {
        match *self {}
    }

    pub fn take_key(&self) -> Option<String> {
        match *self {}
    }
}
