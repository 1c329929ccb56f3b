//! The browser build's link: which command a page link asks for
//! ([`link`], plain Rust, tested natively too), and a ranked replay's
//! link, which `twinstar replay` takes too ([`replay_link`]). The page's entry, which
//! runs it, is `app`'s page side (`app/page.rs`); the page's storage and
//! services the game uses, and the `<input>` a phone types into, are
//! `platform::browser`. Everything between them is the same code as the
//! native game.

pub mod link;
pub mod replay_link;
