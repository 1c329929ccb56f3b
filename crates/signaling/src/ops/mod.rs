//! What an operator runs the server with: Prometheus [`metrics`] (and who may
//! read them, [`metrics_access`]), the events they count ([`observed`]), the
//! orchestrator's [`probes`], the log format ([`logs`]) and the bounded
//! [`reports`] file.

pub mod logs;
pub(crate) mod metrics;
pub(crate) mod metrics_access;
pub(crate) mod observed;
pub(crate) mod probes;
pub(crate) mod reports;
