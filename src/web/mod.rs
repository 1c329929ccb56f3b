//! The browser build's edges: which command a page link asks for
//! ([`link`], plain Rust, tested natively too) and the page itself
//! (`page`: the URL, the console, local storage, downloads; `text_field`:
//! the input element a phone types a room code into; wasm only).
//! Everything between them is the same code as the native game.

pub mod link;
#[cfg(target_arch = "wasm32")]
pub mod page;
#[cfg(target_arch = "wasm32")]
pub mod text_field;
