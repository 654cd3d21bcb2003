//! `/api/v1/invoices` (SPEC §9).

use crate::auth::Auth;
use crate::body::{JsonBody, OptionalJsonBody};
use crate::error::ApiError;
use crate::openapi::ErrorBody;
use crate::path_id::Id;
use crate::query::ListQuery;
use crate::routes::emails::requested;
use crate::{blocking, AppState};
use actix_web::{web, HttpRequest, HttpResponse};
use base64::Engine;
use chrono::Utc;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::customer::CustomerId;
use invoicing_domain::email::SendInput;
use invoicing_domain::invoice::{
    Invoice, InvoiceFilter, InvoiceId, InvoiceInput, InvoicePatch, InvoicePatchInput,
};
use invoicing_domain::invoice_status::InvoiceStatus;
use rand::RngCore;

crate::page_schema! {
    /// A page of invoices (SPEC §5 envelope).
    InvoiceList of Invoice
}

/// A payment-link capability: 192 random bits from the OS, URL-safe.
pub(crate) fn new_token() -> String {
    let mut bytes = [0u8; 24];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn missing(e: ApiError) -> ApiError {
    e.naming("invoice")
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
    let scope = auth.require_document_write(ApiResource::Invoices, body.0.customer.is_some())?;
    let new = body.0.parse(Utc::now().date_naive(), new_token())?;
    let repos = state.repos();
    let invoice = blocking(move || repos.create_invoice(scope, new)).await?;
    Ok(HttpResponse::Created().json(invoice))
}

/// List invoices, newest first.
#[utoipa::path(get, path = "/api/v1/invoices", tag = "invoices",
    params(
        ("status" = Option<InvoiceStatus>, Query, description = "draft, sent, viewed, overdue, paid or cancelled"),
        ("customer_id" = Option<i64>, Query, minimum = 1, description = "Only this customer's invoices"),
        ("created_after" = Option<chrono::NaiveDate>, Query, description = "YYYY-MM-DD, inclusive (UTC)"),
        ("created_before" = Option<chrono::NaiveDate>, Query, description = "YYYY-MM-DD, inclusive (UTC)"),
        ("page" = Option<u32>, Query, description = "Page number, from 1"),
        ("per_page" = Option<u32>, Query, description = "1 to 100, default 20"),
    ),
    responses((status = 200, description = "A page of invoices", body = InvoiceList)),
    security(("api_key" = [])))]
pub async fn list(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let scope = auth.require(ApiResource::Invoices, Access::Read)?;
    let q = ListQuery::parse(
        req.query_string(),
        &["status", "customer_id", "created_after", "created_before"],
    )?;
    let page = q.page()?;
    let filter = InvoiceFilter {
        status: q.choice(
            "status",
            InvoiceStatus::parse,
            "draft, sent, viewed, overdue, paid, cancelled",
        )?,
        customer_id: q.id("customer_id")?.map(CustomerId),
        created_after: q.date("created_after")?,
        created_before: q.date("created_before")?,
    };
    let repos = state.repos();
    let page = blocking(move || repos.list_invoices(scope, &filter, page)).await?;
    Ok(HttpResponse::Ok().json(page))
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
    let scope = auth.require(ApiResource::Invoices, Access::Read)?;
    let id = id.get()?;
    let repos = state.repos();
    let invoice = blocking(move || repos.get_invoice(scope, id))
        .await
        .map_err(missing)?;
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
    let scope = auth.require(ApiResource::Invoices, Access::Read)?;
    let id = id.get()?;
    let repos = state.repos();
    let shown = blocking(move || repos.invoice_as_shown(scope, id))
        .await
        .map_err(missing)?;
    crate::pdf::respond(crate::pdf::invoice_document(shown)).await
}

async fn apply(
    state: &AppState,
    auth: &Auth,
    id: Id<InvoiceId>,
    patch: InvoicePatch,
) -> Result<HttpResponse, ApiError> {
    let scope = auth.require(ApiResource::Invoices, Access::Write)?;
    let id = id.get()?;
    let repos = state.repos();
    let invoice = blocking(move || repos.update_invoice(scope, id, patch))
        .await
        .map_err(missing)?;
    Ok(HttpResponse::Ok().json(invoice))
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
    apply(&state, &auth, id, patch).await
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
    auth.require(ApiResource::Invoices, Access::Write)?;
    let patch = InvoicePatch {
        status: Some(InvoiceStatus::Sent),
        email: requested(&state, body.0.email)?,
        ..Default::default()
    };
    apply(&state, &auth, id, patch).await
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
