//! Signing in and out (SPEC §21), setting a password from a one-time link, and the two choices
//! a session keeps: the environment shown and the language.
//!
//! Sign-in answers one generic message for every failure, spends one Argon2id verification
//! whether or not the email exists (off the async workers), and counts failures per typed email
//! and client network in the database, so every process sees them.

use super::form::Form;
use super::session::{
    check_post, expired_session_cookie, language_cookie, same_origin, session_cookie, visitor,
};
use super::{page, respond, see_other, Answer, Refusal};
use crate::client::client_ip;
use crate::error::ApiError;
use crate::routes::pages::FormBody;
use crate::{blocking, AppState};
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use chrono::Utc;
use invoicing_domain::locale::Locale;
use invoicing_domain::tenant::Environment;
use invoicing_domain::user::{
    hash_password, hash_token, verify_password_or_dummy, NewSession, Password, PasswordProblem,
    SecretToken, ThrottleKey, UserEmail, LOGIN_FAILURE_WINDOW,
};
use rand::rngs::OsRng;

#[derive(Template)]
#[template(path = "dashboard/login.html")]
struct LoginPage {
    t: Locale,
    email: String,
    next: String,
    problem: Option<&'static str>,
    /// After a password was set from a link: say so.
    password_set: bool,
}

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
pub async fn login_page(req: HttpRequest) -> HttpResponse {
    let next = super::form::query_value(req.query_string(), "next");
    respond(
        &req,
        page(
            StatusCode::OK,
            LoginPage {
                t: super::locale_of(&req),
                email: String::new(),
                next: safe_next(Some(&next)),
                problem: None,
                password_set: super::form::query_value(req.query_string(), "done") == "password",
            },
        ),
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
        (status = 403, description = "Not posted from the dashboard's own page", content_type = "text/html", body = String),
        (status = 415, description = "Not an HTML form post", content_type = "text/html", body = String),
        (status = 429, description = "Too many failures for this email from this network: wait 15 minutes", content_type = "text/html", body = String),
    ))]
pub async fn login(state: web::Data<AppState>, req: HttpRequest, body: FormBody) -> HttpResponse {
    let answer = sign_in(&state, &req, &body).await;
    respond(&req, answer)
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
                password_set: false,
            },
        )
    };
    let key = ThrottleKey::new(&typed, client_ip(req, &state.config));
    let email = UserEmail::parse(&typed).ok();
    let repos = state.repos();
    let now = Utc::now();
    let outcome = blocking(move || {
        if ThrottleKey::is_throttled(repos.count_login_failures(&key, now - LOGIN_FAILURE_WINDOW)?)
        {
            repos.record_login_failure(&key, now)?;
            return Ok(SignInOutcome::Throttled);
        }
        let credentials = match &email {
            Some(email) => repos.find_credentials(email)?,
            None => None,
        };
        let hash = credentials.as_ref().and_then(|c| c.password_hash.as_ref());
        // Always one verification: an unknown email takes as long as a known one.
        if !verify_password_or_dummy(&password, hash) {
            repos.record_login_failure(&key, now)?;
            return Ok(SignInOutcome::Refused);
        }
        let Some(user) = credentials.map(|c| c.user) else {
            return Ok(SignInOutcome::Refused);
        };
        let Some(membership) = repos.list_memberships(user.id)?.into_iter().next() else {
            repos.record_login_failure(&key, now)?;
            return Ok(SignInOutcome::Refused);
        };
        repos.clear_login_failures(&key)?;
        let token = SecretToken::generate(&mut OsRng);
        repos.create_session(NewSession {
            user_id: user.id,
            account_id: membership.account_id,
            token_hash: token.hash(),
            at: now,
        })?;
        Ok(SignInOutcome::SignedIn(token))
    })
    .await?;
    match outcome {
        SignInOutcome::SignedIn(token) => {
            let mut res = see_other(&next);
            res.add_cookie(&session_cookie(&token))
                .map_err(|_| ApiError::internal())?;
            Ok(res)
        }
        SignInOutcome::Refused => refuse(StatusCode::UNAUTHORIZED, "dash.login.failed"),
        SignInOutcome::Throttled => refuse(StatusCode::TOO_MANY_REQUESTS, "dash.login.throttled"),
    }
}

enum SignInOutcome {
    SignedIn(SecretToken),
    Refused,
    Throttled,
}

/// Signs out: the session is deleted, here and in every process.
#[utoipa::path(post, path = "/dashboard/logout", tag = "dashboard", operation_id = "dashboard_logout",
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`"),
    responses(
        (status = 303, description = "Signed out, to the sign-in page", headers(("Location" = String, description = "The sign-in page"))),
        (status = 403, description = "Not posted from the dashboard's own page, or no valid `csrf`", content_type = "text/html", body = String),
    ))]
pub async fn logout(state: web::Data<AppState>, req: HttpRequest, body: FormBody) -> HttpResponse {
    let answer = async {
        let me = visitor(&state, &req).await?;
        check_post(&me, &req, &Form::read(&req, &body)?)?;
        let repos = state.repos();
        let (user, session) = (me.signed_in.user.id, me.signed_in.session.id);
        blocking(move || repos.delete_session(user, session)).await?;
        let mut res = see_other("/dashboard/login");
        res.add_cookie(&expired_session_cookie())
            .map_err(|_| ApiError::internal())?;
        Ok(res)
    }
    .await;
    respond(&req, answer)
}

#[derive(Template)]
#[template(path = "dashboard/set_password.html")]
struct SetPasswordPage {
    t: Locale,
    token: String,
    email: String,
    /// The link is unknown, used or expired.
    dead: bool,
    problem: Option<String>,
}

/// The page of a one-time set-password link (an invitation or a reset).
#[utoipa::path(get, path = "/dashboard/set-password", tag = "dashboard", operation_id = "dashboard_set_password_page",
    params(("token" = Option<String>, Query, description = "The link's one-time token; without it (or with a used or expired one) the page says the link no longer works")),
    responses((status = 200, description = "The form to choose a password, or a page saying the link no longer works", content_type = "text/html", body = String)))]
pub async fn set_password_page(state: web::Data<AppState>, req: HttpRequest) -> HttpResponse {
    let answer = async {
        let t = super::locale_of(&req);
        let token = super::form::query_value(req.query_string(), "token");
        let email = link_email(&state, &token).await?;
        page(
            StatusCode::OK,
            SetPasswordPage {
                t,
                dead: email.is_none(),
                email: email.unwrap_or_default(),
                token,
                problem: None,
            },
        )
    }
    .await;
    respond(&req, answer)
}

/// The email of the user whose link `token` is, while the link works.
async fn link_email(state: &AppState, token: &str) -> Result<Option<String>, Refusal> {
    if !SecretToken::has_shape(token) {
        return Ok(None);
    }
    let repos = state.repos();
    let hash = hash_token(token);
    let found = blocking(move || {
        let Some(link) = repos.find_link(&hash, Utc::now())? else {
            return Ok(None);
        };
        Ok(Some(
            repos.get_user(link.user_id)?.email.as_str().to_string(),
        ))
    })
    .await?;
    Ok(found)
}

/// Sets the password from the link, once; then the person signs in with it.
#[utoipa::path(post, path = "/dashboard/set-password", tag = "dashboard", operation_id = "dashboard_set_password",
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`token`, `password` and `confirm`"),
    responses(
        (status = 303, description = "The password is set: to the sign-in page", headers(("Location" = String, description = "The sign-in page"))),
        (status = 403, description = "Not posted from the dashboard's own page", content_type = "text/html", body = String),
        (status = 415, description = "Not an HTML form post", content_type = "text/html", body = String),
        (status = 422, description = "The password breaks the policy, the two differ, or the link no longer works", content_type = "text/html", body = String),
    ))]
pub async fn set_password(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: FormBody,
) -> HttpResponse {
    let answer = async {
        same_origin(&req)?;
        let form = Form::read(&req, &body)?;
        let t = super::locale_of(&req);
        let token = form.raw("token");
        let (raw, confirm) = (form.raw("password"), form.raw("confirm"));
        let again = |problem: String, email: Option<String>| {
            page(
                StatusCode::UNPROCESSABLE_ENTITY,
                SetPasswordPage {
                    t,
                    token: token.clone(),
                    dead: email.is_none(),
                    email: email.unwrap_or_default(),
                    problem: Some(problem),
                },
            )
        };
        let email = link_email(&state, &token).await?;
        if email.is_none() {
            return again(String::new(), None);
        }
        if let Some(problem) = PasswordProblem::of(&raw) {
            return again(t.text(password_problem_key(problem)).to_string(), email);
        }
        let password = Password::parse(&raw).map_err(ApiError::from)?;
        if raw != confirm {
            return again(t.text("dash.password.mismatch").to_string(), email);
        }
        let repos = state.repos();
        let hash_of = hash_token(&token);
        let set = blocking(move || {
            let hash = hash_password(&password, &mut OsRng)
                .map_err(|e| invoicing_domain::ports::RepoError::Internal(e.to_string()))?;
            repos.set_password_with_link(&hash_of, &hash, Utc::now())
        })
        .await?;
        match set {
            Some(_) => Ok(see_other("/dashboard/login?done=password")),
            None => again(String::new(), None),
        }
    }
    .await;
    respond(&req, answer)
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
        (status = 403, description = "Not posted from the dashboard's own page, or no valid `csrf`", content_type = "text/html", body = String),
    ))]
pub async fn environment(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: FormBody,
) -> HttpResponse {
    let answer = async {
        let me = visitor(&state, &req).await?;
        let form = Form::read(&req, &body)?;
        check_post(&me, &req, &form)?;
        let env = form
            .get("environment")
            .and_then(Environment::parse)
            .ok_or_else(|| ApiError::invalid_parameter("environment", "must be test or live"))?;
        let repos = state.repos();
        let session = me.signed_in.session.id;
        blocking(move || repos.switch_session_environment(session, env)).await?;
        // The same screen's list, not a document of the other environment.
        let back = safe_next(form.get("back"));
        let section = back.splitn(4, '/').take(3).collect::<Vec<_>>().join("/");
        Ok(see_other(&format!(
            "{}?done=environment",
            safe_next(Some(&section))
        )))
    }
    .await;
    respond(&req, answer)
}

/// Keeps the chosen language in a cookie.
#[utoipa::path(post, path = "/dashboard/language", tag = "dashboard", operation_id = "dashboard_language",
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf`, `language` (en, es, fr, de, nl or pt) and `back`"),
    responses(
        (status = 303, description = "Chosen", headers(("Location" = String, description = "Back to the page"))),
        (status = 400, description = "Not one of the six", content_type = "text/html", body = String),
        (status = 403, description = "Not posted from the dashboard's own page, or no valid `csrf`", content_type = "text/html", body = String),
    ))]
pub async fn language(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: FormBody,
) -> HttpResponse {
    let answer = async {
        let me = visitor(&state, &req).await?;
        let form = Form::read(&req, &body)?;
        check_post(&me, &req, &form)?;
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
    .await;
    respond(&req, answer)
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
