//! Serving: the axum routes, binding and serving over TCP or [`tls`]
//! ([`server`]), the state every handler shares ([`shared`]), the web
//! client's files ([`web`]), the ICE servers and TURN credentials handed to
//! clients ([`turn`]), and the plain-text answers ([`reply`]).

pub(crate) mod reply;
pub(crate) mod server;
pub(crate) mod shared;
pub mod tls;
pub mod turn;
pub(crate) mod web;
