//! The one-time code at sign-in: the page asking for it after the password, and taking it (or a
//! recovery code), which signs the session in.

use crate::client::client_ip;
use crate::dashboard::form::Form;
use crate::dashboard::session::{check_post, visitor_at_any_stage, Visitor};
use crate::dashboard::sign_in::safe_next;
use crate::dashboard::{locale_of, page, see_other, Answer, Refusal};
use crate::form_body::FormBody;
use crate::ops::identity::{CodeCheck, Identity};
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::locale::Locale;
use invoicing_domain::user::{Stage, ThrottleKey};

#[derive(Template)]
#[template(path = "dashboard/login_code.html")]
struct CodePage {
    t: Locale,
    csrf: String,
    next: String,
    problem: Option<&'static str>,
}

/// The page asking for the one-time code after the password.
#[utoipa::path(get, path = "/dashboard/login/code", tag = "dashboard", operation_id = "dashboard_login_code_page",
    params(("next" = Option<String>, Query, description = "The dashboard page to return to")),
    responses(
        (status = 200, description = "The form for the one-time or recovery code", content_type = "text/html", body = String),
        (status = 303, description = "No sign-in waiting for a code: to the sign-in page or the dashboard", headers(("Location" = String, description = "Where to go"))),
    ))]
pub(crate) async fn code_page(state: web::Data<AppState>, req: HttpRequest) -> Answer {
    let me = visitor_at_any_stage(&state, &req).await?;
    let next = safe_next(Some(&crate::dashboard::form::query_value(
        req.query_string(),
        "next",
    )));
    if me.signed_in.stage() != Stage::NeedsCode {
        return Ok(see_other(&next));
    }
    let t = locale_of(&req);
    page(
        StatusCode::OK,
        CodePage {
            t,
            csrf: me.csrf(),
            next,
            problem: None,
        },
    )
}

/// Checks a one-time code (six digits) or else a recovery code for the user, using it once;
/// failures count against the pair of their email and this client, as a password's do.
async fn check_code(
    state: &AppState,
    req: &HttpRequest,
    me: &Visitor,
    typed: String,
) -> Result<CodeCheck, Refusal> {
    let user = &me.signed_in.user;
    let key = ThrottleKey::new(user.email.as_str(), client_ip(req, &state.config));
    Ok(Identity::new(state).check_code(user.id, key, typed).await?)
}

/// Takes the one-time (or a recovery) code: the session is then signed in.
#[utoipa::path(post, path = "/dashboard/login/code", tag = "dashboard", operation_id = "dashboard_login_code",
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`, `code` (six digits, or a recovery code), `next`"),
    responses(
        (status = 303, description = "Signed in", headers(("Location" = String, description = "The page asked for"))),
        (status = 422, description = "A wrong, used or expired code", content_type = "text/html", body = String),
        (status = 429, description = "Too many wrong codes for this email from this network: wait 15 minutes", content_type = "text/html", body = String),
    ))]
pub(crate) async fn take_code(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: FormBody,
) -> Answer {
    let me = visitor_at_any_stage(&state, &req).await?;
    let form = Form::read(&req, &body)?;
    check_post(&me, &req, &form)?;
    let next = safe_next(form.get("next"));
    if me.signed_in.stage() != Stage::NeedsCode {
        return Ok(see_other(&next));
    }
    let (status, problem) = match check_code(&state, &req, &me, form.raw("code")).await? {
        CodeCheck::Accepted => {
            Identity::new(&state)
                .confirm_second_factor(me.signed_in.session.id)
                .await?;
            return Ok(see_other(&next));
        }
        CodeCheck::Refused => (StatusCode::UNPROCESSABLE_ENTITY, "dash.two_step.wrong"),
        CodeCheck::Throttled => (StatusCode::TOO_MANY_REQUESTS, "dash.login.throttled"),
    };
    page(
        status,
        CodePage {
            t: locale_of(&req),
            csrf: me.csrf(),
            next,
            problem: Some(problem),
        },
    )
}
