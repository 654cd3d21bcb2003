//! A payment request (SPEC §26, VeriPay's payment links): an amount, a description and a
//! customer, made into a sent one-line invoice whose page takes the money and sends the
//! customer back to the shop. The body is read here once; the invoice it becomes is parsed by
//! [`InvoiceInput::parse`], the same rules as every invoice's, and each refusal is named by the
//! request's own field.

use crate::customer::CustomerId;
use crate::customer::CustomerInput;
use crate::decimal::{DecimalText, TaxRate};
use crate::document_lines::LineItemInput;
use crate::invoice::{Invoice, InvoiceInput, NewInvoice};
use crate::lines::net_of_gross;
use crate::money::{Money, MAX_AMOUNT};
use crate::payment::PaymentRequest;
use crate::tenant::Environment;
use crate::validation::{Problem, Violations};
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The longest a request may stand.
pub const MAX_DAYS: i64 = 3660;

/// The longest `success_url` or `cancel_url`.
pub const RETURN_URL_MAX: usize = 2048;

/// The body of `POST /api/v1/payment-requests`.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PaymentRequestInput {
    /// What the customer pays, in minor units of `currency` (tax included when `tax_rate` is
    /// given), at least 1.
    #[cfg_attr(feature = "openapi", schema(example = 4999))]
    pub amount_cents: Option<i64>,
    /// ISO 4217.
    #[cfg_attr(feature = "openapi", schema(example = "EUR"))]
    pub currency: Option<String>,
    /// The invoice's one line: what is paid for (1 to 1000 characters).
    #[cfg_attr(feature = "openapi", schema(example = "Order #1042: two tickets"))]
    pub description: Option<String>,
    /// The customer's name (for a new customer; an existing one keeps theirs).
    #[cfg_attr(feature = "openapi", schema(example = "Ada Lovelace"))]
    pub customer_name: Option<String>,
    /// Found by email (case-insensitively) or created, as `POST /api/v1/customers` does.
    #[cfg_attr(feature = "openapi", schema(example = "ada@example.com"))]
    pub customer_email: Option<String>,
    /// The customer's phone, as written.
    pub customer_phone: Option<String>,
    /// Percent, 0 to 100: `amount_cents` is split into net and tax at this rate; default 0.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "19"))]
    pub tax_rate: Option<DecimalText>,
    /// Where the payment page sends the customer after a card payment succeeds (with
    /// `?invoice=NUMBER`): `https` (`http` only to 127.0.0.1 or localhost, in test mode).
    #[cfg_attr(feature = "openapi", schema(example = "https://shop.example/thanks"))]
    pub success_url: Option<String>,
    /// Offered on the payment page as "Back to the shop"; the same rules as `success_url`.
    #[cfg_attr(feature = "openapi", schema(example = "https://shop.example/cart"))]
    pub cancel_url: Option<String>,
    /// RFC 3339, in the future: when an unpaid request's invoice is cancelled.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime, example = "2026-12-31T23:59:59Z"))]
    pub expires_at: Option<String>,
    /// Email the invoice to the customer too; default false.
    pub email: Option<bool>,
    /// At most 50 pairs; keys ≤ 40 characters, values ≤ 500 (kept on the invoice).
    pub metadata: Option<BTreeMap<String, String>>,
}

/// Where the shop takes the customer back, and until when the request stands.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Checkout {
    pub success_url: Option<String>,
    pub cancel_url: Option<String>,
    #[serde(serialize_with = "crate::time::serialize_opt")]
    pub expires_at: Option<DateTime<Utc>>,
}

impl Checkout {
    /// Where the customer goes once their card payment of invoice `number` succeeded: the
    /// shop's `success_url` with `invoice=NUMBER` added to its query.
    pub fn success_redirect(&self, number: &str) -> Option<String> {
        let mut url = url::Url::parse(self.success_url.as_deref()?).ok()?;
        url.query_pairs_mut().append_pair("invoice", number);
        Some(url.to_string())
    }
}

/// A valid payment request: the invoice to create and send, and its checkout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewPaymentRequest {
    pub invoice: NewInvoice,
    pub checkout: Checkout,
    /// Whether the invoice is emailed as it is sent.
    pub email: bool,
}

/// The answer to a new payment request: the §13 payment request of its invoice, the page that
/// takes the payment, and the way back to the shop.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreatedPaymentRequest {
    #[serde(flatten)]
    pub request: PaymentRequest,
    /// The invoice's `payment_link`: the page that takes the payment.
    pub checkout_url: String,
    pub success_url: Option<String>,
    pub cancel_url: Option<String>,
    /// When an unpaid request's invoice is cancelled; `null`: never.
    #[serde(serialize_with = "crate::time::serialize_opt")]
    pub expires_at: Option<DateTime<Utc>>,
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub customer_id: CustomerId,
    pub livemode: bool,
    #[serde(serialize_with = "crate::time::serialize")]
    pub created_at: DateTime<Utc>,
}

impl CreatedPaymentRequest {
    pub fn new(invoice: &Invoice, checkout: Checkout) -> CreatedPaymentRequest {
        CreatedPaymentRequest {
            request: PaymentRequest {
                object: PaymentRequest::OBJECT,
                invoice_id: invoice.id,
                invoice_number: invoice.invoice_number.clone(),
                amount_due_cents: invoice.amount_due_cents,
                currency: invoice.currency,
                due_date: invoice.due_date,
                status: invoice.status,
                payment_link: invoice.payment_link.clone(),
            },
            checkout_url: invoice.payment_link.clone(),
            success_url: checkout.success_url,
            cancel_url: checkout.cancel_url,
            expires_at: checkout.expires_at,
            customer_id: invoice.customer_id,
            livemode: invoice.livemode,
            created_at: invoice.created_at,
        }
    }
}

/// The invoice's parameters as the request names them.
const PARAMS: &[(&str, &str)] = &[
    ("customer.name", "customer_name"),
    ("customer.email", "customer_email"),
    ("customer.phone", "customer_phone"),
    ("line_items[0].description", "description"),
    ("line_items[0].unit_price_cents", "amount_cents"),
    ("line_items[0].tax_rate", "tax_rate"),
    ("line_items", "amount_cents"),
];

impl PaymentRequestInput {
    /// `now` decides what is in the future, `today` is the invoice's issue date, `token` its
    /// payment link's capability; `env` decides whether `http` return URLs are taken.
    pub fn parse(
        self,
        now: DateTime<Utc>,
        today: NaiveDate,
        token: String,
        env: Environment,
    ) -> Result<NewPaymentRequest, Violations> {
        let mut v = Violations::new();
        let amount = match self.amount_cents {
            None => {
                v.push("amount_cents", Problem::Required);
                None
            }
            Some(a) if (1..=MAX_AMOUNT).contains(&a) => Money::new(a).ok(),
            Some(_) => {
                v.push("amount_cents", format!("must be from 1 to {MAX_AMOUNT}"));
                None
            }
        };
        if self.currency.is_none() {
            v.push("currency", Problem::Required);
        }
        let rate = match &self.tax_rate {
            None => Some(TaxRate::ZERO),
            Some(raw) => raw.tax_rate().map_err(|e| v.push("tax_rate", e)).ok(),
        };
        // The net price whose tax rounds back to exactly what the customer pays.
        let net = match (amount, rate) {
            (Some(gross), Some(rate)) => net_of_gross(gross, rate).or_else(|| {
                v.push("amount_cents", unreachable(gross, rate));
                None
            }),
            _ => None,
        };
        let checkout = Checkout {
            success_url: return_url(&mut v, "success_url", self.success_url, env),
            cancel_url: return_url(&mut v, "cancel_url", self.cancel_url, env),
            expires_at: self.expires_at.and_then(|raw| expiry(&mut v, &raw, now)),
        };
        let invoice = InvoiceInput {
            customer: Some(CustomerInput {
                name: self.customer_name,
                email: self.customer_email,
                phone: self.customer_phone,
                ..CustomerInput::default()
            }),
            currency: self.currency,
            payment_terms: Some("due_on_receipt".into()),
            line_items: Some(vec![LineItemInput {
                description: self.description,
                quantity: Some(DecimalText::typed("1")),
                // A placeholder where the amount is refused already, so the other fields are
                // still checked and every refusal is said at once.
                unit_price_cents: Some(net.map_or(1, Money::minor)),
                tax_rate: self.tax_rate,
                ..LineItemInput::default()
            }]),
            metadata: self.metadata,
            ..InvoiceInput::default()
        }
        .parse(today, token);
        match invoice {
            Ok(invoice) if v.is_empty() => Ok(NewPaymentRequest {
                invoice,
                checkout,
                email: self.email.unwrap_or(false),
            }),
            Ok(_) => Err(v),
            Err(refused) => {
                for e in refused.into_errors() {
                    let param = PARAMS
                        .iter()
                        .find(|(theirs, _)| *theirs == e.param)
                        .map_or(e.param, |(_, ours)| (*ours).to_string());
                    let taken = v.errors().iter().any(|mine| mine.param == param);
                    if !taken {
                        v.push(param, e.problem);
                    }
                }
                Err(v)
            }
        }
    }
}

/// Why `gross` cannot be paid at `rate`, naming the nearest amounts that can.
fn unreachable(gross: Money, rate: TaxRate) -> String {
    let reachable = |minor: i64| {
        Money::new(minor)
            .ok()
            .filter(|m| (1..=MAX_AMOUNT).contains(&m.minor()))
            .and_then(|m| net_of_gross(m, rate))
            .map(|_| minor.to_string())
    };
    let near: Vec<String> = [gross.minor() - 1, gross.minor() + 1]
        .into_iter()
        .filter_map(reachable)
        .collect();
    let why = "cannot be split at this tax_rate into a net price and a tax that add up to it";
    match near.as_slice() {
        [] => why.to_string(),
        [one] => format!("{why}: try {one}"),
        [below, above, ..] => format!("{why}: try {below} or {above}"),
    }
}

/// A `success_url` or `cancel_url`: an absolute `https` URL without credentials; `http` only to
/// this machine, in test mode (a shop tried out locally).
fn return_url(
    v: &mut Violations,
    param: &str,
    raw: Option<String>,
    env: Environment,
) -> Option<String> {
    let raw = raw?;
    let refuse = |v: &mut Violations, why: &str| {
        v.push(param, why.to_string());
        None
    };
    if raw.chars().count() > RETURN_URL_MAX {
        return refuse(v, &format!("must be at most {RETURN_URL_MAX} characters"));
    }
    let Ok(url) = url::Url::parse(raw.trim()) else {
        return refuse(v, "must be an absolute https URL");
    };
    let loopback = matches!(
        url.host(),
        Some(url::Host::Domain("localhost"))
            | Some(url::Host::Ipv4(std::net::Ipv4Addr::LOCALHOST))
            | Some(url::Host::Ipv6(std::net::Ipv6Addr::LOCALHOST))
    );
    match url.scheme() {
        "https" if url.host().is_some() => {}
        "http" if loopback && !env.is_live() => {}
        _ => {
            return refuse(
                v,
                "must be an https URL (http only to 127.0.0.1 or localhost, in test mode)",
            )
        }
    }
    if !url.username().is_empty() || url.password().is_some() {
        return refuse(v, "must not carry credentials");
    }
    Some(url.to_string())
}

/// An RFC 3339 moment after `now`, kept in whole seconds and never earlier than asked (a
/// fraction rounds up: the request lapses at the first whole second not before it).
fn expiry(v: &mut Violations, raw: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    match DateTime::parse_from_rfc3339(raw.trim()) {
        Ok(at) if at.with_timezone(&Utc) > now + chrono::Duration::days(MAX_DAYS) => {
            v.push("expires_at", format!("must be within {MAX_DAYS} days"));
            None
        }
        Ok(at) if at.with_timezone(&Utc) > now => {
            let at = at.with_timezone(&Utc);
            let whole = crate::time::whole_seconds(at);
            Some(if whole < at {
                whole + chrono::Duration::seconds(1)
            } else {
                whole
            })
        }
        Ok(_) => {
            v.push("expires_at", Problem::NotFuture);
            None
        }
        Err(_) => {
            v.push(
                "expires_at",
                "must be a moment in RFC 3339, such as 2026-12-31T23:59:59Z",
            );
            None
        }
    }
}

#[cfg(test)]
mod tests;
