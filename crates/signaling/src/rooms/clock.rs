//! The server's wall clock, for what a room records in Unix seconds.

/// The server's clock in Unix seconds (a listing's `created_s`, a
/// report's time).
pub(crate) fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
