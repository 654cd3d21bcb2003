//! What every numbered document with a lifecycle (invoices, quotations) shares: a status type
//! with a draft state, a transition table and one event per status, and the rules a patch of a
//! stored document must follow. Storage moves statuses and applies patches through these, so a
//! new document kind states its rules once, here, instead of re-deciding them per table.

use crate::document::DocumentKind;
use crate::invoice_status::InvoiceStatus;
use crate::quotation_status::QuotationStatus;
use crate::report::books::{self, Counting};
use chrono::NaiveDate;
use std::fmt;

/// A document's status: the part of its lifecycle the document core needs.
pub trait DocumentStatus: Copy + Eq + fmt::Display + fmt::Debug {
    const KIND: DocumentKind;
    /// The status a document is created in; leaving it fixes the document's parties.
    const DRAFT: Self;
    /// Sent to the customer or prospect, and not yet opened.
    const SENT: Self;
    /// Opened on its public page for the first time.
    const VIEWED: Self;
    /// The transition table, with the reason as text when it refuses.
    fn check_move(self, to: Self) -> Result<(), String>;
    /// The event written when a document enters this status.
    fn event_type(self) -> &'static str;
    /// Whether the customer's or prospect's public page shows a document in this status.
    fn is_public(self) -> bool;
    /// What the first view of its public page does to a document in this status (one that was
    /// never viewed): a sent document moves to viewed; one the calendar moved on before anyone
    /// opened it (an overdue invoice, an expired quotation) keeps its status but records the view,
    /// so the merchant sees that the reminder was read (SPEC §9, §10).
    fn first_view(self) -> FirstView<Self> {
        if self == Self::SENT {
            FirstView::Move(Self::VIEWED)
        } else if self.time_moved() {
            FirstView::Record
        } else {
            FirstView::Nothing
        }
    }
    /// Whether this status is one the scheduler moves a sent or viewed document into.
    fn time_moved(self) -> bool;
    /// What a move from this status to `to` books (SPEC §22): only invoices count.
    fn counting(self, _to: Self) -> Counting {
        Counting::Nothing
    }
}

/// What a first view of a public page does (`DocumentStatus::first_view`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstView<S> {
    /// Move to this status (viewed), stamping `viewed_at`, with the status's event.
    Move(S),
    /// Stamp `viewed_at` and write the viewed event; the status stays.
    Record,
    /// Nothing to record.
    Nothing,
}

impl DocumentStatus for InvoiceStatus {
    const KIND: DocumentKind = DocumentKind::Invoice;
    const DRAFT: Self = InvoiceStatus::Draft;
    const SENT: Self = InvoiceStatus::Sent;
    const VIEWED: Self = InvoiceStatus::Viewed;
    fn check_move(self, to: Self) -> Result<(), String> {
        self.transition(to).map(|_| ()).map_err(|e| e.to_string())
    }
    fn event_type(self) -> &'static str {
        InvoiceStatus::event_type(self)
    }
    fn is_public(self) -> bool {
        InvoiceStatus::is_public(self)
    }
    fn time_moved(self) -> bool {
        self == InvoiceStatus::Overdue
    }
    fn counting(self, to: Self) -> Counting {
        books::on_move(self, to)
    }
}

impl DocumentStatus for QuotationStatus {
    const KIND: DocumentKind = DocumentKind::Quotation;
    const DRAFT: Self = QuotationStatus::Draft;
    const SENT: Self = QuotationStatus::Sent;
    const VIEWED: Self = QuotationStatus::Viewed;
    fn check_move(self, to: Self) -> Result<(), String> {
        self.transition(to).map(|_| ()).map_err(|e| e.to_string())
    }
    fn event_type(self) -> &'static str {
        QuotationStatus::event_type(self)
    }
    fn is_public(self) -> bool {
        QuotationStatus::is_public(self)
    }
    fn time_moved(self) -> bool {
        self == QuotationStatus::Expired
    }
}

/// Why a patch cannot apply to the document as stored.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PatchRefused {
    /// Lines, currency and customer are what the customer agreed to once the document left
    /// its draft: changing them then is a conflict (409), not bad input.
    #[error("line_items, currency and customer_id can only change while the {kind} is a draft; it is {status}")]
    NotDraft { kind: &'static str, status: String },
    /// A closing date (due date, validity) before the issue date (422 on `field`).
    #[error("must not be before issue_date")]
    BeforeIssueDate { field: &'static str },
}

/// What a patch changes that the rules care about.
#[derive(Clone, Copy, Debug, Default)]
pub struct PatchShape {
    /// Whether it changes lines, currency or customer.
    pub draft_only: bool,
    /// The closing date it sets (the invoice's `due_date`, the quotation's `valid_until`), by name.
    pub closing_date: Option<(&'static str, NaiveDate)>,
}

/// Whether a patch of this shape may apply to a document in `status` issued on `issue_date`.
pub fn check_patch<S: DocumentStatus>(
    status: S,
    issue_date: NaiveDate,
    patch: PatchShape,
) -> Result<(), PatchRefused> {
    if patch.draft_only && status != S::DRAFT {
        return Err(PatchRefused::NotDraft {
            kind: S::KIND.as_str(),
            status: status.to_string(),
        });
    }
    match patch.closing_date {
        Some((field, date)) if date < issue_date => Err(PatchRefused::BeforeIssueDate { field }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_first_view_moves_a_sent_document_and_records_a_late_one() {
        for s in InvoiceStatus::ALL {
            let expected = match s {
                InvoiceStatus::Sent => FirstView::Move(InvoiceStatus::Viewed),
                InvoiceStatus::Overdue => FirstView::Record,
                _ => FirstView::Nothing,
            };
            assert_eq!(s.first_view(), expected, "{s}");
        }
        for s in QuotationStatus::ALL {
            let expected = match s {
                QuotationStatus::Sent => FirstView::Move(QuotationStatus::Viewed),
                QuotationStatus::Expired => FirstView::Record,
                _ => FirstView::Nothing,
            };
            assert_eq!(s.first_view(), expected, "{s}");
        }
    }

    fn day(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 3, d).unwrap()
    }

    #[test]
    fn draft_only_changes_need_a_draft_of_every_kind() {
        let lines = PatchShape {
            draft_only: true,
            closing_date: None,
        };
        for s in InvoiceStatus::ALL {
            let r = check_patch(s, day(1), lines);
            assert_eq!(r.is_ok(), s == InvoiceStatus::Draft, "{s}");
        }
        for s in QuotationStatus::ALL {
            let r = check_patch(s, day(1), lines);
            assert_eq!(r.is_ok(), s == QuotationStatus::Draft, "{s}");
        }
        assert_eq!(
            check_patch(QuotationStatus::Sent, day(1), lines)
                .unwrap_err()
                .to_string(),
            "line_items, currency and customer_id can only change while the quotation is a draft; it is sent"
        );
    }

    #[test]
    fn a_closing_date_may_equal_but_not_precede_the_issue_date() {
        let closing = |d| PatchShape {
            draft_only: false,
            closing_date: Some(("due_date", d)),
        };
        assert!(check_patch(InvoiceStatus::Sent, day(10), closing(day(10))).is_ok());
        assert_eq!(
            check_patch(InvoiceStatus::Sent, day(10), closing(day(9))),
            Err(PatchRefused::BeforeIssueDate { field: "due_date" })
        );
        // Other changes are allowed in any status.
        assert!(check_patch(InvoiceStatus::Paid, day(10), PatchShape::default()).is_ok());
    }

    #[test]
    fn the_core_sees_the_same_tables_and_events_as_the_statuses() {
        for from in InvoiceStatus::ALL {
            for to in InvoiceStatus::ALL {
                assert_eq!(from.check_move(to).is_ok(), from.transition(to).is_ok());
            }
            assert_eq!(DocumentStatus::event_type(from), from.event_type());
        }
        for from in QuotationStatus::ALL {
            for to in QuotationStatus::ALL {
                assert_eq!(from.check_move(to).is_ok(), from.transition(to).is_ok());
            }
            assert_eq!(DocumentStatus::is_public(from), from.is_public());
        }
    }
}
