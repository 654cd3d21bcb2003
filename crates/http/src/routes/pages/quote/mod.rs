//! The prospect's page of a quotation (SPEC §10), with Accept and Decline forms that post back
//! and work without JavaScript. An answer redirects (303) to the page, which then confirms it,
//! so reloading never posts twice. This file holds the page and its PDF; what the page shows in
//! `view.rs`, the answers in `answer.rs`.

pub mod answer;
mod view;

use crate::error::ApiError;
use crate::routes::pages::public_pdf;
use crate::routes::pages::{limit_public, missing_as, query_token, render};
use crate::{blocking, AppState};
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::ports::Repositories;
use view::QuotePage;

/// The prospect's page of a sent quotation (HTML; the first view marks it viewed).
#[utoipa::path(get, path = "/quote/{number}", tag = "public pages", operation_id = "quote_page",
    params(
        ("number" = String, Path, description = "Quotation number, e.g. QUO-2026-000001"),
        ("token" = String, Query, description = "The capability token of the quotation's public_url"),
    ),
    responses(
        (status = 200, description = "The quotation page, with Accept and Decline forms while it awaits an answer", body = String, content_type = "text/html"),
        (status = 404, description = "Unknown number, wrong or missing token, or a draft", body = crate::openapi::error_body::ErrorBody),
        (status = 429, description = "Too many page views from this address (`rate_limited`)", body = crate::openapi::error_body::ErrorBody),
    ))]
pub async fn page(
    state: web::Data<AppState>,
    req: HttpRequest,
    number: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    limit_public(&state, &req)?;
    let token = query_token(&req).ok_or_else(|| ApiError::resource_missing("quotation"))?;
    let number = number.into_inner();
    let repos = state.repos();
    let shown = token.clone();
    let public = blocking(move || repos.view_public_quotation(&number, &token))
        .await
        .map_err(missing_as("quotation"))?;
    let mut page = QuotePage::new(public, shown, state.config.clock.now());
    page.doc.offer_portal(state.config.mail_enabled);
    render(page)
}

/// The quotation's PDF for its prospect; opening it does not mark the quotation viewed.
#[utoipa::path(get, path = "/quote/{number}/pdf", tag = "public pages", operation_id = "quote_pdf",
    params(
        ("number" = String, Path, description = "Quotation number"),
        ("token" = String, Query, description = "The capability token of the quotation's public_url"),
    ),
    responses(
        (status = 200, description = "The PDF", content_type = "application/pdf", body = Vec<u8>),
        (status = 404, description = "Unknown number, wrong or missing token, or a draft", body = crate::openapi::error_body::ErrorBody),
        (status = 429, description = "Too many page views from this address (`rate_limited`)", body = crate::openapi::error_body::ErrorBody),
    ))]
pub async fn pdf(
    state: web::Data<AppState>,
    req: HttpRequest,
    number: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let find = |repos: &dyn Repositories, number: &str, token: &str| {
        repos.find_public_quotation(number, token)
    };
    let number = number.into_inner();
    public_pdf(
        &state,
        &req,
        number,
        "quotation",
        find,
        crate::pdf::quotation_document,
    )
    .await
}
