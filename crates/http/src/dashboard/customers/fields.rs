//! The customer form's fields, as typed: read from a post or filled from a stored customer, and
//! turned into the input the operations take.

use crate::dashboard::form::{non_blank, Form};
use invoicing_domain::customer::{AddressInput, Customer};
use invoicing_domain::einvoice::ElectronicAddressInput;

/// The form's fields, as typed.
#[derive(Default)]
pub(super) struct Fields {
    pub(super) name: String,
    pub(super) email: String,
    pub(super) company: String,
    pub(super) phone: String,
    pub(super) tax_id: String,
    pub(super) vat_id: String,
    pub(super) eas_scheme: String,
    pub(super) eas_id: String,
    pub(super) locale: String,
    pub(super) line1: String,
    pub(super) line2: String,
    pub(super) city: String,
    pub(super) state: String,
    pub(super) postal_code: String,
    pub(super) country: String,
}

impl Fields {
    pub(super) fn read(form: &Form) -> Fields {
        Fields {
            name: form.raw("name"),
            email: form.raw("email"),
            company: form.raw("company"),
            phone: form.raw("phone"),
            tax_id: form.raw("tax_id"),
            vat_id: form.raw("vat_id"),
            eas_scheme: form.raw("electronic_address.scheme"),
            eas_id: form.raw("electronic_address.id"),
            locale: form.raw("locale"),
            line1: form.raw("address.line1"),
            line2: form.raw("address.line2"),
            city: form.raw("address.city"),
            state: form.raw("address.state"),
            postal_code: form.raw("address.postal_code"),
            country: form.raw("address.country"),
        }
    }

    pub(super) fn of(c: &Customer) -> Fields {
        let a = c.address.clone().unwrap_or_default();
        Fields {
            name: c.name.clone(),
            email: c.email.as_str().to_string(),
            company: c.company.clone().unwrap_or_default(),
            phone: c.phone.clone().unwrap_or_default(),
            tax_id: c.tax_id.clone().unwrap_or_default(),
            vat_id: c
                .vat_id
                .as_ref()
                .map(|v| v.as_str().to_string())
                .unwrap_or_default(),
            eas_scheme: c
                .electronic_address
                .as_ref()
                .map(|a| a.scheme.clone())
                .unwrap_or_default(),
            eas_id: c
                .electronic_address
                .as_ref()
                .map(|a| a.id.clone())
                .unwrap_or_default(),
            locale: c.locale.map(|l| l.code().to_string()).unwrap_or_default(),
            line1: a.line1.unwrap_or_default(),
            line2: a.line2.unwrap_or_default(),
            city: a.city.unwrap_or_default(),
            state: a.state.unwrap_or_default(),
            postal_code: a.postal_code.unwrap_or_default(),
            country: a.country.unwrap_or_default(),
        }
    }

    /// Where the customer receives e-invoices; both parts blank is none.
    pub(super) fn electronic_address(&self) -> Option<ElectronicAddressInput> {
        let a = ElectronicAddressInput {
            scheme: non_blank(&self.eas_scheme),
            id: non_blank(&self.eas_id),
        };
        (a.scheme.is_some() || a.id.is_some()).then_some(a)
    }

    pub(super) fn address(&self) -> Option<AddressInput> {
        let a = AddressInput {
            line1: non_blank(&self.line1),
            line2: non_blank(&self.line2),
            city: non_blank(&self.city),
            state: non_blank(&self.state),
            postal_code: non_blank(&self.postal_code),
            country: non_blank(&self.country),
        };
        let empty = [
            &a.line1,
            &a.line2,
            &a.city,
            &a.state,
            &a.postal_code,
            &a.country,
        ]
        .iter()
        .all(|v| v.is_none());
        (!empty).then_some(a)
    }
}
