//! The Stripe adapter of the payment-gateway port (`invoicing_domain::gateway`, SPEC §25): it
//! turns the port's calls into requests to Stripe's HTTP API with the merchant's own keys, reads
//! Stripe's answers back into the port's types, and verifies Stripe's signed webhooks. Domain
//! types in; HTTP, form bodies, Stripe's units and signatures inside; no database.
//!
//! The half-dozen calls it makes, blocking (callers run them off the async workers):
//! - `GET /v1/balance` to check a secret key;
//! - `POST /v1/checkout/sessions`, `GET /v1/checkout/sessions/{id}` and
//!   `POST /v1/checkout/sessions/{id}/expire` for hosted checkouts;
//! - `POST /v1/refunds`.
//!
//! Every request carries `Authorization: Bearer <secret key>`, the pinned [`STRIPE_VERSION`] and
//! [`USER_AGENT`]; every POST an `Idempotency-Key`, so a retried call never acts twice.
#![forbid(unsafe_code)] // only storage calls the OS; the workspace lint is `deny` for it

mod client;
mod form;
mod objects;
mod signature;
mod units;

#[cfg(feature = "testing")]
pub mod testing;

pub use client::{STRIPE_VERSION, USER_AGENT};
pub use signature::{sign_notification, SIGNATURE_TOLERANCE_SECS};
pub use units::{chargeable, from_stripe_units};

use chrono::{DateTime, Utc};
use client::{Client, Method};
use form::{Form, Param};
use invoicing_domain::currency::Currency;
use invoicing_domain::gateway::{
    Checkout, CheckoutRequest, CheckoutStatus, GatewayError, GatewayKeys, GatewayKind,
    GatewayRefund, Notification, PaymentGateway, RefundRequest, Secret,
};
use invoicing_domain::money::{decimal_text, Money};
use std::time::Duration;
use url::{Host, Url};

/// Where Stripe's API is: the `api_base` to pass unless a stand-in plays Stripe.
pub const STRIPE_API_BASE: &str = "https://api.stripe.com";

/// Where Stripe's hosted Checkout pages are (a session's `url` is on it).
pub const STRIPE_CHECKOUT_ORIGIN: &str = "https://checkout.stripe.com";

/// Why an `api_base` (or timeout) was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("the Stripe API base is not a URL: {0}")]
    NotAUrl(String),
    #[error("the Stripe API base must be https:// (plain http:// only for a loopback host: 127.0.0.0/8, ::1, localhost): {0}")]
    Insecure(String),
    #[error("the Stripe API base must be a plain https:// URL without credentials, query or fragment: {0}")]
    Unsupported(String),
    #[error("the timeout of Stripe requests must be longer than zero")]
    ZeroTimeout,
}

/// Whether `host` is this machine: `localhost`, 127.0.0.0/8 or `::1`.
fn is_loopback(host: Host<&str>) -> bool {
    match host {
        Host::Domain(d) => d.eq_ignore_ascii_case("localhost"),
        Host::Ipv4(ip) => ip.is_loopback(),
        Host::Ipv6(ip) => ip.is_loopback(),
    }
}

/// The Stripe payment gateway.
#[derive(Debug)]
pub struct StripeGateway {
    client: Client,
    checkout_origin: String,
}

impl StripeGateway {
    /// A gateway talking to `api_base` ([`STRIPE_API_BASE`], or a local stand-in over plain
    /// http on a loopback address), each request given `timeout` in all.
    pub fn new(api_base: &str, timeout: Duration) -> Result<StripeGateway, ConfigError> {
        if timeout.is_zero() {
            return Err(ConfigError::ZeroTimeout);
        }
        let url = Url::parse(api_base).map_err(|e| ConfigError::NotAUrl(format!("{e}")))?;
        if !url.username().is_empty()
            || url.password().is_some()
            || url.query().is_some()
            || url.fragment().is_some()
        {
            // Not echoed: credentials may be in it.
            return Err(ConfigError::Unsupported(
                "credentials, a query or a fragment".into(),
            ));
        }
        let host = url
            .host()
            .ok_or_else(|| ConfigError::Unsupported(api_base.to_string()))?;
        let loopback = is_loopback(host);
        match url.scheme() {
            "https" => {}
            "http" if loopback => {}
            "http" => return Err(ConfigError::Insecure(api_base.to_string())),
            _ => return Err(ConfigError::Unsupported(api_base.to_string())),
        }
        let base = url.as_str().trim_end_matches('/').to_string();
        // A local stand-in serves its hosted pages itself; Stripe (directly or through a
        // proxy) from checkout.stripe.com.
        let checkout_origin = if loopback {
            url.origin().ascii_serialization()
        } else {
            STRIPE_CHECKOUT_ORIGIN.to_string()
        };
        Ok(StripeGateway {
            client: Client::new(base, timeout, loopback),
            checkout_origin,
        })
    }

    /// The API base requests go to (no trailing slash).
    pub fn api_base(&self) -> &str {
        self.client.base()
    }
}

/// A Stripe object id (`cs_test_…`, `pi_…`) as it may go into a path: letters, digits and `_`,
/// so it cannot add a segment, a query or an escape.
fn stripe_id<'a>(param: &str, id: &'a str) -> Result<&'a str, GatewayError> {
    if !id.is_empty()
        && id.len() <= 255
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        Ok(id)
    } else {
        Err(GatewayError::Refused {
            param: Some(param.to_string()),
            message: "is not a Stripe id (letters, digits and underscores)".into(),
        })
    }
}

fn not_chargeable(amount: Money, currency: Currency) -> GatewayError {
    GatewayError::Refused {
        param: Some("amount".into()),
        message: format!(
            "Stripe cannot take exactly {} {currency}",
            decimal_text(amount.minor(), currency)
        ),
    }
}

/// `metadata[account_id]`, `[environment]`, `[invoice_id]`: the owner again, beside the
/// `client_reference_id`, on the session and on its PaymentIntent (which is what the merchant
/// sees in Stripe's dashboard).
fn owner_metadata(request: &CheckoutRequest) -> Param {
    let owner = &request.owner;
    Param::Map(vec![
        ("account_id", owner.account_id.0.to_string().into()),
        ("environment", owner.environment.as_str().into()),
        ("invoice_id", owner.invoice_id.0.to_string().into()),
    ])
}

fn checkout_form(request: &CheckoutRequest, unit_amount: i64) -> Form {
    let mut form = Form::new();
    form.push("mode", "payment").push(
        "line_items",
        Param::List(vec![Param::Map(vec![
            (
                "price_data",
                Param::Map(vec![
                    (
                        "currency",
                        request.currency.code().to_ascii_lowercase().into(),
                    ),
                    ("unit_amount", unit_amount.into()),
                    (
                        "product_data",
                        Param::Map(vec![("name", request.description.as_str().into())]),
                    ),
                ]),
            ),
            ("quantity", 1.into()),
        ])]),
    );
    form.push("client_reference_id", request.owner.reference())
        .push("metadata", owner_metadata(request))
        .push(
            "payment_intent_data",
            Param::Map(vec![("metadata", owner_metadata(request))]),
        );
    if let Some(email) = request.customer_email.as_deref().filter(|e| !e.is_empty()) {
        form.push("customer_email", email);
    }
    form.push("success_url", request.success_url.as_str())
        .push("cancel_url", request.cancel_url.as_str());
    form
}

fn refund_form(request: &RefundRequest, amount: i64) -> Form {
    let mut form = Form::new();
    form.push("payment_intent", request.payment_reference.as_str())
        .push("amount", amount)
        // Stripe's `reason` takes only duplicate, fraudulent or requested_by_customer; ours is
        // free text and goes into the metadata.
        .push("reason", "requested_by_customer");
    if let Some(reason) = request.reason.as_deref().filter(|r| !r.is_empty()) {
        form.push("metadata", Param::Map(vec![("reason", reason.into())]));
    }
    form
}

impl StripeGateway {
    fn session_path(id: &str) -> Result<String, GatewayError> {
        Ok(format!("/v1/checkout/sessions/{}", stripe_id("id", id)?))
    }
}

impl PaymentGateway for StripeGateway {
    fn kind(&self) -> GatewayKind {
        GatewayKind::Stripe
    }

    /// [`STRIPE_CHECKOUT_ORIGIN`]; with a stand-in on a loopback `api_base`, that base's origin.
    fn checkout_origin(&self) -> String {
        self.checkout_origin.clone()
    }

    fn chargeable(&self, amount: Money, currency: Currency) -> Option<i64> {
        chargeable(amount, currency)
    }

    fn check_keys(&self, keys: &GatewayKeys) -> Result<(), GatewayError> {
        self.client
            .call(keys, Method::Get, "/v1/balance", None, None)
            .map(|_| ())
    }

    fn create_checkout(
        &self,
        keys: &GatewayKeys,
        request: &CheckoutRequest,
    ) -> Result<Checkout, GatewayError> {
        let unit_amount = chargeable(request.amount, request.currency)
            .ok_or_else(|| not_chargeable(request.amount, request.currency))?;
        let form = checkout_form(request, unit_amount);
        let value = self.client.call(
            keys,
            Method::Post,
            "/v1/checkout/sessions",
            Some(&form),
            Some(&request.idempotency_key),
        )?;
        let checkout = objects::session(value)?;
        // What Stripe opened must be what was asked: anything else would charge the wrong sum
        // or credit the wrong invoice.
        if (checkout.amount, checkout.currency, checkout.owner)
            != (request.amount, request.currency, Some(request.owner))
        {
            log::error!(
                "stripe: session {} is not what was asked for invoice {}",
                checkout.id,
                request.owner.invoice_id.0
            );
            return Err(GatewayError::Malformed(format!(
                "session {} does not match the request (amount, currency or invoice)",
                checkout.id
            )));
        }
        Ok(checkout)
    }

    fn checkout(&self, keys: &GatewayKeys, id: &str) -> Result<Checkout, GatewayError> {
        let path = Self::session_path(id)?;
        objects::session(self.client.call(keys, Method::Get, &path, None, None)?)
    }

    /// Expires an open session. When Stripe refuses because the session is no longer open
    /// (paid meanwhile, or expired on its own), the session as it now is is the answer: the
    /// caller learns of a payment that won the race instead of an error.
    fn expire_checkout(&self, keys: &GatewayKeys, id: &str) -> Result<Checkout, GatewayError> {
        let path = format!("{}/expire", Self::session_path(id)?);
        // The same key for the same session: expiring is idempotent anyway.
        let idempotency_key = format!("expire-{id}");
        match self
            .client
            .call(keys, Method::Post, &path, None, Some(&idempotency_key))
        {
            Ok(value) => objects::session(value),
            Err(refused @ GatewayError::Refused { .. }) => match self.checkout(keys, id) {
                Ok(checkout) if checkout.status != CheckoutStatus::Open => Ok(checkout),
                _ => Err(refused),
            },
            Err(e) => Err(e),
        }
    }

    fn refund(
        &self,
        keys: &GatewayKeys,
        request: &RefundRequest,
    ) -> Result<GatewayRefund, GatewayError> {
        let amount = chargeable(request.amount, request.currency)
            .ok_or_else(|| not_chargeable(request.amount, request.currency))?;
        let form = refund_form(request, amount);
        let value = self.client.call(
            keys,
            Method::Post,
            "/v1/refunds",
            Some(&form),
            Some(&request.idempotency_key),
        )?;
        let (refund, currency) = objects::refund(value)?;
        if (refund.amount, currency) != (request.amount, request.currency) {
            log::error!(
                "stripe: refund {} of {} is {} {currency}, not the {} {} asked",
                refund.id,
                request.payment_reference,
                refund.amount.minor(),
                request.amount.minor(),
                request.currency
            );
            return Err(GatewayError::Malformed(format!(
                "refund {} is not the amount or currency asked",
                refund.id
            )));
        }
        Ok(refund)
    }

    fn verify_notification(
        &self,
        webhook_secret: &Secret,
        signature: &str,
        payload: &[u8],
        now: DateTime<Utc>,
    ) -> Result<Notification, GatewayError> {
        signature::verify(webhook_secret, signature, payload, now)?;
        objects::event(payload)
    }
}

#[cfg(test)]
mod tests;
