//! Events (SPEC §11): every state change, with the resource as the API returned it after the
//! change, written in the same transaction as the change.

use crate::tenant::Actor;
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct EventId(pub i64);

/// The event types this service writes.
pub const EVENT_TYPES: &[&str] = &[
    "customer.created",
    "customer.updated",
    "customer.deleted",
    "invoice.created",
    "invoice.updated",
    "invoice.sent",
    "invoice.viewed",
    "invoice.overdue",
    "invoice.paid",
    "invoice.cancelled",
    "quotation.created",
    "quotation.updated",
    "quotation.deleted",
    "quotation.sent",
    "quotation.viewed",
    "quotation.accepted",
    "quotation.rejected",
    "quotation.expired",
    "quotation.converted",
    "payment.created",
    "payment.verified",
    "payment.rejected",
    "payment.failed",
    "payment.refunded",
    "payment.proof_uploaded",
    "product.created",
    "product.updated",
    "product.deleted",
    "credit_note.created",
    "recurring_invoice.created",
    "recurring_invoice.updated",
    "recurring_invoice.paused",
    "recurring_invoice.resumed",
    "recurring_invoice.cancelled",
    "recurring_invoice.completed",
    "email.sent",
    "email.failed",
];

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EventData {
    /// The resource as the API returned it after the change.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub object: Value,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Event {
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub id: EventId,
    pub object: &'static str,
    #[serde(rename = "type")]
    pub event_type: String,
    #[serde(serialize_with = "crate::time::serialize")]
    pub created_at: DateTime<Utc>,
    pub livemode: bool,
    /// Who caused it (SPEC §21).
    pub actor: Actor,
    pub data: EventData,
}

impl Event {
    pub const OBJECT: &'static str = "event";
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventFilter {
    pub event_type: Option<String>,
}
