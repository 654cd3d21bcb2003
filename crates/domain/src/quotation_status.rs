//! The quotation lifecycle (SPEC §10): one table, used by the API, the public page and the
//! scheduler alike.

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum QuotationStatus {
    Draft,
    Sent,
    Viewed,
    Accepted,
    Rejected,
    Expired,
    Converted,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a quotation cannot go from {from} to {to}")]
pub struct QuotationTransitionError {
    pub from: QuotationStatus,
    pub to: QuotationStatus,
}

impl QuotationStatus {
    pub const ALL: [QuotationStatus; 7] = [
        QuotationStatus::Draft,
        QuotationStatus::Sent,
        QuotationStatus::Viewed,
        QuotationStatus::Accepted,
        QuotationStatus::Rejected,
        QuotationStatus::Expired,
        QuotationStatus::Converted,
    ];

    /// The transition table; every pair is spelled out (no wildcard arm).
    pub fn transition(
        self,
        to: QuotationStatus,
    ) -> Result<QuotationStatus, QuotationTransitionError> {
        use QuotationStatus::*;
        let allowed = match (self, to) {
            (Draft, Sent) => true,
            (Sent, Viewed) => true,
            (Sent | Viewed, Accepted | Rejected | Expired) => true,
            (Accepted, Converted) => true,
            (Draft, Draft | Viewed | Accepted | Rejected | Expired | Converted) => false,
            (Sent, Draft | Sent | Converted) => false,
            (Viewed, Draft | Sent | Viewed | Converted) => false,
            (Accepted, Draft | Sent | Viewed | Accepted | Rejected | Expired) => false,
            (
                Rejected | Expired | Converted,
                Draft | Sent | Viewed | Accepted | Rejected | Expired | Converted,
            ) => false,
        };
        if allowed {
            Ok(to)
        } else {
            Err(QuotationTransitionError { from: self, to })
        }
    }

    pub fn event_type(self) -> &'static str {
        match self {
            QuotationStatus::Draft => "quotation.created",
            QuotationStatus::Sent => "quotation.sent",
            QuotationStatus::Viewed => "quotation.viewed",
            QuotationStatus::Accepted => "quotation.accepted",
            QuotationStatus::Rejected => "quotation.rejected",
            QuotationStatus::Expired => "quotation.expired",
            QuotationStatus::Converted => "quotation.converted",
        }
    }

    /// Whether the prospect may still accept or decline it.
    pub fn awaits_answer(self) -> bool {
        matches!(self, QuotationStatus::Sent | QuotationStatus::Viewed)
    }

    pub fn is_public(self) -> bool {
        !matches!(self, QuotationStatus::Draft)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            QuotationStatus::Draft => "draft",
            QuotationStatus::Sent => "sent",
            QuotationStatus::Viewed => "viewed",
            QuotationStatus::Accepted => "accepted",
            QuotationStatus::Rejected => "rejected",
            QuotationStatus::Expired => "expired",
            QuotationStatus::Converted => "converted",
        }
    }

    pub fn parse(s: &str) -> Option<QuotationStatus> {
        QuotationStatus::ALL.into_iter().find(|st| st.as_str() == s)
    }
}

impl fmt::Display for QuotationStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::QuotationStatus::*;
    use super::*;

    #[test]
    fn the_table_over_every_pair() {
        let allowed = [
            (Draft, Sent),
            (Sent, Viewed),
            (Sent, Accepted),
            (Viewed, Accepted),
            (Sent, Rejected),
            (Viewed, Rejected),
            (Sent, Expired),
            (Viewed, Expired),
            (Accepted, Converted),
        ];
        for from in QuotationStatus::ALL {
            for to in QuotationStatus::ALL {
                assert_eq!(
                    from.transition(to).is_ok(),
                    allowed.contains(&(from, to)),
                    "{from} -> {to}"
                );
            }
        }
    }

    #[test]
    fn names_round_trip() {
        for s in QuotationStatus::ALL {
            assert_eq!(QuotationStatus::parse(s.as_str()), Some(s));
        }
        assert!(QuotationStatus::parse("won").is_none());
    }
}
