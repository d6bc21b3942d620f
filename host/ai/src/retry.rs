//! Request-level retry: only while establishing a request, never mid-stream.
//!
//! Delays come from the server (`retry-after-ms`, `retry-after`), so every conversion here is
//! total: a header that is not a delay is [`InvalidDelay`], one too long to represent is cut to
//! [`MAX_SERVER_DELAY`] (and then refused by the caller's cap, if it has one).

use reqwest::header::HeaderMap;
use std::time::{Duration, SystemTime};

/// A failed attempt to establish a request.
#[derive(Debug, Clone, Copy)]
pub struct Failure<'a> {
    /// HTTP status; `None` for a connection error.
    pub status: Option<u16>,
    pub headers: Option<&'a HeaderMap>,
}

/// What to do after a failed attempt.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Wait this long, then try again.
    Retry(Duration),
    /// Do not retry; the error goes to the caller as it is.
    GiveUp,
    /// The server asked for a longer wait than allowed: fail with this message prefix.
    TooLong(String),
}

/// Whether a failure may be retried at all: `x-should-retry` wins, then connection errors and
/// 408, 409, 429 and 5xx.
pub fn is_retryable(failure: &Failure<'_>) -> bool {
    if let Some(value) = header(failure.headers, "x-should-retry") {
        match value.trim() {
            "true" => return true,
            "false" => return false,
            _ => {}
        }
    }
    match failure.status {
        None => true,
        Some(status) => matches!(status, 408 | 409 | 429) || status >= 500,
    }
}

fn header<'a>(headers: Option<&'a HeaderMap>, name: &str) -> Option<&'a str> {
    headers?.get(name)?.to_str().ok()
}

/// The longest wait a server can ask for; longer requests (`retry-after: 1e20`, a date in the
/// year 9999) are read as this. A day is longer than anyone waits for a reply, and short enough
/// that a disabled cap still ends the wait.
pub const MAX_SERVER_DELAY: Duration = Duration::from_secs(24 * 60 * 60);

/// A retry header that is present but makes no sense (negative, not a number, not a date).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidDelay;

/// The delay the server asked for: `retry-after-ms`, else `retry-after` in seconds or as an
/// HTTP date.
pub fn server_delay(
    headers: Option<&HeaderMap>,
    now: SystemTime,
) -> Result<Option<Duration>, InvalidDelay> {
    if let Some(ms) = header(headers, "retry-after-ms") {
        let ms: f64 = ms.trim().parse().map_err(|_| InvalidDelay)?;
        return seconds(ms / 1000.0).map(Some);
    }
    if let Some(value) = header(headers, "retry-after") {
        let value = value.trim();
        if let Ok(secs) = value.parse::<f64>() {
            return seconds(secs).map(Some);
        }
        let date = httpdate::parse_http_date(value).map_err(|_| InvalidDelay)?;
        let delay = date.duration_since(now).unwrap_or(Duration::ZERO);
        return Ok(Some(delay.min(MAX_SERVER_DELAY)));
    }
    Ok(None)
}

/// A delay in seconds, at most [`MAX_SERVER_DELAY`]. `Duration::from_secs_f64` panics past
/// `u64::MAX` seconds, so the value is clamped first.
fn seconds(secs: f64) -> Result<Duration, InvalidDelay> {
    if !secs.is_finite() || secs < 0.0 {
        return Err(InvalidDelay);
    }
    let secs = secs.min(MAX_SERVER_DELAY.as_secs_f64());
    Ok(Duration::try_from_secs_f64(secs).unwrap_or(MAX_SERVER_DELAY))
}

/// Exponential backoff with jitter for retry number `retry_index` (0-based):
/// min(0.5 s · 2^i, 8 s) reduced by up to 25 %. `jitter` is in [0, 1).
pub fn backoff(retry_index: u32, jitter: f64) -> Duration {
    let base = (0.5 * 2f64.powi(retry_index.min(16) as i32)).min(8.0);
    // A NaN jitter would make the product NaN, which `from_secs_f64` rejects with a panic.
    let jitter = if jitter.is_nan() {
        0.0
    } else {
        jitter.clamp(0.0, 1.0)
    };
    Duration::try_from_secs_f64(base * (1.0 - jitter * 0.25)).unwrap_or(Duration::from_secs(8))
}

/// Decides after failed attempt number `retry_index` (0 = the first attempt failed).
pub fn decide(
    retry_index: u32,
    max_retries: u32,
    max_retry_delay_ms: u64,
    failure: &Failure<'_>,
    now: SystemTime,
    jitter: f64,
) -> Decision {
    if retry_index >= max_retries || !is_retryable(failure) {
        return Decision::GiveUp;
    }
    match server_delay(failure.headers, now) {
        Err(InvalidDelay) => {
            Decision::TooLong("Server requested an invalid retry delay.".to_owned())
        }
        Ok(Some(delay)) => {
            let cap = Duration::from_millis(max_retry_delay_ms);
            if max_retry_delay_ms > 0 && delay > cap {
                Decision::TooLong(format!(
                    "Server requested {}s retry delay (max: {}s).",
                    delay.as_secs_f64().ceil() as u64,
                    cap.as_secs_f64().ceil() as u64
                ))
            } else {
                Decision::Retry(delay)
            }
        }
        Ok(None) => Decision::Retry(backoff(retry_index, jitter)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(
                *k,
                HeaderValue::from_str(v).unwrap_or(HeaderValue::from_static("")),
            );
        }
        map
    }

    fn fail(status: Option<u16>, h: &HeaderMap) -> Failure<'_> {
        Failure {
            status,
            headers: Some(h),
        }
    }

    #[test]
    fn retryable_statuses_and_header_override() {
        let none = HeaderMap::new();
        for s in [408, 409, 429, 500, 502, 503, 529] {
            assert!(is_retryable(&fail(Some(s), &none)), "{s}");
        }
        for s in [400, 401, 403, 404, 413, 422] {
            assert!(!is_retryable(&fail(Some(s), &none)), "{s}");
        }
        assert!(is_retryable(&fail(None, &none)));
        let yes = headers(&[("x-should-retry", "true")]);
        assert!(is_retryable(&fail(Some(400), &yes)));
        let no = headers(&[("x-should-retry", "false")]);
        assert!(!is_retryable(&fail(Some(503), &no)));
    }

    #[test]
    fn server_delays() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let ms = headers(&[("retry-after-ms", "1500.5"), ("retry-after", "9")]);
        assert_eq!(
            server_delay(Some(&ms), now),
            Ok(Some(Duration::from_secs_f64(1.5005)))
        );
        let secs = headers(&[("retry-after", "2")]);
        assert_eq!(
            server_delay(Some(&secs), now),
            Ok(Some(Duration::from_secs(2)))
        );
        let date = httpdate::fmt_http_date(now + Duration::from_secs(30));
        let date = headers(&[("retry-after", &date)]);
        assert_eq!(
            server_delay(Some(&date), now),
            Ok(Some(Duration::from_secs(30)))
        );
        let bad = headers(&[("retry-after", "soon")]);
        assert_eq!(server_delay(Some(&bad), now), Err(InvalidDelay));
    }

    #[test]
    fn decisions() {
        let now = SystemTime::now();
        let none = HeaderMap::new();
        assert_eq!(
            decide(0, 0, 60_000, &fail(Some(503), &none), now, 0.0),
            Decision::GiveUp
        );
        assert_eq!(
            decide(0, 3, 60_000, &fail(Some(503), &none), now, 0.0),
            Decision::Retry(Duration::from_millis(500))
        );
        assert_eq!(
            decide(2, 3, 60_000, &fail(Some(503), &none), now, 0.0),
            Decision::Retry(Duration::from_secs(2))
        );
        assert_eq!(
            decide(3, 3, 60_000, &fail(Some(503), &none), now, 0.0),
            Decision::GiveUp
        );
        let long = headers(&[("retry-after", "120")]);
        assert_eq!(
            decide(0, 3, 60_000, &fail(Some(429), &long), now, 0.0),
            Decision::TooLong("Server requested 120s retry delay (max: 60s).".into())
        );
        // 0 disables the cap.
        assert_eq!(
            decide(0, 3, 0, &fail(Some(429), &long), now, 0.0),
            Decision::Retry(Duration::from_secs(120))
        );
    }

    #[test]
    fn backoff_is_capped_and_jittered() {
        assert_eq!(backoff(0, 0.0), Duration::from_millis(500));
        assert_eq!(backoff(10, 0.0), Duration::from_secs(8));
        assert_eq!(
            backoff(0, 0.999_999),
            Duration::from_secs_f64(0.5 * (1.0 - 0.999_999 * 0.25))
        );
    }
}
