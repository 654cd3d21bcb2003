//! `/api/v1/payments` (SPEC §13): payments of open invoices and their verification lifecycle.

use crate::auth::Auth;
use crate::body::{JsonBody, NoBody, OptionalJsonBody};
use crate::csv_export;
use crate::error::ApiError;
use crate::openapi::error_body::ErrorBody;
use crate::ops::Ops;
use crate::path_id::Id;
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::gateway::RefundInput;
use invoicing_domain::payment::{
    Payment, PaymentChange, PaymentId, PaymentInput, PaymentPatchInput, RejectPaymentInput,
};
use invoicing_domain::payment_proof::ProofKind;
use invoicing_domain::payment_status::PaymentStatus;

crate::page_schema! {
    /// A page of payments (SPEC §5 envelope).
    PaymentList of Payment
}

/// Record a payment of a sent, viewed or overdue invoice: `pending` until verified, or
/// `verified` at once. A verified payment that covers the total marks the invoice paid.
#[utoipa::path(post, path = "/api/v1/payments", tag = "payments",
    request_body = PaymentInput,
    responses(
        (status = 201, description = "The payment", body = Payment),
        (status = 404, description = "No such invoice (`invoice_id`)", body = ErrorBody),
        (status = 409, description = "The invoice is not sent, viewed or overdue (`invalid_state_transition`)", body = ErrorBody),
        (status = 422, description = "Invalid fields, or `amount_cents` above the invoice's `amount_due_cents` (`validation_failed`)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn create(
    state: web::Data<AppState>,
    auth: Auth,
    body: JsonBody<PaymentInput>,
) -> Result<HttpResponse, ApiError> {
    let payment = Ops::for_key(&state, &auth).create_payment(body.0).await?;
    Ok(HttpResponse::Created().json(payment))
}

/// List payments, newest first.
#[utoipa::path(get, path = "/api/v1/payments", tag = "payments",
    params(
        ("status" = Option<PaymentStatus>, Query, description = "pending, verified or rejected"),
        ("customer_id" = Option<i64>, Query, minimum = 1, description = "Only this customer's payments"),
        ("invoice_id" = Option<i64>, Query, minimum = 1, description = "Only this invoice's payments"),
        ("amount_min" = Option<i64>, Query, minimum = -1000000000000000.0, maximum = 1000000000000000.0, description = "Only payments of at least this many minor units"),
        ("page" = Option<u32>, Query, description = "Page number, from 1"),
        ("per_page" = Option<u32>, Query, description = "1 to 100, default 20"),
        ("format" = Option<String>, Query, description = "`csv`: every matching row as CSV (as `Accept: text/csv` asks); anything else: JSON"),
    ),
    responses((status = 200, description = "A page of payments; or, asked for CSV, every matching one (UTF-8 with a byte-order mark, amounts as `_cents` and decimals)",
        content((PaymentList = "application/json"), (String = "text/csv")))),
    security(("api_key" = [])))]
pub async fn list(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    PAYMENTS
        .answer(
            req.query_string(),
            csv_export::wanted(&req),
            Ops::for_key(&state, &auth),
        )
        .await
}

/// The list as CSV, for this route and the dashboard's export link.
pub(crate) const PAYMENTS: csv_export::Export<Payment> = csv_export::Export {
    file: "payments.csv",
    columns: PAYMENT_COLUMNS,
    row: payment_row,
    list: |ops, q| Box::pin(async move { ops.list_payments(&q).await }),
};

pub(crate) const PAYMENT_COLUMNS: &[csv_export::Column] = &[
    csv_export::text("id"),
    csv_export::text("invoice_id"),
    csv_export::text("customer_id"),
    csv_export::text("currency"),
    csv_export::amount("amount"),
    csv_export::text("status"),
    csv_export::text("method"),
    csv_export::text("reference"),
    csv_export::text("created_at"),
    csv_export::text("verified_at"),
    csv_export::text("rejected_at"),
    csv_export::text("rejection_reason"),
];

pub(crate) fn payment_row(p: &Payment) -> Vec<csv_export::Cell> {
    use csv_export::Cell::{Amount, Int, Text, Time};
    vec![
        Int(p.id.0),
        Int(p.invoice_id.0),
        Int(p.customer_id.0),
        Text(p.currency.code().to_string()),
        Amount(p.amount_cents, p.currency),
        Text(p.status.as_str().to_string()),
        Text(p.method.as_str().to_string()),
        Text(p.reference.clone().unwrap_or_default()),
        Time(Some(p.created_at)),
        Time(p.verified_at),
        Time(p.rejected_at),
        Text(p.rejection_reason.clone().unwrap_or_default()),
    ]
}

/// Retrieve a payment.
#[utoipa::path(get, path = "/api/v1/payments/{id}", tag = "payments",
    params(("id" = i64, Path, description = "Payment id")),
    responses(
        (status = 200, description = "The payment", body = Payment),
        (status = 404, description = "No such payment", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn get(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<PaymentId>,
) -> Result<HttpResponse, ApiError> {
    let payment = Ops::for_key(&state, &auth).payment(id).await?;
    Ok(HttpResponse::Ok().json(payment))
}

async fn apply(
    state: &AppState,
    auth: &Auth,
    id: Id<PaymentId>,
    change: PaymentChange,
) -> Result<HttpResponse, ApiError> {
    let payment = Ops::for_key(state, auth).change_payment(id, change).await?;
    Ok(HttpResponse::Ok().json(payment))
}

/// Verify a pending payment: it now counts towards the invoice's `amount_paid_cents`, and the
/// verification that covers the total marks the invoice paid.
#[utoipa::path(post, path = "/api/v1/payments/{id}/verify", tag = "payments",
    params(("id" = i64, Path, description = "Payment id")),
    responses(
        (status = 200, description = "The verified payment", body = Payment),
        (status = 404, description = "No such payment", body = ErrorBody),
        (status = 409, description = "Not pending, or its invoice is no longer sent, viewed or overdue (`invalid_state_transition`)", body = ErrorBody),
        (status = 422, description = "Its amount exceeds what the invoice still owes (`validation_failed`, param `amount_cents`): reject it", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn verify(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<PaymentId>,
    _body: OptionalJsonBody<NoBody>,
) -> Result<HttpResponse, ApiError> {
    apply(&state, &auth, id, PaymentChange::verify()).await
}

/// Reject a pending payment, with an optional reason.
#[utoipa::path(post, path = "/api/v1/payments/{id}/reject", tag = "payments",
    params(("id" = i64, Path, description = "Payment id")),
    request_body(content = Option<RejectPaymentInput>, description = "Optional"),
    responses(
        (status = 200, description = "The rejected payment", body = Payment),
        (status = 404, description = "No such payment", body = ErrorBody),
        (status = 409, description = "Not pending (`invalid_state_transition`)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn reject(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<PaymentId>,
    body: OptionalJsonBody<RejectPaymentInput>,
) -> Result<HttpResponse, ApiError> {
    let change = body.0.parse()?;
    apply(&state, &auth, id, change).await
}

/// Verify or reject a pending payment (the status form of `…/verify` and `…/reject`).
#[utoipa::path(patch, path = "/api/v1/payments/{id}", tag = "payments",
    params(("id" = i64, Path, description = "Payment id")),
    request_body = PaymentPatchInput,
    responses(
        (status = 200, description = "The payment after the change", body = Payment),
        (status = 404, description = "No such payment", body = ErrorBody),
        (status = 409, description = "A transition the table refuses, or its invoice is no longer open (`invalid_state_transition`)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn update(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<PaymentId>,
    body: JsonBody<PaymentPatchInput>,
) -> Result<HttpResponse, ApiError> {
    let change = body.0.parse()?;
    apply(&state, &auth, id, change).await
}

/// Refund a payment (SPEC §25): at most what the customer paid beyond what they owe (an
/// overpayment, or a credit note's `refund_due_cents`), so credit first, then refund. A card
/// payment is refunded through Stripe (its refund `pending` until Stripe confirms it); any
/// other is recorded as paid back by hand.
#[utoipa::path(post, path = "/api/v1/payments/{id}/refunds", tag = "payments",
    params(("id" = i64, Path, description = "Payment id")),
    request_body(content = Option<RefundInput>, description = "Optional: all that is refundable by default"),
    responses(
        (status = 200, description = "The payment with its `refunds[]`", body = Payment),
        (status = 404, description = "No such payment", body = ErrorBody),
        (status = 409, description = "Not a verified payment (`invalid_state_transition`)", body = ErrorBody),
        (status = 422, description = "Nothing refundable, or more than is (`validation_failed`, param `amount_cents`)", body = ErrorBody),
        (status = 502, description = "Stripe refused the refund (`gateway_refused`: nothing was refunded) or did not answer (`gateway_unavailable`: the refund stays pending until Stripe says)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn refund(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<PaymentId>,
    body: OptionalJsonBody<RefundInput>,
) -> Result<HttpResponse, ApiError> {
    let payment = Ops::for_key(&state, &auth)
        .refund_payment(id, body.0)
        .await?;
    Ok(HttpResponse::Ok().json(payment))
}

/// The file the customer attached to the transfer they reported (never public).
#[utoipa::path(get, path = "/api/v1/payments/{id}/proof", tag = "payments",
    params(("id" = i64, Path, description = "Payment id")),
    responses(
        (status = 200, description = "The file, as an attachment",
            content((Vec<u8> = "application/pdf"), (Vec<u8> = "image/png"), (Vec<u8> = "image/jpeg"))),
        (status = 404, description = "No such payment, or it has no proof", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn proof(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<PaymentId>,
) -> Result<HttpResponse, ApiError> {
    let file = Ops::for_key(&state, &auth).payment_proof(id).await?;
    let kind = ProofKind::from_content_type(&file.content_type).ok_or_else(ApiError::internal)?;
    Ok(crate::binary::respond_attachment(crate::binary::Binary {
        content_type: kind.content_type(),
        cache_control: "private, no-store",
        filename: Some(file.filename),
        bytes: file.bytes,
    }))
}
