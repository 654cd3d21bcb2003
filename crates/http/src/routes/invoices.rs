//! `/api/v1/invoices` (SPEC §9).

use crate::auth::Auth;
use crate::body::{JsonBody, OptionalJsonBody};
use crate::csv_export;
use crate::error::ApiError;
use crate::openapi::error_body::ErrorBody;
use crate::ops::Ops;
use crate::path_id::Id;
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::email::SendInput;
use invoicing_domain::invoice::{
    Invoice, InvoiceId, InvoiceInput, InvoicePatchInput, InvoiceSummary,
};
use invoicing_domain::invoice_status::InvoiceStatus;

crate::page_schema! {
    /// A page of invoices (SPEC §5 envelope).
    InvoiceList of Invoice
}

/// Create a draft invoice.
#[utoipa::path(post, path = "/api/v1/invoices", tag = "invoices",
    request_body = InvoiceInput,
    responses((status = 201, description = "The draft invoice", body = Invoice)),
    security(("api_key" = [])))]
pub async fn create(
    state: web::Data<AppState>,
    auth: Auth,
    body: JsonBody<InvoiceInput>,
) -> Result<HttpResponse, ApiError> {
    let invoice = Ops::for_key(&state, &auth).create_invoice(body.0).await?;
    Ok(HttpResponse::Created().json(invoice))
}

/// List invoices, newest first.
#[utoipa::path(get, path = "/api/v1/invoices", tag = "invoices",
    params(
        ("status" = Option<InvoiceStatus>, Query, description = "draft, sent, viewed, overdue, paid or cancelled"),
        ("customer_id" = Option<i64>, Query, minimum = 1, description = "Only this customer's invoices"),
        ("created_after" = Option<chrono::NaiveDate>, Query, description = "YYYY-MM-DD, inclusive (UTC)"),
        ("created_before" = Option<chrono::NaiveDate>, Query, description = "YYYY-MM-DD, inclusive (UTC)"),
        ("q" = Option<String>, Query, min_length = 1, max_length = 100, pattern = r"^[^\u0000-\u001F\u007F-\u009F]*[^\s\u0000-\u001F\u007F-\u009F][^\u0000-\u001F\u007F-\u009F]*$", description = "Search: invoices whose number, or whose customer's name or email, contains this text (any case); 1 to 100 characters, no control characters"),
        ("page" = Option<u32>, Query, description = "Page number, from 1"),
        ("per_page" = Option<u32>, Query, description = "1 to 100, default 20"),
        ("format" = Option<String>, Query, description = "`csv`: every matching invoice as CSV (as `Accept: text/csv` asks); anything else: JSON"),
    ),
    responses((status = 200, description = "A page of invoices; or, asked for CSV, every matching one (UTF-8 with a byte-order mark, amounts as `_cents` and decimals)",
        content((InvoiceList = "application/json"), (String = "text/csv")))),
    security(("api_key" = [])))]
pub async fn list(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let ops = Ops::for_key(&state, &auth);
    if csv_export::wanted(&req) {
        return INVOICES.csv(req.query_string(), ops).await;
    }
    let page = ops
        .list_invoices(&csv_export::without_format(req.query_string()))
        .await?;
    Ok(HttpResponse::Ok().json(page))
}

/// The list as CSV, for this route and the dashboard's export link: the same filters as the
/// JSON list, read without lines.
pub(crate) const INVOICES: csv_export::Export<InvoiceSummary> = csv_export::Export {
    file: "invoices.csv",
    columns: INVOICE_COLUMNS,
    row: invoice_row,
    list: |ops, q| Box::pin(async move { ops.invoice_summaries(&q).await }),
};

pub(crate) const INVOICE_COLUMNS: &[csv_export::Column] = &[
    csv_export::text("id"),
    csv_export::text("invoice_number"),
    csv_export::text("status"),
    csv_export::text("customer_id"),
    csv_export::text("currency"),
    csv_export::text("issue_date"),
    csv_export::text("due_date"),
    csv_export::amount("subtotal"),
    csv_export::amount("tax"),
    csv_export::amount("total"),
    csv_export::amount("amount_paid"),
    csv_export::amount("amount_credited"),
    csv_export::amount("amount_due"),
    csv_export::text("sent_at"),
    csv_export::text("paid_at"),
    csv_export::text("created_at"),
    csv_export::text("notes"),
];

pub(crate) fn invoice_row(i: &InvoiceSummary) -> Vec<csv_export::Cell> {
    use csv_export::Cell::{Amount, Date, Int, Text, Time};
    let c = i.currency;
    vec![
        Int(i.id.0),
        Text(i.invoice_number.clone()),
        Text(i.status.as_str().to_string()),
        Int(i.customer_id.0),
        Text(c.code().to_string()),
        Date(i.issue_date),
        Date(i.due_date),
        Amount(i.subtotal_cents, c),
        Amount(i.tax_cents, c),
        Amount(i.total_cents, c),
        Amount(i.amount_paid_cents, c),
        Amount(i.amount_credited_cents, c),
        Amount(i.amount_due_cents, c),
        Time(i.sent_at),
        Time(i.paid_at),
        Time(Some(i.created_at)),
        Text(i.notes.clone().unwrap_or_default()),
    ]
}

/// Retrieve an invoice.
#[utoipa::path(get, path = "/api/v1/invoices/{id}", tag = "invoices",
    params(("id" = i64, Path, description = "Invoice id")),
    responses(
        (status = 200, description = "The invoice", body = Invoice),
        (status = 404, description = "No such invoice", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn get(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<InvoiceId>,
) -> Result<HttpResponse, ApiError> {
    let invoice = Ops::for_key(&state, &auth).invoice(id).await?;
    Ok(HttpResponse::Ok().json(invoice))
}

/// The invoice as a PDF (PDF/A-3b), in the customer's locale, as its page shows it.
#[utoipa::path(get, path = "/api/v1/invoices/{id}/pdf", tag = "invoices",
    params(("id" = i64, Path, description = "Invoice id")),
    responses(
        (status = 200, description = "The PDF, `Content-Disposition: inline; filename=\"INV-….pdf\"`",
            content_type = "application/pdf", body = Vec<u8>),
        (status = 404, description = "No such invoice", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn pdf(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<InvoiceId>,
) -> Result<HttpResponse, ApiError> {
    let doc = Ops::for_key(&state, &auth).invoice_pdf(id).await?;
    crate::pdf::respond(doc).await
}

/// Update an invoice: change its status as the transition table allows (`paid` marks it paid,
/// `cancelled` cancels it), its due date, notes or metadata; lines, currency and customer while
/// it is a draft.
#[utoipa::path(patch, path = "/api/v1/invoices/{id}", tag = "invoices",
    params(("id" = i64, Path, description = "Invoice id")),
    request_body = InvoicePatchInput,
    responses(
        (status = 200, description = "The updated invoice", body = Invoice),
        (status = 404, description = "No such invoice", body = ErrorBody),
        (status = 409, description = "A transition the table refuses, or a draft-only change (`invalid_state_transition`)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn update(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<InvoiceId>,
    body: JsonBody<InvoicePatchInput>,
) -> Result<HttpResponse, ApiError> {
    let patch = body.0.parse()?;
    let ops = Ops::for_key(&state, &auth);
    let invoice = ops.update_invoice(id, patch).await?;
    Ok(HttpResponse::Ok().json(invoice))
}

/// Send a draft invoice (POST or PATCH); with `{"email": {…}}` it is also emailed, in the same
/// transaction.
#[utoipa::path(post, path = "/api/v1/invoices/{id}/send", tag = "invoices",
    params(("id" = i64, Path, description = "Invoice id")),
    request_body(content = Option<SendInput>, description = "Optional: `email` to email it too"),
    responses(
        (status = 200, description = "The sent invoice", body = Invoice),
        (status = 404, description = "No such invoice", body = ErrorBody),
        (status = 409, description = "Not a draft (`invalid_state_transition`)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn send(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<InvoiceId>,
    body: OptionalJsonBody<SendInput>,
) -> Result<HttpResponse, ApiError> {
    let ops = Ops::for_key(&state, &auth);
    let invoice = ops.send_invoice(id, body.0.email).await?;
    Ok(HttpResponse::Ok().json(invoice))
}

/// Send a draft invoice (the PATCH form of `POST /send`).
#[utoipa::path(patch, path = "/api/v1/invoices/{id}/send", tag = "invoices",
    params(("id" = i64, Path, description = "Invoice id")),
    request_body(content = Option<SendInput>, description = "Optional: `email` to email it too"),
    responses(
        (status = 200, description = "The sent invoice", body = Invoice),
        (status = 404, description = "No such invoice", body = ErrorBody),
        (status = 409, description = "Not a draft (`invalid_state_transition`)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn send_patch(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<InvoiceId>,
    body: OptionalJsonBody<SendInput>,
) -> Result<HttpResponse, ApiError> {
    send(state, auth, id, body).await
}
