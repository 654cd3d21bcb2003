//! Refunds of payments (SPEC §25): what a payment may return is what the customer paid beyond
//! what they owe (an overpayment, or what a credit note made due), so the books never lose income
//! to a refund: credit first, then refund.

use crate::money::{Money, MAX_AMOUNT};
use crate::validation::{optional_text, Violations};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::fmt;

pub const REASON_MAX: usize = 500;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RefundId(pub i64);

impl fmt::Display for RefundId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum RefundStatus {
    /// Asked of the gateway, not yet done.
    Pending,
    Succeeded,
    Failed,
}

impl RefundStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RefundStatus::Pending => "pending",
            RefundStatus::Succeeded => "succeeded",
            RefundStatus::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<RefundStatus> {
        [Self::Pending, Self::Succeeded, Self::Failed]
            .into_iter()
            .find(|r| r.as_str() == s)
    }

    /// Whether the money counts as returned (or on its way back): a failed refund gives it
    /// back to what may still be refunded.
    pub fn holds_amount(self) -> bool {
        self != RefundStatus::Failed
    }
}

/// The body of `POST /api/v1/payments/{id}/refunds`.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RefundInput {
    /// Minor units; default all that is refundable.
    pub amount_cents: Option<i64>,
    /// Why, up to 500 characters (shown to the merchant; kept in the Stripe refund's metadata).
    pub reason: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewRefund {
    /// `None`: all that is refundable.
    pub amount: Option<Money>,
    pub reason: Option<String>,
}

impl RefundInput {
    pub fn parse(self) -> Result<NewRefund, Violations> {
        let mut v = Violations::new();
        let amount = match self.amount_cents {
            None => None,
            Some(a) if a > 0 && a <= MAX_AMOUNT => Money::new(a).ok(),
            Some(_) => {
                v.push("amount_cents", "must be an integer of minor units, > 0");
                None
            }
        };
        let reason = optional_text(&mut v, "reason", self.reason, REASON_MAX);
        v.finish(|| NewRefund { amount, reason })
    }
}

/// A refund as a payment's `refunds[]` shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Refund {
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub id: RefundId,
    pub amount_cents: i64,
    pub status: RefundStatus,
    pub reason: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// How much of a payment may be refunded: at most what it brought that is not refunded yet,
/// and at most what the invoice holds beyond what it is owed (`overpaid`).
pub fn refundable(payment_amount: Money, already_refunded: Money, overpaid: Money) -> Money {
    let left = payment_amount
        .checked_sub(already_refunded)
        .ok()
        .filter(|m| !m.is_negative())
        .unwrap_or(Money::ZERO);
    if left.minor() < overpaid.minor() {
        left
    } else {
        overpaid
    }
}
