//! The lifecycle of a recurring schedule (SPEC §20).

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum RecurringStatus {
    Active,
    Paused,
    Cancelled,
    Completed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a recurring invoice cannot go from {from} to {to}")]
pub struct RecurringTransitionError {
    pub from: RecurringStatus,
    pub to: RecurringStatus,
}

impl RecurringStatus {
    pub const ALL: [RecurringStatus; 4] = [
        RecurringStatus::Active,
        RecurringStatus::Paused,
        RecurringStatus::Cancelled,
        RecurringStatus::Completed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RecurringStatus::Active => "active",
            RecurringStatus::Paused => "paused",
            RecurringStatus::Cancelled => "cancelled",
            RecurringStatus::Completed => "completed",
        }
    }

    pub fn parse(s: &str) -> Option<RecurringStatus> {
        RecurringStatus::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// The table: pause and resume between active and paused, cancel from either, complete
    /// (the scheduler, after the last period) from active. Every pair is spelled out.
    pub fn transition(
        self,
        to: RecurringStatus,
    ) -> Result<RecurringStatus, RecurringTransitionError> {
        use RecurringStatus::*;
        let allowed = match (self, to) {
            (Active, Paused) | (Paused, Active) => true,
            (Active | Paused, Cancelled) => true,
            (Active, Completed) => true,
            (Active, Active) | (Paused, Paused | Completed) => false,
            (Cancelled, Active | Paused | Cancelled | Completed) => false,
            (Completed, Active | Paused | Cancelled | Completed) => false,
        };
        if allowed {
            Ok(to)
        } else {
            Err(RecurringTransitionError { from: self, to })
        }
    }

    /// The event a move into this status writes; `from` tells a resume from a creation.
    pub fn event_type(self, from: Option<RecurringStatus>) -> &'static str {
        match (from, self) {
            (None, _) => "recurring_invoice.created",
            (Some(_), RecurringStatus::Active) => "recurring_invoice.resumed",
            (Some(_), RecurringStatus::Paused) => "recurring_invoice.paused",
            (Some(_), RecurringStatus::Cancelled) => "recurring_invoice.cancelled",
            (Some(_), RecurringStatus::Completed) => "recurring_invoice.completed",
        }
    }
}

impl fmt::Display for RecurringStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
