//! `GET /v1/payment-requests` (the interface's authentication check, without the `/api`
//! prefix) and `GET /api/v1/payment-requests` (SPEC §13): the open invoices awaiting payment.
//! Both need a valid key with `payments:read` (any `*` key), so a 200 proves the key works.
//! `POST` on either path makes one (SPEC §26): a sent invoice whose page takes the payment.

use crate::auth::Auth;
use crate::body::JsonBody;
use crate::error::ApiError;
use crate::ops::Ops;
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::payment::PaymentRequest;
use invoicing_domain::payment_request::{CreatedPaymentRequest, PaymentRequestInput};

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

async fn make(
    state: &AppState,
    auth: &Auth,
    body: PaymentRequestInput,
) -> Result<HttpResponse, ApiError> {
    let created = Ops::for_key(state, auth)
        .create_payment_request(body)
        .await?;
    Ok(HttpResponse::Created().json(created))
}

/// Make a payment request: a one-line invoice for the customer found or created by email, sent
/// at once, whose page (`checkout_url`) takes the payment and sends the customer back to the
/// shop. Needs `invoices:write`; an `Idempotency-Key` makes a retry safe.
#[utoipa::path(post, path = "/api/v1/payment-requests", tag = "payment requests",
    request_body(content = PaymentRequestInput, examples(
        ("Card payment for an order" = (value = json!({
            "amount_cents": 4999, "currency": "EUR", "description": "Order #1042: two tickets",
            "customer_name": "Ada Lovelace", "customer_email": "ada@example.com",
            "success_url": "https://shop.example/thanks", "cancel_url": "https://shop.example/cart",
            "expires_at": "2026-12-31T23:59:59Z"
        }))),
        ("With 19 % VAT included" = (value = json!({
            "amount_cents": 11900, "currency": "EUR", "tax_rate": "19", "description": "Consulting",
            "customer_name": "Erika Musterfrau", "customer_email": "erika@example.com", "email": true
        }))),
    )),
    responses((status = 201, description = "The request's invoice, sent; `checkout_url` takes the payment", body = CreatedPaymentRequest)),
    security(("api_key" = [])))]
pub async fn create(
    state: web::Data<AppState>,
    auth: Auth,
    body: JsonBody<PaymentRequestInput>,
) -> Result<HttpResponse, ApiError> {
    make(&state, &auth, body.0).await
}

/// [`create`] at the interface's path, without the `/api` prefix.
#[utoipa::path(post, path = "/v1/payment-requests", tag = "payment requests",
    request_body = PaymentRequestInput,
    responses((status = 201, description = "The request's invoice, sent; `checkout_url` takes the payment", body = CreatedPaymentRequest)),
    security(("api_key" = [])))]
pub async fn create_short(
    state: web::Data<AppState>,
    auth: Auth,
    body: JsonBody<PaymentRequestInput>,
) -> Result<HttpResponse, ApiError> {
    make(&state, &auth, body.0).await
}
