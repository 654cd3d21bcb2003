//! Reports (SPEC §22): the rules that decide which sum a figure belongs to. Aging puts what an
//! open invoice still owes in a bucket by days past due; revenue and tax count calendar periods
//! in UTC. Storage does the summing over the stored integers (§7), in one statement per report;
//! nothing here is ever rounded.

pub mod books;
mod statement;

pub use statement::{
    running_balance, statement_reference, CustomerStatement, StatementEntry, StatementEntryKind,
    StatementItem, StatementShown,
};

use crate::currency::Currency;
use crate::einvoice::TaxCategory;
use crate::validation::{Problem, Violations};
use chrono::{Datelike, Days, Months, NaiveDate};
use serde::Serialize;

/// Where an open invoice's amount due falls at a day: by days past its due date.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Bucket {
    /// Not yet due (due today included).
    Current,
    Days1To30,
    Days31To60,
    Days61To90,
    Over90,
}

impl Bucket {
    pub const ALL: [Bucket; 5] = [
        Bucket::Current,
        Bucket::Days1To30,
        Bucket::Days31To60,
        Bucket::Days61To90,
        Bucket::Over90,
    ];

    pub fn of(due: NaiveDate, as_of: NaiveDate) -> Bucket {
        let late = (as_of - due).num_days();
        match late {
            i64::MIN..=0 => Bucket::Current,
            1..=30 => Bucket::Days1To30,
            31..=60 => Bucket::Days31To60,
            61..=90 => Bucket::Days61To90,
            _ => Bucket::Over90,
        }
    }

    /// SPEC §22's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Bucket::Current => "current",
            Bucket::Days1To30 => "1_30",
            Bucket::Days31To60 => "31_60",
            Bucket::Days61To90 => "61_90",
            Bucket::Over90 => "over_90",
        }
    }
}

/// The earliest due date of each bucket at `as_of`, for storage's one `GROUP BY`: an invoice
/// due on or after `current` is current, on or after `days_1_30` is 1–30 days late, and so on;
/// earlier than `days_61_90` is over 90.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgingEdges {
    pub current: NaiveDate,
    pub days_1_30: NaiveDate,
    pub days_31_60: NaiveDate,
    pub days_61_90: NaiveDate,
}

impl AgingEdges {
    pub fn at(as_of: NaiveDate) -> AgingEdges {
        let back = |n: u64| {
            as_of
                .checked_sub_days(Days::new(n))
                .unwrap_or(NaiveDate::MIN)
        };
        AgingEdges {
            current: as_of,
            days_1_30: back(30),
            days_31_60: back(60),
            days_61_90: back(90),
        }
    }
}

/// What is owed in one currency, by bucket, in minor units.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AgingAmounts {
    /// Not yet due.
    pub current: i64,
    #[serde(rename = "1_30")]
    pub days_1_30: i64,
    #[serde(rename = "31_60")]
    pub days_31_60: i64,
    #[serde(rename = "61_90")]
    pub days_61_90: i64,
    pub over_90: i64,
    /// The sum of the buckets: the open invoices' `amount_due_cents`.
    pub total: i64,
}

impl AgingAmounts {
    pub fn add(&mut self, bucket: Bucket, minor: i64) {
        let slot = match bucket {
            Bucket::Current => &mut self.current,
            Bucket::Days1To30 => &mut self.days_1_30,
            Bucket::Days31To60 => &mut self.days_31_60,
            Bucket::Days61To90 => &mut self.days_61_90,
            Bucket::Over90 => &mut self.over_90,
        };
        *slot += minor;
        self.total += minor;
    }
}

/// The aging of one currency's open invoices, all customers together.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AgingByCurrency {
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "EUR"))]
    pub currency: Currency,
    /// Amounts in the currency's minor units.
    pub amounts: AgingAmounts,
}

/// One customer's aging in one currency.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AgingByCustomer {
    pub customer_id: i64,
    pub customer_name: String,
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "EUR"))]
    pub currency: Currency,
    pub amounts: AgingAmounts,
}

/// A calendar period's length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum ReportInterval {
    Month,
    Quarter,
    Year,
}

impl ReportInterval {
    pub fn parse(text: &str) -> Option<ReportInterval> {
        match text {
            "month" => Some(ReportInterval::Month),
            "quarter" => Some(ReportInterval::Quarter),
            "year" => Some(ReportInterval::Year),
            _ => None,
        }
    }

    fn months(self) -> u32 {
        match self {
            ReportInterval::Month => 1,
            ReportInterval::Quarter => 3,
            ReportInterval::Year => 12,
        }
    }

    /// The first day of the period `day` falls in.
    pub fn start_of(self, day: NaiveDate) -> NaiveDate {
        let month0 = day.month0() - day.month0() % self.months();
        NaiveDate::from_ymd_opt(day.year(), month0 + 1, 1).unwrap_or(day)
    }

    /// The first day after the period that starts on `start`.
    pub fn end_of(self, start: NaiveDate) -> NaiveDate {
        start
            .checked_add_months(Months::new(self.months()))
            .unwrap_or(NaiveDate::MAX)
    }

    /// The periods from the one `from` falls in to the one `to` falls in, each as its first
    /// day and the first day after it.
    pub fn periods(self, from: NaiveDate, to: NaiveDate) -> Vec<(NaiveDate, NaiveDate)> {
        let mut out = Vec::new();
        let mut start = self.start_of(from);
        while start <= to {
            let end = self.end_of(start);
            out.push((start, end));
            start = end;
        }
        out
    }
}

/// A report's days, both included: `from` and `to` as `YYYY-MM-DD`, `from` never after `to`
/// (SPEC §22: a mistake, not an empty range).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DateRange {
    pub from: NaiveDate,
    pub to: NaiveDate,
}

impl DateRange {
    pub fn parse(from: Option<&str>, to: Option<&str>) -> Result<DateRange, Violations> {
        let mut v = Violations::new();
        let mut day = |param: &str, text: Option<&str>| match text {
            None => {
                v.push(
                    param,
                    Problem::DateRequired("is required: a date such as 2026-01-31"),
                );
                None
            }
            Some(t) => NaiveDate::parse_from_str(t, "%Y-%m-%d").ok().or_else(|| {
                v.push(param, Problem::Date("must be a date such as 2026-01-31"));
                None
            }),
        };
        let (from, to) = (day("from", from), day("to", to));
        if !v.is_empty() {
            return Err(v);
        }
        match (from, to) {
            (Some(from), Some(to)) => DateRange::new(from, to),
            _ => Err(v),
        }
    }

    /// The days from `from` to `to`; refused on `from` when it comes after `to`.
    pub fn new(from: NaiveDate, to: NaiveDate) -> Result<DateRange, Violations> {
        if from > to {
            return Err(Violations::single(
                "from",
                format!("must not be after to ({to})"),
            ));
        }
        Ok(DateRange { from, to })
    }

    /// The first day after the range.
    pub fn end(self) -> NaiveDate {
        self.to.succ_opt().unwrap_or(NaiveDate::MAX)
    }
}

/// One currency's figures for one period (SPEC §22): what was invoiced, gross, and its tax, as
/// the books counted them (`books`: invoices on their issue date, less credit notes and voids on
/// their day), what was collected (payments verified in it), and what was still owed at its end.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RevenuePeriod {
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "EUR"))]
    pub currency: Currency,
    /// The period's first day.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Date))]
    pub period_start: NaiveDate,
    /// The period's last day.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Date))]
    pub period_end: NaiveDate,
    pub invoiced_cents: i64,
    pub tax_cents: i64,
    pub collected_cents: i64,
    pub outstanding_cents: i64,
}

/// One currency, tax rate and VAT category's figures over a range, as the books counted them
/// (`books`): invoices on their issue date, less credit notes and voids on their day (the
/// figures of one box of a VAT return).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TaxLine {
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "EUR"))]
    pub currency: Currency,
    /// The rate as a decimal string (`"19"`, `"7.5"`).
    pub tax_rate: String,
    /// The lines' VAT category (SPEC §23: `S` standard, `Z` zero rated, `E` exempt, `AE` reverse
    /// charge, `K` intra-community, `G` export, `O` outside the scope); `null` for 0 % lines that
    /// name none.
    pub tax_category: Option<TaxCategory>,
    pub taxable_cents: i64,
    pub tax_cents: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn buckets_at_their_edges() {
        let as_of = d("2026-06-30");
        for (days_late, bucket) in [
            (-5, Bucket::Current),
            (0, Bucket::Current),
            (1, Bucket::Days1To30),
            (30, Bucket::Days1To30),
            (31, Bucket::Days31To60),
            (60, Bucket::Days31To60),
            (61, Bucket::Days61To90),
            (90, Bucket::Days61To90),
            (91, Bucket::Over90),
        ] {
            let due = as_of - chrono::Duration::days(days_late);
            assert_eq!(Bucket::of(due, as_of), bucket, "{days_late} days late");
            // The edges storage compares with agree with the rule.
            let e = AgingEdges::at(as_of);
            let by_edges = if due >= e.current {
                Bucket::Current
            } else if due >= e.days_1_30 {
                Bucket::Days1To30
            } else if due >= e.days_31_60 {
                Bucket::Days31To60
            } else if due >= e.days_61_90 {
                Bucket::Days61To90
            } else {
                Bucket::Over90
            };
            assert_eq!(by_edges, bucket, "{days_late} days late, by edges");
        }
        let mut a = AgingAmounts::default();
        a.add(Bucket::Current, 100);
        a.add(Bucket::Over90, 50);
        assert_eq!((a.current, a.over_90, a.total), (100, 50, 150));
    }

    #[test]
    fn periods_are_calendar_periods() {
        let q = ReportInterval::Quarter.periods(d("2026-02-15"), d("2026-07-01"));
        assert_eq!(
            q,
            vec![
                (d("2026-01-01"), d("2026-04-01")),
                (d("2026-04-01"), d("2026-07-01")),
                (d("2026-07-01"), d("2026-10-01")),
            ]
        );
        assert_eq!(
            ReportInterval::Month
                .periods(d("2026-12-31"), d("2027-01-01"))
                .len(),
            2
        );
        assert_eq!(
            ReportInterval::Year.periods(d("2025-05-05"), d("2026-01-01")),
            vec![
                (d("2025-01-01"), d("2026-01-01")),
                (d("2026-01-01"), d("2027-01-01"))
            ]
        );
        assert_eq!(ReportInterval::parse("week"), None);
    }

    #[test]
    fn a_range_is_two_dates() {
        let r = DateRange::parse(Some("2026-01-01"), Some("2026-03-31")).unwrap();
        assert_eq!(r.end(), d("2026-04-01"));
        let params =
            |e: Violations| -> Vec<String> { e.errors().iter().map(|f| f.param.clone()).collect() };
        assert_eq!(
            params(DateRange::parse(None, Some("x")).unwrap_err()),
            ["from", "to"]
        );
        assert_eq!(
            params(DateRange::parse(Some("2026-13-01"), Some("2026-01-01")).unwrap_err()),
            ["from"]
        );
        assert_eq!(
            params(DateRange::parse(Some("2026-02-01"), Some("2026-01-01")).unwrap_err()),
            ["from"]
        );
        assert!(DateRange::parse(Some("2026-02-01"), Some("2026-02-01")).is_ok());
    }
}
