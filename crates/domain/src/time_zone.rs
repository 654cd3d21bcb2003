//! The merchant's day (SPEC §27): instants are stored in UTC, but "today" in every rule that has
//! one (default issue dates, overdue, expiry, reminders, recurring periods, report periods) is
//! the date where the merchant is, so an invoice in Port of Spain turns overdue at midnight
//! there, not at 20:00 the evening before.

use chrono::{DateTime, NaiveDate, Utc};
use std::str::FromStr;
use std::sync::{Arc, Mutex};

/// An IANA time zone, such as `America/Port_of_Spain`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimeZone(chrono_tz::Tz);

impl Default for TimeZone {
    fn default() -> TimeZone {
        TimeZone::UTC
    }
}

impl TimeZone {
    pub const UTC: TimeZone = TimeZone(chrono_tz::Tz::UTC);

    /// The zone of an IANA name, written exactly as the database spells it.
    pub fn parse(name: &str) -> Option<TimeZone> {
        chrono_tz::Tz::from_str(name.trim()).ok().map(TimeZone)
    }

    /// What storage wrote; an unknown name (written by hand) keeps UTC days.
    pub fn from_stored(name: &str) -> TimeZone {
        TimeZone::parse(name).unwrap_or_default()
    }

    /// The canonical name; only names from the zone database, so safe in any text it goes into.
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// The local date at `now`.
    pub fn today(self, now: DateTime<Utc>) -> NaiveDate {
        now.with_timezone(&self.0).date_naive()
    }

    /// The instant the local `day` begins (the first moment after a gap, where midnight is
    /// skipped by a clock change).
    pub fn start_of(self, day: NaiveDate) -> DateTime<Utc> {
        use chrono::TimeZone as _;
        let midnight = day.and_time(chrono::NaiveTime::MIN);
        (0..=2)
            .find_map(|h| {
                self.0
                    .from_local_datetime(&(midnight + chrono::Duration::hours(h)))
                    .earliest()
            })
            .map_or_else(|| midnight.and_utc(), |t| t.with_timezone(&Utc))
    }

    /// The local date and time at `at`, for people to read.
    pub fn local(self, at: DateTime<Utc>) -> chrono::NaiveDateTime {
        at.with_timezone(&self.0).naive_local()
    }

    /// Every zone there is, by name: what a person chooses from.
    pub fn all() -> impl Iterator<Item = TimeZone> {
        chrono_tz::TZ_VARIANTS.iter().copied().map(TimeZone)
    }
}

impl std::fmt::Display for TimeZone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for TimeZone {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Read back from documents' kept copies; a name the zone database no longer knows keeps UTC.
impl<'de> serde::Deserialize<'de> for TimeZone {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Ok(TimeZone::from_stored(&name))
    }
}

/// Where "now" comes from: the system's clock in service, one the tests set.
pub trait Clock: Send + Sync + std::fmt::Debug {
    fn now(&self) -> DateTime<Utc>;
}

#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that stands where it was set until it is set again (tests).
#[derive(Clone, Debug)]
pub struct SetClock(Arc<Mutex<DateTime<Utc>>>);

impl SetClock {
    pub fn at(now: DateTime<Utc>) -> SetClock {
        SetClock(Arc::new(Mutex::new(now)))
    }

    pub fn set(&self, now: DateTime<Utc>) {
        if let Ok(mut at) = self.0.lock() {
            *at = now;
        }
    }
}

impl Clock for SetClock {
    fn now(&self) -> DateTime<Utc> {
        self.0.lock().map(|at| *at).unwrap_or_else(|_| Utc::now())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone as _;

    fn day(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn port_of_spain_keeps_yesterday_until_four_utc() {
        let pos = TimeZone::parse("America/Port_of_Spain").unwrap();
        let before = Utc.with_ymd_and_hms(2026, 11, 28, 3, 59, 59).unwrap();
        let after = Utc.with_ymd_and_hms(2026, 11, 28, 4, 0, 0).unwrap();
        assert_eq!(pos.today(before), day(2026, 11, 27));
        assert_eq!(pos.today(after), day(2026, 11, 28));
        assert_eq!(TimeZone::UTC.today(before), day(2026, 11, 28));
    }

    #[test]
    fn a_day_starts_at_local_midnight() {
        let pos = TimeZone::parse("America/Port_of_Spain").unwrap();
        let start = pos.start_of(day(2026, 11, 28));
        assert_eq!(start, Utc.with_ymd_and_hms(2026, 11, 28, 4, 0, 0).unwrap());
        assert_eq!(pos.today(start), day(2026, 11, 28));
        assert_eq!(
            pos.today(start - chrono::Duration::seconds(1)),
            day(2026, 11, 27)
        );
        // Santiago skipped midnight to 01:00 on 2024-09-08.
        let santiago = TimeZone::parse("America/Santiago").unwrap();
        let start = santiago.start_of(day(2024, 9, 8));
        assert_eq!(santiago.today(start), day(2024, 9, 8));
        assert_eq!(
            santiago.today(start - chrono::Duration::seconds(1)),
            day(2024, 9, 7)
        );
    }

    #[test]
    fn zones_east_of_utc_start_the_day_earlier() {
        let kiritimati = TimeZone::parse("Pacific/Kiritimati").unwrap();
        let evening = Utc.with_ymd_and_hms(2026, 11, 28, 10, 0, 0).unwrap();
        assert_eq!(kiritimati.today(evening), day(2026, 11, 29));
    }

    #[test]
    fn only_zone_database_names_parse() {
        assert_eq!(
            TimeZone::parse("Europe/Berlin").unwrap().name(),
            "Europe/Berlin"
        );
        assert_eq!(TimeZone::parse(" UTC ").unwrap(), TimeZone::UTC);
        for bad in [
            "",
            "Mars/Olympus",
            "europe/berlin",
            "UTC+4",
            "'; DROP TABLE x; --",
        ] {
            assert_eq!(TimeZone::parse(bad), None, "{bad:?}");
        }
        assert_eq!(TimeZone::from_stored("nonsense"), TimeZone::UTC);
    }

    #[test]
    fn every_zone_name_is_plain_ascii() {
        let names: Vec<_> = TimeZone::all().map(TimeZone::name).collect();
        assert!(names.len() > 300);
        assert!(names.iter().all(|n| n
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/_+-".contains(c))));
    }

    #[test]
    fn a_set_clock_stands_until_set_again() {
        let t = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
        let clock = SetClock::at(t);
        assert_eq!(clock.now(), t);
        clock.set(t + chrono::Duration::hours(5));
        assert_eq!(clock.now(), t + chrono::Duration::hours(5));
    }
}
