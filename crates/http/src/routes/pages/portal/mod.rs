//! The customer portal (SPEC §26): `GET /portal?token=…`, one page per customer and environment
//! with every document of theirs that left draft, their PDFs and e-invoices, and the statement.
//! Paying and answering happen on each document's own page, as from an email: the portal adds
//! no second way.

mod rows;

use super::{limit_public, query_token, render};
use crate::error::ApiError;
use crate::ops::portal::{PortalDocument, PortalFile, PortalFormat};
use crate::ops::Ops;
use crate::routes::einvoices::download;
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use chrono::Datelike;
use invoicing_domain::locale::Locale;
use rows::{currencies, sections, token_query, Section, StatementForm};

/// What the base template reads of a page.
pub(crate) struct PortalLook {
    pub lang: &'static str,
    pub brand_color: String,
    pub footer: Option<String>,
}

#[derive(Template)]
#[template(path = "portal.html")]
pub(crate) struct PortalPage {
    doc: PortalLook,
    t: Locale,
    title: String,
    merchant: String,
    customer: String,
    token: String,
    /// The tables that have rows, open invoices first.
    sections: Vec<Section>,
    statement: StatementForm,
    newer: Option<String>,
    older: Option<String>,
}

/// The deepest page the portal shows (50 of each kind a page: 500,000 documents of each).
const LAST_PAGE: u32 = 10_000;

/// The query's `page`, 1 when absent; anything but one whole number from 1 to [`LAST_PAGE`]
/// is 400.
fn page_number(req: &HttpRequest) -> Result<u32, ApiError> {
    let pairs: Vec<(String, String)> =
        serde_urlencoded::from_str(req.query_string()).unwrap_or_default();
    let pages: Vec<&String> = pairs
        .iter()
        .filter(|(k, _)| k == "page")
        .map(|(_, v)| v)
        .collect();
    let refused = || {
        ApiError::invalid_parameter(
            "page",
            format!("must be one whole number from 1 to {LAST_PAGE}"),
        )
    };
    match pages.as_slice() {
        [] => Ok(1),
        [page] => page
            .parse::<u32>()
            .ok()
            .filter(|p| (1..=LAST_PAGE).contains(p))
            .ok_or_else(refused),
        _ => Err(refused()),
    }
}

/// A path segment as one of an enumeration's snake_case names.
fn word<T: serde::de::DeserializeOwned>(raw: &str) -> Option<T> {
    serde_json::from_value(serde_json::Value::String(raw.into())).ok()
}

/// The query without its `token`: what an operation that takes the API's parameters reads.
fn without_token(req: &HttpRequest) -> String {
    let pairs: Vec<(String, String)> =
        serde_urlencoded::from_str(req.query_string()).unwrap_or_default();
    // An emptied date field of the form means "the default", as an absent one does.
    let kept: Vec<&(String, String)> = pairs
        .iter()
        .filter(|(k, v)| k != "token" && k != "page" && !v.is_empty())
        .collect();
    serde_urlencoded::to_string(kept).unwrap_or_default()
}

/// The operations of the request's portal link; every way of not holding one is 404, alike.
async fn portal_ops(state: &AppState, req: &HttpRequest) -> Result<(Ops, String), ApiError> {
    limit_public(state, req)?;
    let missing = || ApiError::resource_missing("portal");
    let token = query_token(req).ok_or_else(missing)?;
    // A token never made, revoked or expired is "No such portal", alike; a database that
    // does not answer is 503, never a 404 that tells a customer their link is gone.
    let ops = Ops::for_portal(state, &token).await?;
    Ok((ops, token))
}

/// The customer's documents that left draft, newest first, open invoices apart.
#[utoipa::path(get, path = "/portal", tag = "public pages", operation_id = "customer_portal",
    params(
        ("token" = String, Query, description = "The capability token of the portal link"),
        ("page" = Option<u32>, Query, description = "Older documents, 50 of each kind a page (1 to 10000)", minimum = 1, maximum = 10000),
    ),
    responses(
        (status = 200, description = "The customer's portal", body = String, content_type = "text/html"),
        (status = 400, description = "A page that is not one whole number from 1 to 10000 (`invalid_parameter`)", body = crate::openapi::error_body::ErrorBody),
        (status = 404, description = "A token never made, revoked or expired (all alike)", body = crate::openapi::error_body::ErrorBody),
        (status = 429, description = "Too many page views from this address (`rate_limited`)", body = crate::openapi::error_body::ErrorBody),
    ))]
pub async fn page(state: web::Data<AppState>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    let (ops, token) = portal_ops(&state, &req).await?;
    let number = page_number(&req)?;
    let view = ops.portal_view(number).await?;
    let today = ops.today().await?;
    let t = view.customer.locale.unwrap_or(view.profile.locale);
    let merchant = view
        .profile
        .legal_name
        .clone()
        .unwrap_or_else(|| view.profile.name.clone());
    let at_page = |n: u32| format!("/portal?{}&page={n}", token_query(&token));
    let first_of_year = today.with_ordinal(1).unwrap_or(today);
    render(PortalPage {
        title: t.fill("portal.title", &[("merchant", &merchant)]),
        customer: view.customer.name.clone(),
        sections: sections(t, &view, &token),
        statement: StatementForm {
            from: first_of_year.to_string(),
            to: today.to_string(),
            currencies: currencies(&view),
        },
        newer: (number > 1).then(|| at_page(number - 1)),
        older: view.has_more().then(|| at_page(number + 1)),
        doc: PortalLook {
            lang: t.code(),
            brand_color: view
                .profile
                .brand_color
                .map(|c| c.to_string())
                .unwrap_or_else(|| super::DEFAULT_BRAND_COLOR.into()),
            footer: view.profile.invoice_footer.clone(),
        },
        token,
        merchant,
        t,
    })
}

/// One of the customer's documents as a file: its PDF, or its e-invoice (UBL or CII).
#[utoipa::path(get, path = "/portal/{kind}/{id}/{format}", tag = "public pages", operation_id = "portal_file",
    params(
        ("kind" = String, Path, description = "`invoices`, `quotations` or `credit_notes`"),
        ("id" = i64, Path, description = "The document's id"),
        ("format" = String, Path, description = "`pdf`, or `ubl` or `cii` for an invoice's or credit note's e-invoice"),
        ("token" = String, Query, description = "The capability token of the portal link"),
    ),
    responses(
        (status = 200, description = "The PDF (inline) or the e-invoice (an attachment)", content_type = "application/pdf", body = Vec<u8>),
        (status = 404, description = "No such document of the customer, a draft, a quotation as an e-invoice, or a token never made, revoked or expired", body = crate::openapi::error_body::ErrorBody),
        (status = 422, description = "An e-invoice that lacks what EN 16931 needs (`einvoice_incomplete`)", body = crate::openapi::error_body::ErrorBody),
        (status = 429, description = "Too many page views from this address (`rate_limited`)", body = crate::openapi::error_body::ErrorBody),
    ))]
pub async fn file(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(String, String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (ops, _) = portal_ops(&state, &req).await?;
    let (kind, id, format) = path.into_inner();
    let missing = || ApiError::resource_missing("document");
    let kind: PortalDocument = word(&kind).ok_or_else(missing)?;
    let format: PortalFormat = word(&format).ok_or_else(missing)?;
    let id: i64 = id.parse().map_err(|_| missing())?;
    match ops.portal_file(kind, id, format).await? {
        PortalFile::Pdf(doc) => crate::pdf::respond(*doc).await,
        PortalFile::EInvoice(file) => Ok(download(file)),
    }
}

/// The customer's statement as a PDF, for the period and currency asked (SPEC §22).
#[utoipa::path(get, path = "/portal/statement", tag = "public pages", operation_id = "portal_statement",
    params(
        ("token" = String, Query, description = "The capability token of the portal link"),
        ("from" = Option<chrono::NaiveDate>, Query, description = "First day (default: 1 January of `to`'s year)"),
        ("to" = Option<chrono::NaiveDate>, Query, description = "Last day (default: today)"),
        ("currency" = Option<String>, Query, description = "ISO 4217 code (default: the customer's documents' currency)"),
    ),
    responses(
        (status = 200, description = "The statement's PDF", content_type = "application/pdf", body = Vec<u8>),
        (status = 400, description = "A date or currency that is not one, or `from` after `to` (`invalid_parameter`)", body = crate::openapi::error_body::ErrorBody),
        (status = 404, description = "A token never made, revoked or expired (all alike)", body = crate::openapi::error_body::ErrorBody),
        (status = 429, description = "Too many page views from this address (`rate_limited`)", body = crate::openapi::error_body::ErrorBody),
    ))]
pub async fn statement(
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (ops, _) = portal_ops(&state, &req).await?;
    let doc = ops.portal_statement(&without_token(&req)).await?;
    crate::pdf::respond(doc).await
}
