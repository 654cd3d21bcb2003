//! A customer's statement (SPEC §22): as JSON, as a PDF, and emailed.

use crate::auth::Auth;
use crate::body::OptionalJsonBody;
use crate::csv_export::{self};
use crate::error::ApiError;
use crate::ops::Ops;
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::email::{OutgoingEmail, SendInput};
use invoicing_domain::report::CustomerStatement;

/// A customer's statement: the balance owed at `from`, every invoice sent, payment verified and
/// credit note of the range in date order with the running balance, the closing balance, and the
/// aging of what they owe today. In one currency.
#[utoipa::path(get, path = "/api/v1/customers/{id}/statement", tag = "reports",
    params(
        ("id" = i64, Path, description = "Customer id"),
        ("from" = Option<String>, Query, format = Date, description = "First day (default: January 1st of this year)"),
        ("to" = Option<String>, Query, format = Date, description = "Last day (default today)"),
        ("currency" = Option<String>, Query, description = "ISO 4217 code (default: the account's default currency)"),
    ),
    responses(
        (status = 200, description = "The statement", body = CustomerStatement),
        (status = 404, description = "No such customer (`resource_missing`)", body = crate::openapi::error_body::ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn statement(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let statement = Ops::for_key(&state, &auth)
        .statement(
            crate::path_id::Id::parse(&id),
            &csv_export::without_format(req.query_string()),
        )
        .await?;
    Ok(HttpResponse::Ok().json(statement))
}

/// The statement as a PDF (SPEC §17 rules), in the customer's language: the same figures as
/// the JSON, with the merchant's and the customer's details as they are now.
#[utoipa::path(get, path = "/api/v1/customers/{id}/statement/pdf", tag = "reports",
    params(
        ("id" = i64, Path, description = "Customer id"),
        ("from" = Option<String>, Query, format = Date, description = "First day (default: January 1st of this year)"),
        ("to" = Option<String>, Query, format = Date, description = "Last day (default today)"),
        ("currency" = Option<String>, Query, description = "ISO 4217 code (default: the account's default currency)"),
    ),
    responses(
        (status = 200, description = "The statement's PDF, named after its reference (`ST-42-20261130.pdf`)",
            content_type = "application/pdf", body = Vec<u8>),
        (status = 404, description = "No such customer (`resource_missing`)", body = crate::openapi::error_body::ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn statement_pdf(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let doc = Ops::for_key(&state, &auth)
        .statement_document(crate::path_id::Id::parse(&id), req.query_string())
        .await?;
    crate::pdf::respond(doc).await
}

/// Emails the statement, its PDF attached (SPEC §18, kind `statement`): to the customer, or to
/// the addresses given. The statement is made when the message is sent.
#[utoipa::path(post, path = "/api/v1/customers/{id}/statement/email", tag = "reports",
    params(
        ("id" = i64, Path, description = "Customer id"),
        ("from" = Option<String>, Query, format = Date, description = "First day (default: January 1st of this year)"),
        ("to" = Option<String>, Query, format = Date, description = "Last day (default today)"),
        ("currency" = Option<String>, Query, description = "ISO 4217 code (default: the account's default currency)"),
    ),
    request_body(content = Option<SendInput>, description = "Optional: recipients, subject and a note"),
    responses(
        (status = 202, description = "The queued email", body = OutgoingEmail),
        (status = 404, description = "No such customer (`resource_missing`)", body = crate::openapi::error_body::ErrorBody),
        (status = 422, description = "Mail is not configured (`email_not_configured`), or a bad address", body = crate::openapi::error_body::ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn statement_email(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
    id: web::Path<String>,
    body: OptionalJsonBody<SendInput>,
) -> Result<HttpResponse, ApiError> {
    let email = Ops::for_key(&state, &auth)
        .email_statement(
            crate::path_id::Id::parse(&id),
            req.query_string(),
            body.0.email,
        )
        .await?;
    Ok(HttpResponse::Accepted().json(email))
}
