//! `GET /v1/payment-requests` (the interface's authentication check, without the `/api`
//! prefix) and `GET /api/v1/payment-requests` (SPEC §13): the open invoices awaiting payment.
//! Both need a valid key with `payments:read` (any `*` key), so a 200 proves the key works.

use crate::auth::Auth;
use crate::error::ApiError;
use crate::ops::Ops;
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::payment::PaymentRequest;

crate::page_schema! {
    /// A page of payment requests (SPEC §5 envelope).
    PaymentRequestList of PaymentRequest
}

async fn answer(
    state: &AppState,
    auth: &Auth,
    req: &HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let page = Ops::for_key(state, auth)
        .payment_requests(req.query_string())
        .await?;
    Ok(HttpResponse::Ok().json(page))
}

/// The open (sent, viewed, overdue) invoices awaiting payment, newest first; the interface's
/// authentication check.
#[utoipa::path(get, path = "/v1/payment-requests", tag = "payment requests",
    params(
        ("page" = Option<u32>, Query, description = "Page number, from 1"),
        ("per_page" = Option<u32>, Query, description = "1 to 100, default 20"),
    ),
    responses((status = 200, description = "A page of payment requests", body = PaymentRequestList)),
    security(("api_key" = [])))]
pub async fn check(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    answer(&state, &auth, &req).await
}

/// The open (sent, viewed, overdue) invoices awaiting payment, newest first.
#[utoipa::path(get, path = "/api/v1/payment-requests", tag = "payment requests",
    params(
        ("page" = Option<u32>, Query, description = "Page number, from 1"),
        ("per_page" = Option<u32>, Query, description = "1 to 100, default 20"),
    ),
    responses((status = 200, description = "A page of payment requests", body = PaymentRequestList)),
    security(("api_key" = [])))]
pub async fn list(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    answer(&state, &auth, &req).await
}
