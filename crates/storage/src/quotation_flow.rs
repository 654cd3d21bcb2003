//! The quotation lifecycle in storage: status changes decided by the database (each conditional
//! on the status it leaves), the prospect's answer with its expiry rule, the public view, and the
//! conversion into an invoice in one transaction.

use crate::connection::AnyConnection;
use crate::documents::{move_and_record, move_status, read_lines_for_copy};
use crate::events::record;
use crate::invoices::{insert_invoice, Origin};
use crate::parties::document_parties;
use crate::quotation_rows::{load_quotation, load_row, QuotationRow};
use crate::rows::scoped;
use crate::schema::quotations;
use crate::store::TxError;
use chrono::NaiveDate;
use diesel::prelude::*;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::document::{CustomerRef, DocumentKind};
use invoicing_domain::invoice::{Due, NewInvoice};
use invoicing_domain::ports::{RepoError, RepoResult};
use invoicing_domain::quotation::{
    Answer, ConversionResult, PublicQuotation, Quotation, QuotationId,
};
use invoicing_domain::quotation_status::QuotationStatus;
use invoicing_domain::tenant::{Actor, Scope};
use invoicing_domain::validation::Metadata;

pub(crate) fn refused(e: impl ToString) -> TxError {
    RepoError::InvalidTransition(e.to_string()).into()
}

/// Moves the quotation to `to` through the document core (conditional on the status it was
/// read in) and records the event, caused by `actor`.
pub(crate) fn move_quotation(
    conn: &mut AnyConnection,
    actor: Actor,
    row: &QuotationRow,
    to: QuotationStatus,
    url: &str,
) -> Result<Quotation, TxError> {
    move_and_record(conn, actor, row, to, |c| {
        load_quotation(c, row.scope(), QuotationId(row.id), url)
    })
}

/// The outcome of an answer: done, or refused because validity ran out (the expiry itself is
/// committed, so the caller reports the refusal after the transaction).
pub(crate) enum Answered {
    Done(Box<Quotation>),
    ExpiredInstead(NaiveDate),
}

/// Answers the quotation as `actor` (the merchant through the API, or the prospect on
/// the page). An expiry it finds instead is the system's, as when the scheduler finds it.
pub(crate) fn answer(
    conn: &mut AnyConnection,
    actor: Actor,
    row: &QuotationRow,
    answer: &Answer,
    today: NaiveDate,
    url: &str,
) -> Result<Answered, TxError> {
    let status = row.status()?;
    if status.awaits_answer() && row.valid_until < today {
        move_quotation(conn, Actor::System, row, QuotationStatus::Expired, url)?;
        return Ok(Answered::ExpiredInstead(row.valid_until));
    }
    let target = scoped!(quotations, row.scope()).filter(quotations::id.eq(row.id));
    let quotation = match answer {
        Answer::Accept {
            name,
            ip,
            user_agent,
        } => {
            status
                .transition(QuotationStatus::Accepted)
                .map_err(refused)?;
            diesel::update(target)
                .set((
                    quotations::accepted_by_name.eq(name),
                    quotations::accepted_from_ip.eq(ip),
                    quotations::accepted_user_agent.eq(user_agent),
                ))
                .execute(conn)?;
            move_quotation(conn, actor, row, QuotationStatus::Accepted, url)?
        }
        Answer::Reject { reason } => {
            status
                .transition(QuotationStatus::Rejected)
                .map_err(refused)?;
            diesel::update(target)
                .set(quotations::rejection_reason.eq(reason))
                .execute(conn)?;
            move_quotation(conn, actor, row, QuotationStatus::Rejected, url)?
        }
    };
    Ok(Answered::Done(Box::new(quotation)))
}

pub(crate) fn finish_answer(result: RepoResult<Answered>) -> RepoResult<Quotation> {
    match result? {
        Answered::Done(q) => Ok(*q),
        Answered::ExpiredInstead(day) => Err(RepoError::InvalidTransition(format!(
            "the quotation was valid until {day} and has expired; it can no longer be answered"
        ))),
    }
}

pub(crate) fn public_view(
    conn: &mut AnyConnection,
    row: &QuotationRow,
    url: &str,
) -> Result<PublicQuotation, TxError> {
    let scope = row.scope();
    let quotation = load_quotation(conn, scope, QuotationId(row.id), url)?;
    let (parties, logo) = document_parties(
        conn,
        scope,
        DocumentKind::Quotation,
        row.id,
        quotation.customer_id,
    )?;
    Ok(PublicQuotation {
        quotation,
        parties,
        logo,
    })
}

pub(crate) fn convert(
    conn: &mut AnyConnection,
    scope: Scope,
    id: QuotationId,
    due: Due,
    token: &str,
    today: NaiveDate,
    url: &str,
) -> Result<ConversionResult, TxError> {
    let row = load_row(conn, scope, id)?;
    // Claims the quotation first: a concurrent convert waits on this row and then finds it
    // converted, so it creates no invoice (the unique index on quotation_id backs this up).
    move_status(conn, &row, QuotationStatus::Converted)?;
    let (due_date, payment_terms) = match due {
        Due::Date(d) => (d, None),
        Due::Terms(t) => (t.due_date(today), Some(t)),
    };
    let new_invoice = NewInvoice {
        customer: CustomerRef::Existing(CustomerId(row.customer_id)),
        currency: Some(
            invoicing_domain::currency::Currency::parse(&row.currency)
                .map_err(|e| RepoError::Internal(e.to_string()))?,
        ),
        issue_date: today,
        due_date,
        payment_terms,
        lines: read_lines_for_copy(conn, scope, DocumentKind::Quotation, row.id)?.into(),
        notes: row.notes.clone(),
        metadata: Metadata::default(),
        token: token.to_string(),
        reminders: None,
        references: Default::default(),
    };
    let invoice = insert_invoice(conn, scope, &new_invoice, Origin::Quotation(row.id), url)?;
    diesel::update(scoped!(quotations, scope).filter(quotations::id.eq(row.id)))
        .set(quotations::invoice_id.eq(invoice.id.0))
        .execute(conn)?;
    let quotation = load_quotation(conn, scope, id, url)?;
    record(
        conn,
        scope,
        QuotationStatus::Converted.event_type(),
        &quotation,
    )?;
    Ok(ConversionResult {
        object: ConversionResult::OBJECT,
        quotation_id: row.id,
        invoice_id: invoice.id.0,
        invoice_number: invoice.invoice_number,
        status: QuotationStatus::Converted,
        invoice_url: invoice.payment_link,
    })
}
