//! What a European e-invoice (EN 16931, SPEC §23) needs beyond a printed one: VAT identifiers,
//! electronic addresses, bank accounts, units of measure, VAT categories with their exemption
//! reasons, and how a document rounds its tax. Each is parsed once here, at the edge, so what is
//! stored is always something the standard can express.

mod audience;
mod codes;
mod identifiers;
#[cfg(test)]
mod peppol_tests;
mod readiness;
mod rounding;
#[cfg(test)]
mod tests;

pub use audience::{applies, for_business, over_peppol};
pub use codes::{eas_schemes, is_eas_scheme, is_unit_code, is_vatex_code};
pub use identifiers::{
    checked_scheme, identifier_fault, is_peppol_scheme, normalise_identifier, CheckedScheme,
};
pub use readiness::{check, vat_breakdown, Missing, Readiness, Reason, Subject, VatGroup};
pub use rounding::{allocate_document_tax, TaxRounding};

use crate::contact::{parse_phone, Email, NAME_MAX};
use crate::decimal::TaxRate;
use crate::validation::{optional_text, required_text, Problem, Violations};
use serde::{Deserialize, Serialize};

/// The longest identifier any of these fields takes.
pub const IDENTIFIER_MAX: usize = 100;
/// A free-text exemption reason (BT-120).
pub const EXEMPTION_REASON_MAX: usize = 300;
/// The buyer reference (BT-10) and the purchase order reference (BT-13).
pub const REFERENCE_MAX: usize = 200;
/// The unit a line counts in when none is given: "one" (UN/ECE Rec. 20 `C62`).
pub const DEFAULT_UNIT: &str = "C62";

/// A VAT identifier with its country prefix (BT-31, BT-48): `DE123456789`, Greece `EL…`,
/// Northern Ireland `XI…`. Stored upper case without spaces, dots or dashes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct VatId(String);

impl VatId {
    pub fn parse(raw: &str) -> Result<VatId, &'static str> {
        let id: String = raw
            .chars()
            .filter(|c| !matches!(c, ' ' | '.' | '-'))
            .flat_map(char::to_uppercase)
            .collect();
        // `get`, not `split_at`: the first two bytes may end inside a character.
        let (prefix, rest) = (id.get(..2).unwrap_or(""), id.get(2..).unwrap_or(""));
        let country = prefix.len() == 2 && prefix.bytes().all(|b| b.is_ascii_uppercase());
        let known =
            matches!(prefix, "EL" | "XI") || isocountry::CountryCode::for_alpha2(prefix).is_ok();
        if !country
            || !known
            || !(2..=13).contains(&rest.len())
            || !rest.bytes().all(|b| b.is_ascii_alphanumeric())
        {
            return Err("must be a VAT identifier with its country prefix, such as DE123456789");
        }
        Ok(VatId(id))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The `vat_id` field of a body: blank is none, anything else must parse.
    pub fn parse_field(v: &mut Violations, raw: Option<String>) -> Option<VatId> {
        let raw = raw.filter(|id| !id.trim().is_empty())?;
        VatId::parse(&raw).map_err(|m| v.push("vat_id", m)).ok()
    }

    /// What storage wrote, which was parsed when it came in.
    pub fn from_stored(id: String) -> VatId {
        VatId(id)
    }
}

/// Where a party receives e-invoices (BT-34, BT-49): an identifier in a scheme of the EAS code
/// list, such as `{"scheme": "0204", "id": "991-01234-56"}` (a German Leitweg-ID) or
/// `{"scheme": "EM", "id": "invoices@example.com"}`. Where the scheme defines a check digit or a
/// fixed form (`0208`, `0088`, `0192`…) the identifier must pass it; spaces and dots typed in
/// such numbers are dropped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ElectronicAddress {
    /// An EAS code: `0088` GLN, `0204` Leitweg-ID, `9930` German VAT number, `EM` email…
    pub scheme: String,
    pub id: String,
}

/// The electronic address as sent.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ElectronicAddressInput {
    pub scheme: Option<String>,
    pub id: Option<String>,
}

impl ElectronicAddressInput {
    pub fn parse(self, v: &mut Violations, at: &str) -> Option<ElectronicAddress> {
        let scheme = required_text(v, &format!("{at}.scheme"), self.scheme, 4)
            .map(|s| s.trim().to_ascii_uppercase());
        let scheme = scheme.filter(|s| {
            is_eas_scheme(s) || {
                v.push(
                    format!("{at}.scheme"),
                    "must be a code of the EAS list, such as 0088, 0204, 9930 or EM",
                );
                false
            }
        });
        let id = required_text(v, &format!("{at}.id"), self.id, IDENTIFIER_MAX);
        let scheme = scheme?;
        let id = normalise_identifier(&scheme, &id?);
        if let Some(check) = identifier_fault(&scheme, &id) {
            v.push(
                format!("{at}.id"),
                Problem::Identifier {
                    scheme: check.scheme,
                    english: check.english,
                },
            );
            return None;
        }
        Some(ElectronicAddress { scheme, id })
    }
}

/// The account customers pay into (BT-84, BT-86, BT-85).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BankAccount {
    /// Upper case, without spaces.
    pub iban: String,
    pub bic: Option<String>,
    /// The account holder's name.
    pub name: Option<String>,
}

impl BankAccount {
    /// SEPA credit transfer (58) when the IBAN is in the SEPA area, else credit transfer (30).
    pub fn payment_means_code(&self) -> &'static str {
        const SEPA: &[&str] = &[
            "AD", "AT", "BE", "BG", "CH", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GB",
            "GI", "GR", "HR", "HU", "IE", "IS", "IT", "LI", "LT", "LU", "LV", "MC", "MT", "NL",
            "NO", "PL", "PT", "RO", "SE", "SI", "SK", "SM", "VA",
        ];
        if SEPA.contains(&self.iban.get(..2).unwrap_or_default()) {
            "58"
        } else {
            "30"
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct BankAccountInput {
    /// An IBAN; spaces are ignored.
    pub iban: Option<String>,
    /// 8 or 11 characters.
    pub bic: Option<String>,
    pub name: Option<String>,
}

impl BankAccountInput {
    pub fn parse(self, v: &mut Violations, at: &str) -> Option<BankAccount> {
        let iban = required_text(v, &format!("{at}.iban"), self.iban, 64).and_then(|raw| {
            let electronic: String = raw
                .chars()
                .filter(|c| !c.is_whitespace())
                .flat_map(char::to_uppercase)
                .collect();
            match electronic.parse::<iban::Iban>() {
                Ok(iban) => Some(iban::IbanLike::electronic_str(&iban).to_string()),
                Err(_) => {
                    v.push(format!("{at}.iban"), Problem::Iban);
                    None
                }
            }
        });
        let bic = optional_text(v, &format!("{at}.bic"), self.bic, 11).and_then(|raw| {
            let bic = raw.trim().to_ascii_uppercase();
            let shape = matches!(bic.len(), 8 | 11)
                && bic.bytes().all(|b| b.is_ascii_alphanumeric())
                && bic.bytes().take(4).all(|b| b.is_ascii_uppercase());
            if shape {
                Some(bic)
            } else {
                v.push(format!("{at}.bic"), Problem::Bic);
                None
            }
        });
        let name = optional_text(v, &format!("{at}.name"), self.name, NAME_MAX);
        Some(BankAccount {
            iban: iban?,
            bic,
            name,
        })
    }
}

/// Who a customer asks about an invoice (BG-6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Contact {
    pub name: Option<String>,
    pub phone: Option<String>,
    pub email: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ContactInput {
    pub name: Option<String>,
    pub phone: Option<String>,
    pub email: Option<String>,
}

impl ContactInput {
    /// At least one of the three; `None` when all are blank (a contact of nothing).
    pub fn parse(self, v: &mut Violations, at: &str) -> Option<Contact> {
        let name = optional_text(v, &format!("{at}.name"), self.name, NAME_MAX);
        let phone = parse_phone(v, &format!("{at}.phone"), self.phone);
        let email = self.email.filter(|e| !e.trim().is_empty()).and_then(|e| {
            Email::parse(&e)
                .map(|e| e.as_str().to_string())
                .map_err(|m| v.push(format!("{at}.email"), m))
                .ok()
        });
        let contact = Contact { name, phone, email };
        (contact.name.is_some() || contact.phone.is_some() || contact.email.is_some())
            .then_some(contact)
    }
}

/// A line's VAT category (BT-151, UNCL 5305 as EN 16931 uses it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum TaxCategory {
    /// Standard rate, above zero.
    S,
    /// Zero rated goods.
    Z,
    /// Exempt from VAT.
    E,
    /// Reverse charge: the buyer accounts for the VAT.
    AE,
    /// Intra-community supply within the EU.
    K,
    /// Export outside the EU.
    G,
    /// Outside the scope of VAT.
    O,
}

impl TaxCategory {
    pub const ALL: [TaxCategory; 7] = [
        TaxCategory::S,
        TaxCategory::Z,
        TaxCategory::E,
        TaxCategory::AE,
        TaxCategory::K,
        TaxCategory::G,
        TaxCategory::O,
    ];

    pub fn code(self) -> &'static str {
        match self {
            TaxCategory::S => "S",
            TaxCategory::Z => "Z",
            TaxCategory::E => "E",
            TaxCategory::AE => "AE",
            TaxCategory::K => "K",
            TaxCategory::G => "G",
            TaxCategory::O => "O",
        }
    }

    pub fn parse(s: &str) -> Option<TaxCategory> {
        TaxCategory::ALL.into_iter().find(|c| c.code() == s)
    }

    /// Only the standard rate is above zero; every other category is 0 %.
    pub fn allows(self, rate: TaxRate) -> bool {
        (self == TaxCategory::S) == (rate != TaxRate::ZERO)
    }

    /// Exempt, reverse charge, intra-community, export and out of scope say why (BR-E-10…).
    pub fn needs_exemption_reason(self) -> bool {
        !matches!(self, TaxCategory::S | TaxCategory::Z)
    }
}

/// What a line says about its VAT beyond the rate: the category (default `S` above zero; at
/// zero only the merchant knows which it is) and why it is exempt.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LineTax {
    pub category: Option<TaxCategory>,
    /// A VATEX code (`VATEX-EU-AE`) or text.
    pub exemption_reason: Option<String>,
}

impl LineTax {
    /// A line's category and reason against its rate: a category that contradicts the rate is
    /// refused, and `S` is implied above zero.
    pub fn for_rate(
        v: &mut Violations,
        at: &str,
        rate: TaxRate,
        category: Option<TaxCategory>,
        exemption_reason: Option<String>,
    ) -> Option<LineTax> {
        let category = match category {
            None => (rate != TaxRate::ZERO).then_some(TaxCategory::S),
            Some(c) if c.allows(rate) => Some(c),
            Some(c) => {
                let why = if c == TaxCategory::S {
                    "S (standard rate) needs a tax_rate above 0"
                } else {
                    "this category is for 0 % lines; use S for a tax_rate above 0"
                };
                v.push(format!("{at}.tax_category"), format!("{}: {why}", c.code()));
                return None;
            }
        };
        Some(LineTax {
            category,
            exemption_reason,
        })
    }
}

/// A field's mistake was pushed to the violations; the caller drops the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reported;

/// A line's `tax_category` as sent (blank is none).
pub fn parse_category(
    v: &mut Violations,
    at: &str,
    raw: Option<String>,
) -> Result<Option<TaxCategory>, Reported> {
    let Some(raw) = raw.filter(|c| !c.trim().is_empty()) else {
        return Ok(None);
    };
    TaxCategory::parse(raw.trim()).map(Some).ok_or_else(|| {
        v.push(
            format!("{at}.tax_category"),
            "must be one of S, Z, E, AE, K, G, O",
        );
        Reported
    })
}

/// A line's `tax_exemption_reason`: text, or a code of the VATEX list (stored in upper case).
pub fn parse_exemption_reason(
    v: &mut Violations,
    at: &str,
    raw: Option<String>,
) -> Result<Option<String>, Reported> {
    let param = format!("{at}.tax_exemption_reason");
    let failed = v.errors().len();
    let Some(reason) = optional_text(v, &param, raw, EXEMPTION_REASON_MAX) else {
        return if v.errors().len() > failed {
            Err(Reported)
        } else {
            Ok(None)
        };
    };
    let reason = reason.trim().to_string();
    if !reason.to_ascii_uppercase().starts_with("VATEX") {
        return Ok(Some(reason));
    }
    if is_vatex_code(&reason) {
        Ok(Some(reason.to_ascii_uppercase()))
    } else {
        v.push(
            param,
            "is not a code of the VATEX list (write text, or a code such as VATEX-EU-AE)",
        );
        Err(Reported)
    }
}

/// A unit of measure code (UN/ECE Recommendations 20 and 21); `None` when none is given.
pub fn parse_unit(
    v: &mut Violations,
    at: &str,
    raw: Option<String>,
) -> Result<Option<String>, Reported> {
    match raw.map(|u| u.trim().to_string()).filter(|u| !u.is_empty()) {
        None => Ok(None),
        Some(u) if is_unit_code(&u) => Ok(Some(u)),
        Some(_) => {
            v.push(
                format!("{at}.unit"),
                "must be a UN/ECE Recommendation 20 unit code, such as C62 (one), HUR (hour), DAY or KGM",
            );
            Err(Reported)
        }
    }
}

/// The buyer reference (BT-10) or purchase order (BT-13) of a document.
pub fn parse_reference(v: &mut Violations, param: &str, raw: Option<String>) -> Option<String> {
    optional_text(v, param, raw, REFERENCE_MAX).map(|r| r.trim().to_string())
}
