//! What invoices and quotations share: line items and their amounts, document numbers, payment
//! terms, dates and the customer a document names. Parsed here once for both.

use crate::customer::{CustomerId, CustomerInput, NewCustomer};
use crate::validation::{Problem, Violations};
use chrono::{Duration, NaiveDate};
use std::fmt;

pub use crate::document_lines::{
    LineDraft, LineDrafts, LineItem, LineItemInput, LineItemView, Lines, ProductLine,
};

pub use crate::document_lines::MAX_LINES;
pub use crate::product::DESCRIPTION_MAX;
pub use crate::validation::parse_currency;
pub const NOTES_MAX: usize = 5000;

/// `due_on_receipt` or `net_N` (0 ≤ N ≤ 365).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaymentTerms {
    DueOnReceipt,
    Net(u16),
}

impl PaymentTerms {
    pub const DEFAULT: PaymentTerms = PaymentTerms::Net(30);

    pub fn parse(s: &str) -> Option<PaymentTerms> {
        if s == "due_on_receipt" {
            return Some(PaymentTerms::DueOnReceipt);
        }
        let days = s.strip_prefix("net_")?;
        if days.is_empty() || days.len() > 3 || !days.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        days.parse::<u16>()
            .ok()
            .filter(|d| *d <= 365)
            .map(PaymentTerms::Net)
    }

    pub fn due_date(self, issue: NaiveDate) -> NaiveDate {
        match self {
            PaymentTerms::DueOnReceipt => issue,
            PaymentTerms::Net(days) => issue + Duration::days(i64::from(days)),
        }
    }
}

impl fmt::Display for PaymentTerms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PaymentTerms::DueOnReceipt => f.write_str("due_on_receipt"),
            PaymentTerms::Net(days) => write!(f, "net_{days}"),
        }
    }
}

/// The kind of a numbered document, which picks its prefix and counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DocumentKind {
    Invoice,
    Quotation,
    CreditNote,
    /// The lines a recurring schedule copies into each invoice; never numbered.
    RecurringInvoice,
}

impl DocumentKind {
    pub fn prefix(self) -> &'static str {
        match self {
            DocumentKind::Invoice => "INV",
            DocumentKind::Quotation => "QUO",
            DocumentKind::CreditNote => "CN",
            DocumentKind::RecurringInvoice => "REC",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            DocumentKind::Invoice => "invoice",
            DocumentKind::Quotation => "quotation",
            DocumentKind::CreditNote => "credit_note",
            DocumentKind::RecurringInvoice => "recurring_invoice",
        }
    }
}

/// `INV-2026-000042`: the sequence is zero-padded to at least six digits.
pub fn document_number(kind: DocumentKind, year: i32, seq: i64) -> String {
    format!("{}-{year}-{seq:06}", kind.prefix())
}

/// A `YYYY-MM-DD` date field.
pub fn parse_date(v: &mut Violations, param: &str, raw: Option<String>) -> Option<NaiveDate> {
    let raw = raw?;
    let valid = raw.len() == 10 && raw.as_bytes()[4] == b'-' && raw.as_bytes()[7] == b'-';
    match NaiveDate::parse_from_str(&raw, "%Y-%m-%d") {
        Ok(d) if valid => Some(d),
        _ => {
            v.push(param, Problem::Date("must be a date as YYYY-MM-DD"));
            None
        }
    }
}

/// The customer a new document is for: an existing one, or one found or created by email.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CustomerRef {
    Existing(CustomerId),
    Inline(Box<NewCustomer>),
}

pub fn parse_customer_ref(
    v: &mut Violations,
    customer_id: Option<i64>,
    customer: Option<CustomerInput>,
) -> Option<CustomerRef> {
    match (customer_id, customer) {
        (Some(_), Some(_)) => {
            v.push(
                "customer",
                Problem::NotBoth("give customer_id or customer, not both"),
            );
            None
        }
        (None, None) => {
            v.push("customer_id", "is required (or give an inline customer)");
            None
        }
        (Some(id), None) if id <= 0 => {
            v.push(
                "customer_id",
                crate::validation::Problem::NotPositiveInteger,
            );
            None
        }
        (Some(id), None) => Some(CustomerRef::Existing(CustomerId(id))),
        (None, Some(input)) => match input.parse() {
            Ok(c) => Some(CustomerRef::Inline(Box::new(c))),
            Err(errs) => {
                v.extend_prefixed("customer", errs);
                None
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_and_numbers() {
        let d = NaiveDate::from_ymd_opt(2026, 1, 31).unwrap();
        assert_eq!(
            PaymentTerms::parse("net_30")
                .unwrap()
                .due_date(d)
                .to_string(),
            "2026-03-02"
        );
        assert_eq!(
            PaymentTerms::parse("due_on_receipt").unwrap().due_date(d),
            d
        );
        assert_eq!(PaymentTerms::parse("net_0"), Some(PaymentTerms::Net(0)));
        for bad in ["net_366", "net_", "net_-1", "net30", "net_1x", "NET_30"] {
            assert_eq!(PaymentTerms::parse(bad), None, "{bad}");
        }
        assert_eq!(PaymentTerms::Net(14).to_string(), "net_14");
        assert_eq!(
            document_number(DocumentKind::Invoice, 2026, 42),
            "INV-2026-000042"
        );
        assert_eq!(
            document_number(DocumentKind::Quotation, 2026, 1_234_567),
            "QUO-2026-1234567"
        );
    }

    #[test]
    fn dates_are_strict() {
        let mut v = Violations::new();
        assert!(parse_date(&mut v, "d", Some("2026-02-28".into())).is_some());
        for bad in [
            "2026-02-30",
            "2026-2-1",
            "26-02-01",
            "2026/02/01",
            "tomorrow",
        ] {
            assert!(parse_date(&mut v, "d", Some(bad.into())).is_none(), "{bad}");
        }
    }
}
