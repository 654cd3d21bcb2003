//! A customer's statement (SPEC §22): what they owed when the range began, every invoice,
//! payment and credit note of the range with the balance after it, what they owe at its end,
//! and the aging of what is still due. The same value answers the JSON route, is printed and is
//! mailed.

use super::{AgingAmounts, DateRange};
use crate::currency::Currency;
use crate::customer::Customer;
use crate::parties::Parties;
use crate::profile::Logo;
use chrono::NaiveDate;
use serde::Serialize;

/// What a line of a customer's statement is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum StatementEntryKind {
    /// An invoice sent: owed more.
    Invoice,
    /// A payment verified: owed less.
    Payment,
    /// A credit note: owed less.
    CreditNote,
    /// An invoice cancelled after it was sent: what it still owed is owed no more.
    Cancellation,
    /// An invoice marked paid without a payment for all of it: the rest is owed no more.
    MarkedPaid,
}

/// A line of a statement, in date order, with the balance after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StatementEntry {
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Date))]
    pub date: NaiveDate,
    pub kind: StatementEntryKind,
    /// The document's id (the payment's, for a payment).
    pub id: i64,
    /// The invoice or credit note number, or the invoice's number for a payment, a
    /// cancellation or a marking as paid.
    pub number: String,
    /// What it adds to the balance: positive for an invoice, negative otherwise.
    pub amount_cents: i64,
    pub balance_cents: i64,
}

/// A statement's entries before the running balance is added: date, kind, id, number, amount.
pub type StatementItem = (NaiveDate, StatementEntryKind, i64, String, i64);

/// The entries in date order (invoices before payments and credit notes of the same day, then
/// by id), each with the balance after it, from `opening`.
pub fn running_balance(opening: i64, mut items: Vec<StatementItem>) -> Vec<StatementEntry> {
    items.sort_by_key(|(date, kind, id, _, _)| (*date, *kind as u8, *id));
    let mut balance = opening;
    items
        .into_iter()
        .map(|(date, kind, id, number, amount_cents)| {
            balance += amount_cents;
            StatementEntry {
                date,
                kind,
                id,
                number,
                amount_cents,
                balance_cents: balance,
            }
        })
        .collect()
}

/// `GET /api/v1/customers/{id}/statement`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CustomerStatement {
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "customer_statement"))]
    pub object: &'static str,
    pub customer_id: i64,
    pub customer_name: String,
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "EUR"))]
    pub currency: Currency,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Date))]
    pub from: NaiveDate,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Date))]
    pub to: NaiveDate,
    pub opening_balance_cents: i64,
    pub entries: Vec<StatementEntry>,
    pub closing_balance_cents: i64,
    /// What the customer owes today, by days past due.
    pub aging: AgingAmounts,
}

impl CustomerStatement {
    pub const OBJECT: &'static str = "customer_statement";

    /// The statement of `items` (in any order) from `opening`.
    pub fn new(
        customer: &Customer,
        currency: Currency,
        range: DateRange,
        opening: i64,
        items: Vec<StatementItem>,
        aging: AgingAmounts,
    ) -> CustomerStatement {
        let entries = running_balance(opening, items);
        let closing = entries.last().map_or(opening, |e| e.balance_cents);
        CustomerStatement {
            object: Self::OBJECT,
            customer_id: customer.id.0,
            customer_name: customer.name.clone(),
            currency,
            from: range.from,
            to: range.to,
            opening_balance_cents: opening,
            entries,
            closing_balance_cents: closing,
            aging,
        }
    }

    /// Its reference, printed on it and naming its file.
    pub fn reference(&self) -> String {
        statement_reference(self.customer_id, self.to)
    }
}

/// A statement's reference: the customer and the last day, `ST-42-20261130`.
pub fn statement_reference(customer_id: i64, to: NaiveDate) -> String {
    format!("ST-{customer_id}-{}", to.format("%Y%m%d"))
}

/// A statement with what its PDF and email show besides the figures: the merchant and the
/// customer as they are now (a statement is made when asked, never kept), and the logo.
#[derive(Clone, Debug)]
pub struct StatementShown {
    pub statement: CustomerStatement,
    pub parties: Parties,
    pub logo: Option<Logo>,
}

#[cfg(test)]
mod statement_tests {
    use super::*;

    #[test]
    fn a_statement_runs_its_balance_in_date_order() {
        let d = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
        let entries = running_balance(
            500,
            vec![
                (
                    d("2026-02-03"),
                    StatementEntryKind::Payment,
                    9,
                    "INV-1".into(),
                    -700,
                ),
                (
                    d("2026-02-01"),
                    StatementEntryKind::Invoice,
                    2,
                    "INV-2".into(),
                    1000,
                ),
                (
                    d("2026-02-03"),
                    StatementEntryKind::Invoice,
                    3,
                    "INV-3".into(),
                    200,
                ),
            ],
        );
        let balances: Vec<i64> = entries.iter().map(|e| e.balance_cents).collect();
        assert_eq!(balances, [1500, 1700, 1000]);
        assert_eq!(
            entries[1].number, "INV-3",
            "the invoice before the payment of its day"
        );
    }
}
