//! A real text input over a prompt, so a phone opens its own keyboard for
//! the room code (the canvas cannot). Shown while a prompt is open; the
//! prompt reads its value every frame. Enter and Escape in it are noted by
//! an inline handler (no Rust closure to keep alive) and taken by
//! [`TextField::take_key`].

use wasm_bindgen::JsCast;

pub struct TextField {
    input: web_sys::HtmlInputElement,
}

/// Where the field sits: over the prompt's drawn field, large enough for a
/// thumb, with a font big enough that phones do not zoom into it.
const STYLE: &str = "position:fixed;left:10%;width:80%;top:30%;height:48px;font:24px monospace;\
    text-align:center;background:#0a0f1e;color:#fff;border:2px solid #8cf;z-index:10;\
    user-select:text;-webkit-user-select:text;touch-action:manipulation;";

const ON_KEY: &str = "if(event.key==='Enter'||event.key==='Escape'){\
    this.dataset.key=event.key;event.preventDefault();}";

impl TextField {
    /// Adds the field to the page with `initial` in it; `None` where the
    /// page has no document (never in a browser).
    pub fn show(initial: &str, placeholder: &str) -> Option<TextField> {
        let document = web_sys::window()?.document()?;
        let input: web_sys::HtmlInputElement =
            document.create_element("input").ok()?.dyn_into().ok()?;
        input.set_id("twinstar-text");
        let _ = input.set_attribute("style", STYLE);
        let _ = input.set_attribute("onkeydown", ON_KEY);
        let _ = input.set_attribute("autocapitalize", "characters");
        let _ = input.set_attribute("autocomplete", "off");
        let _ = input.set_attribute("spellcheck", "false");
        let _ = input.set_attribute("placeholder", placeholder);
        input.set_value(initial);
        document.body()?.append_child(&input).ok()?;
        // Focus opens the keyboard where the browser allows it without a
        // tap on the field; elsewhere the player taps the field.
        let _ = input.focus();
        Some(TextField { input })
    }

    pub fn value(&self) -> String {
        self.input.value()
    }

    pub fn set_value(&self, text: &str) {
        if self.input.value() != text {
            self.input.set_value(text);
        }
    }

    /// "Enter" or "Escape" pressed in the field since the last call.
    pub fn take_key(&self) -> Option<String> {
        let key = self.input.get_attribute("data-key")?;
        let _ = self.input.remove_attribute("data-key");
        Some(key)
    }
}

impl Drop for TextField {
    fn drop(&mut self) {
        self.input.remove();
        // Give the keys back to the game.
        if let Some(canvas) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id("glcanvas"))
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = canvas.focus();
        }
    }
}
