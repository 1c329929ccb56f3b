//! What the registry observes and the metrics count or time: types below
//! both, so neither imports the other for them.

use web_time::Duration;

use twinstar_signaling_protocol::ConnectPath;

/// Something the metrics count or time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Observed {
    /// A room got its second player; `waited`: how long its first waited
    /// alone, when it was alone since it came.
    Paired { waited: Option<Duration> },
    /// The first answer between a room's players, `took` after pairing.
    Negotiated { took: Duration },
}

/// What one accepted report adds to the metrics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnectCounted {
    /// The match's path, when this was its first report.
    pub path: Option<ConnectPath>,
    /// The connect time, when this was the report of the player who
    /// paired the room.
    pub connect: Option<Duration>,
}
