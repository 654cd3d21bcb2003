//! The storage port of online payments (SPEC §25): connected gateways, the checkouts opened for
//! invoices, the one operation that records what a gateway says was paid (idempotent on the
//! gateway's payment id, whoever reports it), refunds and proof files.

use super::RepoResult;
use crate::gateway::{
    Checkout, CheckoutRecord, GatewayKeys, GatewayKind, GatewayRefund, GatewaySettings, NewRefund,
    Notification, OpenCheckout, ProofFile, Recorded, RefundPlan,
};
use crate::invoice::InvoiceId;
use crate::payment::{Payment, PaymentId};
use crate::tenant::Scope;
use chrono::{DateTime, Utc};

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
