//! Recurring invoices (SPEC §20): when each period's invoice is issued, and the schedule's
//! lifecycle. Dates are computed from the start date each time, never from the previous period,
//! so a month-end schedule keeps its day (Jan 31 → Feb 28 → Mar 31) and no period is skipped or
//! repeated.

mod input;
mod status;
#[cfg(test)]
mod tests;
mod view;

pub use input::{
    NewRecurring, RecurringInput, RecurringPatch, RecurringPatchInput, MAX_OCCURRENCES,
};
pub use status::{RecurringStatus, RecurringTransitionError};
pub use view::{RecurringFilter, RecurringId, RecurringInvoice};

use chrono::{Days, Months, NaiveDate};
use serde::{Deserialize, Serialize};

pub const MAX_INTERVAL_COUNT: u32 = 52;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Interval {
    Week,
    Month,
    Year,
}

impl Interval {
    pub fn as_str(self) -> &'static str {
        match self {
            Interval::Week => "week",
            Interval::Month => "month",
            Interval::Year => "year",
        }
    }

    pub fn parse(s: &str) -> Option<Interval> {
        [Interval::Week, Interval::Month, Interval::Year]
            .into_iter()
            .find(|i| i.as_str() == s)
    }
}

/// Every `count` weeks, months or years from `start`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cadence {
    interval: Interval,
    count: u32,
    start: NaiveDate,
}

/// When a schedule stops issuing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Never,
    /// No period after this date.
    Date(NaiveDate),
    /// This many invoices in all.
    Occurrences(u32),
}

impl Cadence {
    pub fn interval(&self) -> Interval {
        self.interval
    }

    pub fn count(&self) -> u32 {
        self.count
    }

    /// `None` unless `1 ≤ count ≤ 52`.
    pub fn new(interval: Interval, count: u32, start: NaiveDate) -> Option<Cadence> {
        (1..=MAX_INTERVAL_COUNT)
            .contains(&count)
            .then_some(Cadence {
                interval,
                count,
                start,
            })
    }

    pub fn start(&self) -> NaiveDate {
        self.start
    }

    /// The date of period `n` (the first is 0); `None` past the calendar's end. Months add to
    /// the start date and clamp to the month's last day (chrono's `checked_add_months`).
    pub fn period(&self, n: u32) -> Option<NaiveDate> {
        let steps = n.checked_mul(self.count)?;
        match self.interval {
            Interval::Week => self
                .start
                .checked_add_days(Days::new(u64::from(steps).checked_mul(7)?)),
            Interval::Month => self.start.checked_add_months(Months::new(steps)),
            Interval::Year => self
                .start
                .checked_add_months(Months::new(steps.checked_mul(12)?)),
        }
    }

    /// The first period on or after `day`: its number and date.
    pub fn first_on_or_after(&self, day: NaiveDate) -> Option<(u32, NaiveDate)> {
        if day <= self.start {
            return Some((0, self.start));
        }
        // An estimate from the elapsed days, then a few steps to the exact period.
        let elapsed = (day - self.start).num_days();
        let per = match self.interval {
            Interval::Week => 7,
            Interval::Month => 31,
            Interval::Year => 366,
        } * i64::from(self.count);
        let mut n = u32::try_from(elapsed / per).ok()?;
        while n > 0 && self.period(n)? >= day {
            n -= 1;
        }
        loop {
            let date = self.period(n)?;
            if date >= day {
                return Some((n, date));
            }
            n = n.checked_add(1)?;
        }
    }

    /// Whether period `n` (on `date`) is within the schedule's end.
    pub fn within(end: End, n: u32, date: NaiveDate) -> bool {
        match end {
            End::Never => true,
            End::Date(last) => date <= last,
            End::Occurrences(total) => n < total,
        }
    }

    /// The periods from number `next` whose day has come by `today` and that the end allows,
    /// oldest first: what a sweep issues (after downtime, each with its own date).
    pub fn due(&self, end: End, next: u32, today: NaiveDate) -> Vec<(u32, NaiveDate)> {
        let mut out = Vec::new();
        let mut n = next;
        while let Some(date) = self.period(n) {
            if date > today || !Cadence::within(end, n, date) {
                break;
            }
            out.push((n, date));
            match n.checked_add(1) {
                Some(next) => n = next,
                None => break,
            }
        }
        out
    }
}
