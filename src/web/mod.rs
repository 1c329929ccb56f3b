//! The browser build's edges: which command a page link asks for
//! ([`link`], plain Rust, tested natively too) and the page's entry
//! (`page`: the link's command run, the console; wasm only). The page's
//! storage and services the game uses, and the `<input>` a phone types
//! into, are `platform::browser`.
//! Everything between them is the same code as the native game.

pub mod link;
#[cfg(target_arch = "wasm32")]
pub mod page;
