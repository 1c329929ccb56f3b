//! twinstar: a deterministic peer-to-peer co-op arena shooter with rollback.
//! Start reading at `ARCHITECTURE.md`.

pub mod app;
pub mod balance;
pub mod cli;
pub mod frontend;
pub mod game;
pub mod input;
pub mod platform;
pub mod records;
pub mod replay;
pub mod session;
pub mod settings;
pub mod web;

/// The simulation: its own crate (`crates/sim`), under its old name.
pub use twinstar_sim as sim;
