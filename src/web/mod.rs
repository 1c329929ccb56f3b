//! The browser build's edges: which command a page link asks for
//! ([`link`], plain Rust, tested natively too) and the page itself
//! (`page`: the URL, the console, local storage, downloads; wasm only).
//! Everything between them is the same code as the native game.

pub mod link;
#[cfg(target_arch = "wasm32")]
pub mod page;
