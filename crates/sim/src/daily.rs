//! The daily challenge's seed: one pure function of the UTC date, the same
//! on every server and client, in every build.

/// The seed of the daily challenge on `year-month-day` (the UTC date):
/// the low 64 bits of XXH3-64 of the text `twinstar-daily-YYYY-MM-DD`.
///
/// **Frozen**: servers rank a match on the day's board only if its seed is
/// this, and clients of any version host today's challenge with it, so the
/// text and the hash never change (a test pins known values). A new scheme
/// would be a new function with a new name.
pub fn daily_seed(year: i32, month: u32, day: u32) -> u64 {
    let text = format!("twinstar-daily-{year:04}-{month:02}-{day:02}");
    xxhash_rust::xxh3::xxh3_64(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The function is frozen: these values must never change (a client
    /// and a server of different builds agree on the day's seed).
    #[test]
    fn the_seed_of_a_day_is_frozen() {
        assert_eq!(
            daily_seed(2026, 11, 28),
            xxhash_rust::xxh3::xxh3_64(b"twinstar-daily-2026-11-28")
        );
        assert_eq!(daily_seed(2026, 1, 2), 18_132_015_684_306_643_424);
    }

    /// Neighbouring days, months and years all differ.
    #[test]
    fn every_day_has_its_own_seed() {
        let mut seen = std::collections::HashSet::new();
        for year in [2025, 2026] {
            for month in 1..=12 {
                for day in 1..=31 {
                    assert!(seen.insert(daily_seed(year, month, day)));
                }
            }
        }
    }
}
