//! When the goods or services were supplied (SPEC §27): what an EU invoice must show beside its
//! issue date (§14 UStG, Art. 226 VAT directive) and an e-invoice carries as the actual
//! delivery date (BT-72) or the invoicing period (BG-14). A document gives one, the other or
//! neither, never both.

use crate::document::parse_date;
use crate::validation::{Problem, Violations};
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

/// A service period, both days included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ServicePeriod {
    pub start: NaiveDate,
    /// Not before `start`.
    pub end: NaiveDate,
}

/// `service_period` as a body gives it.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ServicePeriodInput {
    /// YYYY-MM-DD.
    pub start: Option<String>,
    /// YYYY-MM-DD, not before `start`.
    pub end: Option<String>,
}

/// When the supply was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Supply {
    Delivered(NaiveDate),
    Period(ServicePeriod),
}

impl Supply {
    /// The day of delivery (BT-72), if it is one.
    pub fn delivery_date(self) -> Option<NaiveDate> {
        match self {
            Supply::Delivered(day) => Some(day),
            Supply::Period(_) => None,
        }
    }

    /// The service period (BG-14), if it is one.
    pub fn service_period(self) -> Option<ServicePeriod> {
        match self {
            Supply::Period(p) => Some(p),
            Supply::Delivered(_) => None,
        }
    }

    /// A delivery date or a service period, as the body gave them: both at once is refused on
    /// `service_period`, an end before its start on `service_period.end`.
    pub fn parse(
        v: &mut Violations,
        delivery_date: Option<String>,
        service_period: Option<ServicePeriodInput>,
    ) -> Option<Supply> {
        let delivered = parse_date(v, "delivery_date", delivery_date);
        let period = service_period.and_then(|p| parse_period(v, p));
        match (delivered, period) {
            (Some(_), Some(_)) => {
                v.push(
                    "service_period",
                    Problem::NotBoth("give delivery_date or service_period, not both"),
                );
                None
            }
            (Some(day), None) => Some(Supply::Delivered(day)),
            (None, Some(p)) => Some(Supply::Period(p)),
            (None, None) => None,
        }
    }
}

fn parse_period(v: &mut Violations, p: ServicePeriodInput) -> Option<ServicePeriod> {
    let required = |v: &mut Violations, param: &str, raw: Option<String>| {
        if raw.is_none() {
            v.push(
                param,
                Problem::DateRequired("is required: a date as YYYY-MM-DD"),
            );
        }
        parse_date(v, param, raw)
    };
    let start = required(v, "service_period.start", p.start);
    let end = required(v, "service_period.end", p.end);
    let (start, end) = (start?, end?);
    if end < start {
        v.push(
            "service_period.end",
            Problem::not_before(
                "service_period.start",
                format!("must not be before the start ({start})"),
            ),
        );
        return None;
    }
    Some(ServicePeriod { start, end })
}

/// How documents keep it: the fields the API shows, `delivery_date` or `service_period`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SupplyFields {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery_date: Option<NaiveDate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_period: Option<ServicePeriod>,
}

impl SupplyFields {
    pub fn of(supply: Option<Supply>) -> SupplyFields {
        SupplyFields {
            delivery_date: supply.and_then(Supply::delivery_date),
            service_period: supply.and_then(Supply::service_period),
        }
    }

    /// The supply, a period first should both have been kept.
    pub fn supply(self) -> Option<Supply> {
        match (self.service_period, self.delivery_date) {
            (Some(p), _) => Some(Supply::Period(p)),
            (None, Some(day)) => Some(Supply::Delivered(day)),
            (None, None) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(
        delivery: Option<&str>,
        period: Option<(Option<&str>, Option<&str>)>,
    ) -> Result<Option<Supply>, Vec<String>> {
        let mut v = Violations::new();
        let supply = Supply::parse(
            &mut v,
            delivery.map(str::to_string),
            period.map(|(s, e)| ServicePeriodInput {
                start: s.map(str::to_string),
                end: e.map(str::to_string),
            }),
        );
        if v.is_empty() {
            Ok(supply)
        } else {
            Err(v.errors().iter().map(|e| e.param.clone()).collect())
        }
    }

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn a_date_a_period_or_neither() {
        assert_eq!(parse(None, None), Ok(None));
        assert_eq!(
            parse(Some("2026-11-02"), None),
            Ok(Some(Supply::Delivered(day("2026-11-02"))))
        );
        let nov = ServicePeriod {
            start: day("2026-11-01"),
            end: day("2026-11-30"),
        };
        assert_eq!(
            parse(None, Some((Some("2026-11-01"), Some("2026-11-30")))),
            Ok(Some(Supply::Period(nov)))
        );
        let one_day = parse(None, Some((Some("2026-11-01"), Some("2026-11-01"))));
        assert!(matches!(one_day, Ok(Some(Supply::Period(_)))));
    }

    #[test]
    fn never_both_and_never_backwards() {
        assert_eq!(
            parse(
                Some("2026-11-02"),
                Some((Some("2026-11-01"), Some("2026-11-30")))
            ),
            Err(vec!["service_period".to_string()])
        );
        assert_eq!(
            parse(None, Some((Some("2026-11-30"), Some("2026-11-01")))),
            Err(vec!["service_period.end".to_string()])
        );
        assert_eq!(
            parse(None, Some((None, Some("2026-13-01")))),
            Err(vec![
                "service_period.start".to_string(),
                "service_period.end".to_string()
            ])
        );
        assert_eq!(
            parse(Some("02.11.2026"), None),
            Err(vec!["delivery_date".to_string()])
        );
    }

    #[test]
    fn kept_fields_read_back_as_given() {
        for supply in [
            None,
            Some(Supply::Delivered(day("2026-01-31"))),
            Some(Supply::Period(ServicePeriod {
                start: day("2026-01-01"),
                end: day("2026-01-31"),
            })),
        ] {
            let kept = serde_json::to_string(&SupplyFields::of(supply)).unwrap();
            let back: SupplyFields = serde_json::from_str(&kept).unwrap();
            assert_eq!(back.supply(), supply, "{kept}");
        }
    }
}
