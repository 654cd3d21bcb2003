//! The merchant dashboard (SPEC §21): the second front door, beside the JSON API, for the people
//! who run the business. Server-rendered HTML that works without JavaScript, signed in with a
//! session cookie, each screen a bookmarkable URL. Handlers only read the request (a form, a
//! query string), call the same operations as the API (`crate::ops`, with the user's role in
//! place of a key's scopes) and render the answer; no business rule lives here.
//!
//! Every answer is a page: a refusal renders as an HTML page with the refusal's status (never
//! the API's JSON), and a visitor who is not signed in is sent to the sign-in page.

pub mod assets;
mod chrome;
mod form;
mod reauth;
mod session;
mod share;

pub(crate) use crate::people::locale_of;
pub(crate) use session::{Posted, Visitor};
mod timeline;
mod views;

pub mod account;
pub mod compose;
pub mod credit_notes;
pub mod customers;
mod document_form;
pub mod email_change;
pub mod export;
pub mod home;
pub mod invoices;
pub mod links;
pub mod payments;
pub mod products;
pub mod quotations;
pub mod recurring;
pub mod recurring_form;
pub mod reports;
pub mod settings;
pub mod sign_in;
pub mod statement;
pub mod two_step;

use crate::error::ApiError;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use actix_web::{HttpRequest, HttpResponse, ResponseError};

/// The body of a dashboard form post: `application/x-www-form-urlencoded` text fields, among
/// them `csrf` (the session's token) on every form of a signed-in page. Each route's
/// description names its fields; the page that shows the form is their full description.
pub struct DashboardForm;

impl utoipa::PartialSchema for DashboardForm {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Type};
        // Deliberately loose: the page that shows a form is its description, and what a field
        // may hold is its operation's rule, refused as a page beside the field.
        ObjectBuilder::new()
            .description(Some("An HTML form's fields, as a browser posts them (at most 16 KiB)"))
            .property(
                "csrf",
                ObjectBuilder::new().schema_type(Type::String).description(Some(
                    "The session's CSRF token, from the page's form; the sign-in and set-password forms have none",
                )),
            )
            .additional_properties(Some(AdditionalProperties::FreeForm(true)))
            .into()
    }
}

impl utoipa::ToSchema for DashboardForm {}

/// Why a dashboard request did not get its page. Handlers and the dashboard's extractors return
/// it as their error; [`answer_pages`] renders it, with the request in hand, as a page.
#[derive(Clone, Debug)]
pub(crate) enum Refusal {
    /// No live session: the sign-in page, then back to where the visitor was going.
    SignIn,
    /// The password was right; the one-time code is still to come (then back to the page).
    SecondFactor,
    /// The account requires a second factor this user has not set up yet.
    SetUpSecondFactor,
    /// What the operations refused (or the request's own fault), shown as a page.
    Api(ApiError),
}

impl From<ApiError> for Refusal {
    fn from(e: ApiError) -> Self {
        Refusal::Api(e)
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::SignIn => f.write_str("not signed in"),
            Refusal::SecondFactor => f.write_str("the second factor is still to come"),
            Refusal::SetUpSecondFactor => f.write_str("a second factor is to be set up"),
            Refusal::Api(e) => f.write_str(&e.message),
        }
    }
}

impl ResponseError for Refusal {
    fn status_code(&self) -> StatusCode {
        match self {
            Refusal::Api(e) => e.status,
            _ => StatusCode::SEE_OTHER,
        }
    }

    /// A bare answer: [`answer_pages`] replaces it by the page, which needs the request.
    fn error_response(&self) -> HttpResponse {
        HttpResponse::build(self.status_code()).finish()
    }
}

/// What a dashboard handler answers: its page, or why not.
pub(crate) type Answer = Result<HttpResponse, Refusal>;

/// The dashboard's middleware: a [`Refusal`] becomes its page (in the visitor's language, the
/// sign-in page with the way back), and every answer of a dashboard screen gets SPEC §21's
/// headers ([`secured`]); the static assets keep their own.
pub(crate) async fn answer_pages(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let res = next.call(req).await?.map_into_boxed_body();
    // By path, not by route: a path under /dashboard that no route serves (its 404, a trailing
    // slash's redirect) gets the headers too.
    let path = res.request().path();
    let screen = path.starts_with("/dashboard")
        && !path.starts_with("/dashboard/assets/")
        && path != "/dashboard/openapi.json";
    if !screen {
        return Ok(res);
    }
    let refusal = res
        .response()
        .error()
        .and_then(|e| e.as_error::<Refusal>())
        .cloned();
    let (req, res) = res.into_parts();
    let res = match refusal {
        Some(refusal) => respond(&req, Err(refusal)),
        None => secured(res),
    };
    Ok(ServiceResponse::new(req, res))
}

/// The page a handler's answer becomes: its own, the sign-in page, or the refusal's page.
pub(crate) fn respond(req: &HttpRequest, answer: Answer) -> HttpResponse {
    match answer {
        Ok(res) => secured(res),
        Err(Refusal::SignIn) => secured(see_other(&returning_to("/dashboard/login", req))),
        Err(Refusal::SecondFactor) => {
            secured(see_other(&returning_to("/dashboard/login/code", req)))
        }
        Err(Refusal::SetUpSecondFactor) => secured(see_other("/dashboard/account/two-step")),
        // The API tells a key that a resource is another tenant's (403); a person browsing is
        // told nothing about other accounts or the other environment: not found.
        Err(Refusal::Api(e)) if e.code == "resource_forbidden" => secured(views::error_page(
            locale_of(req),
            &ApiError::resource_missing("page"),
        )),
        Err(Refusal::Api(e)) => secured(views::error_page(locale_of(req), &e)),
    }
}

/// `page`, then back to where a GET was going (`?next=`).
fn returning_to(page: &str, req: &HttpRequest) -> String {
    let next = if req.method() == actix_web::http::Method::GET {
        req.uri()
            .path_and_query()
            .map(|p| p.as_str().to_string())
            .unwrap_or_default()
    } else {
        String::new()
    };
    if next.is_empty() || next == "/dashboard" {
        page.to_string()
    } else {
        format!("{page}?next={}", form::encode_component(&next))
    }
}

pub(crate) use crate::redirect::see_other;

/// A rendered template with `status`.
pub(crate) fn page(status: StatusCode, template: impl askama::Template) -> Answer {
    let body = template.render().map_err(|e| {
        log::error!("rendering a dashboard page: {e}");
        ApiError::internal()
    })?;
    Ok(HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .body(body))
}

/// SPEC §21's headers on every dashboard answer: never cached, never framed, no script but the
/// dashboard's own files, forms only to itself.
pub(crate) fn secured(mut res: HttpResponse) -> HttpResponse {
    let headers = res.headers_mut();
    for (name, value) in [
        (header::CACHE_CONTROL, "no-store"),
        (header::REFERRER_POLICY, "same-origin"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        ),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    res
}
