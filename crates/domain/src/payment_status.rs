//! The payment verification lifecycle (SPEC §13): one table, used by the API and the public
//! page alike. A payment is recorded pending and the merchant verifies or rejects it; both
//! outcomes are final.

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum PaymentStatus {
    Pending,
    Verified,
    Rejected,
}

/// A change of status the table does not allow; the API answers 409 with this message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a payment cannot go from {from} to {to}")]
pub struct PaymentTransitionError {
    pub from: PaymentStatus,
    pub to: PaymentStatus,
}

impl PaymentStatus {
    pub const ALL: [PaymentStatus; 3] = [
        PaymentStatus::Pending,
        PaymentStatus::Verified,
        PaymentStatus::Rejected,
    ];

    /// The transition table. Every pair is spelled out (no wildcard arm), so adding a status
    /// forces a decision for each existing one.
    pub fn transition(self, to: PaymentStatus) -> Result<PaymentStatus, PaymentTransitionError> {
        use PaymentStatus::*;
        let allowed = match (self, to) {
            (Pending, Verified | Rejected) => true,
            (Pending, Pending) => false,
            (Verified, Pending | Verified | Rejected) => false,
            (Rejected, Pending | Verified | Rejected) => false,
        };
        if allowed {
            Ok(to)
        } else {
            Err(PaymentTransitionError { from: self, to })
        }
    }

    /// The event a payment entering this status writes (`pending` is where payments start).
    pub fn event_type(self) -> &'static str {
        match self {
            PaymentStatus::Pending => "payment.created",
            PaymentStatus::Verified => "payment.verified",
            PaymentStatus::Rejected => "payment.rejected",
        }
    }

    /// Only verified payments count towards an invoice's `amount_paid_cents`.
    pub fn counts_as_paid(self) -> bool {
        matches!(self, PaymentStatus::Verified)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            PaymentStatus::Pending => "pending",
            PaymentStatus::Verified => "verified",
            PaymentStatus::Rejected => "rejected",
        }
    }

    pub fn parse(s: &str) -> Option<PaymentStatus> {
        PaymentStatus::ALL.into_iter().find(|st| st.as_str() == s)
    }
}

impl fmt::Display for PaymentStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::PaymentStatus::*;
    use super::*;

    #[test]
    fn the_table_over_every_pair() {
        let allowed = [(Pending, Verified), (Pending, Rejected)];
        let mut checked = 0;
        for from in PaymentStatus::ALL {
            for to in PaymentStatus::ALL {
                let expected = allowed.contains(&(from, to));
                assert_eq!(from.transition(to).is_ok(), expected, "{from} -> {to}");
                match from.transition(to) {
                    Ok(status) => assert_eq!(status, to),
                    Err(e) => assert_eq!(
                        e.to_string(),
                        format!("a payment cannot go from {from} to {to}")
                    ),
                }
                checked += 1;
            }
        }
        assert_eq!(checked, 9);
    }

    #[test]
    fn verified_and_rejected_are_final() {
        for to in PaymentStatus::ALL {
            assert!(Verified.transition(to).is_err());
            assert!(Rejected.transition(to).is_err());
        }
        assert!(Verified.counts_as_paid());
        assert!(!Pending.counts_as_paid() && !Rejected.counts_as_paid());
    }

    #[test]
    fn names_and_events() {
        for s in PaymentStatus::ALL {
            assert_eq!(PaymentStatus::parse(s.as_str()), Some(s));
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
        }
        assert_eq!(PaymentStatus::parse("paid"), None);
        assert_eq!(Pending.event_type(), "payment.created");
        assert_eq!(Verified.event_type(), "payment.verified");
        assert_eq!(Rejected.event_type(), "payment.rejected");
    }
}
