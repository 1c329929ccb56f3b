//! The daily challenge: one seed per UTC day (`sim::daily_seed`, frozen),
//! on the default preset, the same on every machine and server. A host
//! hosts it; a quick match names the day's challenge so the server pairs
//! it only with another player who wants the same seed. The server ranks
//! such a match on its daily board (the day it paired the match).

use crate::sim::PRESET_NAMES;
use twinstar_netcode::signaling::VersionTag;

/// The preset every daily challenge plays.
pub(super) const PRESET: &str = PRESET_NAMES[0];

/// A UTC day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Day {
    pub year: i32,
    pub month: u32,
    pub day: u32,
}

impl Day {
    /// Today, by this machine's clock, in UTC.
    pub(super) fn today() -> Day {
        let since_epoch = web_time::SystemTime::now()
            .duration_since(web_time::UNIX_EPOCH)
            .unwrap_or_default();
        let text = humantime::format_rfc3339_seconds(std::time::UNIX_EPOCH + since_epoch);
        Day::of_rfc3339(&text.to_string()).expect("humantime writes YYYY-MM-DDThh:mm:ssZ")
    }

    /// The day of an RFC 3339 time (`2026-11-28T01:02:03Z`).
    fn of_rfc3339(text: &str) -> Option<Day> {
        let date = text.get(..10)?;
        let mut parts = date.split('-');
        let day = Day {
            year: parts.next()?.parse().ok()?,
            month: parts.next()?.parse().ok()?,
            day: parts.next()?.parse().ok()?,
        };
        Some(day)
    }

    /// The day's seed.
    pub(super) fn seed(self) -> u64 {
        crate::sim::daily_seed(self.year, self.month, self.day)
    }

    /// `2026-11-28`.
    pub(super) fn text(self) -> String {
        format!("{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }

    /// What a quick-match ticket names: `daily-2026-11-28`.
    pub(super) fn challenge(self) -> VersionTag {
        VersionTag::parse(&format!("daily-{}", self.text())).expect("letters, digits and dashes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_reads_from_a_utc_time_and_names_its_seed_and_challenge() {
        let day = Day::of_rfc3339("2026-11-28T23:59:59Z").unwrap();
        assert_eq!(
            day,
            Day {
                year: 2026,
                month: 11,
                day: 28
            }
        );
        assert_eq!(day.text(), "2026-11-28");
        assert_eq!(day.challenge().as_str(), "daily-2026-11-28");
        assert_eq!(day.seed(), crate::sim::daily_seed(2026, 11, 28));
        assert_ne!(
            day.seed(),
            Day::of_rfc3339("2026-11-29T00:00:00Z").unwrap().seed()
        );
        assert_eq!(Day::of_rfc3339("yesterday"), None);
        let today = Day::today();
        assert!(
            today.year >= 2026 && (1..=12).contains(&today.month),
            "{today:?}"
        );
    }
}
