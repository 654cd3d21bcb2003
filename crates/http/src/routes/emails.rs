//! Email (SPEC §18): the log (`/api/v1/emails`), the resend routes of invoices and quotations,
//! and the one check every route that asks for mail makes first.

use crate::auth::Auth;
use crate::body::OptionalJsonBody;
use crate::csv_export;
use crate::error::ApiError;
use crate::openapi::error_body::ErrorBody;
use crate::ops::Ops;
use crate::path_id::Id;
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::email::{EmailId, EmailStatus, EmailSubject, OutgoingEmail, SendInput};
use invoicing_domain::invoice::InvoiceId;
use invoicing_domain::quotation::QuotationId;

crate::page_schema! {
    /// A page of emails (SPEC §5 envelope).
    EmailList of OutgoingEmail
}

/// List the emails sent or queued, newest first.
#[utoipa::path(get, path = "/api/v1/emails", tag = "emails",
    params(
        ("status" = Option<EmailStatus>, Query, description = "queued, sent or failed"),
        ("invoice_id" = Option<i64>, Query, minimum = 1, description = "Only emails about this invoice"),
        ("quotation_id" = Option<i64>, Query, minimum = 1, description = "Only emails about this quotation"),
        ("page" = Option<u32>, Query, description = "Page number, from 1"),
        ("per_page" = Option<u32>, Query, description = "1 to 100, default 20"),
        ("format" = Option<String>, Query, description = "`csv`: every matching row as CSV (as `Accept: text/csv` asks); anything else: JSON"),
    ),
    responses((status = 200, description = "A page of emails; or, asked for CSV, every matching one (UTF-8 with a byte-order mark)",
        content((EmailList = "application/json"), (String = "text/csv")))),
    security(("api_key" = [])))]
pub async fn list(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    EMAILS
        .answer(
            req.query_string(),
            csv_export::wanted(&req),
            Ops::for_key(&state, &auth),
        )
        .await
}

/// Retrieve an email: its recipients, status and attempts.
#[utoipa::path(get, path = "/api/v1/emails/{id}", tag = "emails",
    params(("id" = i64, Path, description = "Email id")),
    responses(
        (status = 200, description = "The email", body = OutgoingEmail),
        (status = 404, description = "No such email", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn get(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<EmailId>,
) -> Result<HttpResponse, ApiError> {
    let email = Ops::for_key(&state, &auth).email(id).await?;
    Ok(HttpResponse::Ok().json(email))
}

async fn resend(
    state: &AppState,
    auth: &Auth,
    about: EmailSubject,
    body: SendInput,
) -> Result<HttpResponse, ApiError> {
    let email = Ops::for_key(state, auth).resend(about, body.email).await?;
    Ok(HttpResponse::Accepted().json(email))
}

/// Email a sent invoice (again): to its customer, or to the addresses given.
#[utoipa::path(post, path = "/api/v1/invoices/{id}/email", tag = "invoices",
    params(("id" = i64, Path, description = "Invoice id")),
    request_body(content = Option<SendInput>, description = "Optional: recipients, subject and a note"),
    responses(
        (status = 202, description = "The queued email", body = OutgoingEmail),
        (status = 404, description = "No such invoice", body = ErrorBody),
        (status = 409, description = "A draft (`invalid_state_transition`): send it first", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn resend_invoice(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<InvoiceId>,
    body: OptionalJsonBody<SendInput>,
) -> Result<HttpResponse, ApiError> {
    let about = EmailSubject::Invoice(id.get()?.0);
    resend(&state, &auth, about, body.0).await
}

/// Email a sent quotation (again): to its prospect, or to the addresses given.
#[utoipa::path(post, path = "/api/v1/quotations/{id}/email", tag = "quotations",
    params(("id" = i64, Path, description = "Quotation id")),
    request_body(content = Option<SendInput>, description = "Optional: recipients, subject and a note"),
    responses(
        (status = 202, description = "The queued email", body = OutgoingEmail),
        (status = 404, description = "No such quotation", body = ErrorBody),
        (status = 409, description = "A draft (`invalid_state_transition`): send it first", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn resend_quotation(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<QuotationId>,
    body: OptionalJsonBody<SendInput>,
) -> Result<HttpResponse, ApiError> {
    let about = EmailSubject::Quotation(id.get()?.0);
    resend(&state, &auth, about, body.0).await
}

/// The log as CSV, for this route and the dashboard's export link. Addresses are joined with
/// `; `, as mail programs write them.
pub(crate) const EMAILS: csv_export::Export<OutgoingEmail> = csv_export::Export {
    file: "emails.csv",
    columns: &[
        csv_export::text("id"),
        csv_export::text("kind"),
        csv_export::text("invoice_id"),
        csv_export::text("quotation_id"),
        csv_export::text("credit_note_id"),
        csv_export::text("customer_id"),
        csv_export::text("to"),
        csv_export::text("cc"),
        csv_export::text("subject"),
        csv_export::text("status"),
        csv_export::text("attempts"),
        csv_export::text("last_error"),
        csv_export::text("refused_recipients"),
        csv_export::text("message_id"),
        csv_export::text("sent_at"),
        csv_export::text("created_at"),
    ],
    row: email_row,
    list: |ops, q| Box::pin(async move { ops.list_emails(&q).await }),
};

fn email_row(e: &OutgoingEmail) -> Vec<csv_export::Cell> {
    use csv_export::maybe_int;
    use csv_export::Cell::{Int, Text, Time};
    let refused: Vec<&str> = e
        .refused_recipients
        .iter()
        .map(|r| r.address.as_str())
        .collect();
    vec![
        Int(e.id.0),
        Text(e.kind.as_str().to_string()),
        maybe_int(e.invoice_id),
        maybe_int(e.quotation_id),
        maybe_int(e.credit_note_id),
        maybe_int(e.customer_id),
        Text(e.to.join("; ")),
        Text(e.cc.join("; ")),
        Text(e.subject.clone()),
        Text(e.status.as_str().to_string()),
        Int(i64::from(e.attempts)),
        Text(e.last_error.clone().unwrap_or_default()),
        Text(refused.join("; ")),
        Text(e.message_id.clone().unwrap_or_default()),
        Time(e.sent_at),
        Time(Some(e.created_at)),
    ]
}
