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

/// A retry delay an error body gives: Google's `RetryInfo`
/// (`{"error":{"details":[{"@type":"…RetryInfo","retryDelay":"26s"}]}}`),
/// a protobuf duration in seconds.
pub(super) fn delay_in_body(body: &str) -> Option<Duration> {
    let v: serde_json::Value = serde_json::from_str(body).ok()?;
    let error = v.get("error").or_else(|| v.get(0)?.get("error"))?;
    let delay = error
        .get("details")?
        .as_array()?
        .iter()
        .find_map(|d| d.get("retryDelay")?.as_str())?;
    let secs: f64 = delay.strip_suffix('s')?.parse().ok()?;
    Duration::try_from_secs_f64(secs).ok()
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
    fn a_retry_delay_in_a_google_error_body_is_read() {
        let body = r#"{"error":{"code":429,"message":"You exceeded your current quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"26.5s"}]}}"#;
        assert_eq!(delay_in_body(body), Some(Duration::from_millis(26_500)));
        assert_eq!(
            delay_in_body(&format!("[{body}]")),
            Some(Duration::from_millis(26_500))
        );
        assert_eq!(delay_in_body(r#"{"error":{"message":"x"}}"#), None);
        assert_eq!(delay_in_body("not json"), None);
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
