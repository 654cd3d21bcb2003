//! What invoices and quotations share: line items and their amounts, document numbers, payment
//! terms, dates and the customer a document names. Parsed here once for both.

use crate::currency::Currency;
use crate::customer::{CustomerId, CustomerInput, NewCustomer};
use crate::decimal::{Quantity, TaxRate};
use crate::lines::{document_totals, line_amounts, DocumentTotals, LineAmounts, TotalsError};
use crate::money::Money;
use crate::validation::{required_text, Violations};
use chrono::{Duration, NaiveDate};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

pub const MAX_LINES: usize = 500;
pub const DESCRIPTION_MAX: usize = 1000;
pub const NOTES_MAX: usize = 5000;

/// One line as sent.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct LineItemInput {
    /// 1 to 1000 characters.
    pub description: Option<String>,
    /// A JSON number or decimal string, > 0, at most 3 decimals, at most 1 000 000.
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "1.5"))]
    pub quantity: Option<Value>,
    /// Minor units of the document's currency; negative for a discount line.
    pub unit_price_cents: Option<i64>,
    /// Percent, 0 to 100, at most 3 decimals; default 0.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "19"))]
    pub tax_rate: Option<Value>,
}

/// A valid line with its computed amounts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineItem {
    pub description: String,
    pub quantity: Quantity,
    pub unit_price: Money,
    pub tax_rate: TaxRate,
    pub amounts: LineAmounts,
}

/// Valid lines and the document totals computed from them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lines {
    pub items: Vec<LineItem>,
    pub totals: DocumentTotals,
}

fn parse_line(v: &mut Violations, at: &str, input: LineItemInput) -> Option<LineItem> {
    let description = required_text(
        v,
        &format!("{at}.description"),
        input.description,
        DESCRIPTION_MAX,
    );
    let quantity = match input.quantity {
        None | Some(Value::Null) => {
            v.push(format!("{at}.quantity"), "is required");
            None
        }
        Some(q) => Quantity::from_json(&q)
            .map_err(|e| v.push(format!("{at}.quantity"), e.to_string()))
            .ok(),
    };
    let unit_price = match input.unit_price_cents {
        None => {
            v.push(format!("{at}.unit_price_cents"), "is required");
            None
        }
        Some(p) => Money::new(p)
            .map_err(|e| v.push(format!("{at}.unit_price_cents"), e.to_string()))
            .ok(),
    };
    let tax_rate = match input.tax_rate {
        None | Some(Value::Null) => Some(TaxRate::ZERO),
        Some(t) => TaxRate::from_json(&t)
            .map_err(|e| v.push(format!("{at}.tax_rate"), e.to_string()))
            .ok(),
    };
    let (description, quantity, unit_price, tax_rate) =
        (description?, quantity?, unit_price?, tax_rate?);
    match line_amounts(quantity, unit_price, tax_rate) {
        Ok(amounts) => Some(LineItem {
            description,
            quantity,
            unit_price,
            tax_rate,
            amounts,
        }),
        Err(_) => {
            v.push(
                format!("{at}.unit_price_cents"),
                "makes the line amount exceed ±1000000000000000",
            );
            None
        }
    }
}

impl Lines {
    /// Parses 1 to 500 lines, reporting every failing field as `line_items[i].field`.
    pub fn parse(v: &mut Violations, inputs: Option<Vec<LineItemInput>>) -> Option<Lines> {
        let Some(inputs) = inputs else {
            v.push("line_items", "is required");
            return None;
        };
        if inputs.is_empty() || inputs.len() > MAX_LINES {
            v.push("line_items", format!("must have 1 to {MAX_LINES} items"));
            return None;
        }
        let before = v.errors().len();
        let items: Vec<LineItem> = inputs
            .into_iter()
            .enumerate()
            .filter_map(|(i, input)| parse_line(v, &format!("line_items[{i}]"), input))
            .collect();
        if v.errors().len() > before {
            return None;
        }
        match document_totals(items.iter().map(|l| &l.amounts)) {
            Ok(totals) => Some(Lines { items, totals }),
            Err(TotalsError::NegativeTotal) => {
                v.push("line_items", "the document total must not be negative");
                None
            }
            Err(TotalsError::Money(_)) => {
                v.push("line_items", "the document total exceeds ±1000000000000000");
                None
            }
        }
    }
}

/// A line as the API returns it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LineItemView {
    pub id: i64,
    pub description: String,
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "1.5"))]
    pub quantity: Quantity,
    pub unit_price_cents: i64,
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "19"))]
    pub tax_rate: TaxRate,
    pub subtotal_cents: i64,
    pub tax_cents: i64,
    pub total_cents: i64,
}

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
}

impl DocumentKind {
    pub fn prefix(self) -> &'static str {
        match self {
            DocumentKind::Invoice => "INV",
            DocumentKind::Quotation => "QUO",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            DocumentKind::Invoice => "invoice",
            DocumentKind::Quotation => "quotation",
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
            v.push(param, "must be a date as YYYY-MM-DD");
            None
        }
    }
}

pub fn parse_currency(v: &mut Violations, raw: Option<String>) -> Option<Currency> {
    let raw = raw?;
    Currency::parse(&raw)
        .map_err(|e| v.push("currency", e.to_string()))
        .ok()
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
            v.push("customer", "give customer_id or customer, not both");
            None
        }
        (None, None) => {
            v.push("customer_id", "is required (or give an inline customer)");
            None
        }
        (Some(id), None) if id <= 0 => {
            v.push("customer_id", "must be a positive integer");
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
    use serde_json::json;

    fn lines(value: Value) -> Result<Lines, Violations> {
        let inputs: Vec<LineItemInput> = serde_json::from_value(value).unwrap();
        let mut v = Violations::new();
        let parsed = Lines::parse(&mut v, Some(inputs));
        parsed.ok_or(v)
    }

    #[test]
    fn spec_example_totals() {
        let l = lines(json!([{"description": "Work", "quantity": 1.5, "unit_price_cents": 333, "tax_rate": 19}])).unwrap();
        assert_eq!(l.totals.subtotal.minor(), 500);
        assert_eq!(l.totals.tax.minor(), 95);
        assert_eq!(l.totals.total.minor(), 595);
    }

    #[test]
    fn every_failing_line_field_is_reported() {
        let err = lines(json!([
            {"description": "ok", "quantity": "1", "unit_price_cents": 100},
            {"description": "", "quantity": 0, "unit_price_cents": 100, "tax_rate": "101"},
            {"quantity": "1.0005"}
        ]))
        .unwrap_err();
        let params: Vec<_> = err.errors().iter().map(|e| e.param.as_str()).collect();
        assert_eq!(
            params,
            [
                "line_items[1].description",
                "line_items[1].quantity",
                "line_items[1].tax_rate",
                "line_items[2].description",
                "line_items[2].quantity",
                "line_items[2].unit_price_cents"
            ]
        );
    }

    #[test]
    fn negative_totals_and_overflow_are_refused() {
        let err =
            lines(json!([{"description": "discount", "quantity": 1, "unit_price_cents": -5}]))
                .unwrap_err();
        assert_eq!(err.errors()[0].param, "line_items");
        let err = lines(json!([{"description": "x", "quantity": 1000000, "unit_price_cents": 1_000_000_000_000_000i64}])).unwrap_err();
        assert_eq!(err.errors()[0].param, "line_items[0].unit_price_cents");
        let many: Vec<_> = (0..501)
            .map(|_| json!({"description": "x", "quantity": 1, "unit_price_cents": 1}))
            .collect();
        assert_eq!(
            lines(Value::Array(many)).unwrap_err().errors()[0].param,
            "line_items"
        );
        assert!(lines(json!([])).is_err());
    }

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
