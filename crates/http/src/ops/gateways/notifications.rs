//! The gateway's webhook (SPEC §25): `POST /webhooks/stripe/{endpoint}`. The endpoint names the
//! tenant and its signing secret; the signature (and its age) is checked before anything is
//! read, and each event id is handled once, in the transaction that records it.

use super::{gateway_call, STRIPE};
use crate::error::ApiError;
use crate::{blocking, AppState};
use invoicing_domain::gateway::{GatewayError, Recorded};

/// What the endpoint did with a delivery; any error makes the gateway deliver it again.
pub async fn receive_notification(
    state: &AppState,
    endpoint: String,
    signature: Option<String>,
    payload: Vec<u8>,
) -> Result<Recorded, ApiError> {
    let gateway = state
        .config
        .gateway
        .clone()
        .ok_or_else(|| ApiError::resource_missing("webhook endpoint"))?;
    let plausible = endpoint.len() == 32 && endpoint.bytes().all(|b| b.is_ascii_hexdigit());
    if !plausible {
        return Err(ApiError::resource_missing("webhook endpoint"));
    }
    let repos = state.repos();
    let e = endpoint.clone();
    let (scope, keys) = blocking(move || repos.gateway_endpoint(STRIPE, &e))
        .await?
        .ok_or_else(|| ApiError::resource_missing("webhook endpoint"))?;
    let secret = keys.webhook_secret.ok_or(GatewayError::BadSignature(
        "no signing secret is saved for this endpoint",
    ))?;
    let signature = signature.ok_or(GatewayError::BadSignature("no Stripe-Signature header"))?;
    let now = state.config.clock.now();
    let notification =
        gateway_call(move || gateway.verify_notification(&secret, &signature, &payload, now))
            .await?;
    let repos = state.repos();
    let recorded =
        blocking(move || repos.record_notification(scope, STRIPE, &endpoint, &notification))
            .await?;
    if let Recorded::Ignored(why) = &recorded {
        log::warn!("stripe webhook ignored: {why}");
    }
    Ok(recorded)
}
