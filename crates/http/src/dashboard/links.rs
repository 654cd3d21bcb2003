//! The pages a one-time link opens (SPEC §21): choosing a password (the operator's link, an
//! invitation to someone new, a reset), joining an account with the password one has (an
//! invitation to someone who has one), and asking for a reset link by email from the sign-in
//! page, which answers the same whether or not the address is a user's.

use super::form::Form;
use super::session::same_origin;
use super::sign_in::password_problem_key;
use super::{locale_of, page, see_other, Answer, Refusal};
use crate::client::client_ip;
use crate::error::ApiError;
use crate::form_body::FormBody;
use crate::ops::identity::{Identity, Join};
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::locale::Locale;
use invoicing_domain::user::{hash_token, Password, PasswordProblem, SecretToken, ThrottleKey};

/// What a working link is for, as its page shows it.
struct LinkView {
    email: String,
    /// An invitation to someone who has a password: the account's name; they join with it.
    joins: Option<String>,
}

#[derive(Template)]
#[template(path = "dashboard/set_password.html")]
struct SetPasswordPage {
    t: Locale,
    token: String,
    email: String,
    /// The link is unknown, used or expired.
    dead: bool,
    /// Joining `account` with the password one has, rather than choosing one.
    joins: Option<String>,
    problem: Option<String>,
}

/// The link's view while it works.
async fn view_link(state: &AppState, token: &str) -> Result<Option<LinkView>, Refusal> {
    if !SecretToken::has_shape(token) {
        return Ok(None);
    }
    let found = Identity::new(state).link(hash_token(token)).await?;
    Ok(found.map(|(email, joins)| LinkView { email, joins }))
}

fn link_page(t: Locale, token: String, view: Option<LinkView>, problem: Option<String>) -> Answer {
    let status = if problem.is_some() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    let (dead, email, joins) = match view {
        Some(v) => (false, v.email, v.joins),
        None => (true, String::new(), None),
    };
    page(
        status,
        SetPasswordPage {
            t,
            token,
            email,
            dead,
            joins,
            problem,
        },
    )
}

/// The page of a one-time link: choose a password, or join an account with one's password.
#[utoipa::path(get, path = "/dashboard/set-password", tag = "dashboard", operation_id = "dashboard_set_password_page",
    params(("token" = Option<String>, Query, description = "The link's one-time token; without it (or with a used or expired one) the page says the link no longer works")),
    responses((status = 200, description = "The form to choose a password (or to join the account with one's password), or a page saying the link no longer works", content_type = "text/html", body = String)))]
pub(crate) async fn set_password_page(state: web::Data<AppState>, req: HttpRequest) -> Answer {
    let token = super::form::query_value(req.query_string(), "token");
    let view = view_link(&state, &token).await?;
    link_page(locale_of(&req), token, view, None)
}

/// Uses the link, once: sets the password it was sent for (and makes an invited person a
/// member), or, for an invitation to someone with a password, checks it and makes them a member.
/// Then the person signs in.
#[utoipa::path(post, path = "/dashboard/set-password", tag = "dashboard", operation_id = "dashboard_set_password",
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`token`, `password` and (when choosing one) `confirm`"),
    responses(
        (status = 303, description = "Done: to the sign-in page", headers(("Location" = String, description = "The sign-in page"))),
        (status = 415, description = "Not an HTML form post", content_type = "text/html", body = String),
        (status = 422, description = "The password breaks the policy, the two differ, it is wrong (joining), or the link no longer works", content_type = "text/html", body = String),
        (status = 429, description = "Too many wrong passwords for this email from this network (joining): wait 15 minutes", content_type = "text/html", body = String),
    ))]
pub(crate) async fn set_password(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: FormBody,
) -> Answer {
    same_origin(&req)?;
    let form = Form::read(&req, &body)?;
    let t = locale_of(&req);
    let token = form.raw("token");
    let view = view_link(&state, &token).await?;
    let Some(view) = view else {
        return link_page(t, token, None, Some(String::new()));
    };
    if view.joins.is_some() {
        return join(&state, &req, t, token, view, form.raw("password")).await;
    }
    let (raw, confirm) = (form.raw("password"), form.raw("confirm"));
    if let Some(problem) = PasswordProblem::of(&raw) {
        let problem = t.text(password_problem_key(problem)).to_string();
        return link_page(t, token, Some(view), Some(problem));
    }
    let password = Password::parse(&raw).map_err(ApiError::from)?;
    if raw != confirm {
        let problem = t.text("dash.password.mismatch").to_string();
        return link_page(t, token, Some(view), Some(problem));
    }
    let set = Identity::new(&state)
        .set_password_with_link(hash_token(&token), password)
        .await?;
    if set {
        Ok(see_other("/dashboard/login?done=password"))
    } else {
        link_page(t, token, None, Some(String::new()))
    }
}

/// An invitation to someone with a password: that password, checked (and throttled as a
/// sign-in is), uses the link and makes them a member of its account.
async fn join(
    state: &AppState,
    req: &HttpRequest,
    t: Locale,
    token: String,
    view: LinkView,
    typed: String,
) -> Answer {
    let key = ThrottleKey::new(&view.email, client_ip(req, &state.config));
    let joined = Identity::new(state)
        .join_with_password(key, hash_token(&token), typed)
        .await?;
    let problem = |key: &str| Some(t.text(key).to_string());
    match joined {
        Join::Joined => Ok(see_other("/dashboard/login?done=joined")),
        Join::Dead => link_page(t, token, None, Some(String::new())),
        Join::Wrong => link_page(t, token, Some(view), problem("dash.account.wrong_password")),
        Join::Throttled => {
            let mut res = link_page(t, token, Some(view), problem("dash.login.throttled"))?;
            *res.status_mut() = StatusCode::TOO_MANY_REQUESTS;
            Ok(res)
        }
    }
}

#[derive(Template)]
#[template(path = "dashboard/forgot_password.html")]
struct ForgotPage {
    t: Locale,
    email: String,
    asked: bool,
    mail: bool,
}

/// The form to ask for a reset link by email.
#[utoipa::path(get, path = "/dashboard/forgot-password", tag = "dashboard", operation_id = "dashboard_forgot_password_page",
    responses((status = 200, description = "The form to ask for a reset link", content_type = "text/html", body = String)))]
pub(crate) async fn forgot_page(state: web::Data<AppState>, req: HttpRequest) -> Answer {
    page(
        StatusCode::OK,
        ForgotPage {
            t: locale_of(&req),
            email: String::new(),
            asked: false,
            mail: state.config.mail_enabled,
        },
    )
}

/// Emails a reset link valid 30 minutes when the address is a member's; the answer is the same
/// page either way.
#[utoipa::path(post, path = "/dashboard/forgot-password", tag = "dashboard", operation_id = "dashboard_forgot_password",
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`email`"),
    responses(
        (status = 200, description = "The same page whether or not the address is a user's: a link was sent if it is", content_type = "text/html", body = String),
        (status = 415, description = "Not an HTML form post", content_type = "text/html", body = String),
    ))]
pub(crate) async fn forgot(state: web::Data<AppState>, req: HttpRequest, body: FormBody) -> Answer {
    same_origin(&req)?;
    let form = Form::read(&req, &body)?;
    let t = locale_of(&req);
    let email = form.raw("email");
    crate::ops::email_password_reset(&state, &email, t).await?;
    page(
        StatusCode::OK,
        ForgotPage {
            t,
            email: email.trim().to_string(),
            asked: true,
            mail: state.config.mail_enabled,
        },
    )
}
