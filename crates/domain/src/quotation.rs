//! Quotations (SPEC §10): bodies, parsed forms, the quotation as the API returns it, the
//! prospect's answer, and the conversion into an invoice.

use crate::currency::Currency;
use crate::customer::{CustomerId, CustomerInput};
use crate::document::{
    parse_currency, parse_customer_ref, parse_date, CustomerRef, LineDrafts, LineItemInput,
    LineItemView, NOTES_MAX,
};
use crate::invoice::{parse_due, parse_metadata, CommonChanges, Due};
use crate::quotation_status::QuotationStatus;
use crate::validation::{not_null, optional_text, Metadata, Problem, Violations};
use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const DEFAULT_VALIDITY_DAYS: i64 = 30;
pub const REASON_MAX: usize = 1000;
pub const SIGNER_MAX: usize = 200;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct QuotationId(pub i64);

/// The body of `POST /api/v1/quotations`.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct QuotationInput {
    pub customer_id: Option<i64>,
    pub customer: Option<CustomerInput>,
    /// ISO 4217; default the account's currency.
    pub currency: Option<String>,
    /// YYYY-MM-DD; default today in the account's time zone.
    pub issue_date: Option<String>,
    /// Last day the prospect may accept; default issue date + 30 days.
    pub valid_until: Option<String>,
    pub line_items: Option<Vec<LineItemInput>>,
    pub notes: Option<String>,
    pub metadata: Option<BTreeMap<String, String>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewQuotation {
    pub customer: CustomerRef,
    pub currency: Option<Currency>,
    pub issue_date: NaiveDate,
    pub valid_until: NaiveDate,
    pub lines: LineDrafts,
    pub notes: Option<String>,
    pub metadata: Metadata,
    pub token: String,
}

impl QuotationInput {
    pub fn parse(self, today: NaiveDate, token: String) -> Result<NewQuotation, Violations> {
        let mut v = Violations::new();
        let customer = parse_customer_ref(&mut v, self.customer_id, self.customer);
        let currency = parse_currency(&mut v, self.currency);
        let issue_date = match self.issue_date {
            None => Some(today),
            raw => parse_date(&mut v, "issue_date", raw),
        };
        let valid_until = match (self.valid_until, issue_date) {
            (None, issue) => issue.map(|d| d + Duration::days(DEFAULT_VALIDITY_DAYS)),
            (raw, issue) => parse_date(&mut v, "valid_until", raw).filter(|d| {
                let ok = issue.is_none_or(|i| *d >= i);
                if !ok {
                    v.push(
                        "valid_until",
                        Problem::not_before("issue_date", "must not be before issue_date".into()),
                    );
                }
                ok
            }),
        };
        let lines = LineDrafts::parse(&mut v, self.line_items);
        let notes = optional_text(&mut v, "notes", self.notes, NOTES_MAX);
        let metadata = parse_metadata(&mut v, self.metadata);
        match (customer, issue_date, valid_until, lines, metadata) {
            (Some(customer), Some(issue_date), Some(valid_until), Some(lines), Some(metadata))
                if v.is_empty() =>
            {
                Ok(NewQuotation {
                    customer,
                    currency,
                    issue_date,
                    valid_until,
                    lines,
                    notes,
                    metadata,
                    token,
                })
            }
            _ => Err(v),
        }
    }
}

/// The body of `PATCH /api/v1/quotations/{id}`; status changes have their own endpoints.
/// Absent fields stay as they are; `null` clears `notes`, resets `metadata` to `{}`, and is 422
/// on every other field (SPEC §4), as for invoices.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct QuotationPatchInput {
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub valid_until: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub notes: Option<Option<String>>,
    /// `null` resets it to `{}`.
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<BTreeMap<String, String>>))]
    pub metadata: Option<Option<BTreeMap<String, String>>>,
    /// Drafts only.
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<LineItemInput>))]
    pub line_items: Option<Option<Vec<LineItemInput>>>,
    /// Drafts only.
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub currency: Option<Option<String>>,
    /// Drafts only.
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub customer_id: Option<Option<i64>>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QuotationPatch {
    pub valid_until: Option<NaiveDate>,
    pub notes: Option<Option<String>>,
    pub metadata: Option<Metadata>,
    pub lines: Option<LineDrafts>,
    pub currency: Option<Currency>,
    pub customer_id: Option<CustomerId>,
}

impl QuotationPatch {
    pub fn touches_draft_only_fields(&self) -> bool {
        self.lines.is_some() || self.currency.is_some() || self.customer_id.is_some()
    }

    /// What the document rules check before it applies (`document_rules::check_patch`).
    pub fn shape(&self) -> crate::document_rules::PatchShape {
        crate::document_rules::PatchShape {
            draft_only: self.touches_draft_only_fields(),
            closing_date: self.valid_until.map(|d| ("valid_until", d)),
        }
    }
}

impl QuotationPatchInput {
    pub fn parse(self) -> Result<QuotationPatch, Violations> {
        let mut v = Violations::new();
        let valid_until = not_null(&mut v, "valid_until", self.valid_until);
        let valid_until = parse_date(&mut v, "valid_until", valid_until);
        let c = CommonChanges::parse(
            &mut v,
            self.notes,
            self.metadata,
            self.line_items,
            self.currency,
            self.customer_id,
        );
        v.finish(|| QuotationPatch {
            valid_until,
            notes: c.notes,
            metadata: c.metadata,
            lines: c.lines,
            currency: c.currency,
            customer_id: c.customer_id,
        })
    }
}

/// How the prospect answered, with what the audit trail keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Accept {
        name: Option<String>,
        ip: Option<String>,
        user_agent: Option<String>,
    },
    Reject {
        reason: Option<String>,
    },
}

/// The optional body of `POST …/accept`.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct AcceptInput {
    /// The name of the person accepting, as they typed it.
    pub name: Option<String>,
}

/// The optional body of `POST …/reject`.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RejectInput {
    pub reason: Option<String>,
}

impl AcceptInput {
    pub fn parse(
        self,
        ip: Option<String>,
        user_agent: Option<String>,
    ) -> Result<Answer, Violations> {
        let mut v = Violations::new();
        let name = optional_text(&mut v, "name", self.name, SIGNER_MAX);
        let user_agent = user_agent.map(|ua| ua.chars().take(500).collect());
        v.finish(|| Answer::Accept {
            name,
            ip,
            user_agent,
        })
    }
}

impl RejectInput {
    pub fn parse(self) -> Result<Answer, Violations> {
        let mut v = Violations::new();
        let reason = optional_text(&mut v, "reason", self.reason, REASON_MAX);
        v.finish(|| Answer::Reject { reason })
    }
}

/// The optional body of `POST …/convert`: the new invoice's due date.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ConvertInput {
    pub due_date: Option<String>,
    /// `due_on_receipt` or `net_N`; default `net_30`.
    pub payment_terms: Option<String>,
}

impl ConvertInput {
    pub fn parse(self, today: NaiveDate) -> Result<Due, Violations> {
        let mut v = Violations::new();
        let due = parse_due(&mut v, Some(today), self.due_date, self.payment_terms);
        match due {
            Some(due) if v.is_empty() => Ok(due),
            _ => Err(v),
        }
    }
}

/// What convert answers (the interface's Conversion result).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ConversionResult {
    /// Always `quotation_conversion`.
    pub object: &'static str,
    pub quotation_id: i64,
    pub invoice_id: i64,
    pub invoice_number: String,
    /// Always `converted`.
    pub status: QuotationStatus,
    pub invoice_url: String,
}

impl ConversionResult {
    pub const OBJECT: &'static str = "quotation_conversion";
}

/// A quotation as the API returns it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Quotation {
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub id: QuotationId,
    pub object: &'static str,
    pub quote_number: String,
    pub status: QuotationStatus,
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub customer_id: CustomerId,
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "EUR"))]
    pub currency: Currency,
    pub issue_date: NaiveDate,
    pub valid_until: NaiveDate,
    pub line_items: Vec<LineItemView>,
    pub subtotal_cents: i64,
    pub tax_cents: i64,
    pub total_cents: i64,
    pub public_url: String,
    pub notes: Option<String>,
    pub metadata: Metadata,
    pub livemode: bool,
    /// Name typed by the person who accepted, with where and how they did it.
    pub accepted_by_name: Option<String>,
    pub accepted_from_ip: Option<String>,
    pub accepted_user_agent: Option<String>,
    pub rejection_reason: Option<String>,
    /// The invoice it was converted into.
    pub invoice_id: Option<i64>,
    #[serde(serialize_with = "crate::time::serialize_opt")]
    pub sent_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "crate::time::serialize_opt")]
    pub viewed_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "crate::time::serialize_opt")]
    pub accepted_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "crate::time::serialize_opt")]
    pub rejected_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "crate::time::serialize_opt")]
    pub expired_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "crate::time::serialize_opt")]
    pub converted_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "crate::time::serialize")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "crate::time::serialize")]
    pub updated_at: DateTime<Utc>,
}

impl Quotation {
    pub const OBJECT: &'static str = "quotation";
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QuotationFilter {
    pub status: Option<QuotationStatus>,
    pub customer_id: Option<CustomerId>,
    /// Only those the prospect may still answer (sent or viewed; the dashboard's home).
    pub awaiting_answer: bool,
}

/// What the prospect's public page shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicQuotation {
    pub quotation: Quotation,
    /// Who it is from and to, as it left draft (SPEC §9).
    pub parties: crate::parties::Parties,
    pub logo: Option<crate::profile::Logo>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 3, 1).unwrap()
    }

    #[test]
    fn validity_defaults_to_thirty_days() {
        let q = serde_json::from_value::<QuotationInput>(json!({"customer_id": 1, "line_items": [{"description": "x", "quantity": 1, "unit_price_cents": 5}]}))
            .unwrap()
            .parse(today(), "t".into())
            .unwrap();
        assert_eq!(q.valid_until.to_string(), "2026-03-31");
        let err = serde_json::from_value::<QuotationInput>(json!({"customer_id": 1, "issue_date": "2026-03-10", "valid_until": "2026-03-09", "line_items": []}))
            .unwrap()
            .parse(today(), "t".into())
            .unwrap_err();
        let params: Vec<_> = err.errors().iter().map(|e| e.param.as_str()).collect();
        assert_eq!(params, ["valid_until", "line_items"]);
    }

    #[test]
    fn answers_and_conversion_bodies() {
        let a = AcceptInput {
            name: Some("Grace".into()),
        }
        .parse(Some("203.0.113.1".into()), Some("UA".into()))
        .unwrap();
        assert!(matches!(a, Answer::Accept { name: Some(_), .. }));
        assert!(RejectInput {
            reason: Some("x".repeat(1001))
        }
        .parse()
        .is_err());
        assert_eq!(
            ConvertInput::default().parse(today()).unwrap(),
            Due::Terms(crate::document::PaymentTerms::Net(30))
        );
        assert!(ConvertInput {
            due_date: Some("2026-02-01".into()),
            payment_terms: None
        }
        .parse(today())
        .is_err());
    }
}
