//! Configuration: the server's options as the command line takes them
//! ([`serve_args`], run by [`cli`]) and as a TOML file gives them
//! ([`config_file`], checked by [`config_check`]), turned into what
//! serving needs.

pub mod cli;
pub(crate) mod config_check;
pub mod config_file;
pub(crate) mod serve_args;
