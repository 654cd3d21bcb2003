//! The new-key form as typed (scopes, expiry, limits), read from a post and turned into the
//! request the rules take.

use crate::dashboard::form::{non_blank, Form};
use crate::error::ApiError;
use chrono::{NaiveDate, Utc};
use invoicing_domain::api_key::{KeyRequest, RateOverride};
use invoicing_domain::validation::{Problem, Violations};

/// The form as typed, to show again beside its refusals.
#[derive(Default)]
pub(crate) struct Typed {
    pub all: bool,
    pub scopes: Vec<String>,
    pub expires_on: String,
    pub rate_per_minute: String,
    pub burst: String,
}

pub(super) fn read(form: &Form) -> Typed {
    Typed {
        all: form.checked("all"),
        scopes: form
            .pairs()
            .iter()
            .filter(|(k, _)| k == "scope")
            .map(|(_, v)| v.clone())
            .collect(),
        expires_on: form.raw("expires_on"),
        rate_per_minute: form.raw("rate_per_minute"),
        burst: form.raw("burst"),
    }
}

/// The typed form as the rules take it: `*` when "all" is ticked, else the ticked grants.
pub(super) fn request(typed: &Typed) -> Result<KeyRequest, ApiError> {
    let mut v = Violations::new();
    let mut number = |param: &str, text: &str| match non_blank(text) {
        None => None,
        Some(t) => t.parse::<u32>().map(Some).unwrap_or_else(|_| {
            v.push(param, "must be a whole number from 1");
            None
        }),
    };
    let rate = RateOverride {
        per_minute: number("rate_per_minute", &typed.rate_per_minute),
        burst: number("burst", &typed.burst),
    };
    let expires_at = match non_blank(&typed.expires_on) {
        None => None,
        Some(day) => match NaiveDate::parse_from_str(&day, "%Y-%m-%d") {
            Ok(day) => day.and_hms_opt(0, 0, 0).map(|t| t.and_utc()),
            Err(_) => {
                v.push(
                    "expires_at",
                    Problem::Date("must be a date such as 2027-01-31"),
                );
                None
            }
        },
    };
    // Ticked scopes win over "full access" (ticked by default): the narrower key is the one
    // asked for.
    let scopes = if !typed.scopes.is_empty() {
        typed.scopes.join(",")
    } else if typed.all {
        "*".to_string()
    } else {
        v.push("scopes", "tick at least one, or all access");
        String::new()
    };
    if !v.is_empty() {
        return Err(v.into());
    }
    Ok(KeyRequest::parse(&scopes, rate, expires_at, Utc::now())?)
}
