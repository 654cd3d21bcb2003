//! `POST /webhooks/stripe/{endpoint}` (SPEC §25): where each merchant's Stripe account sends its
//! events. Only a delivery whose `Stripe-Signature` verifies with that endpoint's signing secret
//! is read; any failure to record answers an error, so Stripe delivers the event again.

use crate::error::ApiError;
use crate::ops::gateways::receive_notification;
use crate::AppState;
use actix_web::web::Bytes;
use actix_web::{web, HttpRequest, HttpResponse};

/// The part of a Stripe Event this endpoint reads (the rest is kept as Stripe sent it).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct StripeEvent {
    /// `evt_…`: each is handled once.
    id: String,
    /// `event`.
    object: String,
    /// `checkout.session.completed`, `checkout.session.async_payment_succeeded`,
    /// `checkout.session.async_payment_failed`, `refund.created`, `refund.updated`,
    /// `refund.failed`, `charge.refund.updated`; others are acknowledged and ignored.
    r#type: String,
    livemode: bool,
    created: i64,
    /// `{"object": {…}}`: the Checkout Session or Refund.
    data: serde_json::Value,
}

/// Receive a Stripe event (signed; each event id handled once).
#[utoipa::path(post, path = "/webhooks/stripe/{endpoint}", tag = "public pages", operation_id = "stripe_webhook",
    params(
        ("endpoint" = String, Path, description = "The endpoint name `GET /api/v1/account/gateways/stripe` shows in `webhook_url`"),
        ("Stripe-Signature" = String, Header, description = "`t=<unix time>,v1=<HMAC-SHA256 of \"t.body\" with the endpoint's signing secret>`"),
    ),
    request_body(content = StripeEvent, content_type = "application/json", description = "A Stripe Event object, exactly as Stripe signed it"),
    responses(
        (status = 200, description = "Received (also when it was received before, or needs nothing done)"),
        (status = 400, description = "No, a stale or a wrong signature (`invalid_signature`); nothing changed", body = crate::openapi::error_body::ErrorBody),
        (status = 404, description = "No such endpoint", body = crate::openapi::error_body::ErrorBody),
        (status = 415, description = "Not `application/json` (`unsupported_media_type`)", body = crate::openapi::error_body::ErrorBody),
    ))]
pub async fn receive(
    state: web::Data<AppState>,
    req: HttpRequest,
    endpoint: web::Path<String>,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let json = req
        .headers()
        .get(actix_web::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"));
    if !json {
        return Err(ApiError::unsupported_media_type());
    }
    let signature = req
        .headers()
        .get("stripe-signature")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    receive_notification(&state, endpoint.into_inner(), signature, body.to_vec()).await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({ "received": true })))
}
