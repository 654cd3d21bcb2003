//! Online payment gateways (SPEC §25): the port a gateway adapter implements (Stripe is the
//! first; a hosted-redirect gateway such as WiPay or PayPal is a second adapter, not a rewrite)
//! and the types that cross it. An adapter speaks HTTP and checks signatures; it knows nothing of
//! the database, and these types know nothing of any transport.

mod keys;
mod records;

pub use crate::refund::REASON_MAX as REFUND_REASON_MAX;
pub use crate::refund::{refundable, NewRefund, Refund, RefundId, RefundInput, RefundStatus};
pub use keys::{GatewayKeys, GatewayKeysInput, GatewaySettings, Secret, STRIPE_EVENTS};
pub use records::{CheckoutRecord, OpenCheckout, ProofFile, Recorded, RefundPlan};

use crate::currency::Currency;
use crate::invoice::InvoiceId;
use crate::money::Money;
use crate::tenant::{AccountId, Environment};
use chrono::{DateTime, Utc};
use std::fmt;

/// The gateways an account can connect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GatewayKind {
    Stripe,
}

impl GatewayKind {
    pub fn as_str(self) -> &'static str {
        match self {
            GatewayKind::Stripe => "stripe",
        }
    }

    pub fn parse(s: &str) -> Option<GatewayKind> {
        (s == "stripe").then_some(GatewayKind::Stripe)
    }
}

impl fmt::Display for GatewayKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whose invoice a checkout pays: written into the gateway's session by us and read back from
/// its notifications, so a notification can only ever touch the tenant that created it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckoutOwner {
    pub account_id: AccountId,
    pub environment: Environment,
    pub invoice_id: InvoiceId,
}

impl CheckoutOwner {
    /// `acct_<account>:<test|live>:inv_<invoice>`: the `client_reference_id`.
    pub fn reference(&self) -> String {
        format!(
            "acct_{}:{}:inv_{}",
            self.account_id.0,
            self.environment.as_str(),
            self.invoice_id.0
        )
    }

    /// The idempotency key of the checkout for `amount` in `round` (how many checkouts the
    /// invoice had before): two tabs, a reload or a retry open one checkout; a new round starts
    /// once the earlier ones ended.
    pub fn checkout_key(&self, amount: Money, round: usize) -> String {
        use sha2::{Digest, Sha256};
        let text = format!("{}:{}:{round}", self.reference(), amount.minor());
        format!(
            "checkout_{}",
            hex::encode(&Sha256::digest(text.as_bytes())[..16])
        )
    }

    pub fn parse_reference(s: &str) -> Option<CheckoutOwner> {
        let mut parts = s.split(':');
        let account = parts.next()?.strip_prefix("acct_")?.parse().ok()?;
        let environment = Environment::parse(parts.next()?)?;
        let invoice = parts.next()?.strip_prefix("inv_")?.parse().ok()?;
        parts.next().is_none().then_some(CheckoutOwner {
            account_id: AccountId(account),
            environment,
            invoice_id: InvoiceId(invoice),
        })
    }
}

/// What a hosted checkout is asked to collect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckoutRequest {
    pub owner: CheckoutOwner,
    pub amount: Money,
    pub currency: Currency,
    /// The one line the customer sees: the invoice's number.
    pub description: String,
    pub customer_email: Option<String>,
    pub success_url: String,
    pub cancel_url: String,
    /// The same key for the same invoice and amount: a retry never opens a second checkout.
    pub idempotency_key: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckoutStatus {
    Open,
    Complete,
    Expired,
}

impl CheckoutStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckoutStatus::Open => "open",
            CheckoutStatus::Complete => "complete",
            CheckoutStatus::Expired => "expired",
        }
    }

    pub fn parse(s: &str) -> Option<CheckoutStatus> {
        [Self::Open, Self::Complete, Self::Expired]
            .into_iter()
            .find(|c| c.as_str() == s)
    }
}

/// A hosted checkout as the gateway reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkout {
    pub id: String,
    /// The gateway's page the customer is sent to (while open).
    pub url: Option<String>,
    pub status: CheckoutStatus,
    /// The money has been taken (a card at once; a delayed method when it succeeds).
    pub paid: bool,
    /// The gateway's id of the payment itself (Stripe's PaymentIntent): the one reference a
    /// payment is recorded under, whoever reports it.
    pub payment_reference: Option<String>,
    /// In the currency's minor units as this service counts them.
    pub amount: Money,
    pub currency: Currency,
    /// Read back from the gateway; `None` when it names no invoice of ours.
    pub owner: Option<CheckoutOwner>,
}

/// A refund the gateway is asked to make.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefundRequest {
    pub payment_reference: String,
    pub amount: Money,
    pub currency: Currency,
    pub reason: Option<String>,
    pub idempotency_key: String,
}

/// A refund as the gateway reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GatewayRefund {
    pub id: String,
    pub payment_reference: Option<String>,
    pub amount: Money,
    pub status: RefundStatus,
}

/// What a verified notification tells us.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GatewayEvent {
    /// A checkout ended with the money taken.
    CheckoutPaid(Checkout),
    /// A checkout completed but its payment is still on its way (delayed methods).
    CheckoutPending(Checkout),
    /// A delayed payment failed after its checkout completed.
    CheckoutFailed(Checkout),
    RefundChanged(GatewayRefund),
    /// A kind this service does not act on (acknowledged, nothing changes).
    Other(String),
}

/// A notification whose signature checked out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notification {
    /// The gateway's event id: each is handled once.
    pub id: String,
    pub livemode: bool,
    pub event: GatewayEvent,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GatewayError {
    /// The gateway did not answer (or answered 5xx): try again later.
    #[error("the payment gateway is unreachable: {0}")]
    Unreachable(String),
    /// The keys were refused.
    #[error("the payment gateway refused the key: {0}")]
    Unauthorized(String),
    /// The gateway refused the request itself (`param` names its field when it says so).
    #[error("the payment gateway refused the request: {message}")]
    Refused {
        param: Option<String>,
        message: String,
    },
    /// A notification whose signature, timestamp or body does not check out.
    #[error("the notification is not authentic: {0}")]
    BadSignature(&'static str),
    /// The gateway answered something this adapter cannot read.
    #[error("the payment gateway answered something unreadable: {0}")]
    Malformed(String),
}

impl GatewayError {
    /// Whether the gateway surely did not do what it was asked (it refused, or refused the
    /// keys): anything else (no answer, an unreadable one) may have been done.
    pub fn surely_not_done(&self) -> bool {
        matches!(
            self,
            GatewayError::Refused { .. } | GatewayError::Unauthorized(_)
        )
    }
}

/// One payment gateway, such as Stripe. Each call carries the merchant's keys (every account
/// connects its own gateway account); implementations block, so callers run them off the
/// async workers.
pub trait PaymentGateway: Send + Sync + std::fmt::Debug {
    fn kind(&self) -> GatewayKind;
    /// The origin (`https://checkout.stripe.com`) of the gateway's hosted pages, which the
    /// invoice page's form may post and redirect to (its CSP `form-action`).
    fn checkout_origin(&self) -> String;
    /// The amount in the gateway's units when it can charge exactly this amount in this
    /// currency, `None` when it cannot (an unsupported currency, a fraction it cannot take).
    fn chargeable(&self, amount: Money, currency: Currency) -> Option<i64>;
    /// Checks the secret key with a harmless read.
    fn check_keys(&self, keys: &GatewayKeys) -> Result<(), GatewayError>;
    fn create_checkout(
        &self,
        keys: &GatewayKeys,
        request: &CheckoutRequest,
    ) -> Result<Checkout, GatewayError>;
    fn checkout(&self, keys: &GatewayKeys, id: &str) -> Result<Checkout, GatewayError>;
    fn expire_checkout(&self, keys: &GatewayKeys, id: &str) -> Result<Checkout, GatewayError>;
    fn refund(
        &self,
        keys: &GatewayKeys,
        request: &RefundRequest,
    ) -> Result<GatewayRefund, GatewayError>;
    /// Verifies a notification's signature with the endpoint's signing secret (the timestamp
    /// within the gateway's tolerance of `now`) and reads it.
    fn verify_notification(
        &self,
        webhook_secret: &Secret,
        signature: &str,
        payload: &[u8],
        now: DateTime<Utc>,
    ) -> Result<Notification, GatewayError>;
}

#[cfg(test)]
mod tests;
