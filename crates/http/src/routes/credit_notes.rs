//! Credit notes (SPEC §19): issued against an invoice, then final (no PATCH, PUT or DELETE).

use crate::auth::Auth;
use crate::body::{JsonBody, OptionalJsonBody};
use crate::csv_export;
use crate::error::ApiError;
use crate::openapi::error_body::ErrorBody;
use crate::ops::Ops;
use crate::path_id::Id;
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::credit_note::{CreditNote, CreditNoteId, CreditNoteInput};
use invoicing_domain::email::{EmailSubject, OutgoingEmail, SendInput};
use invoicing_domain::invoice::InvoiceId;

crate::page_schema! {
    /// A page of credit notes (SPEC §5 envelope).
    CreditNoteList of CreditNote
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
    let ops = Ops::for_key(&state, &auth);
    let note = ops.create_credit_note(id, body.0).await?;
    Ok(HttpResponse::Created().json(note))
}

/// List credit notes, newest first.
#[utoipa::path(get, path = "/api/v1/credit_notes", tag = "credit_notes",
    params(
        ("invoice_id" = Option<i64>, Query, minimum = 1, description = "Only this invoice's"),
        ("customer_id" = Option<i64>, Query, minimum = 1, description = "Only this customer's"),
        ("page" = Option<u32>, Query, description = "Page number, from 1"),
        ("per_page" = Option<u32>, Query, description = "1 to 100, default 20"),
        ("format" = Option<String>, Query, description = "`csv`: every matching row as CSV (as `Accept: text/csv` asks); anything else: JSON"),
    ),
    responses((status = 200, description = "A page of credit notes; or, asked for CSV, every matching one (UTF-8 with a byte-order mark, amounts as `_cents` and decimals)",
        content((CreditNoteList = "application/json"), (String = "text/csv")))),
    security(("api_key" = [])))]
pub async fn list(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    CREDIT_NOTES
        .answer(
            req.query_string(),
            csv_export::wanted(&req),
            Ops::for_key(&state, &auth),
        )
        .await
}

/// The list as CSV, for this route and the dashboard's export link.
pub(crate) const CREDIT_NOTES: csv_export::Export<CreditNote> = csv_export::Export {
    file: "credit_notes.csv",
    columns: CREDIT_NOTE_COLUMNS,
    row: credit_note_row,
    list: |ops, q| Box::pin(async move { ops.list_credit_notes(&q).await }),
};

pub(crate) const CREDIT_NOTE_COLUMNS: &[csv_export::Column] = &[
    csv_export::text("id"),
    csv_export::text("credit_note_number"),
    csv_export::text("invoice_id"),
    csv_export::text("customer_id"),
    csv_export::text("currency"),
    csv_export::text("reason"),
    csv_export::amount("subtotal"),
    csv_export::amount("tax"),
    csv_export::amount("total"),
    csv_export::amount("refund_due"),
    csv_export::text("created_at"),
    csv_export::text("memo"),
];

pub(crate) fn credit_note_row(n: &CreditNote) -> Vec<csv_export::Cell> {
    use csv_export::Cell::{Amount, Int, Text, Time};
    let c = n.currency;
    vec![
        Int(n.id.0),
        Text(n.credit_note_number.clone()),
        Int(n.invoice_id.0),
        Int(n.customer_id.0),
        Text(c.code().to_string()),
        Text(n.reason.as_str().to_string()),
        Amount(n.subtotal_cents, c),
        Amount(n.tax_cents, c),
        Amount(n.total_cents, c),
        Amount(n.refund_due_cents, c),
        Time(Some(n.created_at)),
        Text(n.memo.clone().unwrap_or_default()),
    ]
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
    let note = Ops::for_key(&state, &auth).credit_note(id).await?;
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
    let doc = Ops::for_key(&state, &auth).credit_note_pdf(id).await?;
    crate::pdf::respond(doc).await
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
    let about = EmailSubject::CreditNote(id.get()?.0);
    let email = Ops::for_key(&state, &auth)
        .resend(about, body.0.email)
        .await?;
    Ok(HttpResponse::Accepted().json(email))
}
