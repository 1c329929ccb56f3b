//! twinstar's integration tests, one test binary: every suite is a module
//! here, so the game is linked once for all of them instead of once per
//! suite (27 links of the whole game made most of a fresh clone's test
//! build). Run one suite with `cargo test --test it SUITE::`, one test
//! with `cargo test --test it NAME`.
//!
//! The suites run in one process, two tests at a time (as each suite's
//! own tests always did); what must not overlap takes a lock of its own
//! (`browser::serial`).

mod common;

mod assets;
mod balance;
mod browser;
mod chat;
mod cli;
mod cluster;
mod cluster_boards;
mod connect_refusals;
mod determinism;
mod effects;
mod faults;
mod files;
mod fuzz_regressions;
mod inspect;
mod internet;
mod interruptions;
mod leaderboard;
mod link_trace;
mod lobby;
mod match_metrics;
mod nginx;
mod no_float_in_sim;
mod online;
mod pause;
mod presets;
mod readme_images;
mod rejoin;
mod replay;
mod replay_links;
mod replay_video;
mod rng_isolation;
mod rollback_property;
mod screenshots;
mod server_binary;
mod signaling;
mod stalls;
mod watch;
mod web_serving;
mod window_match;
