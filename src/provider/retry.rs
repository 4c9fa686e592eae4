//! Exponential backoff with jitter, bounded attempts, and `Retry-After` honoured.

use std::time::{Duration, SystemTime};

use crate::config::RetryPolicy;
use crate::util::time::entropy;

/// Delay before retry number `retry` (0-based): the server's `Retry-After` when it
/// gave one, else `base · 2^retry` scaled by a random factor in [0.5, 1); never above `max`.
pub(super) fn delay(policy: &RetryPolicy, retry: u32, retry_after: Option<Duration>) -> Duration {
    if let Some(ra) = retry_after {
        return ra.min(policy.max);
    }
    let exp = policy.base.saturating_mul(1u32 << retry.min(16));
    let jitter = 0.5 + (entropy() % 1000) as f64 / 2000.0;
    exp.mul_f64(jitter).min(policy.max)
}

/// `Retry-After` as seconds or an HTTP date.
pub(super) fn parse_retry_after(value: &str) -> Option<Duration> {
    let v = value.trim();
    if let Ok(secs) = v.parse::<f64>() {
        return Duration::try_from_secs_f64(secs).ok();
    }
    let when = httpdate::parse_http_date(v).ok()?;
    Some(
        when.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> RetryPolicy {
        RetryPolicy {
            max_retries: 4,
            base: Duration::from_millis(100),
            max: Duration::from_secs(2),
        }
    }

    #[test]
    fn backoff_grows_with_jitter_and_is_capped() {
        for retry in 0..6 {
            let d = delay(&policy(), retry, None);
            let full = Duration::from_millis(100 * (1 << retry));
            assert!(
                d >= full / 2 && d <= full.min(Duration::from_secs(2)),
                "{retry}: {d:?}"
            );
        }
        assert_eq!(delay(&policy(), 10, None), Duration::from_secs(2));
    }

    #[test]
    fn retry_after_wins_but_is_capped() {
        let p = policy();
        assert_eq!(
            delay(&p, 0, Some(Duration::from_secs(1))),
            Duration::from_secs(1)
        );
        assert_eq!(
            delay(&p, 0, Some(Duration::from_secs(60))),
            Duration::from_secs(2)
        );
    }

    #[test]
    fn retry_after_parses_seconds_and_dates() {
        assert_eq!(parse_retry_after("3"), Some(Duration::from_secs(3)));
        assert_eq!(parse_retry_after("0.5"), Some(Duration::from_millis(500)));
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon"), None);
        assert_eq!(parse_retry_after("-1"), None);
        assert_eq!(parse_retry_after("1e300"), None, "no panic on a huge value");
        assert_eq!(parse_retry_after("NaN"), None);
    }
}
