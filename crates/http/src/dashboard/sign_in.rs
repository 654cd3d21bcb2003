//! Signing in and out (SPEC §21), and the two choices a session keeps: the environment shown
//! and the language. The pages one-time links open are `links`.
//!
//! Sign-in answers one generic message for every failure, spends one Argon2id verification
//! whether or not the email exists (off the async workers), and counts failures per typed email
//! and client network in the database, so every process sees them.

use super::form::Form;
use super::session::{
    check_post, expired_session_cookie, language_cookie, same_origin, session_cookie,
    visitor_at_any_stage,
};
use super::{page, see_other, Answer};
use crate::client::client_ip;
use crate::dashboard::Posted;
use crate::error::ApiError;
use crate::form_body::FormBody;
use crate::ops::identity::{Identity, SignIn};
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::locale::Locale;
use invoicing_domain::tenant::Environment;
use invoicing_domain::user::{PasswordProblem, ThrottleKey, UserEmail};

#[derive(Template)]
#[template(path = "dashboard/login.html")]
struct LoginPage {
    t: Locale,
    email: String,
    next: String,
    problem: Option<&'static str>,
    /// What a link's page did before sending the visitor here (a password set, an account
    /// joined, a reset asked for).
    notice: Option<&'static str>,
}

/// The notices the sign-in page shows after `?done=…`; nothing else is shown.
const LOGIN_NOTICES: &[(&str, &str)] = &[
    ("password", "dash.login.password_set"),
    ("joined", "dash.login.joined"),
    ("email_changed", "dash.login.email_changed"),
];

/// Where a sign-in may return to: a dashboard path on this site, never elsewhere.
pub(crate) fn safe_next(next: Option<&str>) -> String {
    match next {
        Some(n)
            if (n == "/dashboard"
                || n.starts_with("/dashboard/")
                || n.starts_with("/dashboard?"))
                && !n.contains("//")
                && !n.contains('\\')
                && !n.chars().any(char::is_control) =>
        {
            n.to_string()
        }
        _ => "/dashboard".to_string(),
    }
}

/// The sign-in page.
#[utoipa::path(get, path = "/dashboard/login", tag = "dashboard", operation_id = "dashboard_login_page",
    params(("next" = Option<String>, Query, description = "The dashboard page to return to after signing in")),
    responses((status = 200, description = "The sign-in form", content_type = "text/html", body = String)))]
pub(crate) async fn login_page(req: HttpRequest) -> Answer {
    let next = super::form::query_value(req.query_string(), "next");
    let done = super::form::query_value(req.query_string(), "done");
    page(
        StatusCode::OK,
        LoginPage {
            t: super::locale_of(&req),
            email: String::new(),
            next: safe_next(Some(&next)),
            problem: None,
            notice: LOGIN_NOTICES
                .iter()
                .find(|(name, _)| *name == done)
                .map(|(_, key)| *key),
        },
    )
}

/// Signs in: a new session (a new token, so a planted cookie never becomes a session) in the
/// test environment of the user's first account.
#[utoipa::path(post, path = "/dashboard/login", tag = "dashboard", operation_id = "dashboard_login",
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`email`, `password` and `next` (where to go after)"),
    responses(
        (status = 303, description = "Signed in: the session cookie is set", headers(("Location" = String, description = "The page asked for, else the home screen"))),
        (status = 401, description = "Wrong email or password (one message for both)", content_type = "text/html", body = String),
        (status = 415, description = "Not an HTML form post", content_type = "text/html", body = String),
        (status = 429, description = "Too many failures for this email from this network: wait 15 minutes", content_type = "text/html", body = String),
    ))]
pub(crate) async fn login(state: web::Data<AppState>, req: HttpRequest, body: FormBody) -> Answer {
    sign_in(&state, &req, &body).await
}

async fn sign_in(state: &AppState, req: &HttpRequest, body: &FormBody) -> Answer {
    same_origin(req)?;
    let form = Form::read(req, body)?;
    let t = super::locale_of(req);
    let typed = form.raw("email");
    let password = form.raw("password");
    let next = safe_next(form.get("next"));
    let refuse = |status, problem| {
        page(
            status,
            LoginPage {
                t,
                email: typed.trim().to_string(),
                next: next.clone(),
                problem: Some(problem),
                notice: None,
            },
        )
    };
    let key = ThrottleKey::new(&typed, client_ip(req, &state.config));
    let email = UserEmail::parse(&typed).ok();
    let outcome = Identity::new(state).sign_in(key, email, password).await?;
    match outcome {
        SignIn::SignedIn(token) => {
            let mut res = see_other(&next);
            res.add_cookie(&session_cookie(&token))
                .map_err(|_| ApiError::internal())?;
            Ok(res)
        }
        SignIn::Refused => refuse(StatusCode::UNAUTHORIZED, "dash.login.failed"),
        SignIn::Throttled => refuse(StatusCode::TOO_MANY_REQUESTS, "dash.login.throttled"),
    }
}

/// Signs out: the session is deleted, here and in every process.
#[utoipa::path(post, path = "/dashboard/logout", tag = "dashboard", operation_id = "dashboard_logout",
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`"),
    responses(
        (status = 303, description = "Signed out, to the sign-in page", headers(("Location" = String, description = "The sign-in page"))),
    ))]
pub(crate) async fn logout(state: web::Data<AppState>, req: HttpRequest, body: FormBody) -> Answer {
    let me = visitor_at_any_stage(&state, &req).await?;
    check_post(&me, &req, &Form::read(&req, &body)?)?;
    let (user, session) = (me.signed_in.user.id, me.signed_in.session.id);
    Identity::new(&state).sign_out(user, session).await?;
    let mut res = see_other("/dashboard/login");
    res.add_cookie(&expired_session_cookie())
        .map_err(|_| ApiError::internal())?;
    Ok(res)
}

/// The catalogue key of the policy's refusal.
pub(crate) fn password_problem_key(problem: PasswordProblem) -> &'static str {
    match problem {
        PasswordProblem::TooShort => "dash.password.too_short",
        PasswordProblem::TooLong => "dash.password.too_long",
        PasswordProblem::Common => "dash.password.common",
        PasswordProblem::Nul => "dash.password.invalid",
    }
}

/// Switches the environment the session shows (test or live).
#[utoipa::path(post, path = "/dashboard/environment", tag = "dashboard", operation_id = "dashboard_environment",
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf`, `environment` (`test` or `live`) and `back` (the page to return to)"),
    responses(
        (status = 303, description = "Switched", headers(("Location" = String, description = "Back to the page"))),
        (status = 400, description = "No such environment", content_type = "text/html", body = String),
    ))]
pub(crate) async fn environment(Posted { me, form }: Posted, state: web::Data<AppState>) -> Answer {
    let env = form
        .get("environment")
        .and_then(Environment::parse)
        .ok_or_else(|| ApiError::invalid_parameter("environment", "must be test or live"))?;
    Identity::new(&state)
        .switch_environment(me.signed_in.session.id, env)
        .await?;
    // The same screen's list, not a document of the other environment.
    let back = safe_next(form.get("back"));
    let path = back.split('?').next().unwrap_or("/dashboard");
    let section = path.splitn(4, '/').take(3).collect::<Vec<_>>().join("/");
    Ok(see_other(&format!(
        "{}?done=environment",
        safe_next(Some(&section))
    )))
}

/// Keeps the chosen language in a cookie.
#[utoipa::path(post, path = "/dashboard/language", tag = "dashboard", operation_id = "dashboard_language",
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf`, `language` (en, es, fr, de, nl or pt) and `back`"),
    responses(
        (status = 303, description = "Chosen", headers(("Location" = String, description = "Back to the page"))),
        (status = 400, description = "Not one of the six", content_type = "text/html", body = String),
    ))]
pub(crate) async fn language(Posted { me: _, form }: Posted) -> Answer {
    let locale = form
        .get("language")
        .and_then(Locale::parse)
        .ok_or_else(|| {
            ApiError::invalid_parameter("language", "must be one of en, es, fr, de, nl, pt")
        })?;
    let back = safe_next(form.get("back"));
    let mut res = see_other(&back);
    res.add_cookie(&language_cookie(locale.code()))
        .map_err(|_| ApiError::internal())?;
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_in_returns_only_to_dashboard_paths() {
        assert_eq!(
            safe_next(Some("/dashboard/invoices?status=paid")),
            "/dashboard/invoices?status=paid"
        );
        for bad in [
            "https://evil.example/",
            "//evil.example",
            "/dashboard//evil",
            "/dashboardx",
            "/api/v1/customers",
            "/dashboard/\\evil",
            "/dashboard/\nx",
        ] {
            assert_eq!(safe_next(Some(bad)), "/dashboard", "{bad}");
        }
        assert_eq!(safe_next(None), "/dashboard");
    }
}
