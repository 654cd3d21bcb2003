//! The prospect's answers on the quotation page: the Accept and Decline forms (their fields and
//! OpenAPI schemas) and the posts that record them.

use crate::client::client_ip;
use crate::error::ApiError;
use crate::form_body::{require_form, FormBody};
use crate::redirect::see_other;
use crate::routes::pages::{form_text, form_token};
use crate::routes::pages::{limit_public, missing_as, valid_token};
use crate::routes::quotations::moves::user_agent;
use crate::{blocking, AppState};
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::quotation::{AcceptInput, Answer, RejectInput, REASON_MAX, SIGNER_MAX};
use serde::Deserialize;
use utoipa::openapi::schema::{ObjectBuilder, Schema};
use utoipa::openapi::RefOr;

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
