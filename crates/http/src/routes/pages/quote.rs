//! The prospect's page of a quotation (SPEC §10), with Accept and Decline forms that post back
//! and work without JavaScript. An answer redirects (303) to the page, which then confirms it,
//! so reloading never posts twice.

use super::public_pdf;
use super::{form_text, form_token};
use super::{
    limit_public, missing_as, query_token, render, valid_token, DocumentParts, DocumentView,
};
use crate::client::client_ip;
use crate::error::ApiError;
use crate::form_body::{require_form, FormBody};
use crate::redirect::see_other;
use crate::routes::quotations::user_agent;
use crate::{blocking, AppState};
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use chrono::{NaiveDate, Utc};
use invoicing_domain::ports::Repositories;
use invoicing_domain::quotation::{
    AcceptInput, Answer, PublicQuotation, RejectInput, REASON_MAX, SIGNER_MAX,
};
use invoicing_domain::quotation_status::QuotationStatus;
use serde::Deserialize;
use utoipa::openapi::schema::{ObjectBuilder, Schema};
use utoipa::openapi::RefOr;

#[derive(Template)]
#[template(path = "quote.html")]
struct QuotePage {
    doc: DocumentView,
    title: String,
    status: &'static str,
    status_label: &'static str,
    valid_until: String,
    awaits_answer: bool,
    confirmation: Option<String>,
    token: String,
}

fn confirmation(p: &PublicQuotation, today: NaiveDate) -> Option<String> {
    let q = &p.quotation;
    let t = p.parties.locale();
    let merchant = p.parties.issuer.display_name();
    let day = |at: Option<chrono::DateTime<Utc>>| at.map(|at| t.date(at.date_naive()));
    match q.status {
        QuotationStatus::Draft => None,
        QuotationStatus::Sent | QuotationStatus::Viewed if q.valid_until >= today => None,
        QuotationStatus::Accepted | QuotationStatus::Converted => {
            let (name, date) = (q.accepted_by_name.as_deref(), day(q.accepted_at));
            Some(match (name, date.as_deref()) {
                (Some(n), Some(d)) => t.fill(
                    "quote.confirm.accepted_as_on",
                    &[("name", n), ("date", d), ("merchant", merchant)],
                ),
                (Some(n), None) => t.fill(
                    "quote.confirm.accepted_as",
                    &[("name", n), ("merchant", merchant)],
                ),
                (None, Some(d)) => t.fill(
                    "quote.confirm.accepted_on",
                    &[("date", d), ("merchant", merchant)],
                ),
                (None, None) => t.fill("quote.confirm.accepted", &[("merchant", merchant)]),
            })
        }
        QuotationStatus::Rejected => Some(match day(q.rejected_at) {
            Some(d) => t.fill(
                "quote.confirm.declined_on",
                &[("date", &d), ("merchant", merchant)],
            ),
            None => t.fill("quote.confirm.declined", &[("merchant", merchant)]),
        }),
        // Past its validity but not yet swept: answering would only expire it (SPEC §10).
        QuotationStatus::Sent | QuotationStatus::Viewed | QuotationStatus::Expired => Some(t.fill(
            "quote.confirm.expired",
            &[("date", &t.date(q.valid_until)), ("merchant", merchant)],
        )),
    }
}

impl QuotePage {
    fn new(p: PublicQuotation, token: String, now: chrono::DateTime<Utc>) -> Self {
        let today = p.parties.issuer.time_zone.today(now);
        let confirmation = confirmation(&p, today);
        let t = p.parties.locale();
        let q = p.quotation;
        let merchant = p.parties.issuer.display_name();
        let number = q.quote_number.as_str();
        QuotePage {
            title: t.fill(
                "page.quotation_title",
                &[("number", number), ("merchant", merchant)],
            ),
            status: q.status.as_str(),
            status_label: t.quotation_status(q.status),
            valid_until: t.date(q.valid_until),
            awaits_answer: q.status.awaits_answer() && q.valid_until >= today,
            confirmation,
            token,
            doc: DocumentView::from(DocumentParts {
                parties: p.parties,
                logo: p.logo,
                number: q.quote_number,
                issue_date: q.issue_date,
                currency: q.currency,
                lines: q.line_items,
                subtotal_cents: q.subtotal_cents,
                tax_cents: q.tax_cents,
                total_cents: q.total_cents,
                notes: q.notes,
            }),
        }
    }
}

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
    render(QuotePage::new(public, shown, state.config.clock.now()))
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

/// The fields the Accept form posts: the token (without it the answer is 404) and who accepts.
#[derive(Deserialize)]
pub(crate) struct QuoteAcceptForm {
    token: Option<String>,
    name: Option<String>,
}

/// A quotation form: its token and one optional text field.
fn answer_form(description: &str, field: &str, max: usize, about: &str) -> RefOr<Schema> {
    ObjectBuilder::new()
        .description(Some(description))
        .property("token", form_token())
        .property(field, form_text(max, about))
        .required("token")
        .into()
}

impl utoipa::PartialSchema for QuoteAcceptForm {
    fn schema() -> RefOr<Schema> {
        let about = "Who accepts, as they sign; optional";
        answer_form(
            "The quotation page's Accept form",
            "name",
            SIGNER_MAX,
            about,
        )
    }
}

impl utoipa::ToSchema for QuoteAcceptForm {}

/// The fields the Decline form posts: the token and, optionally, why.
#[derive(Deserialize)]
pub(crate) struct QuoteDeclineForm {
    token: Option<String>,
    reason: Option<String>,
}

impl utoipa::PartialSchema for QuoteDeclineForm {
    fn schema() -> RefOr<Schema> {
        let about = "Why the quotation is declined; optional";
        answer_form(
            "The quotation page's Decline form",
            "reason",
            REASON_MAX,
            about,
        )
    }
}

impl utoipa::ToSchema for QuoteDeclineForm {}

/// A page form as posted; a body that is no form is 400.
fn read_form<T: serde::de::DeserializeOwned>(body: &FormBody) -> Result<T, ApiError> {
    serde_urlencoded::from_bytes(&body.0)
        .map_err(|_| ApiError::invalid_parameter("body", "expected an HTML form"))
}

fn non_blank(s: Option<String>) -> Option<String> {
    s.filter(|s| !s.trim().is_empty())
}

async fn answer(
    state: web::Data<AppState>,
    req: HttpRequest,
    number: String,
    body: FormBody,
    accept: bool,
) -> Result<HttpResponse, ApiError> {
    limit_public(&state, &req)?;
    require_form(&req)?;
    // Each button posts its own form; the token is checked before the answer, so a wrong one
    // is 404 whatever else was typed.
    let (token, answer) = if accept {
        let form: QuoteAcceptForm = read_form(&body)?;
        let answer = AcceptInput {
            name: non_blank(form.name),
        }
        .parse(
            Some(client_ip(&req, &state.config).to_string()),
            user_agent(&req),
        );
        (form.token, answer)
    } else {
        let form: QuoteDeclineForm = read_form(&body)?;
        let answer = RejectInput {
            reason: non_blank(form.reason),
        }
        .parse();
        (form.token, answer)
    };
    let token = valid_token(token).ok_or_else(|| ApiError::resource_missing("quotation"))?;
    let answer: Answer = answer?;
    let now = state.config.clock.now();
    let repos = state.repos();
    let (n, t) = (number.clone(), token.clone());
    let result = blocking(move || repos.answer_public_quotation(&n, &t, answer, now)).await;
    match result {
        // Answered now, or not answerable any more (answered before, expired): either way the
        // page shows where the quotation stands.
        Ok(_) => {}
        Err(e) if e.code == "invalid_state_transition" => {}
        Err(e) => return Err(missing_as("quotation")(e)),
    }
    Ok(see_other(&format!("/quote/{number}?token={token}")))
}

/// The Accept button of the quotation page (an HTML form post; answers 303 to the page).
#[utoipa::path(post, path = "/quote/{number}/accept", tag = "public pages", operation_id = "quote_accept",
    params(("number" = String, Path, description = "Quotation number")),
    request_body(content = QuoteAcceptForm, content_type = "application/x-www-form-urlencoded", description = "The form as a browser posts it"),
    responses(
        (status = 303, description = "Back to the quotation page, which confirms the answer",
            headers(("Location" = String, description = "The quotation page"))),
        (status = 415, description = "Not an HTML form post (`unsupported_media_type`)", body = crate::openapi::error_body::ErrorBody),
        (status = 404, description = "Unknown number, wrong or missing token, or a draft", body = crate::openapi::error_body::ErrorBody),
        (status = 422, description = "A name longer than 200 characters", body = crate::openapi::error_body::ErrorBody),
        (status = 429, description = "Too many requests from this address (`rate_limited`)", body = crate::openapi::error_body::ErrorBody),
    ))]
pub async fn accept(
    state: web::Data<AppState>,
    req: HttpRequest,
    number: web::Path<String>,
    body: FormBody,
) -> Result<HttpResponse, ApiError> {
    answer(state, req, number.into_inner(), body, true).await
}

/// The Decline button of the quotation page (an HTML form post; answers 303 to the page).
#[utoipa::path(post, path = "/quote/{number}/decline", tag = "public pages", operation_id = "quote_decline",
    params(("number" = String, Path, description = "Quotation number")),
    request_body(content = QuoteDeclineForm, content_type = "application/x-www-form-urlencoded", description = "The form as a browser posts it"),
    responses(
        (status = 303, description = "Back to the quotation page, which confirms the answer",
            headers(("Location" = String, description = "The quotation page"))),
        (status = 415, description = "Not an HTML form post (`unsupported_media_type`)", body = crate::openapi::error_body::ErrorBody),
        (status = 404, description = "Unknown number, wrong or missing token, or a draft", body = crate::openapi::error_body::ErrorBody),
        (status = 422, description = "A reason longer than 1000 characters", body = crate::openapi::error_body::ErrorBody),
        (status = 429, description = "Too many requests from this address (`rate_limited`)", body = crate::openapi::error_body::ErrorBody),
    ))]
pub async fn decline(
    state: web::Data<AppState>,
    req: HttpRequest,
    number: web::Path<String>,
    body: FormBody,
) -> Result<HttpResponse, ApiError> {
    answer(state, req, number.into_inner(), body, false).await
}
