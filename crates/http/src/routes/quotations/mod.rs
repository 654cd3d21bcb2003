//! `/api/v1/quotations` (SPEC §10): drafts, sending, the prospect's answer on their behalf, and
//! the conversion into an invoice (`moves.rs`). This file holds the drafts: create, list (also
//! as CSV), get, update, delete, and the PDF.

pub mod moves;

use crate::auth::Auth;
use crate::body::{JsonBody, NoBody, OptionalJsonBody};
use crate::csv_export;
use crate::error::ApiError;
use crate::openapi::error_body::ErrorBody;
use crate::ops::Ops;
use crate::path_id::Id;
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::quotation::{Quotation, QuotationId, QuotationInput, QuotationPatchInput};
use invoicing_domain::quotation_status::QuotationStatus;

crate::page_schema! {
    /// A page of quotations (SPEC §5 envelope).
    QuotationList of Quotation
}

/// The quotation as a PDF, in the prospect's locale, as its page shows it.
#[utoipa::path(get, path = "/api/v1/quotations/{id}/pdf", tag = "quotations",
    params(("id" = i64, Path, description = "Quotation id")),
    responses(
        (status = 200, description = "The PDF, `Content-Disposition: inline; filename=\"QUO-….pdf\"`",
            content_type = "application/pdf", body = Vec<u8>),
        (status = 404, description = "No such quotation", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn pdf(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<QuotationId>,
) -> Result<HttpResponse, ApiError> {
    let doc = Ops::for_key(&state, &auth).quotation_pdf(id).await?;
    crate::pdf::respond(doc).await
}

/// Create a draft quotation.
#[utoipa::path(post, path = "/api/v1/quotations", tag = "quotations",
    request_body = QuotationInput,
    responses((status = 201, description = "The draft quotation", body = Quotation)),
    security(("api_key" = [])))]
pub async fn create(
    state: web::Data<AppState>,
    auth: Auth,
    body: JsonBody<QuotationInput>,
) -> Result<HttpResponse, ApiError> {
    let quotation = Ops::for_key(&state, &auth).create_quotation(body.0).await?;
    Ok(HttpResponse::Created().json(quotation))
}

/// List quotations, newest first.
#[utoipa::path(get, path = "/api/v1/quotations", tag = "quotations",
    params(
        ("status" = Option<QuotationStatus>, Query, description = "draft, sent, viewed, accepted, rejected, expired or converted"),
        ("customer_id" = Option<i64>, Query, minimum = 1, description = "Only this customer's quotations"),
        ("page" = Option<u32>, Query, description = "Page number, from 1"),
        ("per_page" = Option<u32>, Query, description = "1 to 100, default 20"),
        ("format" = Option<String>, Query, description = "`csv`: every matching row as CSV (as `Accept: text/csv` asks); anything else: JSON"),
    ),
    responses((status = 200, description = "A page of quotations; or, asked for CSV, every matching one (UTF-8 with a byte-order mark, amounts as `_cents` and decimals)",
        content((QuotationList = "application/json"), (String = "text/csv")))),
    security(("api_key" = [])))]
pub async fn list(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    QUOTATIONS
        .answer(
            req.query_string(),
            csv_export::wanted(&req),
            Ops::for_key(&state, &auth),
        )
        .await
}

/// The list as CSV, for this route and the dashboard's export link.
pub(crate) const QUOTATIONS: csv_export::Export<Quotation> = csv_export::Export {
    file: "quotations.csv",
    columns: QUOTATION_COLUMNS,
    row: quotation_row,
    list: |ops, q| Box::pin(async move { ops.list_quotations(&q).await }),
};

pub(crate) const QUOTATION_COLUMNS: &[csv_export::Column] = &[
    csv_export::text("id"),
    csv_export::text("quote_number"),
    csv_export::text("status"),
    csv_export::text("customer_id"),
    csv_export::text("currency"),
    csv_export::text("issue_date"),
    csv_export::text("valid_until"),
    csv_export::amount("subtotal"),
    csv_export::amount("tax"),
    csv_export::amount("total"),
    csv_export::text("invoice_id"),
    csv_export::text("sent_at"),
    csv_export::text("accepted_at"),
    csv_export::text("created_at"),
    csv_export::text("notes"),
];

pub(crate) fn quotation_row(q: &Quotation) -> Vec<csv_export::Cell> {
    use csv_export::Cell::{Amount, Date, Int, Text, Time};
    let c = q.currency;
    vec![
        Int(q.id.0),
        Text(q.quote_number.clone()),
        Text(q.status.as_str().to_string()),
        Int(q.customer_id.0),
        Text(c.code().to_string()),
        Date(q.issue_date),
        Date(q.valid_until),
        Amount(q.subtotal_cents, c),
        Amount(q.tax_cents, c),
        Amount(q.total_cents, c),
        Text(q.invoice_id.map(|i| i.to_string()).unwrap_or_default()),
        Time(q.sent_at),
        Time(q.accepted_at),
        Time(Some(q.created_at)),
        Text(q.notes.clone().unwrap_or_default()),
    ]
}

/// Retrieve a quotation.
#[utoipa::path(get, path = "/api/v1/quotations/{id}", tag = "quotations",
    params(("id" = i64, Path, description = "Quotation id")),
    responses(
        (status = 200, description = "The quotation", body = Quotation),
        (status = 404, description = "No such quotation", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn get(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<QuotationId>,
) -> Result<HttpResponse, ApiError> {
    let quotation = Ops::for_key(&state, &auth).quotation(id).await?;
    Ok(HttpResponse::Ok().json(quotation))
}

/// Update a quotation: `valid_until`, notes and metadata; lines, currency and customer while it
/// is a draft.
#[utoipa::path(patch, path = "/api/v1/quotations/{id}", tag = "quotations",
    params(("id" = i64, Path, description = "Quotation id")),
    request_body = QuotationPatchInput,
    responses(
        (status = 200, description = "The updated quotation", body = Quotation),
        (status = 404, description = "No such quotation", body = ErrorBody),
        (status = 409, description = "A draft-only change to a quotation that is no longer a draft (`invalid_state_transition`)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn update(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<QuotationId>,
    body: JsonBody<QuotationPatchInput>,
) -> Result<HttpResponse, ApiError> {
    let quotation = Ops::for_key(&state, &auth)
        .update_quotation(id, body.0)
        .await?;
    Ok(HttpResponse::Ok().json(quotation))
}

/// Delete a draft quotation.
#[utoipa::path(delete, path = "/api/v1/quotations/{id}", tag = "quotations",
    params(("id" = i64, Path, description = "Quotation id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "No such quotation", body = ErrorBody),
        (status = 409, description = "Only drafts can be deleted (`invalid_state_transition`)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn delete(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<QuotationId>,
    _body: OptionalJsonBody<NoBody>,
) -> Result<HttpResponse, ApiError> {
    Ops::for_key(&state, &auth).delete_quotation(id).await?;
    Ok(HttpResponse::NoContent().finish())
}
