//! Email (SPEC §18): the log (`/api/v1/emails`), the resend routes of invoices and quotations,
//! and the one check every route that asks for mail makes first.

use crate::auth::Auth;
use crate::body::OptionalJsonBody;
use crate::error::ApiError;
use crate::openapi::ErrorBody;
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
    ),
    responses((status = 200, description = "A page of emails", body = EmailList)),
    security(("api_key" = [])))]
pub async fn list(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let page = Ops::for_key(&state, &auth)
        .list_emails(req.query_string())
        .await?;
    Ok(HttpResponse::Ok().json(page))
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
