//! How a party is named and reached: names, email addresses, phone numbers, postal addresses
//! and tax numbers, checked the same way for customers, the merchant's profile and e-invoices.

use crate::validation::Problem;
use crate::validation::{optional_text, Violations};
use serde::{Deserialize, Serialize};

pub const NAME_MAX: usize = 256;
pub const EMAIL_MAX: usize = 254;
pub const PHONE_MAX: usize = 40;
pub const ADDRESS_FIELD_MAX: usize = 200;
/// A tax number as documents print it (the merchant's or a customer's).
pub const TAX_ID_MAX: usize = 64;

/// A trimmed, syntactically valid address. Uniqueness is case-insensitive, so storage keys on
/// [`Email::normalized`] while the customer keeps the spelling they gave.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Email(String);

impl Email {
    pub fn parse(raw: &str) -> Result<Email, Problem> {
        parse_email_address(raw, false).map(|s| Email(s.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn normalized(&self) -> String {
        self.0.to_lowercase()
    }
}

/// The address rules every email of the domain follows, on the trimmed text it returns.
/// `localhost_ok` also takes the one undotted domain `localhost` (the first-start dashboard user
/// `admin@localhost`, SPEC §21); a customer's address must be deliverable, so never theirs.
pub(crate) fn parse_email_address(raw: &str, localhost_ok: bool) -> Result<&str, Problem> {
    let s = raw.trim();
    if s.is_empty() {
        return Err(Problem::Required);
    }
    if s.chars().count() > EMAIL_MAX {
        return Err(Problem::TooLong { max: EMAIL_MAX });
    }
    let valid = email_address::EmailAddress::parse_with_options(
        s,
        email_address::Options::default().without_display_text(),
    )
    .is_ok();
    // A deliverable business address has a dotted domain; `user@localhost` is a typo here.
    let dotted_domain = s.rsplit_once('@').is_some_and(|(_, d)| {
        (d.contains('.') && !d.starts_with('.') && !d.ends_with('.'))
            || (localhost_ok && d.eq_ignore_ascii_case("localhost"))
    });
    // Quoted local parts and address literals are valid RFC 5322 but not sendable through
    // common relays (nor parsed by every mail library): refused up front, not at send time.
    let plain = !s.starts_with('"') && !s.contains("@[");
    if valid && dotted_domain && plain && !s.contains(char::is_whitespace) {
        Ok(s)
    } else {
        Err(Problem::Email)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Address {
    pub line1: Option<String>,
    pub line2: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub postal_code: Option<String>,
    pub country: Option<String>,
}

/// The address object as sent; every part optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct AddressInput {
    pub line1: Option<String>,
    pub line2: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub postal_code: Option<String>,
    pub country: Option<String>,
}

impl AddressInput {
    pub(crate) fn parse(self, v: &mut Violations, prefix: &str) -> Address {
        let mut field = |name: &str, value: Option<String>| {
            optional_text(v, &format!("{prefix}.{name}"), value, ADDRESS_FIELD_MAX)
        };
        Address {
            line1: field("line1", self.line1),
            line2: field("line2", self.line2),
            city: field("city", self.city),
            state: field("state", self.state),
            postal_code: field("postal_code", self.postal_code),
            country: field("country", self.country),
        }
    }
}

/// The number `written` in E.164 (`+4930123456`, SPEC §26): as dialled from abroad when it starts
/// with `+`, else as written in the first of `countries` that names one (ISO 3166-1 alpha-2, any
/// case: the customer's, then the account's; other text is passed over). `Ok(None)` when it has
/// no `+` and no country is known; [`Problem::Phone`] when it cannot be a number there
/// (libphonenumber's rules).
pub fn phone_e164(written: &str, countries: &[Option<&str>]) -> Result<Option<String>, Problem> {
    let region = if written.trim_start().starts_with('+') {
        None
    } else {
        let known = countries.iter().flatten().find_map(|code| {
            code.trim()
                .to_ascii_uppercase()
                .parse::<phonenumber::country::Id>()
                .ok()
        });
        match known {
            Some(region) => Some(region),
            None => return Ok(None),
        }
    };
    match phonenumber::parse(region, written) {
        Ok(number) if phonenumber::is_valid(&number) => Ok(Some(
            number.format().mode(phonenumber::Mode::E164).to_string(),
        )),
        _ => Err(Problem::Phone),
    }
}

/// Whether `phone` (already a phone field's text) can be dialled where the rule can tell (a
/// `+`, or the customer's own `country`); says why not on `param`.
pub(crate) fn dialable(
    v: &mut Violations,
    param: &str,
    phone: &str,
    country: Option<&str>,
) -> bool {
    match phone_e164(phone, &[country]) {
        Ok(_) => true,
        Err(problem) => {
            v.push(param, problem);
            false
        }
    }
}

pub(crate) fn parse_phone(v: &mut Violations, param: &str, raw: Option<String>) -> Option<String> {
    let phone = optional_text(v, param, raw, PHONE_MAX)?;
    let phone = phone.trim().to_string();
    let allowed = phone
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '+' | ' ' | '-' | '(' | ')' | '.'));
    let digits = phone.chars().filter(char::is_ascii_digit).count();
    if allowed && (5..=20).contains(&digits) {
        Some(phone)
    } else {
        v.push(
            param,
            "must be a phone number of 5 to 20 digits (with + ( ) - . and spaces allowed)",
        );
        None
    }
}
