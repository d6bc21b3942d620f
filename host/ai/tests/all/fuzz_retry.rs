//! Property tests of request retry (`pi_ai::retry`): no header value a server can send makes
//! the delay computation panic, and every delay it returns is bounded.

use pi_ai::retry::{Decision, Failure, MAX_SERVER_DELAY, backoff, decide, server_delay};
use pi_fuzz::Gen;
use reqwest::header::{HeaderMap, HeaderValue};
use std::time::{Duration, SystemTime};

/// Numbers and dates at the edges of what `f64`, `Duration` and HTTP dates hold.
const EDGES: &[&str] = &[
    "1e20",
    "1e308",
    "1e309",
    "-1",
    "-0",
    "0",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "infinity",
    "18446744073709551615",
    "18446744073709551616",
    "4.9e-324",
    "1.5",
    " 2 ",
    "+3",
    "0x10",
    "Fri, 31 Dec 9999 23:59:59 GMT",
    "Thu, 01 Jan 1970 00:00:00 GMT",
    "Sun, 06 Nov 1994 08:49:37 GMT",
    "Sunday, 06-Nov-94 08:49:37 GMT",
    "Sun Nov  6 08:49:37 1994",
    "Mon, 32 Feb 2024 25:61:61 GMT",
];

fn header_value(g: &mut Gen) -> String {
    match g.below(3) {
        0 => g.pick(EDGES).to_string(),
        1 => {
            let seed = *g.pick(EDGES);
            g.mutate(seed, &["e", "9", "-", ".", " "])
        }
        _ => format!("{}", f64::from_bits(g.u64())),
    }
}

fn headers(g: &mut Gen) -> HeaderMap {
    let mut map = HeaderMap::new();
    for name in ["retry-after", "retry-after-ms", "x-should-retry"] {
        if g.bool()
            && let Ok(value) = HeaderValue::from_str(&header_value(g))
        {
            map.insert(name, value);
        }
    }
    map
}

#[test]
fn retry_after_1e20_is_clamped_not_a_panic() {
    let mut map = HeaderMap::new();
    map.insert("retry-after", HeaderValue::from_static("1e20"));
    let now = SystemTime::now();
    assert_eq!(server_delay(Some(&map), now), Ok(Some(MAX_SERVER_DELAY)));
    let failure = Failure {
        status: Some(429),
        headers: Some(&map),
    };
    assert!(matches!(
        decide(0, 3, 60_000, &failure, now, 0.5),
        Decision::TooLong(_)
    ));
    let mut map = HeaderMap::new();
    map.insert("retry-after-ms", HeaderValue::from_static("1e300"));
    assert_eq!(server_delay(Some(&map), now), Ok(Some(MAX_SERVER_DELAY)));
}

#[test]
fn no_header_value_panics_and_delays_are_bounded() {
    pi_fuzz::run("retry/headers", 3000, |g| {
        let map = headers(g);
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(g.u64() % (1 << 40));
        if let Ok(Some(delay)) = server_delay(Some(&map), now) {
            assert!(delay <= MAX_SERVER_DELAY, "{map:?}: {delay:?}");
        }
        let failure = Failure {
            status: Some(*g.pick(&[429u16, 500, 503, 400])),
            headers: Some(&map),
        };
        let cap = *g.pick(&[0, 1, 60_000, u64::MAX]);
        let jitter = f64::from_bits(g.u64());
        if let Decision::Retry(delay) = decide(0, 3, cap, &failure, now, jitter) {
            assert!(delay <= MAX_SERVER_DELAY, "{map:?}: {delay:?}");
        }
        assert!(backoff(g.below(100) as u32, jitter) <= Duration::from_secs(8));
    });
}
