//! A credit note as the API returns it, and as its PDF shows it.

use super::CreditReason;
use crate::currency::Currency;
use crate::customer::CustomerId;
use crate::document::LineItemView;
use crate::invoice_id::InvoiceId;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct CreditNoteId(pub i64);

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreditNote {
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub id: CreditNoteId,
    /// Always `credit_note`.
    pub object: &'static str,
    pub credit_note_number: String,
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub invoice_id: InvoiceId,
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub customer_id: CustomerId,
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "EUR"))]
    pub currency: Currency,
    pub reason: CreditReason,
    pub memo: Option<String>,
    pub line_items: Vec<LineItemView>,
    pub subtotal_cents: i64,
    pub tax_cents: i64,
    pub total_cents: i64,
    /// The part of this credit beyond what was due when it was issued: money already paid that
    /// is owed back to the customer.
    pub refund_due_cents: i64,
    /// The day of the supply credited (BT-72).
    pub delivery_date: Option<chrono::NaiveDate>,
    /// The days of the services credited (BG-14).
    pub service_period: Option<crate::supply::ServicePeriod>,
    /// The buyer's reference quoted (BT-10): the invoice's unless the request gave its own.
    pub buyer_reference: Option<String>,
    /// The buyer's purchase order quoted (BT-13): the invoice's unless the request gave its own.
    pub purchase_order: Option<String>,
    pub livemode: bool,
    #[serde(serialize_with = "crate::time::serialize")]
    pub created_at: DateTime<Utc>,
}

impl CreditNote {
    pub const OBJECT: &'static str = "credit_note";

    /// When the supply credited was made, if it says.
    pub fn supply(&self) -> Option<crate::supply::Supply> {
        crate::supply::SupplyFields {
            delivery_date: self.delivery_date,
            service_period: self.service_period,
        }
        .supply()
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CreditNoteFilter {
    pub invoice_id: Option<InvoiceId>,
    pub customer_id: Option<CustomerId>,
}

/// The credit note as its PDF shows it: with its invoice's number and parties.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicCreditNote {
    pub credit_note: CreditNote,
    pub invoice_number: String,
    pub invoice_link: String,
    pub parties: crate::parties::Parties,
    pub logo: Option<crate::profile::Logo>,
}
