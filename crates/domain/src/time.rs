//! Timestamps as the API shows them (SPEC §3): RFC 3339, UTC, `Z`, whole seconds.

use chrono::{DateTime, SecondsFormat, Timelike, Utc};
use serde::Serializer;

pub fn format(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Drops sub-second precision, so what is stored is exactly what clients are shown and
/// PostgreSQL (microseconds) and SQLite agree on every value.
pub fn whole_seconds(t: DateTime<Utc>) -> DateTime<Utc> {
    t.with_nanosecond(0).unwrap_or(t)
}

pub fn serialize<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format(t))
}

pub fn serialize_opt<S: Serializer>(t: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => s.serialize_str(&format(t)),
        None => s.serialize_none(),
    }
}

/// A duration as operators write it: a number and `s`, `m`, `h` or `d` (`5s`, `30m`, `24h`), at
/// most 30 days.
pub fn parse_duration(item: &str) -> Result<std::time::Duration, String> {
    let split = item
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(item.len());
    let (num, unit) = item.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{item:?}: expected a number and s/m/h/d"))?;
    let unit_secs = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return Err(format!("{item:?}: the unit must be s, m, h or d")),
    };
    n.checked_mul(unit_secs)
        .filter(|s| *s <= 30 * 86_400)
        .map(std::time::Duration::from_secs)
        .ok_or_else(|| format!("{item:?}: at most 30 days"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn whole_seconds_with_z() {
        let t = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap()
            + chrono::Duration::milliseconds(678);
        assert_eq!(format(&t), "2026-01-02T03:04:05Z");
        assert_eq!(format(&whole_seconds(t)), "2026-01-02T03:04:05Z");
        assert_eq!(whole_seconds(t).nanosecond(), 0);
    }
}
