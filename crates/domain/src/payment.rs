//! Payments and payment requests (SPEC §13): the bodies, their parsed forms, the payment as the
//! API returns it, and the open invoices a payer is asked to settle.

use crate::currency::Currency;
use crate::customer::CustomerId;
use crate::invoice_id::InvoiceId;
use crate::invoice_status::InvoiceStatus;
use crate::money::Money;
use crate::payment_amount::MajorAmount;
use crate::payment_status::PaymentStatus;
use crate::validation::{
    double_option, not_null, optional_text, required_text, Metadata, Problem, Violations,
};
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

pub const REFERENCE_MAX: usize = 200;
pub const REJECTION_REASON_MAX: usize = 1000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PaymentId(pub i64);

impl fmt::Display for PaymentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum PaymentMethod {
    BankTransfer,
    Card,
    Cash,
    Other,
}

impl PaymentMethod {
    pub const ALL: [PaymentMethod; 4] = [
        PaymentMethod::BankTransfer,
        PaymentMethod::Card,
        PaymentMethod::Cash,
        PaymentMethod::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PaymentMethod::BankTransfer => "bank_transfer",
            PaymentMethod::Card => "card",
            PaymentMethod::Cash => "cash",
            PaymentMethod::Other => "other",
        }
    }

    pub fn parse(s: &str) -> Option<PaymentMethod> {
        PaymentMethod::ALL.into_iter().find(|m| m.as_str() == s)
    }
}

/// The body of `POST /api/v1/payments`.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PaymentInput {
    /// A sent, viewed or overdue invoice.
    pub invoice_id: Option<i64>,
    /// Minor units of the invoice's currency; > 0 and at most its `amount_due_cents`.
    pub amount_cents: Option<i64>,
    /// `bank_transfer`, `card`, `cash` or `other`.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<PaymentMethod>))]
    pub method: Option<String>,
    /// The transfer reference or receipt number, up to 200 characters.
    pub reference: Option<String>,
    /// `pending` (default: verify it later) or `verified` (the money has arrived).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<PaymentStatus>))]
    pub status: Option<String>,
    pub metadata: Option<BTreeMap<String, String>>,
}

/// How a new payment starts: waiting for the merchant, or already confirmed by them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitialStatus {
    Pending,
    Verified,
}

/// A valid payment to record; `amount` is positive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewPayment {
    pub invoice_id: InvoiceId,
    pub amount: Money,
    pub method: PaymentMethod,
    pub reference: Option<String>,
    pub initial: InitialStatus,
    pub metadata: Metadata,
}

fn parse_reason(v: &mut Violations, raw: Option<String>) -> Option<String> {
    optional_text(v, "reason", raw, REJECTION_REASON_MAX)
}

impl PaymentInput {
    pub fn parse(self) -> Result<NewPayment, Violations> {
        let mut v = Violations::new();
        let invoice_id = match self.invoice_id {
            None => {
                v.push("invoice_id", Problem::Required);
                None
            }
            Some(id) if id <= 0 => {
                v.push("invoice_id", Problem::NotPositiveInteger);
                None
            }
            Some(id) => Some(InvoiceId(id)),
        };
        let amount = match self.amount_cents.map(Money::new) {
            None => {
                v.push("amount_cents", Problem::Required);
                None
            }
            Some(Err(e)) => {
                v.push("amount_cents", e.to_string());
                None
            }
            Some(Ok(m)) if m <= Money::ZERO => {
                v.push("amount_cents", "must be greater than 0");
                None
            }
            Some(Ok(m)) => Some(m),
        };
        let method = match self.method {
            None => {
                v.push("method", Problem::Required);
                None
            }
            Some(m) => PaymentMethod::parse(&m).or_else(|| {
                v.push(
                    "method",
                    Problem::OneOf("must be one of bank_transfer, card, cash, other".into()),
                );
                None
            }),
        };
        let reference = optional_text(&mut v, "reference", self.reference, REFERENCE_MAX);
        let initial = match self.status.as_deref() {
            None | Some("pending") => Some(InitialStatus::Pending),
            Some("verified") => Some(InitialStatus::Verified),
            Some(_) => {
                v.push(
                    "status",
                    Problem::OneOf("must be pending or verified".into()),
                );
                None
            }
        };
        let metadata = Metadata::parse("metadata", self.metadata.unwrap_or_default())
            .map_err(|e| v.extend_prefixed("", e))
            .ok();
        match (invoice_id, amount, method, initial, metadata) {
            (Some(invoice_id), Some(amount), Some(method), Some(initial), Some(metadata))
                if v.is_empty() =>
            {
                Ok(NewPayment {
                    invoice_id,
                    amount,
                    method,
                    reference,
                    initial,
                    metadata,
                })
            }
            _ => Err(v),
        }
    }
}

/// The merchant's decision on a payment: the status it should move to (the transition table
/// decides whether it may), with a reason only for a rejection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaymentChange {
    pub to: PaymentStatus,
    pub reason: Option<String>,
}

impl PaymentChange {
    pub fn verify() -> PaymentChange {
        PaymentChange {
            to: PaymentStatus::Verified,
            reason: None,
        }
    }
}

/// The optional body of `POST /api/v1/payments/{id}/reject`.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RejectPaymentInput {
    /// Why the payment was not accepted (up to 1000 characters).
    pub reason: Option<String>,
}

impl RejectPaymentInput {
    pub fn parse(self) -> Result<PaymentChange, Violations> {
        let mut v = Violations::new();
        let reason = parse_reason(&mut v, self.reason);
        v.finish(|| PaymentChange {
            to: PaymentStatus::Rejected,
            reason,
        })
    }
}

/// The body of `PATCH /api/v1/payments/{id}`: the status form of verify and reject.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PaymentPatchInput {
    /// `verified` or `rejected`; only a pending payment may change.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<PaymentStatus>))]
    #[serde(default, deserialize_with = "double_option")]
    pub status: Option<Option<String>>,
    /// With `rejected` only: why.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    #[serde(default, deserialize_with = "double_option")]
    pub reason: Option<Option<String>>,
}

impl PaymentPatchInput {
    pub fn parse(self) -> Result<PaymentChange, Violations> {
        let mut v = Violations::new();
        // Nothing here is cleared: `null` is refused, not read as "left out".
        let to = match self.status {
            None => {
                v.push("status", Problem::Required);
                None
            }
            Some(None) => {
                v.push("status", Problem::NotNull);
                None
            }
            Some(Some(s)) => PaymentStatus::parse(&s).or_else(|| {
                v.push(
                    "status",
                    Problem::OneOf("must be one of pending, verified, rejected".into()),
                );
                None
            }),
        };
        let reason = not_null(&mut v, "reason", self.reason);
        let reason = parse_reason(&mut v, reason);
        if reason.is_some() && to.is_some_and(|t| t != PaymentStatus::Rejected) {
            v.push("reason", "is only accepted with status rejected");
        }
        match to {
            Some(to) if v.is_empty() => Ok(PaymentChange { to, reason }),
            _ => Err(v),
        }
    }
}

/// What the customer sends from the invoice's page: "I have paid".
#[derive(Clone, Debug, Default, Deserialize)]
pub struct PaymentReportInput {
    /// In major units as typed: `12.50`.
    pub amount: Option<String>,
    pub reference: Option<String>,
}

/// A valid report; the amount is converted with the invoice's currency once it is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaymentReport {
    pub amount: MajorAmount,
    pub reference: String,
    /// The customer's proof of the transfer, kept with the payment (SPEC §25).
    pub proof: Option<crate::payment_proof::ProofFile>,
}

impl PaymentReportInput {
    /// The report with its amount written as `12.50` (a point or a comma, no grouping).
    pub fn parse(self) -> Result<PaymentReport, Violations> {
        self.read(|text| MajorAmount::parse(text).map_err(|e| Problem::Said(e.to_string())))
    }

    /// The report, its amount read by `amount_of`.
    pub(crate) fn read(
        self,
        amount_of: impl FnOnce(&str) -> Result<MajorAmount, Problem>,
    ) -> Result<PaymentReport, Violations> {
        let mut v = Violations::new();
        let amount = match self.amount.filter(|a| !a.trim().is_empty()) {
            None => {
                v.push("amount", Problem::Required);
                None
            }
            Some(a) => amount_of(&a).map_err(|p| v.push("amount", p)).ok(),
        };
        let reference = required_text(
            &mut v,
            "reference",
            // Blank is not written at all: the page asks for it as for an empty field.
            self.reference
                .map(|r| r.trim().to_string())
                .filter(|r| !r.is_empty()),
            REFERENCE_MAX,
        );
        match (amount, reference) {
            (Some(amount), Some(reference)) if v.is_empty() => Ok(PaymentReport {
                amount,
                reference,
                proof: None,
            }),
            _ => Err(v),
        }
    }
}

/// A payment as the API returns it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Payment {
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub id: PaymentId,
    pub object: &'static str,
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub invoice_id: InvoiceId,
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub customer_id: CustomerId,
    pub amount_cents: i64,
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "EUR"))]
    pub currency: Currency,
    pub status: PaymentStatus,
    pub method: PaymentMethod,
    /// The transfer reference, receipt number, or the gateway's id of the payment (Stripe's
    /// PaymentIntent `pi_…`).
    pub reference: Option<String>,
    pub rejection_reason: Option<String>,
    pub metadata: Metadata,
    pub livemode: bool,
    /// The gateway that took it (`stripe`), when one did (SPEC §25).
    pub gateway: Option<String>,
    /// What was returned of it (refunds pending or done).
    pub amount_refunded_cents: i64,
    pub refunds: Vec<crate::refund::Refund>,
    /// The file the customer attached as proof of the transfer, if any.
    pub proof: Option<ProofInfo>,
    #[serde(serialize_with = "crate::time::serialize")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "crate::time::serialize_opt")]
    pub verified_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "crate::time::serialize_opt")]
    pub rejected_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "crate::time::serialize")]
    pub updated_at: DateTime<Utc>,
}

impl Payment {
    pub const OBJECT: &'static str = "payment";
}

/// What a payment's proof file is (its bytes: `GET /api/v1/payments/{id}/proof`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProofInfo {
    pub filename: String,
    /// `application/pdf`, `image/png` or `image/jpeg`, from the file's bytes.
    pub content_type: String,
    /// Its size in bytes.
    pub bytes: i64,
}

/// Filters of `GET /api/v1/payments`; `amount_min` is inclusive.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PaymentFilter {
    pub status: Option<PaymentStatus>,
    pub customer_id: Option<CustomerId>,
    pub invoice_id: Option<InvoiceId>,
    pub amount_min: Option<i64>,
}

/// An open invoice awaiting payment, as `GET /v1/payment-requests` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PaymentRequest {
    /// Always `payment_request`.
    pub object: &'static str,
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub invoice_id: InvoiceId,
    pub invoice_number: String,
    pub amount_due_cents: i64,
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "EUR"))]
    pub currency: Currency,
    pub due_date: NaiveDate,
    /// `sent`, `viewed` or `overdue`.
    pub status: InvoiceStatus,
    pub payment_link: String,
}

impl PaymentRequest {
    pub const OBJECT: &'static str = "payment_request";
}

/// What the customer reported and the merchant has yet to check: the invoice's pending
/// payments.
pub fn reported<'a>(payments: impl IntoIterator<Item = &'a Payment>) -> crate::money::Money {
    crate::payment_amount::total(
        payments
            .into_iter()
            .filter(|p| p.status == crate::payment_status::PaymentStatus::Pending)
            .map(|p| p.amount_cents),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn parse(value: Value) -> Result<NewPayment, Violations> {
        serde_json::from_value::<PaymentInput>(value)
            .unwrap()
            .parse()
    }

    #[test]
    fn a_payment_starts_pending_unless_verified() {
        let p = parse(json!({"invoice_id": 4, "amount_cents": 500, "method": "card"})).unwrap();
        assert_eq!(p.initial, InitialStatus::Pending);
        assert_eq!(p.amount, Money::new(500).unwrap());
        let p = parse(
            json!({"invoice_id": 4, "amount_cents": 1, "method": "cash", "status": "verified"}),
        )
        .unwrap();
        assert_eq!(p.initial, InitialStatus::Verified);
    }

    #[test]
    fn every_bad_field_is_reported() {
        let err = parse(
            json!({"invoice_id": 0, "amount_cents": 0, "method": "cheque",
            "status": "rejected", "reference": "r".repeat(201)}),
        )
        .unwrap_err();
        let params: Vec<_> = err.errors().iter().map(|e| e.param.as_str()).collect();
        assert_eq!(
            params,
            [
                "invoice_id",
                "amount_cents",
                "method",
                "reference",
                "status"
            ]
        );
        let err = parse(json!({"amount_cents": 2_000_000_000_000_000i64})).unwrap_err();
        let params: Vec<_> = err.errors().iter().map(|e| e.param.as_str()).collect();
        assert_eq!(params, ["invoice_id", "amount_cents", "method"]);
    }

    #[test]
    fn patch_and_reject_bodies() {
        let patch = |v: Value| {
            serde_json::from_value::<PaymentPatchInput>(v)
                .unwrap()
                .parse()
        };
        assert_eq!(
            patch(json!({"status": "verified"})),
            Ok(PaymentChange::verify())
        );
        assert_eq!(
            patch(json!({"status": "rejected", "reason": "never arrived"})).unwrap(),
            PaymentChange {
                to: PaymentStatus::Rejected,
                reason: Some("never arrived".into())
            }
        );
        // The table, not the parser, refuses pending → pending (409 rather than 422).
        assert_eq!(
            patch(json!({"status": "pending"})).unwrap().to,
            PaymentStatus::Pending
        );
        assert!(patch(json!({})).is_err());
        assert!(patch(json!({"status": "paid"})).is_err());
        assert!(patch(json!({"status": "verified", "reason": "x"})).is_err());
        assert!(RejectPaymentInput {
            reason: Some("x".repeat(1001))
        }
        .parse()
        .is_err());
    }

    #[test]
    fn a_report_needs_an_amount_and_a_reference() {
        let r = PaymentReportInput {
            amount: Some("12,50".into()),
            reference: Some("  TRX-1 ".into()),
        }
        .parse()
        .unwrap();
        assert_eq!(r.reference, "TRX-1");
        assert_eq!(
            r.amount.to_minor(Currency::parse("EUR").unwrap()),
            Ok(Money::new(1250).unwrap())
        );
        let err = PaymentReportInput {
            amount: Some("twelve".into()),
            reference: Some("   ".into()),
        }
        .parse()
        .unwrap_err();
        let params: Vec<_> = err.errors().iter().map(|e| e.param.as_str()).collect();
        assert_eq!(params, ["amount", "reference"]);
        assert!(PaymentReportInput::default().parse().is_err());
    }
}
