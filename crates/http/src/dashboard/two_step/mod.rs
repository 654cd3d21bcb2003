//! The second factor (SPEC §21, issue 29): a one-time code from an authenticator app (TOTP) or a
//! single-use recovery code after the password (`code.rs`); setting it up from a QR code drawn
//! here, with ten recovery codes shown once; new codes; turning it off (not while the account
//! requires it); and an owner requiring it of everyone in the account. Codes are checked by the
//! domain (`TotpSecret::accepts`), used once by storage, and throttled as passwords are.

pub mod code;

use crate::dashboard::chrome::{Chrome, Nav};
use crate::dashboard::form::Form;
use crate::dashboard::reauth::ask_unless_recent;
use crate::dashboard::session::{check_post, visitor_at_any_stage, Visitor};
use crate::dashboard::Posted;
use crate::dashboard::{locale_of, page, see_other, Answer, Refusal};
use crate::error::ApiError;
use crate::form_body::FormBody;
use crate::ops::identity::Identity;
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use invoicing_domain::user::Stage;

#[derive(Template)]
#[template(path = "dashboard/two_step.html")]
struct TwoStepPage {
    c: Chrome,
    on: bool,
    required: bool,
    codes_left: u32,
    /// Setting up: the new secret, its QR code (a data URI) and the code's refusal.
    setup: Option<(String, String)>,
    problem: Option<&'static str>,
    /// Recovery codes just made, shown this once.
    codes: Vec<String>,
}

impl TwoStepPage {
    /// The codes one per line, as the Copy button copies them.
    fn codes_text(&self) -> String {
        self.codes.join("\n")
    }

    /// The codes as a text file to download: a data URI, since they are kept nowhere else.
    fn codes_file(&self) -> String {
        let text = self.codes.join("\r\n") + "\r\n";
        format!(
            "data:text/plain;charset=utf-8;base64,{}",
            STANDARD.encode(text)
        )
    }
}

/// The QR code of an `otpauth://` URL, as an SVG data URI (drawn here, nothing fetched).
fn qr_data_uri(url: &str) -> Result<String, ApiError> {
    let code = qrcode::QrCode::new(url.as_bytes()).map_err(|_| ApiError::internal())?;
    let svg = code
        .render::<qrcode::render::svg::Color<'_>>()
        .min_dimensions(200, 200)
        .quiet_zone(true)
        .build();
    Ok(format!(
        "data:image/svg+xml;base64,{}",
        STANDARD.encode(svg)
    ))
}

async fn show(
    state: &AppState,
    req: &HttpRequest,
    me: &Visitor,
    status: StatusCode,
    problem: Option<&'static str>,
    codes: Vec<String>,
) -> Answer {
    let identity = Identity::new(state);
    let left = identity.recovery_codes_left(me.signed_in.user.id).await?;
    let on = me.signed_in.user.totp || !codes.is_empty();
    let setup = if on {
        None
    } else {
        let secret = identity.pending_secret(me.signed_in.session.id).await?;
        let t = locale_of(req);
        let url = secret.otpauth_url(t.text("dash.product"), me.signed_in.user.email.as_str());
        Some((secret.base32().to_string(), qr_data_uri(&url)?))
    };
    let c = Chrome::new(
        me,
        req,
        Nav::Account,
        locale_of(req).text("dash.two_step.title").to_string(),
    );
    page(
        status,
        TwoStepPage {
            c,
            on,
            required: me.signed_in.account_requires_totp,
            codes_left: left,
            setup,
            problem,
            codes,
        },
    )
}

/// The second factor: set it up (a QR code to scan), or its state, new recovery codes, off.
#[utoipa::path(get, path = "/dashboard/account/two-step", tag = "dashboard", operation_id = "dashboard_two_step",
    responses((status = 200, description = "Setting up the second factor, or its state", content_type = "text/html", body = String)))]
pub(crate) async fn two_step_page(state: web::Data<AppState>, req: HttpRequest) -> Answer {
    let me = set_up_visitor(&state, &req).await?;
    show(&state, &req, &me, StatusCode::OK, None, Vec::new()).await
}

/// A visitor who may set up a second factor: signed in, or asked by the account to set one up.
async fn set_up_visitor(state: &AppState, req: &HttpRequest) -> Result<Visitor, Refusal> {
    let me = visitor_at_any_stage(state, req).await?;
    match me.signed_in.stage() {
        Stage::NeedsCode => Err(Refusal::SecondFactor),
        Stage::Ready | Stage::NeedsSetUp => Ok(me),
    }
}

/// Turns the second factor on once a code from the app proves the secret was scanned; the
/// recovery codes are shown once.
#[utoipa::path(post, path = "/dashboard/account/two-step/enable", tag = "dashboard", operation_id = "dashboard_two_step_enable",
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`, `code` (from the app, for the secret the page showed); `reauth_password` when asked"),
    responses(
        (status = 200, description = "On: the recovery codes, shown once; or the page asking for the password again", content_type = "text/html", body = String),
        (status = 409, description = "Two-step sign-in is on already", content_type = "text/html", body = String),
        (status = 422, description = "The code does not match the secret (the same secret is shown again)", content_type = "text/html", body = String),
    ))]
pub(crate) async fn enable(state: web::Data<AppState>, req: HttpRequest, body: FormBody) -> Answer {
    let me = set_up_visitor(&state, &req).await?;
    let form = Form::read(&req, &body)?;
    check_post(&me, &req, &form)?;
    if let Some(ask) = ask_unless_recent(&state, &req, &me, &form, || {
        Chrome::new(&me, &req, Nav::Account, String::new())
    })
    .await?
    {
        return Ok(ask);
    }
    let Some(codes) = Identity::new(&state)
        .enable_second_factor(&me.signed_in, &form.raw("code"))
        .await?
    else {
        let problem = Some("dash.two_step.wrong");
        return show(
            &state,
            &req,
            &me,
            StatusCode::UNPROCESSABLE_ENTITY,
            problem,
            Vec::new(),
        )
        .await;
    };
    show(&state, &req, &me, StatusCode::OK, None, codes).await
}

/// New recovery codes, replacing the old ones; shown once.
#[utoipa::path(post, path = "/dashboard/account/two-step/codes", tag = "dashboard", operation_id = "dashboard_two_step_codes",
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`; `reauth_password` when asked"),
    responses(
        (status = 200, description = "The new recovery codes, shown once; or the page asking for the password again", content_type = "text/html", body = String),
        (status = 409, description = "The second factor is off", content_type = "text/html", body = String),
    ))]
pub(crate) async fn codes(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Answer {
    Identity::may_replace_recovery_codes(&me.signed_in)?;
    if let Some(ask) = ask_unless_recent(&state, &req, &me, &form, || {
        Chrome::new(&me, &req, Nav::Account, String::new())
    })
    .await?
    {
        return Ok(ask);
    }
    let codes = Identity::new(&state)
        .replace_recovery_codes(&me.signed_in)
        .await?;
    show(&state, &req, &me, StatusCode::OK, None, codes).await
}

/// Turns the second factor off (never while the account requires it).
#[utoipa::path(post, path = "/dashboard/account/two-step/disable", tag = "dashboard", operation_id = "dashboard_two_step_disable",
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`; `reauth_password` when asked"),
    responses(
        (status = 200, description = "The page asking for the password again", content_type = "text/html", body = String),
        (status = 303, description = "Off", headers(("Location" = String, description = "The second factor's page"))),
        (status = 409, description = "The account requires a second factor", content_type = "text/html", body = String),
    ))]
pub(crate) async fn disable(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Answer {
    Identity::may_disable_second_factor(&me.signed_in)?;
    if let Some(ask) = ask_unless_recent(&state, &req, &me, &form, || {
        Chrome::new(&me, &req, Nav::Account, String::new())
    })
    .await?
    {
        return Ok(ask);
    }
    Identity::new(&state)
        .disable_second_factor(&me.signed_in)
        .await?;
    Ok(see_other("/dashboard/account/two-step?done=saved"))
}

/// An owner requires (or stops requiring) a second factor of every member of the account.
#[utoipa::path(post, path = "/dashboard/settings/people/two-step", tag = "dashboard", operation_id = "dashboard_require_two_step",
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`, `required` (`true` or absent); `reauth_password` when asked"),
    responses(
        (status = 200, description = "The page asking for the password again", content_type = "text/html", body = String),
        (status = 303, description = "Saved", headers(("Location" = String, description = "The people"))),
        (status = 409, description = "The owner has no second factor themselves", content_type = "text/html", body = String),
    ))]
pub(crate) async fn require(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Answer {
    me.ops(&state).caller().require_owner()?;
    if let Some(ask) = ask_unless_recent(&state, &req, &me, &form, || {
        Chrome::new(&me, &req, Nav::Settings, String::new())
    })
    .await?
    {
        return Ok(ask);
    }
    let required = form.checked("required");
    me.ops(&state).require_second_factor(required).await?;
    Ok(see_other("/dashboard/settings/people?done=saved"))
}
