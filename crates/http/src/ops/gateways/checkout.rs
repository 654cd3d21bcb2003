//! Paying an invoice by card (SPEC §25): the public page's "Pay by card" opens (or reuses) the
//! invoice's hosted checkout and sends the customer there; their return and the sweep ask the
//! gateway how it ended. Card data never reaches this server.

use super::{gateway_call, STRIPE};
use crate::error::ApiError;
use crate::{blocking, AppState};
use chrono::{DateTime, Utc};
use invoicing_domain::gateway::{
    Checkout, CheckoutOwner, CheckoutRecord, CheckoutRequest, CheckoutStatus, GatewayError,
    GatewayKeys, PaymentGateway, Recorded,
};
use invoicing_domain::invoice::Invoice;
use invoicing_domain::money::Money;
use invoicing_domain::ports::{RepoResult, Repositories};
use invoicing_domain::tenant::Scope;
use std::sync::Arc;

/// How long a checkout stays untouched before the sweep asks about it: a webhook usually comes
/// first, and a lost one costs this long, not money.
pub const SWEEP_AFTER: chrono::Duration = chrono::Duration::seconds(10);
pub(super) const SWEEP_BATCH: i64 = 100;

/// Whether the page offers "Pay by card": the environment's gateway connected and an open
/// invoice owing an amount the gateway charges exactly.
pub fn card_offer(gateway: Option<&dyn PaymentGateway>, connected: bool, inv: &Invoice) -> bool {
    let Some(gateway) = gateway else {
        return false;
    };
    let due = Money::new(inv.amount_due_cents).unwrap_or(Money::ZERO);
    connected
        && inv.status.is_open()
        && due > Money::ZERO
        && gateway.chargeable(due, inv.currency).is_some()
}

/// Session ids as gateways write them; anything else is never sent on.
fn plausible_session(id: &str) -> bool {
    !id.is_empty() && id.len() <= 255 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Where the customer goes: the URL of the gateway's page for the invoice's amount due.
pub async fn start_card_payment(
    state: &AppState,
    number: String,
    token: String,
) -> Result<String, ApiError> {
    let gateway = state
        .config
        .gateway
        .clone()
        .ok_or_else(ApiError::gateway_not_connected)?;
    let repos = state.repos();
    let (n, t) = (number.clone(), token.clone());
    let (scope, keys, shown) = blocking(move || {
        let (scope, keys) = repos.invoice_gateway(&n, &t, STRIPE)?;
        Ok((scope, keys, repos.find_public_invoice(&n, &t)?))
    })
    .await
    .map_err(|e| e.naming("invoice"))?;
    let keys = keys.ok_or_else(ApiError::gateway_not_connected)?;
    let inv = shown.invoice;
    if !card_offer(Some(gateway.as_ref()), true, &inv) {
        return Err(ApiError::invalid_state_transition(format!(
            "invoice {} takes no card payment now: it is {} with {} due",
            inv.invoice_number, inv.status, inv.amount_due_cents
        )));
    }
    let amount = Money::new(inv.amount_due_cents).map_err(|_| ApiError::internal())?;
    let repos = state.repos();
    let id = inv.id;
    let kept = blocking(move || repos.invoice_checkouts(scope, id)).await?;
    // A checkout of this amount completed without the money yet (a delayed method on its
    // way): no second payment while it is.
    let in_flight = kept
        .iter()
        .any(|c| c.status == CheckoutStatus::Complete && c.amount == amount);
    let public = state.config.public_url.clone();
    let page = format!("{public}/invoice/{}?token={token}", inv.invoice_number);
    if in_flight {
        return Ok(format!("{page}&card=confirming"));
    }
    if let Some(url) = reuse(state, (&gateway, &keys, scope), &inv, amount, &kept, &page).await? {
        return Ok(url);
    }
    let owner = CheckoutOwner {
        account_id: scope.account_id,
        environment: scope.environment,
        invoice_id: inv.id,
    };
    let request = CheckoutRequest {
        owner,
        amount,
        currency: inv.currency,
        description: format!(
            "{} · {}",
            inv.invoice_number,
            shown.parties.issuer.display_name()
        ),
        customer_email: Some(shown.parties.recipient.email.clone())
            .filter(|e| !e.trim().is_empty()),
        success_url: format!(
            "{public}/invoice/{}/card?token={token}&session_id={{CHECKOUT_SESSION_ID}}",
            inv.invoice_number
        ),
        cancel_url: format!("{page}&card=cancelled"),
        idempotency_key: owner.checkout_key(amount, kept.len()),
    };
    let (g, k) = (gateway.clone(), keys.clone());
    let opened = gateway_call(move || g.create_checkout(&k, &request)).await?;
    let url = opened.url.clone().ok_or_else(|| {
        ApiError::from(GatewayError::Malformed(
            "an open checkout without a URL".into(),
        ))
    })?;
    let repos = state.repos();
    blocking(move || repos.save_checkout(scope, STRIPE, id, &opened)).await?;
    Ok(url)
}

/// An open checkout of this amount to send the customer to again (or the invoice's `page`,
/// saying how it stands, when one ended paid or on its way meanwhile); checkouts of another
/// amount are expired first (the amount due changed).
async fn reuse(
    state: &AppState,
    (gateway, keys, scope): (&Arc<dyn PaymentGateway>, &GatewayKeys, Scope),
    inv: &Invoice,
    amount: Money,
    kept: &[CheckoutRecord],
    page: &str,
) -> Result<Option<String>, ApiError> {
    for open in kept.iter().filter(|c| c.status == CheckoutStatus::Open) {
        let (g, k, id) = (gateway.clone(), keys.clone(), open.session_id.clone());
        let same = open.amount == amount && open.currency == inv.currency;
        let now = gateway_call(move || {
            let c = g.checkout(&k, &id)?;
            if same || c.status != CheckoutStatus::Open {
                Ok(c)
            } else {
                g.expire_checkout(&k, &id)
            }
        })
        .await?;
        let repos = state.repos();
        let reported = now.clone();
        let recorded = blocking(move || repos.record_checkout(scope, STRIPE, &reported)).await?;
        let outcome = match recorded {
            // Paid meanwhile: the page says so.
            Recorded::Paid(_) | Recorded::AlreadyPaid(_) => Some("paid"),
            // A delayed method is on its way: no second payment while it is.
            Recorded::Unpaid(CheckoutStatus::Complete) => Some("confirming"),
            _ => None,
        };
        if let Some(outcome) = outcome {
            return Ok(Some(format!("{page}&card={outcome}")));
        }
        if same && now.status == CheckoutStatus::Open {
            return Ok(now.url);
        }
    }
    Ok(None)
}

/// How a card payment the customer came back from stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardOutcome {
    Paid,
    /// Completed, but the money is on its way (a delayed method), or the gateway could not be
    /// asked: the webhook or the sweep will record it.
    Confirming,
    /// Not paid (still open, or not a checkout of this invoice).
    NotPaid,
}

/// The customer's return from the gateway's page: the checkout looked up and recorded (once,
/// whatever else reported it).
pub async fn card_return(
    state: &AppState,
    number: String,
    token: String,
    session_id: String,
) -> Result<CardOutcome, ApiError> {
    let Some(gateway) = state.config.gateway.clone() else {
        return Ok(CardOutcome::NotPaid);
    };
    let repos = state.repos();
    let (scope, keys) = blocking(move || repos.invoice_gateway(&number, &token, STRIPE))
        .await
        .map_err(|e| e.naming("invoice"))?;
    let Some(keys) = keys.filter(|_| plausible_session(&session_id)) else {
        return Ok(CardOutcome::NotPaid);
    };
    let asked: Result<Checkout, GatewayError> =
        gateway_call(move || gateway.checkout(&keys, &session_id)).await;
    let Ok(checkout) = asked else {
        return Ok(CardOutcome::Confirming);
    };
    // Stripe has the money and this process has not written it down yet.
    crate::failpoint::hit("card_return.before_record");
    let repos = state.repos();
    let recorded = blocking(move || repos.record_checkout(scope, STRIPE, &checkout)).await?;
    Ok(match recorded {
        Recorded::Paid(_) | Recorded::AlreadyPaid(_) => CardOutcome::Paid,
        Recorded::Unpaid(CheckoutStatus::Complete) => CardOutcome::Confirming,
        _ => CardOutcome::NotPaid,
    })
}

/// The scheduler's look at checkouts still open (SPEC §25): a lost or late webhook costs
/// minutes, not money. Answers how many payments it recorded.
pub fn sweep_checkouts(
    repos: &dyn Repositories,
    gateway: &dyn PaymentGateway,
    now: DateTime<Utc>,
) -> RepoResult<usize> {
    let mut paid = 0;
    for open in repos.checkouts_to_sweep(now - SWEEP_AFTER, SWEEP_BATCH)? {
        let Some(keys) = repos.gateway_keys(open.scope, open.kind)? else {
            continue;
        };
        match gateway.checkout(&keys, &open.session_id) {
            Ok(c) => {
                if let Recorded::Paid(_) = repos.record_checkout(open.scope, open.kind, &c)? {
                    paid += 1;
                }
            }
            Err(e) => log::warn!("checkout sweep: {}: {e}", open.session_id),
        }
    }
    Ok(paid)
}
