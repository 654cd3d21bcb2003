//! A quotation's moves: sending it, the prospect's answer (accept, reject) taken on their behalf,
//! and the conversion of an accepted one into a draft invoice.

use crate::auth::Auth;
use crate::body::OptionalJsonBody;
use crate::client::client_ip;
use crate::error::ApiError;
use crate::openapi::error_body::ErrorBody;
use crate::ops::{Ops, Origin};
use crate::path_id::Id;
use crate::AppState;
use actix_web::http::header::USER_AGENT;
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::email::SendInput;
use invoicing_domain::quotation::{
    AcceptInput, ConversionResult, ConvertInput, Quotation, QuotationId, RejectInput,
};

/// Send a draft quotation to the prospect; with `{"email": {…}}` it is also emailed, in the
/// same transaction. POST is the canonical form (`quotations_send`, like `invoices_send`); the
/// interface's PATCH form stays as `quotations_send_patch`.
#[utoipa::path(post, path = "/api/v1/quotations/{id}/send", tag = "quotations",
    params(("id" = i64, Path, description = "Quotation id")),
    request_body(content = Option<SendInput>, description = "Optional: `email` to email it too"),
    responses(
        (status = 200, description = "The sent quotation", body = Quotation),
        (status = 404, description = "No such quotation", body = ErrorBody),
        (status = 409, description = "Not a draft (`invalid_state_transition`)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn send(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<QuotationId>,
    body: OptionalJsonBody<SendInput>,
) -> Result<HttpResponse, ApiError> {
    let ops = Ops::for_key(&state, &auth);
    let quotation = ops.send_quotation(id, body.0.email).await?;
    Ok(HttpResponse::Ok().json(quotation))
}

/// Send a draft quotation (the interface's PATCH form of `POST /send`).
#[utoipa::path(patch, path = "/api/v1/quotations/{id}/send", tag = "quotations",
    params(("id" = i64, Path, description = "Quotation id")),
    request_body(content = Option<SendInput>, description = "Optional: `email` to email it too"),
    responses(
        (status = 200, description = "The sent quotation", body = Quotation),
        (status = 404, description = "No such quotation", body = ErrorBody),
        (status = 409, description = "Not a draft (`invalid_state_transition`)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn send_patch(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<QuotationId>,
    body: OptionalJsonBody<SendInput>,
) -> Result<HttpResponse, ApiError> {
    send(state, auth, id, body).await
}

/// Accept a sent or viewed quotation on the prospect's behalf. After `valid_until` the
/// quotation expires instead and the answer is 409.
#[utoipa::path(post, path = "/api/v1/quotations/{id}/accept", tag = "quotations",
    params(("id" = i64, Path, description = "Quotation id")),
    request_body(content = Option<AcceptInput>, description = "Optional"),
    responses(
        (status = 200, description = "The accepted quotation", body = Quotation),
        (status = 404, description = "No such quotation", body = ErrorBody),
        (status = 409, description = "Not awaiting an answer, or expired (`invalid_state_transition`)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn accept(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
    id: Id<QuotationId>,
    body: OptionalJsonBody<AcceptInput>,
) -> Result<HttpResponse, ApiError> {
    let origin = Origin {
        ip: client_ip(&req, &state.config).to_string(),
        user_agent: user_agent(&req),
    };
    let ops = Ops::for_key(&state, &auth);
    let quotation = ops.accept_quotation(id, body.0, origin).await?;
    Ok(HttpResponse::Ok().json(quotation))
}

/// Reject a sent or viewed quotation on the prospect's behalf, with an optional reason.
#[utoipa::path(post, path = "/api/v1/quotations/{id}/reject", tag = "quotations",
    params(("id" = i64, Path, description = "Quotation id")),
    request_body(content = Option<RejectInput>, description = "Optional"),
    responses(
        (status = 200, description = "The rejected quotation", body = Quotation),
        (status = 404, description = "No such quotation", body = ErrorBody),
        (status = 409, description = "Not awaiting an answer, or expired (`invalid_state_transition`)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn reject(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<QuotationId>,
    body: OptionalJsonBody<RejectInput>,
) -> Result<HttpResponse, ApiError> {
    let ops = Ops::for_key(&state, &auth);
    let quotation = ops.reject_quotation(id, body.0).await?;
    Ok(HttpResponse::Ok().json(quotation))
}

/// Convert an accepted quotation into a draft invoice, once.
#[utoipa::path(post, path = "/api/v1/quotations/{id}/convert", tag = "quotations",
    params(("id" = i64, Path, description = "Quotation id")),
    request_body(content = Option<ConvertInput>, description = "Optional: the invoice's due date (default net_30)"),
    responses(
        (status = 201, description = "The conversion result", body = ConversionResult),
        (status = 404, description = "No such quotation", body = ErrorBody),
        (status = 409, description = "Not accepted, or already converted (`invalid_state_transition`)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn convert(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<QuotationId>,
    body: OptionalJsonBody<ConvertInput>,
) -> Result<HttpResponse, ApiError> {
    let ops = Ops::for_key(&state, &auth);
    let result = ops.convert_quotation(id, body.0).await?;
    Ok(HttpResponse::Created().json(result))
}

pub(crate) fn user_agent(req: &HttpRequest) -> Option<String> {
    req.headers()
        .get(USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}
