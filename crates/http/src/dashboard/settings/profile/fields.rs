//! The profile form's fields, as typed: filled from the stored profile or read from a post, and
//! turned into the patch the operations take.

use crate::dashboard::form::{non_blank, Form};
use crate::error::ApiError;
use invoicing_domain::customer::AddressInput;
use invoicing_domain::einvoice::{BankAccountInput, ContactInput, ElectronicAddressInput};
use invoicing_domain::profile::{Profile, ProfilePatchInput};
use std::collections::HashMap;

/// The form's fields, as typed.
#[derive(Default)]
pub(super) struct Fields {
    pub(super) text: HashMap<&'static str, String>,
    pub(super) send_receipts: bool,
}

/// The profile's text fields, in the form's order: name, label key, input type.
pub(super) const TEXT_FIELDS: &[(&str, &str, &str)] = &[
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
pub(super) const EINVOICE_FIELDS: &[(&str, &str, &str)] = &[
    ("vat_id", "dash.settings.vat_id", "text"),
    (
        "electronic_address.scheme",
        "dash.settings.eas_scheme",
        "text",
    ),
    ("electronic_address.id", "dash.settings.eas_id", "text"),
    ("bank_account.iban", "dash.settings.iban", "text"),
    ("bank_account.bic", "dash.settings.bic", "text"),
    ("bank_account.name", "dash.settings.account_holder", "text"),
    ("contact.name", "dash.settings.contact_name", "text"),
    ("contact.phone", "dash.settings.contact_phone", "tel"),
    ("contact.email", "dash.settings.contact_email", "email"),
];

pub(super) const ADDRESS_FIELDS: &[(&str, &str)] = &[
    ("address.line1", "dash.field.line1"),
    ("address.line2", "dash.field.line2"),
    ("address.postal_code", "dash.field.postal_code"),
    ("address.city", "dash.field.city"),
    ("address.state", "dash.field.state"),
    ("address.country", "dash.field.country"),
];

impl Fields {
    pub(super) fn of(p: &Profile) -> Fields {
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
            ("address.line1", opt(&a.line1)),
            ("address.line2", opt(&a.line2)),
            ("address.postal_code", opt(&a.postal_code)),
            ("address.city", opt(&a.city)),
            ("address.state", opt(&a.state)),
            ("address.country", opt(&a.country)),
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
                "electronic_address.scheme",
                ea.as_ref().map(|a| a.scheme.clone()).unwrap_or_default(),
            ),
            (
                "electronic_address.id",
                ea.as_ref().map(|a| a.id.clone()).unwrap_or_default(),
            ),
            (
                "bank_account.iban",
                bank.as_ref().map(|b| b.iban.clone()).unwrap_or_default(),
            ),
            (
                "bank_account.bic",
                opt(&bank.as_ref().and_then(|b| b.bic.clone())),
            ),
            (
                "bank_account.name",
                opt(&bank.as_ref().and_then(|b| b.name.clone())),
            ),
            (
                "contact.name",
                opt(&contact.as_ref().and_then(|c| c.name.clone())),
            ),
            (
                "contact.phone",
                opt(&contact.as_ref().and_then(|c| c.phone.clone())),
            ),
            (
                "contact.email",
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

    pub(super) fn read(form: &Form) -> Fields {
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

    pub(super) fn get(&self, name: &str) -> &str {
        self.text.get(name).map(String::as_str).unwrap_or_default()
    }

    /// A field as the API takes it: blank clears it.
    pub(super) fn value(&self, name: &str) -> Option<String> {
        non_blank(self.get(name))
    }

    /// Whether any of `names` was filled in (a group left blank is cleared).
    pub(super) fn any(&self, names: &[&str]) -> bool {
        names.iter().any(|n| self.value(n).is_some())
    }

    /// The reminder days as typed ("-3, 0, 7"); a blank field is no reminder at all.
    pub(super) fn reminders(&self) -> Result<Vec<i64>, ApiError> {
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

    pub(super) fn patch(&self) -> Result<ProfilePatchInput, ApiError> {
        let address = AddressInput {
            line1: self.value("address.line1"),
            line2: self.value("address.line2"),
            city: self.value("address.city"),
            state: self.value("address.state"),
            postal_code: self.value("address.postal_code"),
            country: self.value("address.country"),
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
            electronic_address: Some(
                self.any(&["electronic_address.scheme", "electronic_address.id"])
                    .then(|| ElectronicAddressInput {
                        scheme: self.value("electronic_address.scheme"),
                        id: self.value("electronic_address.id"),
                    }),
            ),
            bank_account: Some(
                self.any(&["bank_account.iban", "bank_account.bic", "bank_account.name"])
                    .then(|| BankAccountInput {
                        iban: self.value("bank_account.iban"),
                        bic: self.value("bank_account.bic"),
                        name: self.value("bank_account.name"),
                    }),
            ),
            contact: Some(
                self.any(&["contact.name", "contact.phone", "contact.email"])
                    .then(|| ContactInput {
                        name: self.value("contact.name"),
                        phone: self.value("contact.phone"),
                        email: self.value("contact.email"),
                    }),
            ),
            tax_rounding: self.value("tax_rounding").map(Some),
            time_zone: self.value("time_zone").map(Some),
        })
    }
}
