//! What the quotation page shows: the quotation, whether it awaits an answer, and the
//! confirmation of an answer given.

use crate::routes::pages::{DocumentParts, DocumentView};
use askama::Template;
use chrono::{NaiveDate, Utc};
use invoicing_domain::quotation::PublicQuotation;
use invoicing_domain::quotation_status::QuotationStatus;

#[derive(Template)]
#[template(path = "quote.html")]
pub(super) struct QuotePage {
    pub(super) doc: DocumentView,
    title: String,
    status: &'static str,
    status_label: &'static str,
    valid_until: String,
    awaits_answer: bool,
    confirmation: Option<String>,
    token: String,
}

fn confirmation(p: &PublicQuotation, today: NaiveDate) -> Option<String> {
    let q = &p.quotation;
    let t = p.parties.locale();
    let merchant = p.parties.issuer.display_name();
    let day = |at: Option<chrono::DateTime<Utc>>| at.map(|at| t.date(at.date_naive()));
    match q.status {
        QuotationStatus::Draft => None,
        QuotationStatus::Sent | QuotationStatus::Viewed if q.valid_until >= today => None,
        QuotationStatus::Accepted | QuotationStatus::Converted => {
            let (name, date) = (q.accepted_by_name.as_deref(), day(q.accepted_at));
            Some(match (name, date.as_deref()) {
                (Some(n), Some(d)) => t.fill(
                    "quote.confirm.accepted_as_on",
                    &[("name", n), ("date", d), ("merchant", merchant)],
                ),
                (Some(n), None) => t.fill(
                    "quote.confirm.accepted_as",
                    &[("name", n), ("merchant", merchant)],
                ),
                (None, Some(d)) => t.fill(
                    "quote.confirm.accepted_on",
                    &[("date", d), ("merchant", merchant)],
                ),
                (None, None) => t.fill("quote.confirm.accepted", &[("merchant", merchant)]),
            })
        }
        QuotationStatus::Rejected => Some(match day(q.rejected_at) {
            Some(d) => t.fill(
                "quote.confirm.declined_on",
                &[("date", &d), ("merchant", merchant)],
            ),
            None => t.fill("quote.confirm.declined", &[("merchant", merchant)]),
        }),
        // Past its validity but not yet swept: answering would only expire it (SPEC §10).
        QuotationStatus::Sent | QuotationStatus::Viewed | QuotationStatus::Expired => Some(t.fill(
            "quote.confirm.expired",
            &[("date", &t.date(q.valid_until)), ("merchant", merchant)],
        )),
    }
}

impl QuotePage {
    pub(super) fn new(p: PublicQuotation, token: String, now: chrono::DateTime<Utc>) -> Self {
        let today = p.parties.issuer.time_zone.today(now);
        let confirmation = confirmation(&p, today);
        let t = p.parties.locale();
        let q = p.quotation;
        let merchant = p.parties.issuer.display_name();
        let number = q.quote_number.as_str();
        QuotePage {
            title: t.fill(
                "page.quotation_title",
                &[("number", number), ("merchant", merchant)],
            ),
            status: q.status.as_str(),
            status_label: t.quotation_status(q.status),
            valid_until: t.date(q.valid_until),
            awaits_answer: q.status.awaits_answer() && q.valid_until >= today,
            confirmation,
            token,
            doc: DocumentView::from(DocumentParts {
                parties: p.parties,
                logo: p.logo,
                number: q.quote_number,
                issue_date: q.issue_date,
                currency: q.currency,
                lines: q.line_items,
                subtotal_cents: q.subtotal_cents,
                tax_cents: q.tax_cents,
                total_cents: q.total_cents,
                notes: q.notes,
            }),
        }
    }
}
