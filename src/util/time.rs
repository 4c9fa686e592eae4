//! UTC timestamps without a date crate: session records carry RFC 3339 times and
//! session files are filed under `YYYY/MM/DD`, which is all the calendar we need.

use std::time::{SystemTime, UNIX_EPOCH};

/// A UTC civil time, to the second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Utc {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub millis: u32,
}

impl Utc {
    pub fn now() -> Utc {
        let d = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        Utc::from_unix(d.as_secs() as i64, d.subsec_millis())
    }

    /// Howard Hinnant's days-to-civil algorithm.
    pub fn from_unix(secs: i64, millis: u32) -> Utc {
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400);
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = yoe + era * 400 + i64::from(month <= 2);
        Utc {
            year,
            month,
            day,
            hour: (rem / 3_600) as u32,
            minute: (rem % 3_600 / 60) as u32,
            second: (rem % 60) as u32,
            millis,
        }
    }

    /// `2026-11-29T20:12:35.123Z`
    pub fn rfc3339(&self) -> String {
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
            self.year, self.month, self.day, self.hour, self.minute, self.second, self.millis
        )
    }

    /// `20261129-201235`, sortable and safe in file names.
    pub fn compact(&self) -> String {
        format!(
            "{:04}{:02}{:02}-{:02}{:02}{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

/// Nanoseconds of the wall clock mixed with the process id: enough entropy for
/// session-id suffixes and retry jitter, which need uniqueness, not secrecy.
pub(crate) fn entropy() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let mut x = nanos ^ (u64::from(std::process::id()) << 32) ^ 0x9E37_79B9_7F4A_7C15;
    // splitmix64 finaliser
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_match_known_instants() {
        assert_eq!(Utc::from_unix(0, 0).rfc3339(), "1970-01-01T00:00:00.000Z");
        // 2024-02-29 12:34:56 UTC, a leap day
        assert_eq!(
            Utc::from_unix(1_709_210_096, 7).rfc3339(),
            "2024-02-29T12:34:56.007Z"
        );
        assert_eq!(
            Utc::from_unix(1_796_000_000, 0).compact(),
            "20261130-005320"
        );
    }
}
