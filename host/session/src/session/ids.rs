//! Ids and ISO timestamps as pi writes them, without a uuid or date crate.

use std::collections::HashSet;

/// A fresh entry id: 8 lowercase hex digits not in `taken` (pi tries 100 times, then falls
/// back to a full UUID).
pub fn new_entry_id(taken: &dyn Fn(&str) -> bool) -> String {
    for _ in 0..100 {
        let id = format!("{:08x}", fastrand::u32(..));
        if !taken(&id) {
            return id;
        }
    }
    new_uuid_v7()
}

/// Same as [`new_entry_id`] against a set.
pub fn new_entry_id_in(taken: &HashSet<String>) -> String {
    new_entry_id(&|id| taken.contains(id))
}

/// A UUID v7 (time-ordered), the session id format of current pi.
pub fn new_uuid_v7() -> String {
    let ms = pi_ai::now_ms().max(0) as u64 & 0xFFFF_FFFF_FFFF;
    let rand_a = fastrand::u16(..) & 0x0FFF;
    let rand_b = fastrand::u64(..) & 0x3FFF_FFFF_FFFF_FFFF;
    let hi = (ms << 16) | 0x7000 | u64::from(rand_a);
    let lo = 0x8000_0000_0000_0000 | rand_b;
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        hi >> 32,
        (hi >> 16) & 0xFFFF,
        hi & 0xFFFF,
        lo >> 48,
        lo & 0xFFFF_FFFF_FFFF
    )
}

/// Whether `id` is acceptable as a custom session id (pi's `--session-id` rule:
/// `^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$`).
pub fn is_valid_session_id(id: &str) -> bool {
    let bytes = id.as_bytes();
    let edge = |b: &u8| b.is_ascii_alphanumeric();
    let inner = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-');
    match bytes {
        [] => false,
        [only] => edge(only),
        [first, middle @ .., last] => edge(first) && edge(last) && middle.iter().all(inner),
    }
}

/// Now as `2024-12-03T14:00:00.000Z`.
pub fn iso_now() -> String {
    iso_from_ms(pi_ai::now_ms())
}

/// Milliseconds since the epoch as an ISO-8601 UTC string with milliseconds.
pub fn iso_from_ms(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let in_day = ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000
    )
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.fff]Z` (or a `±HH:MM` offset) to milliseconds.
pub fn parse_iso_ms(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let s = text.get(from..from + len)?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (y, mo, d) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (h, mi, s) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    let mut pos = 19;
    let mut millis = 0;
    if b.get(pos) == Some(&b'.') {
        let start = pos + 1;
        let mut end = start;
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
        }
        let frac = text.get(start..end)?;
        let padded: String = frac.chars().chain("000".chars()).take(3).collect();
        millis = padded.parse().ok()?;
        pos = end;
    }
    let offset_min = match text.get(pos..)? {
        "Z" | "z" | "" => 0,
        rest if rest.len() == 6 => {
            let sign = if rest.starts_with('-') { -1 } else { 1 };
            sign * (num(pos + 1, 2)? * 60 + num(pos + 4, 2)?)
        }
        _ => return None,
    };
    let days = days_from_civil(y, mo, d);
    Some(((days * 24 + h) * 60 + mi - offset_min) * 60_000 + s * 1000 + millis)
}

// Howard Hinnant's civil calendar algorithms (public domain), proleptic Gregorian.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_round_trip() {
        let ms = 1_765_233_665_306;
        let iso = iso_from_ms(ms);
        assert_eq!(iso, "2025-12-08T22:41:05.306Z");
        assert_eq!(parse_iso_ms(&iso), Some(ms));
        assert_eq!(parse_iso_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_iso_ms("nonsense"), None);
    }

    #[test]
    fn uuid_v7_shape() {
        let id = new_uuid_v7();
        assert_eq!(id.len(), 36);
        assert_eq!(&id[14..15], "7");
        assert!(is_valid_session_id(&id));
        assert!(!is_valid_session_id("-bad"));
        assert!(is_valid_session_id("a"));
    }
}
