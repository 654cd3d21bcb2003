//! E-invoices (SPEC §23): an invoice or credit note as EN 16931 XML (UBL or CII), and the check
//! that lists what a document still lacks.

use crate::auth::Auth;
use crate::binary::{self, Binary};
use crate::error::ApiError;
use crate::openapi::error_body::ErrorBody;
use crate::ops::{einvoices, EInvoiceFile, Ops};
use crate::path_id::Id;
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::credit_note::CreditNoteId;
use invoicing_domain::einvoice::Readiness;
use invoicing_domain::invoice::InvoiceId;

// The `syntax` query parameter as the OpenAPI document describes it; `ops::einvoices::syntax`
// reads it.
/// The e-invoice syntax.
#[derive(serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
pub(crate) enum EInvoiceSyntax {
    /// UBL 2.1, Peppol BIS Billing 3.0 (the default).
    Ubl,
    /// UN/CEFACT CII D16B, the EN 16931 profile of Factur-X.
    Cii,
}

/// Answered as a download: `Content-Disposition: attachment`.
pub(crate) fn download(file: EInvoiceFile) -> HttpResponse {
    binary::respond_attachment(Binary {
        content_type: "application/xml",
        cache_control: "private, no-store",
        filename: Some(file.filename),
        bytes: file.bytes,
    })
}

/// The invoice as an EN 16931 e-invoice: UBL 2.1 (Peppol BIS Billing 3.0) or CII (the EN 16931
/// profile of Factur-X), from the parties it was sent with and its stored amounts.
#[utoipa::path(get, path = "/api/v1/invoices/{id}/einvoice", tag = "invoices",
    params(
        ("id" = i64, Path, description = "Invoice id"),
        ("syntax" = inline(Option<EInvoiceSyntax>), Query, description = "`ubl` (default) or `cii`"),
    ),
    responses(
        (status = 200, description = "The XML, `Content-Disposition: attachment; filename=\"INV-….xml\"`",
            content_type = "application/xml", body = Vec<u8>),
        (status = 400, description = "An unknown syntax (`invalid_parameter`)", body = ErrorBody),
        (status = 404, description = "No such invoice", body = ErrorBody),
        (status = 409, description = "A draft (`invalid_state_transition`)", body = ErrorBody),
        (status = 422, description = "What EN 16931 needs is missing (`einvoice_incomplete`, listed in `details`)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn invoice(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
    id: Id<InvoiceId>,
) -> Result<HttpResponse, ApiError> {
    let syntax = einvoices::syntax(req.query_string())?;
    let file = Ops::for_key(&state, &auth)
        .invoice_einvoice(id, syntax)
        .await?;
    Ok(download(file))
}

/// Whether the invoice can be written as an e-invoice, and if not every business term missing
/// with the field that fills it; drafts too, so they can be fixed before sending.
#[utoipa::path(get, path = "/api/v1/invoices/{id}/einvoice/check", tag = "invoices",
    params(("id" = i64, Path, description = "Invoice id")),
    responses(
        (status = 200, description = "Ready, or what is missing", body = Readiness),
        (status = 404, description = "No such invoice", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn invoice_check(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<InvoiceId>,
) -> Result<HttpResponse, ApiError> {
    let readiness = Ops::for_key(&state, &auth)
        .invoice_einvoice_check(id)
        .await?;
    Ok(HttpResponse::Ok().json(readiness))
}

/// The credit note as an EN 16931 e-invoice, referring to its invoice (BG-3).
#[utoipa::path(get, path = "/api/v1/credit_notes/{id}/einvoice", tag = "credit_notes",
    params(
        ("id" = i64, Path, description = "Credit note id"),
        ("syntax" = inline(Option<EInvoiceSyntax>), Query, description = "`ubl` (default) or `cii`"),
    ),
    responses(
        (status = 200, description = "The XML, `Content-Disposition: attachment; filename=\"CN-….xml\"`",
            content_type = "application/xml", body = Vec<u8>),
        (status = 400, description = "An unknown syntax (`invalid_parameter`)", body = ErrorBody),
        (status = 404, description = "No such credit note", body = ErrorBody),
        (status = 422, description = "What EN 16931 needs is missing (`einvoice_incomplete`, listed in `details`)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn credit_note(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
    id: Id<CreditNoteId>,
) -> Result<HttpResponse, ApiError> {
    let syntax = einvoices::syntax(req.query_string())?;
    let file = Ops::for_key(&state, &auth)
        .credit_note_einvoice(id, syntax)
        .await?;
    Ok(download(file))
}

/// Whether the credit note can be written as an e-invoice, and if not what is missing.
#[utoipa::path(get, path = "/api/v1/credit_notes/{id}/einvoice/check", tag = "credit_notes",
    params(("id" = i64, Path, description = "Credit note id")),
    responses(
        (status = 200, description = "Ready, or what is missing", body = Readiness),
        (status = 404, description = "No such credit note", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn credit_note_check(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<CreditNoteId>,
) -> Result<HttpResponse, ApiError> {
    let readiness = Ops::for_key(&state, &auth)
        .credit_note_einvoice_check(id)
        .await?;
    Ok(HttpResponse::Ok().json(readiness))
}
