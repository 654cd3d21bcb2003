//! The invoice lifecycle (SPEC §9): one table, used by the API, the scheduler and the public
//! pages alike.

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum InvoiceStatus {
    Draft,
    Sent,
    Viewed,
    Overdue,
    Paid,
    Cancelled,
}

/// A change of status the table does not allow; the API answers 409 with this message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("an invoice cannot go from {from} to {to}")]
pub struct InvoiceTransitionError {
    pub from: InvoiceStatus,
    pub to: InvoiceStatus,
}

impl InvoiceStatus {
    pub const ALL: [InvoiceStatus; 6] = [
        InvoiceStatus::Draft,
        InvoiceStatus::Sent,
        InvoiceStatus::Viewed,
        InvoiceStatus::Overdue,
        InvoiceStatus::Paid,
        InvoiceStatus::Cancelled,
    ];

    /// Awaiting payment (see [`InvoiceStatus::is_open`]).
    pub const OPEN: [InvoiceStatus; 3] = [
        InvoiceStatus::Sent,
        InvoiceStatus::Viewed,
        InvoiceStatus::Overdue,
    ];
    /// Left draft and no longer awaiting payment.
    pub const SETTLED: [InvoiceStatus; 2] = [InvoiceStatus::Paid, InvoiceStatus::Cancelled];

    /// The transition table. Every pair is spelled out (no wildcard arm), so adding a status
    /// forces a decision for each existing one.
    pub fn transition(self, to: InvoiceStatus) -> Result<InvoiceStatus, InvoiceTransitionError> {
        use InvoiceStatus::*;
        let allowed = match (self, to) {
            (Draft, Sent) => true,
            (Sent, Viewed) => true,
            (Sent | Viewed, Overdue) => true,
            (Draft | Sent | Viewed | Overdue, Paid) => true,
            (Draft | Sent | Viewed | Overdue, Cancelled) => true,
            (Draft, Draft | Viewed | Overdue) => false,
            (Sent, Draft | Sent) => false,
            (Viewed, Draft | Sent | Viewed) => false,
            (Overdue, Draft | Sent | Viewed | Overdue) => false,
            (Paid, Draft | Sent | Viewed | Overdue | Paid | Cancelled) => false,
            (Cancelled, Draft | Sent | Viewed | Overdue | Paid | Cancelled) => false,
        };
        if allowed {
            Ok(to)
        } else {
            Err(InvoiceTransitionError { from: self, to })
        }
    }

    /// The event a change into this status writes.
    pub fn event_type(self) -> &'static str {
        match self {
            InvoiceStatus::Draft => "invoice.created",
            InvoiceStatus::Sent => "invoice.sent",
            InvoiceStatus::Viewed => "invoice.viewed",
            InvoiceStatus::Overdue => "invoice.overdue",
            InvoiceStatus::Paid => "invoice.paid",
            InvoiceStatus::Cancelled => "invoice.cancelled",
        }
    }

    /// Whether the customer's public page shows it (drafts are private).
    pub fn is_public(self) -> bool {
        !matches!(self, InvoiceStatus::Draft)
    }

    /// Awaiting payment: sent, viewed or overdue.
    pub fn is_open(self) -> bool {
        InvoiceStatus::OPEN.contains(&self)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            InvoiceStatus::Draft => "draft",
            InvoiceStatus::Sent => "sent",
            InvoiceStatus::Viewed => "viewed",
            InvoiceStatus::Overdue => "overdue",
            InvoiceStatus::Paid => "paid",
            InvoiceStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(s: &str) -> Option<InvoiceStatus> {
        InvoiceStatus::ALL.into_iter().find(|st| st.as_str() == s)
    }
}

impl fmt::Display for InvoiceStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::InvoiceStatus::*;
    use super::*;

    #[test]
    fn the_table_over_every_pair() {
        let allowed = [
            (Draft, Sent),
            (Sent, Viewed),
            (Sent, Overdue),
            (Viewed, Overdue),
            (Draft, Paid),
            (Sent, Paid),
            (Viewed, Paid),
            (Overdue, Paid),
            (Draft, Cancelled),
            (Sent, Cancelled),
            (Viewed, Cancelled),
            (Overdue, Cancelled),
        ];
        for from in InvoiceStatus::ALL {
            for to in InvoiceStatus::ALL {
                let expected = allowed.contains(&(from, to));
                assert_eq!(from.transition(to).is_ok(), expected, "{from} -> {to}");
                if let Err(e) = from.transition(to) {
                    assert_eq!(
                        e.to_string(),
                        format!("an invoice cannot go from {from} to {to}")
                    );
                }
            }
        }
    }

    #[test]
    fn paid_and_cancelled_are_final() {
        for to in InvoiceStatus::ALL {
            assert!(Paid.transition(to).is_err());
            assert!(Cancelled.transition(to).is_err());
        }
    }

    #[test]
    fn names_round_trip() {
        for s in InvoiceStatus::ALL {
            assert_eq!(InvoiceStatus::parse(s.as_str()), Some(s));
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
        }
        assert_eq!(InvoiceStatus::parse("void"), None);
    }
}
