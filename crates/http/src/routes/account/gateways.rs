//! `/api/v1/account/gateways/stripe` (SPEC §25): the environment's own Stripe account. The keys
//! go in once and never come out: `GET` shows the publishable key, the secret's last four and
//! the webhook URL to paste into Stripe.

use crate::auth::Auth;
use crate::body::JsonBody;
use crate::error::ApiError;
use crate::openapi::error_body::ErrorBody;
use crate::ops::Ops;
use crate::AppState;
use actix_web::{web, HttpResponse};
use invoicing_domain::gateway::{GatewayKeysInput, GatewaySettings};

/// Connect (or replace) this environment's Stripe account. The secret key is checked against
/// Stripe before anything is saved; test keys only with a test API key, live keys with a live
/// one. Omit `webhook_secret` to keep the saved one: the endpoint's URL (in the answer) is
/// what Stripe asks for before it shows the signing secret.
#[utoipa::path(put, path = "/api/v1/account/gateways/stripe", tag = "account",
    request_body = GatewayKeysInput,
    responses(
        (status = 200, description = "Saved; never the secrets", body = GatewaySettings),
        (status = 403, description = "The key lacks `account:write` (`insufficient_permissions`)", body = ErrorBody),
        (status = 422, description = "Keys of the other environment, malformed, or refused by Stripe (`validation_failed`, param names the field)", body = ErrorBody),
        (status = 502, description = "Stripe did not answer (`gateway_unavailable`); nothing was saved", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn put_stripe(
    state: web::Data<AppState>,
    auth: Auth,
    body: JsonBody<GatewayKeysInput>,
) -> Result<HttpResponse, ApiError> {
    let settings = Ops::for_key(&state, &auth).connect_stripe(body.0).await?;
    Ok(HttpResponse::Ok().json(settings))
}

/// This environment's Stripe connection: the publishable key, the secret's last four, the
/// webhook URL and the events to select for it, and the last check.
#[utoipa::path(get, path = "/api/v1/account/gateways/stripe", tag = "account",
    responses(
        (status = 200, description = "The connection", body = GatewaySettings),
        (status = 404, description = "None connected (`gateway_not_connected`)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn get_stripe(state: web::Data<AppState>, auth: Auth) -> Result<HttpResponse, ApiError> {
    let settings = Ops::for_key(&state, &auth).stripe_settings().await?;
    Ok(HttpResponse::Ok().json(settings))
}

/// Disconnect: card payment stops being offered (payments already taken stay).
#[utoipa::path(delete, path = "/api/v1/account/gateways/stripe", tag = "account",
    responses(
        (status = 204, description = "Disconnected"),
        (status = 404, description = "None connected (`gateway_not_connected`)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn delete_stripe(
    state: web::Data<AppState>,
    auth: Auth,
) -> Result<HttpResponse, ApiError> {
    Ops::for_key(&state, &auth).disconnect_stripe().await?;
    Ok(HttpResponse::NoContent().finish())
}
