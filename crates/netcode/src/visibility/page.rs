//! The page's `visibilitychange` handler, and the action it runs once.

use std::cell::{Cell, RefCell};

use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_time::Instant;

thread_local! {
    static ACTION: RefCell<Option<Box<dyn FnMut()>>> = RefCell::new(None);
    static HIDDEN_SINCE: Cell<Option<Instant>> = const { Cell::new(None) };
    static LISTENING: Cell<bool> = const { Cell::new(false) };
    static UNLOADING: Cell<bool> = const { Cell::new(false) };
}

/// The page's `visibilitychange` handler: on hidden, the armed action,
/// once.
fn changed() {
    let hidden = web_sys::window()
        .and_then(|w| w.document())
        .is_some_and(|d| d.hidden());
    // A page being closed or reloaded is hidden too (after its
    // `pagehide`): it leaves, and comes back, if at all, as a rejoin.
    if !hidden || UNLOADING.with(|u| u.get()) {
        return;
    }
    if let Some(mut action) = ACTION.with(|a| a.borrow_mut().take()) {
        action();
        HIDDEN_SINCE.with(|h| h.set(Some(Instant::now())));
        tracing::info!("the page went to the background");
    }
}

fn listen() {
    if LISTENING.with(|l| l.replace(true)) {
        return;
    }
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let handler = Closure::<dyn FnMut()>::new(changed);
    let unloading = Closure::<dyn FnMut()>::new(|| UNLOADING.with(|u| u.set(true)));
    let listening = document
        .add_event_listener_with_callback("visibilitychange", handler.as_ref().unchecked_ref())
        .and_then(|()| {
            web_sys::window()
                .ok_or_else(|| wasm_bindgen::JsValue::from_str("no window"))?
                .add_event_listener_with_callback("pagehide", unloading.as_ref().unchecked_ref())
        });
    if listening.is_err() {
        tracing::warn!("cannot listen for the page going to the background");
    }
    // Both listen for the page's lifetime.
    handler.forget();
    unloading.forget();
}

pub fn when_hidden(action: Option<Box<dyn FnMut()>>) {
    if action.is_some() {
        listen();
    }
    ACTION.with(|a| *a.borrow_mut() = action);
}

pub fn take_hidden_since() -> Option<Instant> {
    HIDDEN_SINCE.with(|h| h.take())
}
