//! The body of `POST /api/v1/invoices/{id}/credit_notes`, parsed once into what storage needs.

use super::CreditReason;
use crate::document::LineDrafts;
use crate::document_lines::LineItemInput;
use crate::einvoice::parse_reference;
use crate::email::EmailInput;
use crate::money::{Money, MAX_AMOUNT};
use crate::supply::{ServicePeriodInput, Supply};
use crate::validation::{optional_text, Violations};
use serde::Deserialize;

pub const MEMO_MAX: usize = 2000;

#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CreditNoteInput {
    /// duplicate, order_change, product_unsatisfactory, fraudulent or other.
    #[cfg_attr(feature = "openapi", schema(value_type = CreditReason))]
    pub reason: Option<String>,
    /// Shown on the credit note.
    pub memo: Option<String>,
    /// The lines credited (as on an invoice); or give `amount_cents`; neither credits all that
    /// is left to credit.
    pub line_items: Option<Vec<LineItemInput>>,
    /// A gross amount (tax included), split over the invoice's tax rates.
    pub amount_cents: Option<i64>,
    /// Email the credit note to the customer too (SPEC §18).
    pub email: Option<EmailInput>,
    /// YYYY-MM-DD: the day of the supply credited (BT-72); or give `service_period`. Neither:
    /// the invoice's.
    pub delivery_date: Option<String>,
    /// The days of the services credited (BG-14).
    pub service_period: Option<ServicePeriodInput>,
    /// The buyer's reference (BT-10) the credit note quotes; absent or blank, the invoice's.
    /// Peppol wants it or `purchase_order` on every credit note.
    pub buyer_reference: Option<String>,
    /// The buyer's purchase order (BT-13); absent or blank, the invoice's.
    pub purchase_order: Option<String>,
    /// Refund its `refund_due_cents` at once (SPEC §25) from the invoice's payments, newest
    /// first (a card payment through Stripe); needs `payments:write` too.
    pub refund: Option<bool>,
}

/// What is credited.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CreditContent {
    /// All that is left to credit, split over the invoice's tax rates.
    Remaining,
    /// A gross amount, split over the invoice's tax rates.
    Amount(Money),
    Lines(LineDrafts),
}

/// A valid credit note request; its `email` is checked by the caller (it depends on whether
/// the server sends mail).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewCreditNote {
    pub reason: CreditReason,
    pub memo: Option<String>,
    pub content: CreditContent,
    /// When the supply credited was made; `None` takes the invoice's.
    pub supply: Option<Supply>,
    /// The buyer's references it quotes; `None` takes the invoice's.
    pub buyer_reference: Option<String>,
    pub purchase_order: Option<String>,
}

impl CreditNoteInput {
    /// The request and its raw `email` object.
    pub fn parse(self) -> Result<(NewCreditNote, Option<EmailInput>), Violations> {
        let mut v = Violations::new();
        let reason = match self.reason.as_deref() {
            None => {
                v.push("reason", crate::validation::Problem::Required);
                None
            }
            Some(r) => CreditReason::parse(r).or_else(|| {
                v.push(
                    "reason",
                    "must be one of duplicate, order_change, product_unsatisfactory, fraudulent, other",
                );
                None
            }),
        };
        let memo = optional_text(&mut v, "memo", self.memo, MEMO_MAX);
        let supply = Supply::parse(&mut v, self.delivery_date, self.service_period);
        let buyer_reference = parse_reference(&mut v, "buyer_reference", self.buyer_reference);
        let purchase_order = parse_reference(&mut v, "purchase_order", self.purchase_order);
        let content = match (self.line_items, self.amount_cents) {
            (Some(_), Some(_)) => {
                v.push("amount_cents", "give line_items or amount_cents, not both");
                None
            }
            (Some(items), None) => LineDrafts::parse(&mut v, Some(items)).map(CreditContent::Lines),
            (None, Some(a)) if (1..=MAX_AMOUNT).contains(&a) => {
                Money::new(a).ok().map(CreditContent::Amount)
            }
            (None, Some(_)) => {
                v.push("amount_cents", format!("must be from 1 to {MAX_AMOUNT}"));
                None
            }
            (None, None) => Some(CreditContent::Remaining),
        };
        match (reason, content) {
            (Some(reason), Some(content)) if v.is_empty() => Ok((
                NewCreditNote {
                    reason,
                    memo,
                    content,
                    supply,
                    buyer_reference,
                    purchase_order,
                },
                self.email,
            )),
            _ => Err(v),
        }
    }
}
