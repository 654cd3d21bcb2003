//! The profile's settings screen: the page (with the logo and the last test email beside the
//! form), saving it, copying test over live, and sending a test email.

mod fields;

use super::{emails, section_chrome};
use crate::dashboard::chrome::Chrome;
use crate::dashboard::form::{field_errors, is_field_mistake};
use crate::dashboard::session::Visitor;
use crate::dashboard::Posted;
use crate::dashboard::{page, see_other, Answer};
use crate::error::ApiError;
use crate::AppState;
use actix_web::{web, HttpRequest};
use askama::Template;
use fields::{Fields, ADDRESS_FIELDS, EINVOICE_FIELDS, TEXT_FIELDS};
use invoicing_domain::locale::Locale;
use invoicing_domain::time_zone::TimeZone;
use std::collections::HashMap;

/// How the last test email went, as the settings show it.
pub(crate) struct TestEmail {
    pub to: String,
    pub when: String,
    /// `queued`, `sent` or `failed`.
    pub status: &'static str,
    pub status_label: &'static str,
    pub error: Option<String>,
}

#[derive(Template)]
#[template(path = "dashboard/settings.html")]
struct SettingsPage {
    c: Chrome,
    section: &'static str,
    f: Fields,
    locales: Vec<(&'static str, &'static str)>,
    time_zones: Vec<&'static str>,
    errors: HashMap<String, String>,
    has_logo: bool,
    /// Whether this server sends email (the test email needs it).
    mail: bool,
    last_test: Option<TestEmail>,
}

impl SettingsPage {
    fn err(&self, field: &str) -> Option<&str> {
        self.errors.get(field).map(String::as_str)
    }

    fn text_fields(&self) -> Vec<(&'static str, &'static str, &str, &'static str)> {
        TEXT_FIELDS
            .iter()
            .map(|(name, label, kind)| (*name, *label, self.f.get(name), *kind))
            .collect()
    }

    fn einvoice_fields(&self) -> Vec<(&'static str, &'static str, &str, &'static str)> {
        EINVOICE_FIELDS
            .iter()
            .map(|(name, label, kind)| (*name, *label, self.f.get(name), *kind))
            .collect()
    }

    fn address_fields(&self) -> Vec<(&'static str, &'static str, &str)> {
        ADDRESS_FIELDS
            .iter()
            .map(|(name, label)| (*name, *label, self.f.get(name)))
            .collect()
    }
}

/// What the page shows beside the form: the logo, and how the last test email went.
struct Beside {
    has_logo: bool,
    mail: bool,
    last_test: Option<TestEmail>,
}

async fn beside(
    state: &AppState,
    me: &Visitor,
    has_logo: bool,
    t: Locale,
) -> Result<Beside, ApiError> {
    let last_test = me.ops(state).last_test_email().await?.map(|n| TestEmail {
        to: n.recipient,
        when: crate::dashboard::views::moment(t, n.created_at),
        status: n.status.as_str(),
        status_label: emails::status_label(t, n.status),
        error: n.last_error,
    });
    Ok(Beside {
        has_logo,
        mail: state.config.mail_enabled,
        last_test,
    })
}

fn show(
    me: &Visitor,
    req: &HttpRequest,
    f: Fields,
    errors: HashMap<String, String>,
    beside: Beside,
) -> Answer {
    let status = crate::dashboard::form::status_of(&errors);
    page(
        status,
        SettingsPage {
            c: section_chrome(me, req, "dash.nav.settings"),
            section: "profile",
            f,
            locales: Locale::all()
                .map(|l| (l.code(), l.text("dash.language.name")))
                .collect(),
            time_zones: TimeZone::all().map(TimeZone::name).collect(),
            errors,
            has_logo: beside.has_logo,
            mail: beside.mail,
            last_test: beside.last_test,
        },
    )
}

/// The page as stored, with `errors` (the logo's, the test email's) shown.
pub(crate) async fn show_current(
    state: &AppState,
    req: &HttpRequest,
    me: &Visitor,
    errors: HashMap<String, String>,
) -> Answer {
    let profile = me.ops(state).profile().await?;
    let beside = beside(
        state,
        me,
        profile.has_logo,
        crate::dashboard::locale_of(req),
    )
    .await?;
    show(me, req, Fields::of(&profile), errors, beside)
}

/// The business's profile in the environment shown (owners).
#[utoipa::path(get, path = "/dashboard/settings", tag = "dashboard", operation_id = "dashboard_settings",
    responses(
        (status = 200, description = "The profile's form", content_type = "text/html", body = String),
        (status = 403, description = "Not an owner", content_type = "text/html", body = String),
    ))]
pub(crate) async fn profile_page(
    me: Visitor,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Answer {
    show_current(&state, &req, &me, HashMap::new()).await
}

/// Saves the profile, as `PATCH /api/v1/account` does (a blank optional field is cleared).
#[utoipa::path(post, path = "/dashboard/settings", tag = "dashboard", operation_id = "dashboard_settings_save",
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf` and the profile's fields by their API paths (`address.city`, `bank_account.iban`, `contact.email`…; `reminders`: days from the due date, comma-separated)"),
    responses(
        (status = 303, description = "Saved", headers(("Location" = String, description = "The settings"))),
        (status = 422, description = "The form again, each refusal beside its field", content_type = "text/html", body = String),
    ))]
pub(crate) async fn save_profile(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Answer {
    let f = Fields::read(&form);
    let saved = match f.patch() {
        Ok(patch) => me.ops(&state).update_profile(patch).await.map(|_| ()),
        Err(e) => Err(e),
    };
    match saved {
        Ok(()) => Ok(see_other("/dashboard/settings?done=saved")),
        Err(e) if is_field_mistake(&e) => {
            let profile = me.ops(&state).profile().await?;
            let beside = beside(
                &state,
                &me,
                profile.has_logo,
                crate::dashboard::locale_of(&req),
            )
            .await?;
            show(&me, &req, f, field_errors(&e, &req), beside)
        }
        Err(e) => Err(e.into()),
    }
}

/// Copies the test profile and logo over the live ones (SPEC §27), as
/// `POST /api/v1/account/copy_to_live` does; owners, after typing their password again.
#[utoipa::path(post, path = "/dashboard/settings/copy-to-live", tag = "dashboard", operation_id = "dashboard_copy_to_live",
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`; `reauth_password` when asked"),
    responses(
        (status = 303, description = "Copied", headers(("Location" = String, description = "The settings"))),
        (status = 200, description = "The page asking for the password again", content_type = "text/html", body = String),
        (status = 422, description = "A wrong password", content_type = "text/html", body = String),
    ))]
pub(crate) async fn copy_to_live(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Answer {
    let ops = me.ops(&state);
    ops.caller().require_owner()?;
    if let Some(ask) = crate::dashboard::reauth::ask_unless_recent(&state, &req, &me, &form, || {
        section_chrome(&me, &req, "dash.nav.settings")
    })
    .await?
    {
        return Ok(ask);
    }
    ops.copy_profile_to_live().await?;
    Ok(see_other("/dashboard/settings?done=copied_to_live"))
}

/// Sends a test email to the address typed (the user's own by default), queued like every
/// other; the settings then show how it went.
#[utoipa::path(post, path = "/dashboard/settings/test-email", tag = "dashboard", operation_id = "dashboard_test_email",
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`, `to`"),
    responses(
        (status = 303, description = "Queued", headers(("Location" = String, description = "The settings"))),
        (status = 422, description = "The settings again, the refusal beside the address (or: this server sends no email)", content_type = "text/html", body = String),
    ))]
pub(crate) async fn test_email(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Answer {
    let sent = me
        .ops(&state)
        .send_test_email(&form.raw("to"), crate::dashboard::locale_of(&req))
        .await;
    match sent {
        Ok(_) => Ok(see_other("/dashboard/settings?done=test_queued#test-email")),
        Err(e) if is_field_mistake(&e) => {
            show_current(&state, &req, &me, field_errors(&e, &req)).await
        }
        Err(e) => Err(e.into()),
    }
}
