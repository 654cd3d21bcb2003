//! Customers (SPEC §8): the parsed, always-valid forms of what clients send, and the record the
//! API returns. Parsing happens once, here, and reports every failing field together.

use crate::contact::TAX_ID_MAX;
pub(crate) use crate::contact::{dialable, parse_email_address, parse_phone};
pub use crate::contact::{
    Address, AddressInput, Email, ADDRESS_FIELD_MAX, EMAIL_MAX, NAME_MAX, PHONE_MAX,
};
use crate::einvoice::{ElectronicAddress, ElectronicAddressInput, VatId};
use crate::locale::Locale;
use crate::validation::{not_null, optional_text, required_text, Metadata, Problem, Violations};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

pub const COMPANY_MAX: usize = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CustomerId(pub i64);

impl fmt::Display for CustomerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The body of `POST /api/v1/customers` (and the inline `customer` of documents).
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CustomerInput {
    /// Full name of the customer.
    pub name: Option<String>,
    /// Unique per account and environment, compared case-insensitively; trimmed.
    pub email: Option<String>,
    /// Phone number including country code.
    pub phone: Option<String>,
    pub company: Option<String>,
    pub address: Option<AddressInput>,
    /// The language of everything this customer receives; default the account's.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Locale>))]
    pub locale: Option<String>,
    /// Shown on this customer's documents.
    pub tax_id: Option<String>,
    /// The customer's VAT identifier with its country prefix (BT-48), such as `FR12345678901`.
    pub vat_id: Option<String>,
    /// Where the customer receives e-invoices (BT-49).
    pub electronic_address: Option<ElectronicAddressInput>,
    /// At most 50 pairs; keys ≤ 40 characters, values ≤ 500.
    pub metadata: Option<BTreeMap<String, String>>,
}

/// A customer ready to store: every field already valid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewCustomer {
    pub name: String,
    pub email: Email,
    pub phone: Option<String>,
    pub company: Option<String>,
    pub address: Option<Address>,
    pub locale: Option<Locale>,
    pub tax_id: Option<String>,
    pub vat_id: Option<VatId>,
    pub electronic_address: Option<ElectronicAddress>,
    pub metadata: Metadata,
}

fn parse_locale(v: &mut Violations, raw: String) -> Option<Locale> {
    Locale::parse(&raw).or_else(|| {
        v.push(
            "locale",
            Problem::OneOf("must be one of en, es, fr, de, nl, pt".into()),
        );
        None
    })
}

fn parse_email(v: &mut Violations, raw: Option<String>) -> Option<Email> {
    match raw {
        None => {
            v.push("email", crate::validation::Problem::Required);
            None
        }
        Some(raw) => Email::parse(&raw).map_err(|m| v.push("email", m)).ok(),
    }
}

fn parse_metadata(v: &mut Violations, raw: Option<BTreeMap<String, String>>) -> Option<Metadata> {
    match Metadata::parse("metadata", raw.unwrap_or_default()) {
        Ok(m) => Some(m),
        Err(errs) => {
            v.extend_prefixed("", errs);
            None
        }
    }
}

impl CustomerInput {
    pub fn parse(self) -> Result<NewCustomer, Violations> {
        let mut v = Violations::new();
        let name = required_text(&mut v, "name", self.name, NAME_MAX);
        let email = parse_email(&mut v, self.email);
        let phone = parse_phone(&mut v, "phone", self.phone);
        let company = optional_text(&mut v, "company", self.company, COMPANY_MAX);
        let address = self.address.map(|a| a.parse(&mut v, "address"));
        let country = address.as_ref().and_then(|a| a.country.as_deref());
        let phone = phone.filter(|p| dialable(&mut v, "phone", p, country));
        let locale = self.locale.and_then(|l| parse_locale(&mut v, l));
        let tax_id = optional_text(&mut v, "tax_id", self.tax_id, TAX_ID_MAX);
        let vat_id = VatId::parse_field(&mut v, self.vat_id);
        let electronic_address = self
            .electronic_address
            .and_then(|a| a.parse(&mut v, "electronic_address"));
        let metadata = parse_metadata(&mut v, self.metadata);
        match (name, email, metadata) {
            (Some(name), Some(email), Some(metadata)) if v.is_empty() => Ok(NewCustomer {
                name,
                email,
                phone,
                company,
                address,
                locale,
                tax_id,
                vat_id,
                electronic_address,
                metadata,
            }),
            _ => Err(v),
        }
    }
}

/// The body of `PATCH /api/v1/customers/{id}`: absent fields stay as they are, `null` clears
/// an optional field (`metadata` to `{}`) and is 422 on `name` and `email` (SPEC §4).
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CustomerPatchInput {
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub name: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub email: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub phone: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub company: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub address: Option<Option<AddressInput>>,
    /// `null` goes back to the account's locale.
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Locale>))]
    pub locale: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub tax_id: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub vat_id: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub electronic_address: Option<Option<ElectronicAddressInput>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub metadata: Option<Option<BTreeMap<String, String>>>,
}

/// A validated change; `None` leaves a field alone, `Some(None)` clears an optional one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CustomerPatch {
    pub name: Option<String>,
    pub email: Option<Email>,
    pub phone: Option<Option<String>>,
    pub company: Option<Option<String>>,
    pub address: Option<Option<Address>>,
    pub locale: Option<Option<Locale>>,
    pub tax_id: Option<Option<String>>,
    pub vat_id: Option<Option<VatId>>,
    pub electronic_address: Option<Option<ElectronicAddress>>,
    pub metadata: Option<Metadata>,
}

impl CustomerPatchInput {
    pub fn parse(self) -> Result<CustomerPatch, Violations> {
        let mut v = Violations::new();
        let mut patch = CustomerPatch::default();
        if let Some(name) = not_null(&mut v, "name", self.name) {
            patch.name = required_text(&mut v, "name", Some(name), NAME_MAX);
        }
        if let Some(email) = not_null(&mut v, "email", self.email) {
            patch.email = parse_email(&mut v, Some(email));
        }
        // Whether a number without `+` can be dialled depends on the stored address: storage
        // checks it with the same rule.
        patch.phone = self.phone.map(|p| parse_phone(&mut v, "phone", p));
        patch.company = self
            .company
            .map(|c| optional_text(&mut v, "company", c, COMPANY_MAX));
        patch.address = self.address.map(|a| a.map(|a| a.parse(&mut v, "address")));
        patch.locale = self.locale.map(|l| l.and_then(|l| parse_locale(&mut v, l)));
        patch.tax_id = self
            .tax_id
            .map(|t| optional_text(&mut v, "tax_id", t, TAX_ID_MAX));
        patch.vat_id = self.vat_id.map(|id| VatId::parse_field(&mut v, id));
        patch.electronic_address = self
            .electronic_address
            .map(|a| a.and_then(|a| a.parse(&mut v, "electronic_address")));
        patch.metadata = match self.metadata {
            None => None,
            Some(m) => parse_metadata(&mut v, m),
        };
        v.finish(|| patch)
    }
}

/// A customer as the API returns it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Customer {
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub id: CustomerId,
    pub object: &'static str,
    pub name: String,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub email: Email,
    /// As written.
    pub phone: Option<String>,
    /// The phone in E.164 (`+4930123456`): from its `+`, or as written in the country of the
    /// customer's address, or else of the account's (SPEC §26); `null` without a phone.
    #[cfg_attr(feature = "openapi", schema(example = "+4930123456"))]
    pub phone_e164: Option<String>,
    pub company: Option<String>,
    pub address: Option<Address>,
    /// `null`: the account's.
    pub locale: Option<Locale>,
    pub tax_id: Option<String>,
    /// With its country prefix (BT-48).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "FR12345678901"))]
    pub vat_id: Option<VatId>,
    /// Where the customer receives e-invoices (BT-49).
    pub electronic_address: Option<ElectronicAddress>,
    pub metadata: Metadata,
    pub livemode: bool,
    #[serde(serialize_with = "crate::time::serialize")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "crate::time::serialize")]
    pub updated_at: DateTime<Utc>,
}

impl Customer {
    pub const OBJECT: &'static str = "customer";
}

/// Filters of `GET /api/v1/customers`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CustomerFilter {
    pub email: Option<String>,
    /// Name or email contains (any case).
    pub search: Option<crate::paging::SearchText>,
}

/// Whether a create made a new customer or found the one with that email (SPEC §8).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Created<T> {
    New(T),
    Existing(T),
}

impl<T> Created<T> {
    pub fn into_inner(self) -> T {
        match self {
            Created::New(t) | Created::Existing(t) => t,
        }
    }

    pub fn is_new(&self) -> bool {
        matches!(self, Created::New(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(name: &str, email: &str) -> CustomerInput {
        CustomerInput {
            name: Some(name.into()),
            email: Some(email.into()),
            ..Default::default()
        }
    }

    #[test]
    fn email_is_trimmed_and_compared_case_insensitively() {
        let c = input("Ada", "  Ada@Example.COM ").parse().unwrap();
        assert_eq!(c.email.as_str(), "Ada@Example.COM");
        assert_eq!(c.email.normalized(), "ada@example.com");
    }

    #[test]
    fn rejects_bad_emails() {
        for bad in [
            "",
            "   ",
            "ada",
            "ada@",
            "@example.com",
            "ada@localhost",
            "a b@example.com",
            "ada@example.",
        ] {
            assert!(Email::parse(bad).is_err(), "{bad:?} accepted");
        }
        assert!(Email::parse("ada.lovelace+billing@mail.example.co.uk").is_ok());
    }

    #[test]
    fn reports_every_failing_field() {
        let err = CustomerInput {
            name: None,
            email: Some("nope".into()),
            phone: Some("call me".into()),
            metadata: Some([("k".repeat(41), "v".into())].into()),
            address: Some(AddressInput {
                city: Some("x".repeat(201)),
                ..Default::default()
            }),
            ..Default::default()
        }
        .parse()
        .unwrap_err();
        let params: Vec<_> = err.errors().iter().map(|e| e.param.clone()).collect();
        assert_eq!(
            params,
            vec![
                "name".to_string(),
                "email".into(),
                "phone".into(),
                "address.city".into(),
                format!("metadata.{}", "k".repeat(41)),
            ]
        );
    }

    #[test]
    fn patch_distinguishes_absent_from_null() {
        let p: CustomerPatchInput =
            serde_json::from_str(r#"{"phone": null, "company": "Acme"}"#).unwrap();
        let p = p.parse().unwrap();
        assert_eq!(p.phone, Some(None));
        assert_eq!(p.company, Some(Some("Acme".into())));
        assert_eq!(p.name, None);
        let p: CustomerPatchInput = serde_json::from_str(r#"{"email": null}"#).unwrap();
        assert_eq!(p.parse().unwrap_err().errors()[0].param, "email");
    }

    #[test]
    fn unknown_fields_are_refused() {
        assert!(serde_json::from_str::<CustomerInput>(r#"{"nme": "x"}"#).is_err());
    }

    #[test]
    fn phones_are_dialled_from_their_plus_or_their_country() {
        use crate::contact::phone_e164;
        let e164 = |written: &str, countries: &[Option<&str>]| phone_e164(written, countries);
        assert_eq!(e164("+49 30 1234567", &[]), Ok(Some("+49301234567".into())));
        assert_eq!(
            e164("030 1234567", &[Some("de")]),
            Ok(Some("+49301234567".into()))
        );
        // Free text is no country: the next one (the account's) is used.
        assert_eq!(
            e164("0151 23456789", &[Some("Germany"), Some("DE")]),
            Ok(Some("+4915123456789".into()))
        );
        assert_eq!(
            e164("(868) 620-1234", &[Some("TT")]),
            Ok(Some("+18686201234".into()))
        );
        assert_eq!(
            e164("030 1234567", &[None, None]),
            Ok(None),
            "no country known"
        );
        assert_eq!(e164("+49 123", &[]), Err(Problem::Phone));
        assert_eq!(e164("12", &[Some("FR")]), Err(Problem::Phone));
        // The customer's own country decides at input; an impossible number is refused there.
        let refused = CustomerInput {
            name: Some("Ada".into()),
            email: Some("ada@example.com".into()),
            phone: Some("+1 555 0100 9".into()),
            ..Default::default()
        }
        .parse()
        .unwrap_err();
        assert_eq!(refused.errors()[0].param, "phone");
        assert_eq!(refused.errors()[0].problem, Problem::Phone);
    }
}
