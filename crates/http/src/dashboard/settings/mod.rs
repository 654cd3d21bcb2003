//! Settings (SPEC §21, owners): the profile of the environment shown, as documents and emails
//! present the business (§16), with reminders and receipts (§18). Staff and viewers are refused
//! by the operations (the `account` resource), as an API key without `account:write` is.

pub mod emails;
pub mod keys;
pub mod logo;
pub mod people;
pub mod stripe;
pub mod webhooks;

use super::chrome::{Chrome, Nav};
use super::form::{field_errors, is_field_mistake, non_blank, Form};
use super::session::Visitor;
use super::{page, see_other, Answer};
use crate::dashboard::Posted;
use crate::error::ApiError;
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::customer::AddressInput;
use invoicing_domain::einvoice::{BankAccountInput, ContactInput, ElectronicAddressInput};
use invoicing_domain::locale::Locale;
use invoicing_domain::profile::{Profile, ProfilePatchInput};
use invoicing_domain::time_zone::TimeZone;
use std::collections::HashMap;

/// The chrome of a settings screen titled by `title_key`.
pub(crate) fn section_chrome(me: &Visitor, req: &HttpRequest, title_key: &'static str) -> Chrome {
    Chrome::new(
        me,
        req,
        Nav::Settings,
        super::locale_of(req).text(title_key).to_string(),
    )
}

/// The form's fields, as typed.
#[derive(Default)]
struct Fields {
    text: HashMap<&'static str, String>,
    send_receipts: bool,
}

/// The profile's text fields, in the form's order: name, label key, input type.
const TEXT_FIELDS: &[(&str, &str, &str)] = &[
    ("name", "dash.field.name", "text"),
    ("legal_name", "dash.settings.legal_name", "text"),
    ("email", "dash.field.email", "email"),
    ("phone", "dash.field.phone", "tel"),
    ("website", "dash.settings.website", "url"),
    ("tax_id", "dash.field.tax_id", "text"),
    ("default_currency", "dash.settings.default_currency", "text"),
    ("brand_color", "dash.settings.brand_color", "text"),
];

/// What e-invoices need (SPEC §23): name, label key, input type.
const EINVOICE_FIELDS: &[(&str, &str, &str)] = &[
    ("vat_id", "dash.settings.vat_id", "text"),
    ("eas_scheme", "dash.settings.eas_scheme", "text"),
    ("eas_id", "dash.settings.eas_id", "text"),
    ("iban", "dash.settings.iban", "text"),
    ("bic", "dash.settings.bic", "text"),
    ("account_holder", "dash.settings.account_holder", "text"),
    ("contact_name", "dash.settings.contact_name", "text"),
    ("contact_phone", "dash.settings.contact_phone", "tel"),
    ("contact_email", "dash.settings.contact_email", "email"),
];

const ADDRESS_FIELDS: &[(&str, &str)] = &[
    ("line1", "dash.field.line1"),
    ("line2", "dash.field.line2"),
    ("postal_code", "dash.field.postal_code"),
    ("city", "dash.field.city"),
    ("state", "dash.field.state"),
    ("country", "dash.field.country"),
];

impl Fields {
    fn of(p: &Profile) -> Fields {
        let a = p.address.clone().unwrap_or_default();
        let (ea, bank, contact) = (&p.electronic_address, &p.bank_account, &p.contact);
        let opt = |v: &Option<String>| v.clone().unwrap_or_default();
        let text = HashMap::from([
            ("name", p.name.clone()),
            ("legal_name", opt(&p.legal_name)),
            (
                "email",
                p.email
                    .as_ref()
                    .map(|e| e.as_str().to_string())
                    .unwrap_or_default(),
            ),
            ("phone", opt(&p.phone)),
            ("website", opt(&p.website)),
            ("tax_id", opt(&p.tax_id)),
            ("default_currency", p.default_currency.code().to_string()),
            (
                "brand_color",
                p.brand_color.map(|c| c.to_string()).unwrap_or_default(),
            ),
            ("line1", opt(&a.line1)),
            ("line2", opt(&a.line2)),
            ("postal_code", opt(&a.postal_code)),
            ("city", opt(&a.city)),
            ("state", opt(&a.state)),
            ("country", opt(&a.country)),
            ("payment_instructions", opt(&p.payment_instructions)),
            ("invoice_footer", opt(&p.invoice_footer)),
            ("locale", p.locale.code().to_string()),
            (
                "vat_id",
                p.vat_id
                    .as_ref()
                    .map(|v| v.as_str().to_string())
                    .unwrap_or_default(),
            ),
            (
                "eas_scheme",
                ea.as_ref().map(|a| a.scheme.clone()).unwrap_or_default(),
            ),
            (
                "eas_id",
                ea.as_ref().map(|a| a.id.clone()).unwrap_or_default(),
            ),
            (
                "iban",
                bank.as_ref().map(|b| b.iban.clone()).unwrap_or_default(),
            ),
            ("bic", opt(&bank.as_ref().and_then(|b| b.bic.clone()))),
            (
                "account_holder",
                opt(&bank.as_ref().and_then(|b| b.name.clone())),
            ),
            (
                "contact_name",
                opt(&contact.as_ref().and_then(|c| c.name.clone())),
            ),
            (
                "contact_phone",
                opt(&contact.as_ref().and_then(|c| c.phone.clone())),
            ),
            (
                "contact_email",
                opt(&contact.as_ref().and_then(|c| c.email.clone())),
            ),
            ("tax_rounding", p.tax_rounding.as_str().to_string()),
            ("time_zone", p.time_zone.name().to_string()),
            (
                "reminders",
                p.reminders
                    .days()
                    .iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
        ]);
        Fields {
            text,
            send_receipts: p.send_receipts,
        }
    }

    fn read(form: &Form) -> Fields {
        let mut text = HashMap::new();
        let names = TEXT_FIELDS
            .iter()
            .map(|(n, _, _)| *n)
            .chain(ADDRESS_FIELDS.iter().map(|(n, _)| *n))
            .chain(EINVOICE_FIELDS.iter().map(|(n, _, _)| *n))
            .chain([
                "tax_rounding",
                "time_zone",
                "payment_instructions",
                "invoice_footer",
                "locale",
                "reminders",
            ]);
        for name in names {
            text.insert(name, form.raw(name));
        }
        Fields {
            text,
            send_receipts: form.checked("send_receipts"),
        }
    }

    fn get(&self, name: &str) -> &str {
        self.text.get(name).map(String::as_str).unwrap_or_default()
    }

    /// A field as the API takes it: blank clears it.
    fn value(&self, name: &str) -> Option<String> {
        non_blank(self.get(name))
    }

    /// Whether any of `names` was filled in (a group left blank is cleared).
    fn any(&self, names: &[&str]) -> bool {
        names.iter().any(|n| self.value(n).is_some())
    }

    /// The reminder days as typed ("-3, 0, 7"); a blank field is no reminder at all.
    fn reminders(&self) -> Result<Vec<i64>, ApiError> {
        self.get("reminders")
            .split([',', ' ', ';'])
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(|d| {
                d.replace('\u{2212}', "-").parse::<i64>().map_err(|_| {
                    ApiError::invalid_parameter(
                        "reminders",
                        "must be whole numbers of days, such as -3, 0, 7",
                    )
                })
            })
            .collect()
    }

    fn patch(&self) -> Result<ProfilePatchInput, ApiError> {
        let address = AddressInput {
            line1: self.value("line1"),
            line2: self.value("line2"),
            city: self.value("city"),
            state: self.value("state"),
            postal_code: self.value("postal_code"),
            country: self.value("country"),
        };
        let empty = [
            &address.line1,
            &address.line2,
            &address.city,
            &address.state,
            &address.postal_code,
            &address.country,
        ]
        .iter()
        .all(|v| v.is_none());
        Ok(ProfilePatchInput {
            name: Some(self.value("name")),
            legal_name: Some(self.value("legal_name")),
            email: Some(self.value("email")),
            phone: Some(self.value("phone")),
            website: Some(self.value("website")),
            address: Some((!empty).then_some(address)),
            tax_id: Some(self.value("tax_id")),
            payment_instructions: Some(self.value("payment_instructions")),
            invoice_footer: Some(self.value("invoice_footer")),
            locale: self.value("locale").map(Some),
            brand_color: Some(self.value("brand_color")),
            default_currency: self.value("default_currency").map(Some),
            reminders: Some(Some(self.reminders()?)),
            send_receipts: Some(Some(self.send_receipts)),
            vat_id: Some(self.value("vat_id")),
            electronic_address: Some(self.any(&["eas_scheme", "eas_id"]).then(|| {
                ElectronicAddressInput {
                    scheme: self.value("eas_scheme"),
                    id: self.value("eas_id"),
                }
            })),
            bank_account: Some(self.any(&["iban", "bic", "account_holder"]).then(|| {
                BankAccountInput {
                    iban: self.value("iban"),
                    bic: self.value("bic"),
                    name: self.value("account_holder"),
                }
            })),
            contact: Some(
                self.any(&["contact_name", "contact_phone", "contact_email"])
                    .then(|| ContactInput {
                        name: self.value("contact_name"),
                        phone: self.value("contact_phone"),
                        email: self.value("contact_email"),
                    }),
            ),
            tax_rounding: self.value("tax_rounding").map(Some),
            time_zone: self.value("time_zone").map(Some),
        })
    }
}

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

fn field_of(param: &str) -> String {
    let field = match param {
        "electronic_address.scheme" => "eas_scheme",
        "electronic_address.id" => "eas_id",
        "bank_account.iban" => "iban",
        "bank_account.bic" => "bic",
        "bank_account.name" => "account_holder",
        "contact.name" => "contact_name",
        "contact.phone" => "contact_phone",
        "contact.email" => "contact_email",
        other => other.strip_prefix("address.").unwrap_or(other),
    };
    field.to_string()
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
        when: super::views::moment(t, n.created_at),
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
    let status = if errors.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    };
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
    let beside = beside(state, me, profile.has_logo, super::locale_of(req)).await?;
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
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf` and the profile's fields (`reminders`: days from the due date, comma-separated)"),
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
            let beside = beside(&state, &me, profile.has_logo, super::locale_of(&req)).await?;
            show(&me, &req, f, field_errors(&e, field_of), beside)
        }
        Err(e) => Err(e.into()),
    }
}

/// Copies the test profile and logo over the live ones (SPEC §27), as
/// `POST /api/v1/account/copy_to_live` does; owners, after typing their password again.
#[utoipa::path(post, path = "/dashboard/settings/copy-to-live", tag = "dashboard", operation_id = "dashboard_copy_to_live",
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`; `reauth_password` when asked"),
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
    if let Some(ask) = super::reauth::ask_unless_recent(&state, &req, &me, &form, || {
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
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`, `to`"),
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
        .send_test_email(&form.raw("to"), super::locale_of(&req))
        .await;
    match sent {
        Ok(_) => Ok(see_other("/dashboard/settings?done=test_queued#test-email")),
        Err(e) if is_field_mistake(&e) => {
            show_current(&state, &req, &me, field_errors(&e, str::to_string)).await
        }
        Err(e) => Err(e.into()),
    }
}
