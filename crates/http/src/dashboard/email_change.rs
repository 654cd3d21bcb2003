//! The page the link to a new email opens (SPEC §27): a button that makes the change, so a mail
//! scanner that fetches the link changes nothing; then the person signs in with the new email.

use super::form::Form;
use super::session::same_origin;
use super::{locale_of, page, see_other, Answer};
use crate::form_body::FormBody;
use crate::ops::identity::{EmailChange, Identity};
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::locale::Locale;
use invoicing_domain::user::{hash_token, SecretToken};

#[derive(Template)]
#[template(path = "dashboard/confirm_email.html")]
struct ConfirmPage {
    t: Locale,
    token: String,
    /// Why the change cannot be made: the link no longer works, or the email is taken.
    problem: Option<&'static str>,
}

fn confirm_page_with(t: Locale, token: String, problem: Option<&'static str>) -> Answer {
    let status = match problem {
        Some(_) => StatusCode::UNPROCESSABLE_ENTITY,
        None => StatusCode::OK,
    };
    page(status, ConfirmPage { t, token, problem })
}

/// The button that confirms the new email.
#[utoipa::path(get, path = "/dashboard/confirm-email", tag = "dashboard", operation_id = "dashboard_confirm_email_page",
    params(("token" = Option<String>, Query, description = "The link's one-time token")),
    responses((status = 200, description = "The button that makes the change", content_type = "text/html", body = String)))]
pub(crate) async fn confirm_page(req: HttpRequest) -> Answer {
    let token = super::form::query_value(req.query_string(), "token");
    confirm_page_with(locale_of(&req), token, None)
}

/// Uses the link, once: the user's email becomes the new one; then they sign in with it.
#[utoipa::path(post, path = "/dashboard/confirm-email", tag = "dashboard", operation_id = "dashboard_confirm_email",
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`token`"),
    responses(
        (status = 303, description = "Changed: to the sign-in page", headers(("Location" = String, description = "The sign-in page"))),
        (status = 415, description = "Not an HTML form post", content_type = "text/html", body = String),
        (status = 422, description = "The link is unknown, used or expired, or the email became another user's", content_type = "text/html", body = String),
    ))]
pub(crate) async fn confirm(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: FormBody,
) -> Answer {
    same_origin(&req)?;
    let form = Form::read(&req, &body)?;
    let t = locale_of(&req);
    let token = form.raw("token");
    if !SecretToken::has_shape(&token) {
        return confirm_page_with(t, token, Some("dash.email_change.dead_link"));
    }
    let changed = Identity::new(&state)
        .confirm_email_change(hash_token(&token))
        .await?;
    match changed {
        EmailChange::Done => Ok(see_other("/dashboard/login?done=email_changed")),
        EmailChange::Taken => confirm_page_with(t, token, Some("dash.account.email_taken")),
        EmailChange::Dead | EmailChange::TooSoon => {
            confirm_page_with(t, token, Some("dash.email_change.dead_link"))
        }
    }
}
