//! What the registry observes and the metrics count or time: a type below
//! both, so neither imports the other for it.

use web_time::Duration;

/// Something the metrics count or time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Observed {
    /// A room got its second player; `waited`: how long its first waited
    /// alone, when it was alone since it came.
    Paired { waited: Option<Duration> },
    /// The first answer between a room's players, `took` after pairing.
    Negotiated { took: Duration },
}
