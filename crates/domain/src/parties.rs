//! Who a document is from and to (SPEC §9, §16): the merchant's profile and the customer's
//! details as the document shows them. A document copies both when it leaves draft, so a later
//! profile or customer change never rewrites what was sent; a draft shows them live.

use crate::customer::{Address, Customer};
use crate::einvoice::{BankAccount, Contact, ElectronicAddress, VatId};
use crate::locale::Locale;
use crate::profile::Profile;
use serde::{Deserialize, Serialize};

/// The merchant as a document shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Issuer {
    pub name: String,
    pub legal_name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub website: Option<String>,
    pub address: Option<Address>,
    pub tax_id: Option<String>,
    pub payment_instructions: Option<String>,
    pub invoice_footer: Option<String>,
    pub locale: Locale,
    /// `#RRGGBB`.
    pub brand_color: Option<String>,
    /// The SHA-256 (hex) of the logo the document shows, if any.
    pub logo: Option<String>,
    // What e-invoices need (SPEC §23); absent from copies kept before they existed.
    #[serde(default)]
    pub vat_id: Option<VatId>,
    #[serde(default)]
    pub electronic_address: Option<ElectronicAddress>,
    #[serde(default)]
    pub bank_account: Option<BankAccount>,
    #[serde(default)]
    pub contact: Option<Contact>,
}

impl Issuer {
    pub fn from_profile(p: &Profile, logo: Option<String>) -> Issuer {
        Issuer {
            name: p.name.clone(),
            legal_name: p.legal_name.clone(),
            email: p.email.as_ref().map(|e| e.as_str().to_string()),
            phone: p.phone.clone(),
            website: p.website.clone(),
            address: p.address.clone(),
            tax_id: p.tax_id.clone(),
            payment_instructions: p.payment_instructions.clone(),
            invoice_footer: p.invoice_footer.clone(),
            locale: p.locale,
            brand_color: p.brand_color.map(|c| c.to_string()),
            logo,
            vat_id: p.vat_id.clone(),
            electronic_address: p.electronic_address.clone(),
            bank_account: p.bank_account.clone(),
            contact: p.contact.clone(),
        }
    }

    /// The name documents are issued under.
    pub fn display_name(&self) -> &str {
        self.legal_name.as_deref().unwrap_or(&self.name)
    }
}

/// The customer as a document shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recipient {
    pub name: String,
    pub email: String,
    pub phone: Option<String>,
    pub company: Option<String>,
    pub address: Option<Address>,
    pub tax_id: Option<String>,
    /// The customer's own locale; `None`: the merchant's.
    pub locale: Option<Locale>,
    #[serde(default)]
    pub vat_id: Option<VatId>,
    #[serde(default)]
    pub electronic_address: Option<ElectronicAddress>,
}

impl Recipient {
    pub fn from_customer(c: &Customer) -> Recipient {
        Recipient {
            name: c.name.clone(),
            email: c.email.as_str().to_string(),
            phone: c.phone.clone(),
            company: c.company.clone(),
            address: c.address.clone(),
            tax_id: c.tax_id.clone(),
            locale: c.locale,
            vat_id: c.vat_id.clone(),
            electronic_address: c.electronic_address.clone(),
        }
    }
}

/// Both sides of a document, and the language it speaks to its customer in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parties {
    pub issuer: Issuer,
    pub recipient: Recipient,
}

impl Parties {
    /// The customer's locale, else the merchant's (SPEC §16).
    pub fn locale(&self) -> Locale {
        self.recipient.locale.unwrap_or(self.issuer.locale)
    }
}

/// Address lines as stored: street lines, then postal code and city, state, country.
pub fn address_lines(a: &Address) -> Vec<String> {
    let mut lines = street_lines(a);
    lines.extend(a.country.clone().filter(|c| !c.trim().is_empty()));
    lines
}

/// Address lines as a reader in `locale` sees them: [`address_lines`] with the country named in
/// their language ("Trinidad und Tobago" for `TT` in German), or as written when it is no code.
pub fn address_lines_in(a: &Address, locale: Locale) -> Vec<String> {
    let mut lines = street_lines(a);
    lines.extend(country_in(a, locale));
    lines
}

/// Everything but the country: street lines, then postal code and city, and state.
pub fn street_lines(a: &Address) -> Vec<String> {
    let mut lines: Vec<String> = [&a.line1, &a.line2]
        .into_iter()
        .flatten()
        .filter(|l| !l.trim().is_empty())
        .cloned()
        .collect();
    let city = [a.postal_code.as_deref(), a.city.as_deref()]
        .into_iter()
        .flatten()
        .filter(|s| !s.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    for part in [Some(city), a.state.clone()].into_iter().flatten() {
        if !part.trim().is_empty() {
            lines.push(part);
        }
    }
    lines
}

/// The address's country as a reader in `locale` sees it, when it has one.
pub fn country_in(a: &Address, locale: Locale) -> Option<String> {
    a.country
        .as_deref()
        .filter(|c| !c.trim().is_empty())
        .map(|c| locale.country(c).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_lines_skip_what_is_missing() {
        let a = Address {
            line1: Some("Hauptstraße 1".into()),
            line2: None,
            city: Some("Berlin".into()),
            state: None,
            postal_code: Some("10115".into()),
            country: Some("DE".into()),
        };
        assert_eq!(address_lines(&a), ["Hauptstraße 1", "10115 Berlin", "DE"]);
        assert!(address_lines(&Address::default()).is_empty());
    }
}
