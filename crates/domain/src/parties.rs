//! Who a document is from and to (SPEC §9, §16): the merchant's profile and the customer's
//! details as the document shows them. A document copies both when it leaves draft, so a later
//! profile or customer change never rewrites what was sent; a draft shows them live.

use crate::customer::{Address, Customer};
use crate::einvoice::{BankAccount, Contact, ElectronicAddress, VatId};
use crate::locale::Locale;
use crate::profile::Profile;
use crate::time_zone::TimeZone;
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
    /// Where the issuer's day is (SPEC §27): "today" on the document's pages.
    #[serde(default)]
    pub time_zone: TimeZone,
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
            time_zone: p.time_zone,
        }
    }

    /// The name documents are issued under.
    pub fn display_name(&self) -> &str {
        self.legal_name.as_deref().unwrap_or(&self.name)
    }

    /// The tax identifiers the merchant's documents print (an EU invoice must show the VAT ID).
    pub fn tax_identifiers(&self) -> Vec<TaxIdentifier> {
        tax_identifiers(self.vat_id.as_ref(), self.tax_id.as_deref())
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

    /// The tax identifiers the customer's documents print (for a reverse charge, the VAT ID).
    pub fn tax_identifiers(&self) -> Vec<TaxIdentifier> {
        tax_identifiers(self.vat_id.as_ref(), self.tax_id.as_deref())
    }
}

/// One tax identifier as a document prints it: the catalogue key of its label, and the number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaxIdentifier {
    pub label: &'static str,
    pub value: String,
}

/// The VAT ID (BT-31), then the tax number (BT-32) unless it is the same number again, as it is
/// where a profile kept its VAT ID in `tax_id` before `vat_id` existed. A `tax_id` that reads as
/// a VAT ID is labelled as one: before `vat_id` it was where the VAT number went.
fn tax_identifiers(vat_id: Option<&VatId>, tax_id: Option<&str>) -> Vec<TaxIdentifier> {
    let vat = vat_id.map(|v| TaxIdentifier {
        label: "field.vat_id",
        value: v.as_str().to_string(),
    });
    let tax = tax_id
        .filter(|t| !t.trim().is_empty())
        .and_then(|t| match VatId::parse(t) {
            Ok(same) if Some(&same) == vat_id => None,
            read => Some(TaxIdentifier {
                label: if read.is_ok() {
                    "field.vat_id"
                } else {
                    "field.tax_id"
                },
                value: t.to_string(),
            }),
        });
    vat.into_iter().chain(tax).collect()
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

    #[test]
    fn documents_print_the_vat_id_and_a_different_tax_number() {
        let vat = VatId::parse("DE123456789").ok();
        let printed = |vat: Option<&VatId>, tax: Option<&str>| -> Vec<(&str, String)> {
            tax_identifiers(vat, tax)
                .into_iter()
                .map(|t| (t.label, t.value))
                .collect()
        };
        assert_eq!(
            printed(vat.as_ref(), Some("12/345/67890")),
            [
                ("field.vat_id", "DE123456789".to_string()),
                ("field.tax_id", "12/345/67890".to_string())
            ]
        );
        // The VAT ID kept in `tax_id` too, as written before `vat_id` existed: printed once.
        assert_eq!(
            printed(vat.as_ref(), Some("de 123 456 789")),
            [("field.vat_id", "DE123456789".to_string())]
        );
        // A VAT number in `tax_id` alone keeps its label; a national number gets its own.
        assert_eq!(
            printed(None, Some("DE123456789")),
            [("field.vat_id", "DE123456789".to_string())]
        );
        assert_eq!(
            printed(None, Some("12/345/67890")),
            [("field.tax_id", "12/345/67890".to_string())]
        );
        assert!(printed(None, Some("  ")).is_empty());
        assert!(printed(None, None).is_empty());
    }
}
