//! The native build's side of the platform seam: files on disk, a
//! terminal, threads that may block, a server this process asks itself
//! (or starts). The browser's side is `platform/browser/`, with the same
//! modules and signatures; `platform/mod.rs` picks one.

pub mod assets;
pub mod boards;
pub mod console;
pub mod downloads;
pub mod encoder;
pub mod lan;
pub mod net;
pub mod records;
pub mod rooms;
pub mod screen;
pub mod server;
pub mod text_field;
