//! The storage port of online payments: connected gateways, the checkouts opened for invoices,
//! the one operation that records what a gateway says was paid (idempotent on the gateway's
//! payment id, whoever reports it), refunds and proof files.

use super::{
    Checkout, CheckoutStatus, GatewayKeys, GatewayKind, GatewayRefund, GatewaySettings, NewRefund,
    Notification,
};
use crate::currency::Currency;
use crate::invoice::InvoiceId;
use crate::money::Money;
use crate::payment::{Payment, PaymentId};
use crate::ports::RepoResult;
use crate::tenant::Scope;
use chrono::{DateTime, Utc};

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

pub trait GatewayRepository {
    /// Saves (or replaces) the environment's keys, sealed; a `None` webhook secret keeps the
    /// one saved before.
    fn save_gateway(
        &self,
        scope: Scope,
        kind: GatewayKind,
        keys: &GatewayKeys,
        checked_at: DateTime<Utc>,
    ) -> RepoResult<GatewaySettings>;
    fn gateway_settings(
        &self,
        scope: Scope,
        kind: GatewayKind,
    ) -> RepoResult<Option<GatewaySettings>>;
    fn gateway_keys(&self, scope: Scope, kind: GatewayKind) -> RepoResult<Option<GatewayKeys>>;
    /// `false` when none was connected.
    fn delete_gateway(&self, scope: Scope, kind: GatewayKind) -> RepoResult<bool>;
    /// The tenant and keys behind a webhook URL's endpoint name.
    fn gateway_endpoint(
        &self,
        kind: GatewayKind,
        endpoint: &str,
    ) -> RepoResult<Option<(Scope, GatewayKeys)>>;

    /// The tenant of the public invoice a link names (404 as its page) and the keys of its
    /// environment's gateway, if one is connected.
    fn invoice_gateway(
        &self,
        number: &str,
        token: &str,
        kind: GatewayKind,
    ) -> RepoResult<(Scope, Option<GatewayKeys>)>;

    /// Every checkout opened for the invoice, newest first.
    fn invoice_checkouts(
        &self,
        scope: Scope,
        invoice: InvoiceId,
    ) -> RepoResult<Vec<CheckoutRecord>>;
    /// Keeps a checkout the gateway opened for the invoice (or its new status).
    fn save_checkout(
        &self,
        scope: Scope,
        kind: GatewayKind,
        invoice: InvoiceId,
        checkout: &Checkout,
    ) -> RepoResult<()>;
    /// The one way a gateway's report becomes a payment: in one transaction, the checkout's
    /// status kept and, when it is paid, one verified payment under its payment reference
    /// (§13 applied: the invoice paid when nothing is due, events, the receipt). Reporting the
    /// same payment again finds it recorded.
    fn record_checkout(
        &self,
        scope: Scope,
        kind: GatewayKind,
        checkout: &Checkout,
    ) -> RepoResult<Recorded>;
    /// A verified notification from the endpoint: handled once per event id, in the same
    /// transaction as what it records.
    fn record_notification(
        &self,
        scope: Scope,
        kind: GatewayKind,
        endpoint: &str,
        notification: &Notification,
    ) -> RepoResult<Recorded>;
    /// Checkouts open and untouched since `before`, oldest first.
    fn checkouts_to_sweep(
        &self,
        before: DateTime<Utc>,
        limit: i64,
    ) -> RepoResult<Vec<OpenCheckout>>;

    /// Checks what the payment may return and keeps the refund, pending when a gateway must
    /// make it, succeeded when it was paid back by hand.
    fn start_refund(
        &self,
        scope: Scope,
        payment: PaymentId,
        refund: &NewRefund,
    ) -> RepoResult<RefundPlan>;
    /// What the gateway said of a refund (`None`: it refused, the refund failed).
    fn finish_refund(
        &self,
        scope: Scope,
        plan: &RefundPlan,
        outcome: Option<&GatewayRefund>,
    ) -> RepoResult<Payment>;

    /// Refunds kept pending before `before` that no gateway has answered for (the process
    /// died between keeping one and asking): asked again with their own idempotency key, a
    /// gateway makes each at most once.
    fn refunds_to_retry(
        &self,
        before: DateTime<Utc>,
        limit: i64,
    ) -> RepoResult<Vec<(Scope, RefundPlan)>>;

    /// Attaches the customer's proof file to a payment they reported.
    fn attach_proof(&self, scope: Scope, payment: PaymentId, file: &ProofFile) -> RepoResult<()>;
    fn payment_proof(&self, scope: Scope, payment: PaymentId) -> RepoResult<Option<ProofFile>>;
}
