//! Credit notes (SPEC §19): what a credit may take from an invoice, how a gross amount is split
//! over the invoice's tax rates, and what the invoice becomes once its amount due reaches zero.
//! Invoices are never edited once sent (SPEC §9); a credit note is how one is corrected.

mod input;
mod split;
#[cfg(test)]
mod tests;
mod view;

pub use input::{CreditContent, CreditNoteInput, NewCreditNote, MEMO_MAX};
pub use split::{split_gross, RateShare, SplitLine};
pub use view::{CreditNote, CreditNoteFilter, CreditNoteId, PublicCreditNote};

use crate::invoice_status::InvoiceStatus;
pub use crate::payment_amount::InvoiceBalance;
use serde::{Deserialize, Serialize};

/// Why a credit note was issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum CreditReason {
    Duplicate,
    OrderChange,
    ProductUnsatisfactory,
    Fraudulent,
    Other,
}

impl CreditReason {
    pub const ALL: [CreditReason; 5] = [
        CreditReason::Duplicate,
        CreditReason::OrderChange,
        CreditReason::ProductUnsatisfactory,
        CreditReason::Fraudulent,
        CreditReason::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            CreditReason::Duplicate => "duplicate",
            CreditReason::OrderChange => "order_change",
            CreditReason::ProductUnsatisfactory => "product_unsatisfactory",
            CreditReason::Fraudulent => "fraudulent",
            CreditReason::Other => "other",
        }
    }

    pub fn parse(s: &str) -> Option<CreditReason> {
        CreditReason::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

/// SPEC §13: the balance's amount due while open; zero once paid or cancelled.
pub fn amount_due(status: InvoiceStatus, balance: InvoiceBalance) -> i64 {
    match status {
        InvoiceStatus::Paid | InvoiceStatus::Cancelled => 0,
        _ => balance.due().minor(),
    }
}

/// Why a credit is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CreditError {
    /// 409: only sent, viewed, overdue or paid invoices are credited.
    #[error("a {0} invoice cannot be credited: only sent, viewed, overdue or paid ones")]
    NotCreditable(InvoiceStatus),
    /// 422: nothing or a negative amount.
    #[error("must be more than zero")]
    NotPositive,
    /// 422: more than the invoice has left to credit.
    #[error("exceeds what the invoice has left to credit ({left})")]
    Exceeds { left: i64 },
}

/// What issuing a credit of `amount` does to the invoice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CreditEffect {
    /// The part of the credit larger than the amount due just before it: money already paid.
    pub refund_due: i64,
    /// The invoice's new status, when the credit brings an open invoice's amount due to zero:
    /// paid if verified payments settled the rest, else cancelled (never a receipt for a credit).
    pub new_status: Option<InvoiceStatus>,
}

/// Checks a credit of `amount` against an invoice in `status` with `balance`, and says what it
/// does.
pub fn apply_credit(
    status: InvoiceStatus,
    balance: InvoiceBalance,
    amount: i64,
) -> Result<CreditEffect, CreditError> {
    let creditable = matches!(
        status,
        InvoiceStatus::Sent | InvoiceStatus::Viewed | InvoiceStatus::Overdue | InvoiceStatus::Paid
    );
    if !creditable {
        return Err(CreditError::NotCreditable(status));
    }
    if amount <= 0 {
        return Err(CreditError::NotPositive);
    }
    let left = balance.creditable().minor();
    if amount > left {
        return Err(CreditError::Exceeds { left });
    }
    let due_before = amount_due(status, balance);
    let after = balance
        .with_credited(balance.credited().minor() + amount)
        .map_err(|_| CreditError::Exceeds { left })?;
    let new_status =
        (status.is_open() && after.due().minor() == 0).then_some(if balance.paid().minor() > 0 {
            InvoiceStatus::Paid
        } else {
            InvoiceStatus::Cancelled
        });
    Ok(CreditEffect {
        refund_due: (amount - due_before).max(0),
        new_status,
    })
}
