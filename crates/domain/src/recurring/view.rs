//! A recurring schedule as the API returns it.

use super::{Interval, RecurringStatus};
use crate::currency::Currency;
use crate::customer::CustomerId;
use crate::document::LineItemView;
use crate::validation::Metadata;
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct RecurringId(pub i64);

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RecurringInvoice {
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub id: RecurringId,
    /// Always `recurring_invoice`.
    pub object: &'static str,
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub customer_id: CustomerId,
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "EUR"))]
    pub currency: Currency,
    pub line_items: Vec<LineItemView>,
    pub subtotal_cents: i64,
    pub tax_cents: i64,
    pub total_cents: i64,
    pub interval: Interval,
    pub interval_count: u32,
    pub start_date: NaiveDate,
    pub end_date: Option<NaiveDate>,
    pub occurrences: Option<u32>,
    pub payment_terms: String,
    pub notes: Option<String>,
    pub metadata: Metadata,
    pub auto_send: bool,
    pub email: bool,
    pub status: RecurringStatus,
    /// The next period's issue date; `null` once cancelled or completed.
    pub next_issue_date: Option<NaiveDate>,
    pub invoices_created: u32,
    pub livemode: bool,
    #[serde(serialize_with = "crate::time::serialize")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "crate::time::serialize")]
    pub updated_at: DateTime<Utc>,
}

impl RecurringInvoice {
    pub const OBJECT: &'static str = "recurring_invoice";
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecurringFilter {
    pub status: Option<RecurringStatus>,
    pub customer_id: Option<CustomerId>,
}
