//! Invoices (SPEC §9): the create and update bodies, their parsed forms, and the invoice as the
//! API returns it.

use crate::currency::Currency;
use crate::customer::{CustomerId, CustomerInput};
use crate::document::{
    parse_currency, parse_customer_ref, parse_date, CustomerRef, LineDrafts, LineItemInput,
    LineItemView, PaymentTerms, NOTES_MAX,
};
use crate::einvoice::{parse_reference, TaxRounding};
use crate::invoice_status::InvoiceStatus;
use crate::profile::Reminders;
use crate::supply::{ServicePeriod, ServicePeriodInput, Supply, SupplyFields};
use crate::validation::{not_null, optional_text, Metadata, Problem, Violations};
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use crate::invoice_id::InvoiceId;

/// The body of `POST /api/v1/invoices`.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct InvoiceInput {
    /// An existing customer; or give `customer` instead.
    pub customer_id: Option<i64>,
    /// Found by email or created, exactly as `POST /api/v1/customers` does.
    pub customer: Option<CustomerInput>,
    /// ISO 4217; default the account's currency.
    pub currency: Option<String>,
    /// YYYY-MM-DD; default today in the account's time zone.
    pub issue_date: Option<String>,
    /// YYYY-MM-DD, not before `issue_date`; or give `payment_terms`.
    pub due_date: Option<String>,
    /// `due_on_receipt` or `net_N` (0 ≤ N ≤ 365); default `net_30`.
    pub payment_terms: Option<String>,
    pub line_items: Option<Vec<LineItemInput>>,
    pub notes: Option<String>,
    pub metadata: Option<BTreeMap<String, String>>,
    /// Day offsets from the due date at which reminders are emailed (SPEC §18), replacing the
    /// account's for this invoice; absent: the account's.
    pub reminders: Option<Vec<i64>>,
    /// The buyer's own reference for the purchase (BT-10), such as a German Leitweg-ID.
    pub buyer_reference: Option<String>,
    /// The buyer's purchase order number (BT-13).
    pub purchase_order: Option<String>,
    /// YYYY-MM-DD: the day the goods or services were delivered (BT-72); or give
    /// `service_period`.
    pub delivery_date: Option<String>,
    /// The days the services were supplied (BG-14), both included.
    pub service_period: Option<ServicePeriodInput>,
}

/// How the due date was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Due {
    Date(NaiveDate),
    Terms(PaymentTerms),
}

/// A valid invoice to create. `token` is the capability in its payment link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewInvoice {
    pub customer: CustomerRef,
    pub currency: Option<Currency>,
    pub issue_date: NaiveDate,
    pub due_date: NaiveDate,
    pub payment_terms: Option<PaymentTerms>,
    pub lines: LineDrafts,
    pub notes: Option<String>,
    pub metadata: Metadata,
    pub token: String,
    /// Its own reminder offsets; `None` follows the account's.
    pub reminders: Option<Reminders>,
    pub references: References,
}

/// What an invoice refers to beyond its lines: the buyer's references (BT-10, BT-13) and when
/// the supply was made (BT-72 or BG-14, SPEC §27).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct References {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buyer_reference: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purchase_order: Option<String>,
    #[serde(flatten)]
    pub supply: SupplyFields,
}

impl References {
    /// As storage keeps them: `None` when there are none.
    pub fn to_json(&self) -> Option<String> {
        (*self != References::default()).then(|| serde_json::to_string(self).unwrap_or_default())
    }

    /// What storage wrote; unreadable text is no references rather than a failed read.
    pub fn from_json(text: Option<&str>) -> References {
        text.and_then(|t| serde_json::from_str(t).ok())
            .unwrap_or_default()
    }

    /// These references with a patch's changes (`Some(None)` clears one).
    pub fn patched(&self, patch: &InvoicePatch) -> References {
        References {
            buyer_reference: patch
                .buyer_reference
                .clone()
                .unwrap_or_else(|| self.buyer_reference.clone()),
            purchase_order: patch
                .purchase_order
                .clone()
                .unwrap_or_else(|| self.purchase_order.clone()),
            supply: patch.supply.map_or(self.supply, SupplyFields::of),
        }
    }
}

pub(crate) fn parse_due(
    v: &mut Violations,
    issue: Option<NaiveDate>,
    due_date: Option<String>,
    terms: Option<String>,
) -> Option<Due> {
    match (due_date, terms) {
        (Some(_), Some(_)) => {
            v.push(
                "due_date",
                Problem::NotBoth("give due_date or payment_terms, not both"),
            );
            None
        }
        (Some(raw), None) => {
            let date = parse_date(v, "due_date", Some(raw))?;
            if issue.is_some_and(|i| date < i) {
                v.push(
                    "due_date",
                    Problem::not_before("issue_date", "must not be before issue_date".into()),
                );
                return None;
            }
            Some(Due::Date(date))
        }
        (None, Some(raw)) => match PaymentTerms::parse(&raw) {
            Some(t) => Some(Due::Terms(t)),
            None => {
                v.push(
                    "payment_terms",
                    "must be due_on_receipt or net_N with N from 0 to 365",
                );
                None
            }
        },
        (None, None) => Some(Due::Terms(PaymentTerms::DEFAULT)),
    }
}

/// What a patch of an invoice or a quotation may change besides its own fields, parsed once for
/// both kinds of document.
pub(crate) struct CommonChanges {
    pub notes: Option<Option<String>>,
    pub metadata: Option<Metadata>,
    pub lines: Option<LineDrafts>,
    pub currency: Option<Currency>,
    pub customer_id: Option<CustomerId>,
}

impl CommonChanges {
    /// Each argument is `None` when absent and `Some(None)` when `null` (see
    /// [`crate::validation::double_option`]): `null` clears the notes, resets the metadata to
    /// `{}`, and is refused on the rest, which a document cannot be without.
    pub(crate) fn parse(
        v: &mut Violations,
        notes: Option<Option<String>>,
        metadata: Option<Option<BTreeMap<String, String>>>,
        line_items: Option<Option<Vec<LineItemInput>>>,
        currency: Option<Option<String>>,
        customer_id: Option<Option<i64>>,
    ) -> CommonChanges {
        let line_items = not_null(v, "line_items", line_items);
        let currency = not_null(v, "currency", currency);
        let customer_id = not_null(v, "customer_id", customer_id);
        CommonChanges {
            notes: notes.map(|n| optional_text(v, "notes", n, NOTES_MAX)),
            metadata: metadata.and_then(|m| parse_metadata(v, m)),
            lines: line_items.and_then(|items| LineDrafts::parse(v, Some(items))),
            currency: parse_currency(v, currency),
            customer_id: customer_id.and_then(|id| {
                if id > 0 {
                    Some(CustomerId(id))
                } else {
                    v.push(
                        "customer_id",
                        crate::validation::Problem::NotPositiveInteger,
                    );
                    None
                }
            }),
        }
    }
}

pub(crate) fn parse_metadata(
    v: &mut Violations,
    raw: Option<BTreeMap<String, String>>,
) -> Option<Metadata> {
    Metadata::parse("metadata", raw.unwrap_or_default())
        .map_err(|e| v.extend_prefixed("", e))
        .ok()
}

impl InvoiceInput {
    /// `today` is the default issue date; `token` the payment-link capability to store.
    pub fn parse(self, today: NaiveDate, token: String) -> Result<NewInvoice, Violations> {
        let mut v = Violations::new();
        let customer = parse_customer_ref(&mut v, self.customer_id, self.customer);
        let currency = parse_currency(&mut v, self.currency);
        let issue_date = match self.issue_date {
            None => Some(today),
            raw => parse_date(&mut v, "issue_date", raw),
        };
        let due = parse_due(&mut v, issue_date, self.due_date, self.payment_terms);
        let lines = LineDrafts::parse(&mut v, self.line_items);
        let notes = optional_text(&mut v, "notes", self.notes, NOTES_MAX);
        let metadata = parse_metadata(&mut v, self.metadata);
        let reminders = self
            .reminders
            .and_then(|days| Reminders::parse(&mut v, "reminders", days));
        let references = References {
            buyer_reference: parse_reference(&mut v, "buyer_reference", self.buyer_reference),
            purchase_order: parse_reference(&mut v, "purchase_order", self.purchase_order),
            supply: SupplyFields::of(Supply::parse(
                &mut v,
                self.delivery_date,
                self.service_period,
            )),
        };
        match (customer, issue_date, due, lines, metadata) {
            (Some(customer), Some(issue_date), Some(due), Some(lines), Some(metadata))
                if v.is_empty() =>
            {
                let (due_date, payment_terms) = match due {
                    Due::Date(d) => (d, None),
                    Due::Terms(t) => (t.due_date(issue_date), Some(t)),
                };
                Ok(NewInvoice {
                    customer,
                    currency,
                    issue_date,
                    due_date,
                    payment_terms,
                    lines,
                    notes,
                    metadata,
                    token,
                    reminders,
                    references,
                })
            }
            _ => Err(v),
        }
    }
}

/// The body of `PATCH /api/v1/invoices/{id}`: absent fields stay as they are; `null` clears
/// `notes`, resets `metadata` to `{}`, and is 422 on every other field (SPEC §4). Each field is
/// read with `double_option` so that `null` is told apart from absent here, once.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct InvoicePatchInput {
    /// The new status, as the transition table allows (`paid` marks it paid by hand).
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = InvoiceStatus))]
    pub status: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub due_date: Option<Option<String>>,
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
    /// Its own reminder offsets; `null` follows the account's again.
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Vec<i64>>))]
    pub reminders: Option<Option<Vec<i64>>>,
    /// Drafts only; `null` clears it.
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub buyer_reference: Option<Option<String>>,
    /// Drafts only; `null` clears it.
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub purchase_order: Option<Option<String>>,
    /// Drafts only. Giving `delivery_date` or `service_period` replaces both (`null` clears).
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub delivery_date: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<ServicePeriodInput>))]
    pub service_period: Option<Option<ServicePeriodInput>>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InvoicePatch {
    pub status: Option<InvoiceStatus>,
    pub due_date: Option<NaiveDate>,
    pub notes: Option<Option<String>>,
    pub metadata: Option<Metadata>,
    pub lines: Option<LineDrafts>,
    pub currency: Option<Currency>,
    pub customer_id: Option<CustomerId>,
    /// `Some(None)`: follow the account's reminders again.
    pub reminders: Option<Option<Reminders>>,
    /// With a move to `sent`: email the invoice in the same transaction (SPEC §18).
    pub email: Option<crate::email::EmailRequest>,
    pub buyer_reference: Option<Option<String>>,
    pub purchase_order: Option<Option<String>>,
    /// `Some(None)`: no delivery date or service period any more.
    pub supply: Option<Option<Supply>>,
}

impl InvoicePatch {
    /// Whether it changes what only a draft may change.
    pub fn touches_draft_only_fields(&self) -> bool {
        self.lines.is_some()
            || self.currency.is_some()
            || self.customer_id.is_some()
            || self.buyer_reference.is_some()
            || self.purchase_order.is_some()
            || self.supply.is_some()
    }

    pub fn is_empty(&self) -> bool {
        *self == InvoicePatch::default()
    }

    /// What the document rules check before it applies (`document_rules::check_patch`).
    pub fn shape(&self) -> crate::document_rules::PatchShape {
        crate::document_rules::PatchShape {
            draft_only: self.touches_draft_only_fields(),
            closing_date: self.due_date.map(|d| ("due_date", d)),
        }
    }
}

impl InvoicePatchInput {
    pub fn parse(self) -> Result<InvoicePatch, Violations> {
        let mut v = Violations::new();
        let status = not_null(&mut v, "status", self.status).and_then(|s| {
            InvoiceStatus::parse(&s).or_else(|| {
                v.push(
                    "status",
                    "must be one of draft, sent, viewed, overdue, paid, cancelled",
                );
                None
            })
        });
        let due_date = not_null(&mut v, "due_date", self.due_date);
        let due_date = parse_date(&mut v, "due_date", due_date);
        let reminders = self
            .reminders
            .map(|r| r.and_then(|days| Reminders::parse(&mut v, "reminders", days)));
        let buyer_reference = self
            .buyer_reference
            .map(|r| parse_reference(&mut v, "buyer_reference", r));
        let purchase_order = self
            .purchase_order
            .map(|r| parse_reference(&mut v, "purchase_order", r));
        let supply = (self.delivery_date.is_some() || self.service_period.is_some()).then(|| {
            Supply::parse(
                &mut v,
                self.delivery_date.flatten(),
                self.service_period.flatten(),
            )
        });
        let c = CommonChanges::parse(
            &mut v,
            self.notes,
            self.metadata,
            self.line_items,
            self.currency,
            self.customer_id,
        );
        v.finish(|| InvoicePatch {
            status,
            due_date,
            notes: c.notes,
            metadata: c.metadata,
            lines: c.lines,
            currency: c.currency,
            customer_id: c.customer_id,
            reminders,
            email: None,
            buyer_reference,
            purchase_order,
            supply,
        })
    }
}

/// An invoice as the API returns it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Invoice {
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub id: InvoiceId,
    pub object: &'static str,
    pub invoice_number: String,
    pub status: InvoiceStatus,
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub customer_id: CustomerId,
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "EUR"))]
    pub currency: Currency,
    pub issue_date: NaiveDate,
    pub due_date: NaiveDate,
    pub payment_terms: Option<String>,
    pub line_items: Vec<LineItemView>,
    pub subtotal_cents: i64,
    pub tax_cents: i64,
    pub total_cents: i64,
    pub amount_paid_cents: i64,
    /// What credit notes took (SPEC §19).
    pub amount_credited_cents: i64,
    /// `total − paid − credited`, never negative; 0 once paid or cancelled.
    pub amount_due_cents: i64,
    /// Paid beyond what is owed after credit notes and not refunded yet (on a cancelled invoice,
    /// all that was paid): what refunds may return (SPEC §25). `amount_paid_cents` is net of
    /// refunds.
    pub overpaid_cents: i64,
    pub payment_link: String,
    pub notes: Option<String>,
    pub metadata: Metadata,
    pub livemode: bool,
    #[serde(serialize_with = "crate::time::serialize_opt")]
    pub sent_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "crate::time::serialize_opt")]
    pub viewed_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "crate::time::serialize_opt")]
    pub paid_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "crate::time::serialize_opt")]
    pub cancelled_at: Option<DateTime<Utc>>,
    pub quotation_id: Option<i64>,
    /// The recurring schedule that issued it (SPEC §20).
    pub recurring_invoice_id: Option<i64>,
    /// The buyer's reference (BT-10).
    pub buyer_reference: Option<String>,
    /// The buyer's purchase order (BT-13).
    pub purchase_order: Option<String>,
    /// The day the goods or services were delivered (BT-72).
    pub delivery_date: Option<NaiveDate>,
    /// The days the services were supplied (BG-14).
    pub service_period: Option<ServicePeriod>,
    /// How its tax was rounded, kept from the account's setting when it was created.
    pub tax_rounding: TaxRounding,
    /// Its own reminder offsets (days from the due date); `null` follows the account's.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Vec<i32>>))]
    pub reminders: Option<Reminders>,
    #[serde(serialize_with = "crate::time::serialize")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "crate::time::serialize")]
    pub updated_at: DateTime<Utc>,
}

impl Invoice {
    pub const OBJECT: &'static str = "invoice";

    /// When its supply was made, if it says.
    pub fn supply(&self) -> Option<Supply> {
        SupplyFields {
            delivery_date: self.delivery_date,
            service_period: self.service_period,
        }
        .supply()
    }

    /// A customer's payment report as typed on this invoice's page in `locale` (SPEC §27:
    /// `1.453,00` in German): an amount in the invoice's currency and, while the invoice is
    /// open, at most what it still owes beyond what the customer `reported` before and the
    /// merchant is checking. Each problem is coded, for the page to say in the customer's
    /// language; storage applies the same balance rule again inside its transaction.
    pub fn read_report(
        &self,
        input: crate::payment::PaymentReportInput,
        locale: crate::locale::Locale,
        reported: crate::money::Money,
    ) -> Result<crate::payment::PaymentReport, Violations> {
        use crate::payment_amount::MajorAmount;
        use crate::validation::Problem;
        let currency = self.currency;
        let balance = self.status.is_open().then(|| self.balance().ok()).flatten();
        input.read(|text| {
            let (amount, minor) = MajorAmount::parse_in(text, locale, currency)
                .and_then(|a| Ok((a, a.to_minor(currency)?)))
                .map_err(|error| Problem::Amount { error, currency })?;
            if let Some(balance) = balance {
                balance
                    .check_report(minor, reported)
                    .map_err(|e| Problem::of_report(e, currency))?;
            }
            Ok(amount)
        })
    }

    /// Its total, verified payments and credit notes as a balance (what is due, what may still
    /// be paid or reported).
    pub fn balance(
        &self,
    ) -> Result<crate::payment_amount::InvoiceBalance, crate::money::MoneyError> {
        crate::payment_amount::InvoiceBalance::new(self.total_cents, self.amount_paid_cents)
            .and_then(|b| b.with_credited(self.amount_credited_cents))
    }

    /// What an export writes of it.
    pub fn summary(&self) -> InvoiceSummary {
        InvoiceSummary {
            id: self.id,
            invoice_number: self.invoice_number.clone(),
            status: self.status,
            customer_id: self.customer_id,
            currency: self.currency,
            issue_date: self.issue_date,
            due_date: self.due_date,
            subtotal_cents: self.subtotal_cents,
            tax_cents: self.tax_cents,
            total_cents: self.total_cents,
            amount_paid_cents: self.amount_paid_cents,
            amount_credited_cents: self.amount_credited_cents,
            amount_due_cents: self.amount_due_cents,
            notes: self.notes.clone(),
            sent_at: self.sent_at,
            paid_at: self.paid_at,
            created_at: self.created_at,
        }
    }
}

/// `total − paid − credited` while the invoice is open; 0 once it is paid or cancelled (a
/// marking as paid settles what no payment covered).
pub fn amount_due(status: InvoiceStatus, total: i64, paid: i64, credited: i64) -> i64 {
    match status {
        InvoiceStatus::Paid | InvoiceStatus::Cancelled => 0,
        _ => crate::payment_amount::amount_due_cents(total, paid, credited),
    }
}

/// What an invoice holds beyond what it is owed: `paid + credited − total`, never negative,
/// and all that was paid once it is cancelled (nothing is owed then).
pub fn overpaid(status: InvoiceStatus, total: i64, paid: i64, credited: i64) -> i64 {
    let over = match status {
        InvoiceStatus::Cancelled => i128::from(paid),
        _ => i128::from(paid) + i128::from(credited) - i128::from(total),
    };
    i64::try_from(over.max(0)).unwrap_or(i64::MAX)
}

/// An invoice without its lines, metadata or link: the columns an export of the list writes
/// (SPEC §22), read straight from the invoice's own row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvoiceSummary {
    pub id: InvoiceId,
    pub invoice_number: String,
    pub status: InvoiceStatus,
    pub customer_id: CustomerId,
    pub currency: Currency,
    pub issue_date: NaiveDate,
    pub due_date: NaiveDate,
    pub subtotal_cents: i64,
    pub tax_cents: i64,
    pub total_cents: i64,
    pub amount_paid_cents: i64,
    pub amount_credited_cents: i64,
    pub amount_due_cents: i64,
    pub notes: Option<String>,
    pub sent_at: Option<DateTime<Utc>>,
    pub paid_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

/// Filters of `GET /api/v1/invoices`; the dates are inclusive whole UTC days.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InvoiceFilter {
    pub status: Option<InvoiceStatus>,
    /// Keeps only the statuses of one standing (with `status`, both must hold).
    pub standing: Standing,
    pub customer_id: Option<CustomerId>,
    pub created_after: Option<NaiveDate>,
    pub created_before: Option<NaiveDate>,
    pub search: Option<crate::paging::SearchText>,
    pub order: InvoiceOrder,
}

/// Which invoices a list keeps by where they stand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Standing {
    #[default]
    Any,
    /// Awaiting payment: [`InvoiceStatus::OPEN`].
    Open,
    /// Paid or cancelled: [`InvoiceStatus::SETTLED`].
    Settled,
}

impl Standing {
    /// The statuses kept, `None` for every one.
    pub fn statuses(self) -> Option<&'static [InvoiceStatus]> {
        match self {
            Standing::Any => None,
            Standing::Open => Some(&InvoiceStatus::OPEN),
            Standing::Settled => Some(&InvoiceStatus::SETTLED),
        }
    }
}

/// How a list of invoices is ordered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InvoiceOrder {
    /// Newest first (the API's order).
    #[default]
    Newest,
    /// The longest overdue first: due date, then number (the dashboard's overdue list).
    DueFirst,
}

/// What one currency's open invoices come to (the dashboard's home): everything still due, and
/// the part of it that is overdue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outstanding {
    pub currency: Currency,
    pub outstanding_cents: i64,
    pub open_count: i64,
    pub overdue_cents: i64,
    pub overdue_count: i64,
}

/// What the customer's public page shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicInvoice {
    pub invoice: Invoice,
    /// Who it is from and to, as it left draft (SPEC §9).
    pub parties: crate::parties::Parties,
    pub logo: Option<crate::profile::Logo>,
    /// Payments of the invoice that were reported or recorded and not rejected, oldest first,
    /// so the customer sees what is still being checked.
    pub payments: Vec<crate::payment::Payment>,
    /// Its credit notes, oldest first (SPEC §19).
    pub credit_notes: Vec<crate::credit_note::CreditNote>,
    /// Where the shop takes the customer back, when a payment request made it (SPEC §26).
    pub checkout: Option<crate::payment_request::Checkout>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 3, 1).unwrap()
    }

    fn parse(value: serde_json::Value) -> Result<NewInvoice, Violations> {
        serde_json::from_value::<InvoiceInput>(value)
            .unwrap()
            .parse(today(), "tok".into())
    }

    #[test]
    fn defaults_apply() {
        let inv = parse(json!({"customer_id": 3, "line_items": [{"description": "x", "quantity": 1, "unit_price_cents": 100}]})).unwrap();
        assert_eq!(inv.issue_date, today());
        assert_eq!(inv.due_date.to_string(), "2026-03-31");
        assert_eq!(inv.payment_terms, Some(PaymentTerms::Net(30)));
        assert_eq!(inv.currency, None);
    }

    #[test]
    fn reports_every_field() {
        let err = parse(json!({
            "currency": "EURO", "issue_date": "2026-03-10", "due_date": "2026-03-01",
            "line_items": [{"description": "x", "quantity": -1, "unit_price_cents": 1}],
            "customer": {"email": "bad"}
        }))
        .unwrap_err();
        let params: Vec<_> = err.errors().iter().map(|e| e.param.as_str()).collect();
        assert_eq!(
            params,
            [
                "customer.name",
                "customer.email",
                "currency",
                "due_date",
                "line_items[0].quantity"
            ]
        );
    }

    #[test]
    fn patch_parses_status_and_dates() {
        let p =
            serde_json::from_value::<InvoicePatchInput>(json!({"status": "paid", "notes": null}))
                .unwrap()
                .parse()
                .unwrap();
        assert_eq!(p.status, Some(InvoiceStatus::Paid));
        assert_eq!(p.notes, Some(None));
        assert!(!p.touches_draft_only_fields());
        let err =
            serde_json::from_value::<InvoicePatchInput>(json!({"status": "void", "due_date": "x"}))
                .unwrap()
                .parse()
                .unwrap_err();
        assert_eq!(err.errors().len(), 2);
    }
}
