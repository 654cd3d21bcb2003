//! A user's own account (SPEC §21, everyone): changing their password (the current one asked
//! again; their other sessions end), their email (SPEC §27: the current password asked again, a
//! link to the new address that makes the change, a word to the old one) and their sessions,
//! listed, each of which they may end.

use super::chrome::{Chrome, Nav};
use super::session::Visitor;
use super::views::moment;
use super::{page, see_other, Answer};
use crate::dashboard::Posted;
use crate::error::ApiError;
use crate::ops::identity::{EmailChange, Identity};
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use chrono::Utc;
use invoicing_domain::notice::NewNotice;
use invoicing_domain::user::{
    confirm_email_url, NewLink, Password, PasswordProblem, SecretToken, SessionId, UserEmail,
};

pub(crate) struct SessionRow {
    pub id: i64,
    pub started: String,
    pub last_seen: String,
    pub current: bool,
}

#[derive(Template)]
#[template(path = "dashboard/account.html")]
struct AccountPage {
    c: Chrome,
    two_step: bool,
    sessions: Vec<SessionRow>,
    problem: Option<&'static str>,
    /// The change-of-email form: what was typed, and what is wrong with it.
    new_email: String,
    email_problem: Option<&'static str>,
    /// Whether this server sends mail (the new address gets a link).
    mail: bool,
}

/// What the page shows beside its forms after a refused post.
#[derive(Default)]
struct Problems {
    password: Option<&'static str>,
    email: Option<&'static str>,
    new_email: String,
}

async fn show(
    state: &AppState,
    req: &HttpRequest,
    me: &Visitor,
    status: StatusCode,
    problems: Problems,
) -> Answer {
    let sessions = Identity::new(state).sessions(me.signed_in.user.id).await?;
    let c = Chrome::new(
        me,
        req,
        Nav::Account,
        super::locale_of(req).text("dash.account.title").to_string(),
    );
    let t = c.t;
    let current = me.signed_in.session.id;
    page(
        status,
        AccountPage {
            two_step: me.signed_in.user.totp,
            sessions: sessions
                .into_iter()
                .map(|s| SessionRow {
                    id: s.id.0,
                    started: moment(t, s.created_at),
                    last_seen: moment(t, s.last_seen_at),
                    current: s.id == current,
                })
                .collect(),
            problem: problems.password,
            new_email: problems.new_email,
            email_problem: problems.email,
            mail: state.config.mail_enabled,
            c,
        },
    )
}

/// The signed-in user's password and sessions.
#[utoipa::path(get, path = "/dashboard/account", tag = "dashboard", operation_id = "dashboard_account",
    responses((status = 200, description = "The user's password form and sessions", content_type = "text/html", body = String)))]
pub(crate) async fn account_page(
    me: Visitor,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Answer {
    show(&state, &req, &me, StatusCode::OK, Problems::default()).await
}

/// Changes the user's password: the current one first; the user's other sessions end.
#[utoipa::path(post, path = "/dashboard/account/password", tag = "dashboard", operation_id = "dashboard_password",
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf`, `current`, `password` and `confirm`"),
    responses(
        (status = 303, description = "Changed", headers(("Location" = String, description = "The account page"))),
        (status = 422, description = "The current password is wrong, or the new one breaks the policy or differs from its confirmation", content_type = "text/html", body = String),
    ))]
pub(crate) async fn change_password(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Answer {
    let (current, raw, confirm) = (
        form.raw("current"),
        form.raw("password"),
        form.raw("confirm"),
    );
    let refuse = |problem| {
        show(
            &state,
            &req,
            &me,
            StatusCode::UNPROCESSABLE_ENTITY,
            Problems {
                password: Some(problem),
                ..Problems::default()
            },
        )
    };
    if let Some(problem) = PasswordProblem::of(&raw) {
        return refuse(super::sign_in::password_problem_key(problem)).await;
    }
    if raw != confirm {
        return refuse("dash.password.mismatch").await;
    }
    let password = Password::parse(&raw).map_err(ApiError::from)?;
    if !super::reauth::password_matches(&state, &req, &me, current).await? {
        return refuse("dash.account.wrong_password").await;
    }
    Identity::new(&state)
        .change_password(&me.signed_in, password)
        .await?;
    Ok(see_other("/dashboard/account?done=password"))
}

/// Asks to change the user's email: with the current password, a link to the new address
/// (valid 24 hours) makes the change when it is opened, and the old address is told.
#[utoipa::path(post, path = "/dashboard/account/email", tag = "dashboard", operation_id = "dashboard_change_email",
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf`, `email` (the new one) and `current` (the password)"),
    responses(
        (status = 303, description = "The link is on its way", headers(("Location" = String, description = "The account page"))),
        (status = 422, description = "Not an email, the same one, another user's, the password is wrong, or this server sends no mail", content_type = "text/html", body = String),
    ))]
pub(crate) async fn change_email(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Answer {
    let typed = form.raw("email");
    let refuse = |key: &'static str| {
        let problems = Problems {
            email: Some(key),
            new_email: typed.clone(),
            ..Problems::default()
        };
        show(
            &state,
            &req,
            &me,
            StatusCode::UNPROCESSABLE_ENTITY,
            problems,
        )
    };
    if !state.config.mail_enabled {
        return refuse("dash.account.email_needs_mail").await;
    }
    let Ok(new) = UserEmail::parse(&typed) else {
        return refuse("dash.account.email_invalid").await;
    };
    let old = me.signed_in.user.email.clone();
    if new.normalized() == old.normalized() {
        return refuse("dash.account.email_same").await;
    }
    if !super::reauth::password_matches(&state, &req, &me, form.raw("current")).await? {
        return refuse("dash.account.wrong_password").await;
    }
    let t = super::locale_of(&req);
    let token = SecretToken::generate(&mut rand::rngs::OsRng);
    let link = confirm_email_url(&state.config.public_url, &token);
    let to_new = NewNotice::email_change(t, new.clone(), &old, link);
    let to_old = NewNotice::email_changing(t, old, &new);
    let request = NewLink::email_change(me.signed_in.user.id, new, &token, Utc::now());
    let identity = Identity::new(&state);
    match identity.ask_email_change(request, to_new, to_old).await? {
        EmailChange::Done => Ok(see_other("/dashboard/account?done=email_link_sent")),
        EmailChange::TooSoon | EmailChange::Dead => refuse("dash.account.email_wait").await,
        EmailChange::Taken => refuse("dash.account.email_taken").await,
    }
}

/// Ends one of the user's sessions (signing out another browser).
#[utoipa::path(post, path = "/dashboard/account/sessions/{id}/end", tag = "dashboard", operation_id = "dashboard_end_session",
    params(("id" = String, Path, description = "The session's id, from the account page")),
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`"),
    responses(
        (status = 303, description = "Ended", headers(("Location" = String, description = "The account page (the sign-in page when it was this one)"))),
        (status = 404, description = "No such session of this user", content_type = "text/html", body = String),
    ))]
pub(crate) async fn end_session(
    Posted { me, .. }: Posted,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Answer {
    let id = SessionId(super::form::path_number(&id, "session")?);
    Identity::new(&state)
        .end_session(me.signed_in.user.id, id)
        .await?;
    if id == me.signed_in.session.id {
        return Ok(see_other("/dashboard/login"));
    }
    Ok(see_other("/dashboard/account?done=session_ended"))
}
