//! What the storage port of online payments (`ports::GatewayRepository`) takes and answers:
//! checkouts as recorded, what a gateway's report came to, and the refund a gateway is asked.

use super::{CheckoutStatus, GatewayKind};
use crate::currency::Currency;
use crate::money::Money;
use crate::payment::{Payment, PaymentId};
use crate::tenant::Scope;

/// A checkout this service opened, as it keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckoutRecord {
    pub session_id: String,
    pub url: Option<String>,
    pub amount: Money,
    pub currency: Currency,
    pub status: CheckoutStatus,
}

/// A checkout still open that the sweep asks the gateway about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenCheckout {
    pub scope: Scope,
    pub kind: GatewayKind,
    pub session_id: String,
}

/// What recording a gateway's report did.
#[derive(Clone, Debug, PartialEq)]
pub enum Recorded {
    /// A payment was recorded now.
    Paid(Payment),
    /// The payment was recorded before (by another report of the same payment).
    AlreadyPaid(Payment),
    /// The checkout's state was kept; no money moved (open, expired, pending, failed).
    Unpaid(CheckoutStatus),
    /// The report does not fit what this service opened (unknown session, another tenant's
    /// invoice, another amount or currency): nothing changed.
    Ignored(&'static str),
    /// Kept something other than a payment (a refund's state, a failed delayed payment, an
    /// event this service does not act on).
    Noted,
    /// The notification was handled before.
    Duplicate,
}

/// A refund prepared in storage before the gateway is asked for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefundPlan {
    pub refund_id: super::RefundId,
    pub payment_id: PaymentId,
    pub amount: Money,
    pub currency: Currency,
    pub reason: Option<String>,
    /// Sent to the gateway: a retry of the same refund never returns money twice.
    pub idempotency_key: String,
    /// The gateway to ask and the payment's id there; `None`: paid back by hand, done.
    pub gateway: Option<(GatewayKind, String)>,
}

impl RefundPlan {
    /// What the gateway is asked, when a gateway makes this refund.
    pub fn request(&self) -> Option<(GatewayKind, super::RefundRequest)> {
        let (kind, reference) = self.gateway.clone()?;
        Some((
            kind,
            super::RefundRequest {
                payment_reference: reference,
                amount: self.amount,
                currency: self.currency,
                reason: self.reason.clone(),
                idempotency_key: self.idempotency_key.clone(),
            },
        ))
    }
}

pub use crate::payment_proof::ProofFile;
