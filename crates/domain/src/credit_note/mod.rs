//! Credit notes (SPEC §19): what a credit may take from an invoice, how a gross amount is split
//! over the invoice's tax rates, and what the invoice becomes once its amount due reaches zero.
//! Invoices are never edited once sent (SPEC §9); a credit note is how one is corrected.

mod split;
#[cfg(test)]
mod tests;

pub use split::{split_gross, RateShare, SplitLine};

use crate::invoice_status::InvoiceStatus;
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

/// An invoice's figures as a credit sees them, in minor units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvoiceBalance {
    pub status: InvoiceStatus,
    pub total: i64,
    /// Verified payments.
    pub paid: i64,
    /// Credit notes issued before this one.
    pub credited: i64,
}

impl InvoiceBalance {
    /// What is left to credit: the total less what earlier credit notes took.
    pub fn creditable(self) -> i64 {
        (self.total - self.credited).max(0)
    }

    /// SPEC §13: total − paid − credited while open, never negative; zero once paid or
    /// cancelled.
    pub fn amount_due(self) -> i64 {
        match self.status {
            InvoiceStatus::Paid | InvoiceStatus::Cancelled => 0,
            _ => (self.total - self.paid - self.credited).max(0),
        }
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

/// Checks a credit of `amount` against the invoice and says what it does.
pub fn apply_credit(balance: InvoiceBalance, amount: i64) -> Result<CreditEffect, CreditError> {
    let creditable = matches!(
        balance.status,
        InvoiceStatus::Sent | InvoiceStatus::Viewed | InvoiceStatus::Overdue | InvoiceStatus::Paid
    );
    if !creditable {
        return Err(CreditError::NotCreditable(balance.status));
    }
    if amount <= 0 {
        return Err(CreditError::NotPositive);
    }
    let left = balance.creditable();
    if amount > left {
        return Err(CreditError::Exceeds { left });
    }
    let due_before = balance.amount_due();
    let after = InvoiceBalance {
        credited: balance.credited + amount,
        ..balance
    };
    let new_status =
        (balance.status.is_open() && after.amount_due() == 0).then_some(if balance.paid > 0 {
            InvoiceStatus::Paid
        } else {
            InvoiceStatus::Cancelled
        });
    Ok(CreditEffect {
        refund_due: (amount - due_before).max(0),
        new_status,
    })
}
