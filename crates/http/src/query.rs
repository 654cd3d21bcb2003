//! Query strings of list endpoints (SPEC §5): known parameters only, each value checked, every
//! mistake a 400 `invalid_parameter` naming the parameter.

use crate::error::ApiError;
use invoicing_domain::paging::{PageRequest, DEFAULT_PER_PAGE, MAX_PER_PAGE};
use std::collections::HashMap;
use std::ops::RangeInclusive;

pub struct ListQuery {
    values: HashMap<String, String>,
}

const PAGING: [&str; 2] = ["page", "per_page"];

impl ListQuery {
    /// Parses `query`, refusing parameters outside `filters` and the paging pair, and repeats.
    pub fn parse(query: &str, filters: &[&str]) -> Result<ListQuery, ApiError> {
        let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query)
            .map_err(|_| ApiError::invalid_parameter("query", "the query string is malformed"))?;
        let mut values = HashMap::new();
        for (name, value) in pairs {
            if !filters.contains(&name.as_str()) && !PAGING.contains(&name.as_str()) {
                let mut known: Vec<&str> = filters.to_vec();
                known.extend(PAGING);
                return Err(ApiError::invalid_parameter(
                    name,
                    format!("unknown parameter; known: {}", known.join(", ")),
                ));
            }
            // One check for every filter: no stored text holds control characters, and
            // PostgreSQL refuses NUL outright (a 500 if it got that far).
            if value.chars().any(char::is_control) {
                return Err(ApiError::invalid_parameter(
                    name,
                    "must not contain control characters",
                ));
            }
            if values.insert(name.clone(), value).is_some() {
                return Err(ApiError::invalid_parameter(name, "given more than once"));
            }
        }
        Ok(ListQuery { values })
    }

    pub fn page(&self) -> Result<PageRequest, ApiError> {
        let page = self.number("page", 1, "must be an integer from 1 to 1000000")?;
        let per_page = self.number(
            "per_page",
            DEFAULT_PER_PAGE,
            "must be an integer from 1 to 100",
        )?;
        PageRequest::new(page, per_page).ok_or_else(|| {
            if per_page == 0 || per_page > MAX_PER_PAGE {
                ApiError::invalid_parameter("per_page", "must be an integer from 1 to 100")
            } else {
                ApiError::invalid_parameter("page", "must be an integer from 1 to 1000000")
            }
        })
    }

    fn number(&self, name: &str, default: u32, message: &str) -> Result<u32, ApiError> {
        match self.values.get(name) {
            None => Ok(default),
            Some(v) => integral(v)
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| ApiError::invalid_parameter(name, message)),
        }
    }

    /// A text filter, if given; an empty value is a mistake, not "no filter".
    pub fn text(&self, name: &str) -> Result<Option<String>, ApiError> {
        match self.values.get(name) {
            None => Ok(None),
            Some(v) if v.trim().is_empty() => {
                Err(ApiError::invalid_parameter(name, "must not be empty"))
            }
            Some(v) => Ok(Some(v.clone())),
        }
    }
}

impl ListQuery {
    /// A filter naming one of `allowed` values.
    pub fn choice<T>(
        &self,
        name: &str,
        parse: impl Fn(&str) -> Option<T>,
        allowed: &str,
    ) -> Result<Option<T>, ApiError> {
        match self.values.get(name) {
            None => Ok(None),
            Some(v) => parse(v).map(Some).ok_or_else(|| {
                ApiError::invalid_parameter(name, format!("must be one of {allowed}"))
            }),
        }
    }

    /// An id filter: a positive integer.
    pub fn id(&self, name: &str) -> Result<Option<i64>, ApiError> {
        self.integer(name, 1..=i64::MAX, "must be a positive integer")
    }

    /// An integer filter within `range`. Parsing is checked, so a value beyond `i64` is refused
    /// like any other out of range, never wrapped or negated into one.
    pub fn integer(
        &self,
        name: &str,
        range: RangeInclusive<i64>,
        message: &str,
    ) -> Result<Option<i64>, ApiError> {
        match self.values.get(name) {
            None => Ok(None),
            Some(v) => integral(v)
                .filter(|n| range.contains(n))
                .map(Some)
                .ok_or_else(|| ApiError::invalid_parameter(name, message)),
        }
    }

    /// A date filter, `YYYY-MM-DD`.
    pub fn date(&self, name: &str) -> Result<Option<chrono::NaiveDate>, ApiError> {
        match self.values.get(name) {
            None => Ok(None),
            Some(v) => {
                let mut violations = invoicing_domain::validation::Violations::new();
                invoicing_domain::document::parse_date(&mut violations, name, Some(v.clone()))
                    .map(Some)
                    .ok_or_else(|| {
                        ApiError::invalid_parameter(name, "must be a date as YYYY-MM-DD")
                    })
            }
        }
    }
}

/// An integer as a query value may spell it: `12`, or, as the document's `integer` (a JSON
/// Schema number with no fraction) allows and clients that format numbers send, `12.0`,
/// `1.2e1` or `1e+16`. Exact: a value with a fraction, or beyond `i64`, is `None`, never
/// rounded or wrapped.
fn integral(v: &str) -> Option<i64> {
    if let Ok(n) = v.parse::<i64>() {
        return Some(n);
    }
    let (negative, unsigned) = match v.as_bytes().first()? {
        b'-' => (true, &v[1..]),
        b'+' => (false, &v[1..]),
        _ => (false, v),
    };
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().ok()?),
        None => (unsigned, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{whole}{fraction}");
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let shift = exponent.checked_sub(i32::try_from(fraction.len()).ok()?)?;
    let significant = digits.trim_start_matches('0');
    let magnitude: i128 = if significant.is_empty() {
        0
    } else if shift >= 0 {
        let base: i128 = significant.parse().ok()?;
        base.checked_mul(10i128.checked_pow(u32::try_from(shift).ok()?)?)?
    } else {
        let drop = usize::try_from(shift.unsigned_abs()).ok()?;
        let kept = significant.len().checked_sub(drop);
        match kept {
            Some(kept) if significant[kept..].bytes().all(|b| b == b'0') => {
                if kept == 0 {
                    0
                } else {
                    significant[..kept].parse().ok()?
                }
            }
            // Fewer digits than the shift drops: a fraction unless they are all zeros.
            _ => return None,
        }
    };
    i64::try_from(if negative { -magnitude } else { magnitude }).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paging_bounds_and_unknown_parameters() {
        let page = |q: &str| ListQuery::parse(q, &["email"]).and_then(|l| l.page());
        assert_eq!(page("").unwrap(), PageRequest::default());
        assert_eq!(page("page=2&per_page=100").unwrap().offset(), 100);
        for bad in [
            "page=0",
            "per_page=0",
            "per_page=101",
            "page=x",
            "page=-1",
            "per_page=1.5",
        ] {
            assert_eq!(page(bad).unwrap_err().code, "invalid_parameter", "{bad}");
        }
        assert_eq!(page("pgae=1").unwrap_err().param.as_deref(), Some("pgae"));
        assert_eq!(
            page("page=1&page=2").unwrap_err().param.as_deref(),
            Some("page")
        );
    }

    #[test]
    fn integers_may_be_spelled_as_integral_numbers() {
        for (text, n) in [
            ("12", 12),
            ("+12", 12),
            ("12.0", 12),
            ("1.2e1", 12),
            ("1e+16", 10_000_000_000_000_000),
            ("-3.000", -3),
            ("0.0", 0),
            ("-0", 0),
            ("9223372036854775807.0", i64::MAX),
            ("-9223372036854775808", i64::MIN),
            ("1200e-2", 12),
        ] {
            assert_eq!(integral(text), Some(n), "{text}");
        }
        for text in [
            "1.5",
            "1e-1",
            "12e-2",
            "9223372036854775808.0",
            "1e19",
            "1e99999999999",
            "",
            ".",
            "e1",
            "1.2.3",
            "0x10",
            "1_000",
            " 1",
            "--1",
            "NaN",
            "inf",
        ] {
            assert_eq!(integral(text), None, "{text}");
        }
    }

    #[test]
    fn integers_out_of_range_and_control_characters_are_refused() {
        let amount = |q: &str| {
            ListQuery::parse(q, &["amount_min", "email"])
                .and_then(|l| l.integer("amount_min", -10..=10, "within ±10"))
        };
        assert_eq!(amount("amount_min=-10").unwrap(), Some(-10));
        assert_eq!(amount("").unwrap(), None);
        for bad in [
            "amount_min=-9223372036854775808",
            "amount_min=9223372036854775808",
            "amount_min=99999999999999999999999",
            "amount_min=11",
            "amount_min=",
        ] {
            assert_eq!(amount(bad).unwrap_err().code, "invalid_parameter", "{bad}");
        }
        for bad in ["email=a%00b", "email=a%0Ab", "email=%7F"] {
            let e = amount(bad).unwrap_err();
            assert_eq!(
                (e.code, e.param.as_deref()),
                ("invalid_parameter", Some("email"))
            );
        }
    }
}
