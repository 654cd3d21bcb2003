//! The body of `POST /api/v1/recurring_invoices`, parsed once (SPEC §20).

use super::{Cadence, End, Interval, MAX_INTERVAL_COUNT};
use crate::currency::Currency;
use crate::customer::CustomerInput;
use crate::document::{
    parse_currency, parse_customer_ref, parse_date, CustomerRef, LineDrafts, PaymentTerms,
    NOTES_MAX,
};
use crate::document_lines::LineItemInput;
use crate::invoice::parse_metadata;
use crate::validation::{optional_text, Metadata, Problem, Violations};
use chrono::NaiveDate;
use serde::Deserialize;
use std::collections::BTreeMap;

pub const MAX_OCCURRENCES: i64 = 1000;

#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RecurringInput {
    pub customer_id: Option<i64>,
    pub customer: Option<CustomerInput>,
    /// ISO 4217; default the account's currency.
    pub currency: Option<String>,
    pub line_items: Option<Vec<LineItemInput>>,
    #[cfg_attr(feature = "openapi", schema(value_type = Interval))]
    pub interval: Option<String>,
    /// 1 to 52, default 1.
    pub interval_count: Option<i64>,
    /// YYYY-MM-DD, today or later: the first invoice's issue date.
    pub start_date: Option<String>,
    /// No invoice after this date; or give `occurrences`.
    pub end_date: Option<String>,
    /// How many invoices in all.
    pub occurrences: Option<i64>,
    /// `due_on_receipt` or `net_N`; default `net_30`.
    pub payment_terms: Option<String>,
    pub notes: Option<String>,
    pub metadata: Option<BTreeMap<String, String>>,
    /// Send each invoice as it is issued.
    pub auto_send: Option<bool>,
    /// With `auto_send`, email each invoice too (SPEC §18).
    pub email: Option<bool>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewRecurring {
    pub customer: CustomerRef,
    pub currency: Option<Currency>,
    pub lines: LineDrafts,
    pub cadence: Cadence,
    pub end: End,
    pub payment_terms: PaymentTerms,
    pub notes: Option<String>,
    pub metadata: Metadata,
    pub auto_send: bool,
    pub email: bool,
}

impl RecurringInput {
    /// `today` bounds the start date.
    pub fn parse(self, today: NaiveDate) -> Result<NewRecurring, Violations> {
        let mut v = Violations::new();
        let customer = parse_customer_ref(&mut v, self.customer_id, self.customer);
        let currency = parse_currency(&mut v, self.currency);
        let lines = LineDrafts::parse(&mut v, self.line_items);
        let interval = match self.interval.as_deref() {
            None => {
                v.push("interval", crate::validation::Problem::Required);
                None
            }
            Some(i) => Interval::parse(i).or_else(|| {
                v.push(
                    "interval",
                    Problem::OneOf("must be week, month or year".into()),
                );
                None
            }),
        };
        let count = self.interval_count.unwrap_or(1);
        if !(1..=i64::from(MAX_INTERVAL_COUNT)).contains(&count) {
            v.push(
                "interval_count",
                format!("must be from 1 to {MAX_INTERVAL_COUNT}"),
            );
        }
        let start = match self.start_date {
            None => {
                v.push("start_date", crate::validation::Problem::Required);
                None
            }
            raw => parse_date(&mut v, "start_date", raw),
        };
        if start.is_some_and(|s| s < today) {
            v.push("start_date", Problem::Past);
        }
        let end_date = parse_date(&mut v, "end_date", self.end_date);
        let end = match (end_date, self.occurrences) {
            (Some(_), Some(_)) => {
                v.push(
                    "occurrences",
                    Problem::NotBoth("give end_date or occurrences, not both"),
                );
                End::Never
            }
            (Some(d), None) => {
                if start.is_some_and(|s| d < s) {
                    v.push(
                        "end_date",
                        Problem::not_before("start_date", "must not be before start_date".into()),
                    );
                }
                End::Date(d)
            }
            (None, Some(n)) if (1..=MAX_OCCURRENCES).contains(&n) => {
                End::Occurrences(u32::try_from(n).unwrap_or(1))
            }
            (None, Some(_)) => {
                v.push(
                    "occurrences",
                    format!("must be from 1 to {MAX_OCCURRENCES}"),
                );
                End::Never
            }
            (None, None) => End::Never,
        };
        let payment_terms = match self.payment_terms.as_deref() {
            None => PaymentTerms::DEFAULT,
            Some(t) => PaymentTerms::parse(t).unwrap_or_else(|| {
                v.push(
                    "payment_terms",
                    "must be due_on_receipt or net_N with N from 0 to 365",
                );
                PaymentTerms::DEFAULT
            }),
        };
        let auto_send = self.auto_send.unwrap_or(false);
        let email = self.email.unwrap_or(false);
        if email && !auto_send {
            v.push(
                "email",
                "emails the invoices auto_send sends: set auto_send too",
            );
        }
        let notes = optional_text(&mut v, "notes", self.notes, NOTES_MAX);
        let metadata = parse_metadata(&mut v, self.metadata);
        let cadence = match (interval, start) {
            (Some(i), Some(s)) => Cadence::new(i, u32::try_from(count).unwrap_or(0), s),
            _ => None,
        };
        match (customer, lines, cadence, metadata) {
            (Some(customer), Some(lines), Some(cadence), Some(metadata)) if v.is_empty() => {
                Ok(NewRecurring {
                    customer,
                    currency,
                    lines,
                    cadence,
                    end,
                    payment_terms,
                    notes,
                    metadata,
                    auto_send,
                    email,
                })
            }
            _ => Err(v),
        }
    }
}

/// The body of `PATCH /api/v1/recurring_invoices/{id}`: absent fields stay; changes apply to
/// the invoices not yet issued. `null` clears `notes`, `end_date` and `occurrences`, resets
/// `metadata`, and is refused elsewhere.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RecurringPatchInput {
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<LineItemInput>))]
    pub line_items: Option<Option<Vec<LineItemInput>>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub payment_terms: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub notes: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<BTreeMap<String, String>>))]
    pub metadata: Option<Option<BTreeMap<String, String>>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub end_date: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<i64>))]
    pub occurrences: Option<Option<i64>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = bool))]
    pub auto_send: Option<Option<bool>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = bool))]
    pub email: Option<Option<bool>>,
}

/// A checked patch: `Some(None)` clears.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecurringPatch {
    pub lines: Option<LineDrafts>,
    pub payment_terms: Option<PaymentTerms>,
    pub notes: Option<Option<String>>,
    pub metadata: Option<Metadata>,
    /// `Some(End::Never)` clears the end.
    pub end: Option<End>,
    pub auto_send: Option<bool>,
    pub email: Option<bool>,
}

impl RecurringPatchInput {
    pub fn parse(self) -> Result<RecurringPatch, Violations> {
        use crate::validation::not_null;
        let mut v = Violations::new();
        let lines = not_null(&mut v, "line_items", self.line_items)
            .and_then(|items| LineDrafts::parse(&mut v, Some(items)));
        let payment_terms = not_null(&mut v, "payment_terms", self.payment_terms).and_then(|t| {
            PaymentTerms::parse(&t).or_else(|| {
                v.push(
                    "payment_terms",
                    "must be due_on_receipt or net_N with N from 0 to 365",
                );
                None
            })
        });
        let notes = self
            .notes
            .map(|n| optional_text(&mut v, "notes", n, NOTES_MAX));
        let metadata = self.metadata.and_then(|m| parse_metadata(&mut v, m));
        let end = match (self.end_date, self.occurrences) {
            (Some(Some(_)), Some(Some(_))) => {
                v.push(
                    "occurrences",
                    Problem::NotBoth("give end_date or occurrences, not both"),
                );
                None
            }
            (Some(Some(d)), _) => parse_date(&mut v, "end_date", Some(d)).map(End::Date),
            (_, Some(Some(n))) if (1..=MAX_OCCURRENCES).contains(&n) => {
                Some(End::Occurrences(u32::try_from(n).unwrap_or(1)))
            }
            (_, Some(Some(_))) => {
                v.push(
                    "occurrences",
                    format!("must be from 1 to {MAX_OCCURRENCES}"),
                );
                None
            }
            (Some(None), _) | (_, Some(None)) => Some(End::Never),
            (None, None) => None,
        };
        let auto_send = not_null(&mut v, "auto_send", self.auto_send);
        let email = not_null(&mut v, "email", self.email);
        v.finish(|| RecurringPatch {
            lines,
            payment_terms,
            notes,
            metadata,
            end,
            auto_send,
            email,
        })
    }
}
