//! The portal's login page (SPEC §26): a customer who lost their link gives their email and gets
//! a new one, valid 24 hours, by email. The answer is the same page, as fast, whether or not the
//! address is a customer's: the links are made and mailed after the answer has gone.

use super::portal::PortalLook;
use super::{form_text, limit_public};
use crate::error::ApiError;
use crate::form_body::{require_form, FormBody};
use crate::people::locale_of;
use crate::{blocking, AppState};
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use invoicing_domain::customer::Email;
use invoicing_domain::locale::Locale;
use invoicing_domain::notice::NewNotice;
use invoicing_domain::portal::PortalLink;
use invoicing_domain::ports::AskedPortal;
use invoicing_domain::user::UserEmail;
use serde::Deserialize;
use utoipa::openapi::schema::{ObjectBuilder, Schema};
use utoipa::openapi::RefOr;

#[derive(Template)]
#[template(path = "portal_login.html")]
struct LoginPage {
    doc: PortalLook,
    t: Locale,
    email: String,
    /// What the page says once asked: the same words for every address.
    sent: Option<String>,
    /// Why the typed text is no address.
    problem: Option<&'static str>,
    mail: bool,
}

impl LoginPage {
    fn new(t: Locale, mail: bool) -> LoginPage {
        LoginPage {
            doc: PortalLook {
                lang: t.code(),
                brand_color: super::DEFAULT_BRAND_COLOR.into(),
                footer: None,
            },
            t,
            email: String::new(),
            sent: None,
            problem: None,
            mail,
        }
    }

    fn answer(self, status: StatusCode) -> Result<HttpResponse, ApiError> {
        let mut res = super::render(self)?;
        *res.status_mut() = status;
        Ok(res)
    }
}

/// The fields the login form posts.
#[derive(Deserialize)]
pub(crate) struct LoginForm {
    email: Option<String>,
}

impl utoipa::PartialSchema for LoginForm {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .description(Some("The portal login page's form"))
            .property("email", form_text(254, "The customer's email address"))
            .required("email")
            .into()
    }
}

impl utoipa::ToSchema for LoginForm {}

/// The form to ask for a link to one's documents by email.
#[utoipa::path(get, path = "/portal/login", tag = "public pages", operation_id = "portal_login_page",
    responses(
        (status = 200, description = "The form", body = String, content_type = "text/html"),
        (status = 429, description = "Too many page views from this address (`rate_limited`)", body = crate::openapi::error_body::ErrorBody),
    ))]
pub async fn page(state: web::Data<AppState>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    limit_public(&state, &req)?;
    LoginPage::new(locale_of(&req), state.config.mail_enabled).answer(StatusCode::OK)
}

/// Emails a link to their portal (valid 24 hours) to every customer with this address, at most
/// one a minute each; the answer is the same page either way.
#[utoipa::path(post, path = "/portal/login", tag = "public pages", operation_id = "portal_login",
    request_body(content = LoginForm, content_type = "application/x-www-form-urlencoded", description = "The form as a browser posts it"),
    responses(
        (status = 200, description = "The same page whether or not the address is a customer's", body = String, content_type = "text/html"),
        (status = 415, description = "Not an HTML form post (`unsupported_media_type`)", body = crate::openapi::error_body::ErrorBody),
        (status = 422, description = "The form again: the text is no email address", body = String, content_type = "text/html"),
        (status = 429, description = "Too many requests from this address (`rate_limited`)", body = crate::openapi::error_body::ErrorBody),
    ))]
pub async fn ask(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: FormBody,
) -> Result<HttpResponse, ApiError> {
    limit_public(&state, &req)?;
    require_form(&req)?;
    let form: LoginForm = serde_urlencoded::from_bytes(&body.0)
        .map_err(|_| ApiError::invalid_parameter("body", "expected an HTML form"))?;
    let t = locale_of(&req);
    let mut page = LoginPage::new(t, state.config.mail_enabled);
    let typed = form.email.unwrap_or_default();
    page.email = typed.trim().to_string();
    let Ok(email) = Email::parse(&typed) else {
        page.problem = Some(t.text("portal.login.invalid"));
        return page.answer(StatusCode::UNPROCESSABLE_ENTITY);
    };
    if !state.config.mail_enabled {
        return page.answer(StatusCode::OK);
    }
    page.sent = Some(t.fill("portal.login.sent", &[("email", email.as_str())]));
    let repos = state.repos();
    let public_url = state.config.public_url.clone();
    let now = state.config.clock.now();
    // After the answer: how long the page takes says nothing about the address.
    actix_web::rt::spawn(async move {
        let mailed = blocking(move || {
            let notice = |asked: &AskedPortal| {
                let recipient = UserEmail::parse(&asked.email).ok()?;
                let link = PortalLink::new(&public_url, &asked.token, asked.expires_at).url;
                Some(NewNotice::portal_link(
                    asked.locale,
                    asked.scope.account_id,
                    recipient,
                    &asked.merchant,
                    link,
                ))
            };
            repos.ask_portal_links(&email, now, &notice)
        })
        .await;
        match mailed {
            Ok(n) => log::info!("portal: a link was asked for by email; {n} sent"),
            Err(e) => log::error!(
                "portal: a link asked for by email was not sent: {}",
                e.message
            ),
        }
    });
    page.answer(StatusCode::OK)
}
