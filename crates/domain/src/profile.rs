//! The merchant's profile (SPEC §16): who the documents come from and how a customer pays them,
//! one per account and environment, so a test key can never change what live customers see.

use crate::contact::{parse_phone, Address, AddressInput, Email, NAME_MAX};
use crate::currency::Currency;
use crate::einvoice::{
    BankAccount, BankAccountInput, Contact, ContactInput, ElectronicAddress,
    ElectronicAddressInput, TaxRounding, VatId,
};
use crate::locale::Locale;
use crate::time_zone::TimeZone;
use crate::validation::{not_null, optional_text, required_text, Problem, Violations};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use crate::contact::TAX_ID_MAX;
pub const WEBSITE_MAX: usize = 256;
pub const PAYMENT_INSTRUCTIONS_MAX: usize = 2000;
pub const FOOTER_MAX: usize = 500;
pub const MAX_REMINDERS: usize = 10;
/// Reminder offsets are days from the due date, at most a year either side.
pub const REMINDER_DAYS_MAX: i32 = 365;

/// `#RRGGBB`, stored and shown in upper case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BrandColor(pub [u8; 3]);

impl BrandColor {
    pub fn parse(s: &str) -> Option<BrandColor> {
        let hex = s.strip_prefix('#').filter(|h| h.len() == 6)?;
        let byte = |i: usize| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok();
        Some(BrandColor([byte(0)?, byte(2)?, byte(4)?]))
    }
}

impl std::fmt::Display for BrandColor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [r, g, b] = self.0;
        write!(f, "#{r:02X}{g:02X}{b:02X}")
    }
}

impl Serialize for BrandColor {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Day offsets from the due date at which reminders go out (SPEC §18): distinct, sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Reminders(Vec<i32>);

impl Reminders {
    pub fn parse(v: &mut Violations, param: &str, raw: Vec<i64>) -> Option<Reminders> {
        if raw.len() > MAX_REMINDERS {
            v.push(param, format!("must have at most {MAX_REMINDERS} offsets"));
            return None;
        }
        let limit = i64::from(REMINDER_DAYS_MAX);
        let mut days = Vec::with_capacity(raw.len());
        for (i, d) in raw.into_iter().enumerate() {
            match i32::try_from(d)
                .ok()
                .filter(|_| (-limit..=limit).contains(&d))
            {
                Some(d) => days.push(d),
                None => v.push(
                    format!("{param}[{i}]"),
                    format!("must be a number of days from -{limit} to {limit}"),
                ),
            }
        }
        days.sort_unstable();
        days.dedup();
        Some(Reminders(days))
    }

    /// What storage wrote; anything unreadable is no reminders rather than a failed read.
    pub fn from_json(text: &str) -> Reminders {
        Reminders(serde_json::from_str(text).unwrap_or_default())
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(&self.0).unwrap_or_else(|_| "[]".into())
    }

    pub fn days(&self) -> &[i32] {
        &self.0
    }
}

/// The merchant's address: the customer address's parts, with `country` an ISO 3166-1 alpha-2
/// code, in upper case as the standard writes it.
fn parse_address(v: &mut Violations, input: AddressInput) -> Address {
    let country = input.country.clone();
    let mut address = input.parse(v, "address");
    if let Some(code) = country.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
        if isocountry::CountryCode::for_alpha2(code).is_ok() {
            address.country = Some(code.to_string());
        } else {
            v.push(
                "address.country",
                "must be an ISO 3166-1 alpha-2 country code, such as DE",
            );
        }
    }
    address
}

/// The image formats a logo may have; what the bytes are was proven by decoding them at the edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageKind {
    Png,
    Jpeg,
}

impl ImageKind {
    pub fn content_type(self) -> &'static str {
        match self {
            ImageKind::Png => "image/png",
            ImageKind::Jpeg => "image/jpeg",
        }
    }

    pub fn from_content_type(s: &str) -> Option<ImageKind> {
        match s {
            "image/png" => Some(ImageKind::Png),
            "image/jpeg" => Some(ImageKind::Jpeg),
            _ => None,
        }
    }
}

/// At most 512 KiB and 2000×2000 pixels (SPEC §16).
pub const LOGO_MAX_BYTES: usize = 512 * 1024;
pub const LOGO_MAX_SIDE: u32 = 2000;

/// A logo as uploaded: the bytes are kept exactly, and served back as they came.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Logo {
    pub kind: ImageKind,
    pub bytes: Vec<u8>,
}

/// The profile as the API shows it (`GET /api/v1/account`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Profile {
    /// The account's id.
    pub id: i64,
    pub object: &'static str,
    pub livemode: bool,
    /// Shown where there is no legal name.
    pub name: String,
    pub legal_name: Option<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub email: Option<Email>,
    pub phone: Option<String>,
    pub website: Option<String>,
    pub address: Option<Address>,
    pub tax_id: Option<String>,
    /// Bank details and the like, shown on every invoice.
    pub payment_instructions: Option<String>,
    pub invoice_footer: Option<String>,
    pub locale: Locale,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "#1F6FEB"))]
    pub brand_color: Option<BrandColor>,
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "EUR"))]
    pub default_currency: Currency,
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<i32>))]
    pub reminders: Reminders,
    pub send_receipts: bool,
    /// The VAT identifier with its country prefix (BT-31), such as `DE123456789`; `tax_id` stays
    /// the national tax number (BT-32).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "DE123456789"))]
    pub vat_id: Option<VatId>,
    /// Where the merchant receives e-invoices (BT-34).
    pub electronic_address: Option<ElectronicAddress>,
    /// The account customers pay into (BG-17).
    pub bank_account: Option<BankAccount>,
    /// Who customers ask about an invoice (BG-6).
    pub contact: Option<Contact>,
    /// How new documents round their tax: `line` (each line, SPEC §7) or `document` (once per
    /// rate, as EN 16931 computes it).
    pub tax_rounding: TaxRounding,
    /// Where the merchant's day is (an IANA name): "today" in every rule that has one is the
    /// date there (SPEC §27).
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "America/Port_of_Spain"))]
    pub time_zone: TimeZone,
    /// Whether a logo was uploaded (`GET /api/v1/account/logo`).
    pub has_logo: bool,
    #[serde(serialize_with = "crate::time::serialize")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "crate::time::serialize")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub updated_at: DateTime<Utc>,
}

impl Profile {
    pub const OBJECT: &'static str = "account";

    /// What the seller must show before a live document leaves its draft (SPEC §27): a legal
    /// name (or name) and an address with its country, so no customer receives a real invoice
    /// from "Default" with no address. Test documents are never held back. Each gap names its
    /// `account.*` field.
    pub fn missing_to_send(&self) -> Violations {
        let mut v = Violations::new();
        if !self.livemode {
            return v;
        }
        let blank = |t: Option<&str>| t.is_none_or(|t| t.trim().is_empty());
        if blank(self.legal_name.as_deref()) && blank(Some(&self.name)) {
            v.push(
                "account.legal_name",
                "is required before a live document is sent: the name you invoice under (Settings)",
            );
        }
        match &self.address {
            None => v.push(
                "account.address",
                "is required before a live document is sent: your address with its country (Settings)",
            ),
            Some(a) if blank(a.country.as_deref()) => v.push(
                "account.address.country",
                "is required before a live document is sent (Settings)",
            ),
            Some(_) => {}
        }
        v
    }

    /// The name documents are issued under.
    pub fn display_name(&self) -> &str {
        self.legal_name.as_deref().unwrap_or(&self.name)
    }
}

/// The body of `PATCH /api/v1/account`: absent fields stay, `null` clears an optional one.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ProfilePatchInput {
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub name: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub legal_name: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub email: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub phone: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub website: Option<Option<String>>,
    /// `country` is an ISO 3166-1 alpha-2 code.
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub address: Option<Option<AddressInput>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub tax_id: Option<Option<String>>,
    /// At most 2000 characters: bank details and the like.
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub payment_instructions: Option<Option<String>>,
    /// At most 500 characters.
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub invoice_footer: Option<Option<String>>,
    /// `en`, `es`, `fr`, `de`, `nl` or `pt`.
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Locale))]
    pub locale: Option<Option<String>>,
    /// `#RRGGBB`.
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub brand_color: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub default_currency: Option<Option<String>>,
    /// Days from the due date (negative: before it), at most 10, each within ±365.
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<i64>))]
    pub reminders: Option<Option<Vec<i64>>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = bool))]
    pub send_receipts: Option<Option<bool>>,
    /// With its country prefix, such as `DE123456789`.
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub vat_id: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub electronic_address: Option<Option<ElectronicAddressInput>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub bank_account: Option<Option<BankAccountInput>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub contact: Option<Option<ContactInput>>,
    /// `line` or `document`; documents keep the mode they were created with.
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = TaxRounding))]
    pub tax_rounding: Option<Option<String>>,
    /// An IANA time zone name, such as `America/Port_of_Spain` (default `UTC`).
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub time_zone: Option<Option<String>>,
}

/// A validated change; `None` leaves a field alone, `Some(None)` clears an optional one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProfilePatch {
    pub name: Option<String>,
    pub legal_name: Option<Option<String>>,
    pub email: Option<Option<Email>>,
    pub phone: Option<Option<String>>,
    pub website: Option<Option<String>>,
    pub address: Option<Option<Address>>,
    pub tax_id: Option<Option<String>>,
    pub payment_instructions: Option<Option<String>>,
    pub invoice_footer: Option<Option<String>>,
    pub locale: Option<Locale>,
    pub brand_color: Option<Option<BrandColor>>,
    pub default_currency: Option<Currency>,
    pub reminders: Option<Reminders>,
    pub send_receipts: Option<bool>,
    pub vat_id: Option<Option<VatId>>,
    pub electronic_address: Option<Option<ElectronicAddress>>,
    pub bank_account: Option<Option<BankAccount>>,
    pub contact: Option<Option<Contact>>,
    pub tax_rounding: Option<TaxRounding>,
    pub time_zone: Option<TimeZone>,
}

/// An http(s) URL; blank is not a website (`null` clears it).
fn parse_website(v: &mut Violations, raw: String) -> Option<String> {
    let site = required_text(v, "website", Some(raw), WEBSITE_MAX)?;
    let site = site.trim().to_string();
    match url::Url::parse(&site) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => Some(site),
        _ => {
            v.push("website", Problem::Url);
            None
        }
    }
}

impl ProfilePatchInput {
    pub fn parse(self) -> Result<ProfilePatch, Violations> {
        let mut v = Violations::new();
        let mut p = ProfilePatch::default();
        if let Some(name) = not_null(&mut v, "name", self.name) {
            p.name = required_text(&mut v, "name", Some(name), NAME_MAX);
        }
        let text = |v: &mut Violations, param: &str, raw: Option<Option<String>>, max: usize| {
            raw.map(|t| optional_text(v, param, t, max))
        };
        p.legal_name = text(&mut v, "legal_name", self.legal_name, NAME_MAX);
        // Blank is not an address: `null` clears it.
        p.email = self
            .email
            .map(|e| e.and_then(|e| Email::parse(&e).map_err(|m| v.push("email", m)).ok()));
        p.phone = self.phone.map(|ph| parse_phone(&mut v, "phone", ph));
        p.website = self
            .website
            .map(|w| w.and_then(|w| parse_website(&mut v, w)));
        p.address = self.address.map(|a| a.map(|a| parse_address(&mut v, a)));
        p.tax_id = text(&mut v, "tax_id", self.tax_id, TAX_ID_MAX);
        p.payment_instructions = text(
            &mut v,
            "payment_instructions",
            self.payment_instructions,
            PAYMENT_INSTRUCTIONS_MAX,
        );
        p.invoice_footer = text(&mut v, "invoice_footer", self.invoice_footer, FOOTER_MAX);
        if let Some(code) = not_null(&mut v, "locale", self.locale) {
            p.locale = Locale::parse(&code).or_else(|| {
                v.push(
                    "locale",
                    Problem::OneOf("must be one of en, es, fr, de, nl, pt".into()),
                );
                None
            });
        }
        p.brand_color = self.brand_color.map(|c| {
            c.and_then(|c| {
                BrandColor::parse(&c).or_else(|| {
                    v.push("brand_color", Problem::Colour);
                    None
                })
            })
        });
        if let Some(code) = not_null(&mut v, "default_currency", self.default_currency) {
            p.default_currency = Currency::parse(&code)
                .map_err(|e| v.push("default_currency", e))
                .ok();
        }
        if let Some(days) = not_null(&mut v, "reminders", self.reminders) {
            p.reminders = Reminders::parse(&mut v, "reminders", days);
        }
        p.send_receipts = not_null(&mut v, "send_receipts", self.send_receipts);
        p.vat_id = self.vat_id.map(|id| VatId::parse_field(&mut v, id));
        p.electronic_address = self
            .electronic_address
            .map(|a| a.and_then(|a| a.parse(&mut v, "electronic_address")));
        p.bank_account = self
            .bank_account
            .map(|b| b.and_then(|b| b.parse(&mut v, "bank_account")));
        p.contact = self
            .contact
            .map(|c| c.and_then(|c| c.parse(&mut v, "contact")));
        if let Some(mode) = not_null(&mut v, "tax_rounding", self.tax_rounding) {
            p.tax_rounding = TaxRounding::parse(&mode).or_else(|| {
                v.push(
                    "tax_rounding",
                    Problem::OneOf("must be line or document".into()),
                );
                None
            });
        }
        if let Some(name) = not_null(&mut v, "time_zone", self.time_zone) {
            p.time_zone = TimeZone::parse(&name).or_else(|| {
                v.push(
                    "time_zone",
                    "must be an IANA time zone name, such as America/Port_of_Spain or Europe/Berlin",
                );
                None
            });
        }
        v.finish(|| p)
    }
}

impl Profile {
    /// The profile with `patch` applied (the caller stamps `updated_at`).
    pub fn apply(mut self, patch: ProfilePatch) -> Profile {
        if let Some(name) = patch.name {
            self.name = name;
        }
        macro_rules! take {
            ($($field:ident),*) => {$(
                if let Some(value) = patch.$field {
                    self.$field = value;
                }
            )*};
        }
        take!(
            legal_name,
            email,
            phone,
            website,
            address,
            tax_id,
            payment_instructions,
            invoice_footer,
            brand_color,
            vat_id,
            electronic_address,
            bank_account,
            contact
        );
        if let Some(mode) = patch.tax_rounding {
            self.tax_rounding = mode;
        }
        if let Some(locale) = patch.locale {
            self.locale = locale;
        }
        if let Some(currency) = patch.default_currency {
            self.default_currency = currency;
        }
        if let Some(reminders) = patch.reminders {
            self.reminders = reminders;
        }
        if let Some(send) = patch.send_receipts {
            self.send_receipts = send;
        }
        if let Some(zone) = patch.time_zone {
            self.time_zone = zone;
        }
        self
    }
}

#[cfg(test)]
mod tests;
