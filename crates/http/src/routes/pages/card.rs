//! "Pay by card" on the invoice page (SPEC §25): a form post that sends the customer to the
//! gateway's own page (303), and the return from it, which asks the gateway how it ended and
//! records the payment (once, whoever else reports it) before showing the invoice page.

use super::{form_token, limit_public, query_token, valid_token};
use crate::error::ApiError;
use crate::form_body::{require_form, FormBody};
use crate::ops::gateways::{card_return, start_card_payment, CardOutcome};
use crate::redirect::see_other;
use crate::{blocking, AppState};
use actix_web::{web, HttpRequest, HttpResponse};
use serde::Deserialize;
use std::collections::HashMap;
use utoipa::openapi::schema::{ObjectBuilder, Schema};
use utoipa::openapi::RefOr;

/// The fields "Pay by card" posts.
#[derive(Deserialize)]
pub(crate) struct CardForm {
    token: Option<String>,
}

impl utoipa::PartialSchema for CardForm {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .description(Some("The invoice page's \"Pay by card\" form"))
            .property("token", form_token())
            .required("token")
            .into()
    }
}

impl utoipa::ToSchema for CardForm {}

/// Opens (or reuses) the invoice's card checkout and sends the customer to it.
#[utoipa::path(post, path = "/invoice/{number}/card", tag = "public pages", operation_id = "invoice_pay_by_card",
    params(("number" = String, Path, description = "Invoice number")),
    request_body(content = CardForm, content_type = "application/x-www-form-urlencoded", description = "The form as a browser posts it"),
    responses(
        (status = 303, description = "To Stripe's checkout page; or back to the invoice page when it takes no card payment now (paid meanwhile, or Stripe unreachable: the page says so)",
            headers(("Location" = String, description = "Stripe's checkout page, or the invoice page"))),
        (status = 404, description = "Unknown number, wrong or missing token, or a draft", body = crate::openapi::error_body::ErrorBody),
        (status = 415, description = "Not an HTML form post (`unsupported_media_type`)", body = crate::openapi::error_body::ErrorBody),
        (status = 429, description = "Too many requests from this address (`rate_limited`)", body = crate::openapi::error_body::ErrorBody),
    ))]
pub async fn start(
    state: web::Data<AppState>,
    req: HttpRequest,
    number: web::Path<String>,
    body: FormBody,
) -> Result<HttpResponse, ApiError> {
    limit_public(&state, &req)?;
    require_form(&req)?;
    let form: CardForm = serde_urlencoded::from_bytes(&body.0)
        .map_err(|_| ApiError::invalid_parameter("body", "expected an HTML form"))?;
    let token = valid_token(form.token).ok_or_else(|| ApiError::resource_missing("invoice"))?;
    let number = number.into_inner();
    let page = format!("/invoice/{number}?token={token}");
    match start_card_payment(&state, number, token).await {
        Ok(url) => Ok(see_other(&url)),
        Err(e) if e.code == "resource_missing" => Err(e),
        // Paid or cancelled meanwhile, or the card option just went away: the page says where
        // the invoice stands.
        Err(e) if e.code == "invalid_state_transition" || e.code == "gateway_not_connected" => {
            Ok(see_other(&page))
        }
        Err(e) if e.code == "gateway_unavailable" || e.code == "gateway_refused" => {
            Ok(see_other(&format!("{page}&card=unavailable")))
        }
        Err(e) => Err(e),
    }
}

/// Where Stripe sends the customer back: the payment recorded if it was made, then the page.
#[utoipa::path(get, path = "/invoice/{number}/card", tag = "public pages", operation_id = "invoice_card_return",
    params(
        ("number" = String, Path, description = "Invoice number"),
        ("token" = String, Query, description = "The capability token of the payment link"),
        ("session_id" = String, Query, description = "The Checkout Session Stripe returns from"),
    ),
    responses(
        (status = 303, description = "To the invoice page, which says paid, or that the payment is being confirmed; a paid payment request's customer to the shop's `success_url` (with `invoice=NUMBER`)",
            headers(("Location" = String, description = "The invoice page, or the shop's success_url"))),
        (status = 404, description = "Unknown number, wrong or missing token, or a draft", body = crate::openapi::error_body::ErrorBody),
        (status = 429, description = "Too many requests from this address (`rate_limited`)", body = crate::openapi::error_body::ErrorBody),
    ))]
pub async fn back(
    state: web::Data<AppState>,
    req: HttpRequest,
    number: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    limit_public(&state, &req)?;
    let token = query_token(&req).ok_or_else(|| ApiError::resource_missing("invoice"))?;
    let session = serde_urlencoded::from_str::<HashMap<String, String>>(req.query_string())
        .ok()
        .and_then(|mut q| q.remove("session_id"))
        .unwrap_or_default();
    let number = number.into_inner();
    let page = format!("/invoice/{number}?token={token}");
    let outcome = card_return(&state, number.clone(), token.clone(), session).await?;
    if outcome == CardOutcome::Paid {
        // A payment request's customer goes back to the shop (SPEC §26).
        let repos = state.repos();
        let n = number.clone();
        let shown = blocking(move || repos.find_public_invoice(&n, &token)).await?;
        if let Some(shop) = shown.checkout.and_then(|c| c.success_redirect(&number)) {
            return Ok(see_other(&shop));
        }
    }
    Ok(see_other(&match outcome {
        CardOutcome::Paid => format!("{page}&card=paid"),
        CardOutcome::Confirming => format!("{page}&card=confirming"),
        CardOutcome::NotPaid => page,
    }))
}
