//! Credit notes (SPEC §19): issued against an invoice, then final (no PATCH, PUT or DELETE).

use crate::auth::Auth;
use crate::body::{JsonBody, OptionalJsonBody};
use crate::error::ApiError;
use crate::openapi::ErrorBody;
use crate::path_id::Id;
use crate::query::ListQuery;
use crate::routes::emails::requested;
use crate::{blocking, AppState};
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::credit_note::{CreditNote, CreditNoteFilter, CreditNoteId, CreditNoteInput};
use invoicing_domain::customer::CustomerId;
use invoicing_domain::email::{EmailSubject, OutgoingEmail, SendInput};
use invoicing_domain::invoice::InvoiceId;

crate::page_schema! {
    /// A page of credit notes (SPEC §5 envelope).
    CreditNoteList of CreditNote
}

fn missing(e: ApiError) -> ApiError {
    e.naming("credit note")
}

/// Credit a sent, viewed, overdue or paid invoice: by lines, by a gross amount split over its
/// tax rates, or (neither) all that is left to credit. Its amount due drops; at zero an open
/// invoice becomes paid (it has verified payments) or cancelled (it has none).
#[utoipa::path(post, path = "/api/v1/invoices/{id}/credit_notes", tag = "credit_notes",
    params(("id" = i64, Path, description = "Invoice id")),
    request_body = CreditNoteInput,
    responses(
        (status = 201, description = "The credit note", body = CreditNote),
        (status = 404, description = "No such invoice", body = ErrorBody),
        (status = 409, description = "A draft or cancelled invoice (`invalid_state_transition`)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn create(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<InvoiceId>,
    body: JsonBody<CreditNoteInput>,
) -> Result<HttpResponse, ApiError> {
    let scope = auth.require(ApiResource::CreditNotes, Access::Write)?;
    let invoice = id.get()?;
    let (new, email) = body.0.parse()?;
    let email = requested(&state, email)?;
    let repos = state.repos();
    let note = blocking(move || repos.create_credit_note(scope, invoice, new, email))
        .await
        .map_err(|e| e.naming("invoice"))?;
    Ok(HttpResponse::Created().json(note))
}

/// List credit notes, newest first.
#[utoipa::path(get, path = "/api/v1/credit_notes", tag = "credit_notes",
    params(
        ("invoice_id" = Option<i64>, Query, minimum = 1, description = "Only this invoice's"),
        ("customer_id" = Option<i64>, Query, minimum = 1, description = "Only this customer's"),
        ("page" = Option<u32>, Query, description = "Page number, from 1"),
        ("per_page" = Option<u32>, Query, description = "1 to 100, default 20"),
    ),
    responses((status = 200, description = "A page of credit notes", body = CreditNoteList)),
    security(("api_key" = [])))]
pub async fn list(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let scope = auth.require(ApiResource::CreditNotes, Access::Read)?;
    let q = ListQuery::parse(req.query_string(), &["invoice_id", "customer_id"])?;
    let page = q.page()?;
    let filter = CreditNoteFilter {
        invoice_id: q.id("invoice_id")?.map(InvoiceId),
        customer_id: q.id("customer_id")?.map(CustomerId),
    };
    let repos = state.repos();
    let page = blocking(move || repos.list_credit_notes(scope, &filter, page)).await?;
    Ok(HttpResponse::Ok().json(page))
}

/// Retrieve a credit note.
#[utoipa::path(get, path = "/api/v1/credit_notes/{id}", tag = "credit_notes",
    params(("id" = i64, Path, description = "Credit note id")),
    responses(
        (status = 200, description = "The credit note", body = CreditNote),
        (status = 404, description = "No such credit note", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn get(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<CreditNoteId>,
) -> Result<HttpResponse, ApiError> {
    let scope = auth.require(ApiResource::CreditNotes, Access::Read)?;
    let id = id.get()?;
    let repos = state.repos();
    let note = blocking(move || repos.get_credit_note(scope, id))
        .await
        .map_err(missing)?;
    Ok(HttpResponse::Ok().json(note))
}

/// The credit note as a PDF (PDF/A-3b), in the customer's locale.
#[utoipa::path(get, path = "/api/v1/credit_notes/{id}/pdf", tag = "credit_notes",
    params(("id" = i64, Path, description = "Credit note id")),
    responses(
        (status = 200, description = "The PDF, `Content-Disposition: inline; filename=\"CN-….pdf\"`",
            content_type = "application/pdf", body = Vec<u8>),
        (status = 404, description = "No such credit note", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn pdf(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<CreditNoteId>,
) -> Result<HttpResponse, ApiError> {
    let scope = auth.require(ApiResource::CreditNotes, Access::Read)?;
    let id = id.get()?;
    let repos = state.repos();
    let shown = blocking(move || repos.credit_note_as_shown(scope, id))
        .await
        .map_err(missing)?;
    crate::pdf::respond(invoicing_render::credit_note_document(shown)).await
}

/// Email a credit note (again): to its customer, or to the addresses given.
#[utoipa::path(post, path = "/api/v1/credit_notes/{id}/email", tag = "credit_notes",
    params(("id" = i64, Path, description = "Credit note id")),
    request_body(content = Option<SendInput>, description = "Optional: recipients, subject and a note"),
    responses(
        (status = 202, description = "The queued email", body = OutgoingEmail),
        (status = 404, description = "No such credit note", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn email(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<CreditNoteId>,
    body: OptionalJsonBody<SendInput>,
) -> Result<HttpResponse, ApiError> {
    let scope = auth.require(ApiResource::CreditNotes, Access::Write)?;
    let id = id.get()?.0;
    let request = requested(&state, Some(body.0.email.unwrap_or_default()))?.unwrap_or_default();
    let repos = state.repos();
    let email =
        blocking(move || repos.resend_document(scope, EmailSubject::CreditNote(id), request))
            .await
            .map_err(missing)?;
    Ok(HttpResponse::Accepted().json(email))
}
