//! Invoices: gap-free numbers, drafts and their lifecycle, the public page's read and the
//! overdue sweep. Every change writes its event in the same transaction.

use crate::accounts::account_currency;
use crate::connection::AnyConnection;
use crate::counters::next_number;
use crate::documents::{check_lines_currency, document_customer, resolve_lines, write_lines};
use crate::events::record;
use crate::invoice_rows::{load_invoice, load_row, to_invoices, InvoiceRow};
use crate::outbox::{queue, queue_receipt};
use crate::parties::{document_parties, keep_parties};
use crate::payment_rows::open_and_verified;
use crate::rows::{lock_scoped, now_db, scoped};
use crate::schema::invoices;
use crate::store::{Store, TxError};
use chrono::{Datelike, Duration, NaiveDate};
use diesel::prelude::*;
use invoicing_domain::currency::Currency;
use invoicing_domain::document::{document_number, CustomerRef, DocumentKind};
use invoicing_domain::email::EmailKind;
use invoicing_domain::invoice::{
    Invoice, InvoiceFilter, InvoiceId, InvoicePatch, NewInvoice, PublicInvoice,
};
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::paging::{Page, PageRequest};
use invoicing_domain::ports::{InvoiceRepository, RepoError, RepoResult};
use invoicing_domain::profile::Reminders;
use invoicing_domain::tenant::Scope;
use invoicing_domain::validation::Violations;

/// Where an invoice comes from, when not from a create request.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) enum Origin {
    #[default]
    Direct,
    /// A converted quotation.
    Quotation(i64),
    /// A recurring schedule's period: the pair is unique, so a period is issued once.
    Recurring { schedule: i64, period: i32 },
}

/// Inserts a draft with the next number and writes `invoice.created`, recording its origin.
pub(crate) fn insert_invoice(
    conn: &mut AnyConnection,
    scope: Scope,
    new: &NewInvoice,
    origin: Origin,
    public_url: &str,
) -> Result<Invoice, TxError> {
    let quotation_id = match origin {
        Origin::Quotation(q) => Some(q),
        _ => None,
    };
    let (recurring_invoice_id, recurring_period) = match origin {
        Origin::Recurring { schedule, period } => (Some(schedule), Some(period)),
        _ => (None, None),
    };
    let customer_id = document_customer(conn, scope, &new.customer)?;
    let currency = match new.currency {
        Some(c) => c,
        None => account_currency(conn, scope.account_id)?,
    };
    let lines = resolve_lines(conn, scope, currency, &new.lines)?;
    let now = now_db();
    let year = now.year();
    let seq = next_number(conn, scope, DocumentKind::Invoice, year)?;
    let id = diesel::insert_into(invoices::table)
        .values((
            invoices::account_id.eq(scope.account_id.0),
            invoices::livemode.eq(scope.livemode()),
            invoices::number.eq(document_number(DocumentKind::Invoice, year, seq)),
            invoices::status.eq(InvoiceStatus::Draft.as_str()),
            invoices::customer_id.eq(customer_id),
            invoices::currency.eq(currency.code()),
            invoices::issue_date.eq(new.issue_date),
            invoices::due_date.eq(new.due_date),
            invoices::payment_terms.eq(new.payment_terms.map(|t| t.to_string())),
            invoices::subtotal_cents.eq(lines.totals.subtotal.minor()),
            invoices::tax_cents.eq(lines.totals.tax.minor()),
            invoices::total_cents.eq(lines.totals.total.minor()),
            invoices::amount_paid_cents.eq(0),
            invoices::notes.eq(&new.notes),
            invoices::metadata.eq(new.metadata.to_json()),
            invoices::token.eq(&new.token),
            invoices::quotation_id.eq(quotation_id),
            invoices::recurring_invoice_id.eq(recurring_invoice_id),
            invoices::recurring_period.eq(recurring_period),
            invoices::reminders.eq(new.reminders.as_ref().map(Reminders::to_json)),
            invoices::created_at.eq(now),
            invoices::updated_at.eq(now),
        ))
        .returning(invoices::id)
        .get_result::<i64>(conn)?;
    write_lines(conn, scope, DocumentKind::Invoice, id, &lines)?;
    let invoice = load_invoice(conn, scope, InvoiceId(id), public_url)?;
    record(conn, scope, "invoice.created", &invoice)?;
    Ok(invoice)
}

/// Moves the invoice from the status `row` was read with to `to`, stamping the matching
/// timestamp; the caller checked the transition table and writes the event. The update is
/// conditional on that status, so a reader that took no lock (the public page) cannot overwrite
/// a change committed since it read: it gets `InvalidTransition` instead.
pub(crate) fn set_status(
    conn: &mut AnyConnection,
    row: &InvoiceRow,
    to: InvoiceStatus,
) -> Result<(), TxError> {
    if row.status()? == InvoiceStatus::Draft && to != InvoiceStatus::Draft {
        let customer = invoicing_domain::customer::CustomerId(row.customer_id);
        keep_parties(conn, row.scope(), DocumentKind::Invoice, row.id, customer)?;
    }
    let now = now_db();
    let target = scoped!(invoices, row.scope())
        .filter(invoices::id.eq(row.id))
        .filter(invoices::status.eq(row.status.as_str()));
    let status = invoices::status.eq(to.as_str());
    let updated = invoices::updated_at.eq(now);
    let moved = match to {
        InvoiceStatus::Sent => diesel::update(target)
            .set((status, updated, invoices::sent_at.eq(now)))
            .execute(conn)?,
        InvoiceStatus::Viewed => diesel::update(target)
            .set((status, updated, invoices::viewed_at.eq(now)))
            .execute(conn)?,
        InvoiceStatus::Paid => diesel::update(target)
            .set((status, updated, invoices::paid_at.eq(now)))
            .execute(conn)?,
        InvoiceStatus::Cancelled => diesel::update(target)
            .set((status, updated, invoices::cancelled_at.eq(now)))
            .execute(conn)?,
        InvoiceStatus::Draft | InvoiceStatus::Overdue => diesel::update(target)
            .set((status, updated))
            .execute(conn)?,
    };
    if moved == 0 {
        return Err(RepoError::InvalidTransition(format!(
            "the invoice is no longer {}: it changed meanwhile",
            row.status
        ))
        .into());
    }
    Ok(())
}

fn update(
    conn: &mut AnyConnection,
    scope: Scope,
    id: InvoiceId,
    patch: &InvoicePatch,
    public_url: &str,
    mail: bool,
) -> Result<Invoice, TxError> {
    lock_scoped!(conn, invoices, scope, id.0)?;
    let row = load_row(conn, scope, id)?;
    let current = row.status()?;
    // Asking for the current status is a transition the table refuses too (409), so a repeated
    // send or a second "mark paid" is reported rather than silently accepted.
    let new_status = patch.status;
    if let Some(to) = new_status {
        current
            .transition(to)
            .map_err(|e| RepoError::InvalidTransition(e.to_string()))?;
    }
    if patch.touches_draft_only_fields() && current != InvoiceStatus::Draft {
        return Err(RepoError::InvalidTransition(format!(
            "line_items, currency and customer_id can only change while the invoice is a draft; it is {current}"
        ))
        .into());
    }
    if let Some(due) = patch.due_date {
        if due < row.issue_date {
            return Err(RepoError::Invalid(Violations::single(
                "due_date",
                "must not be before issue_date",
            ))
            .into());
        }
    }
    let customer_id = match patch.customer_id {
        Some(c) => Some(document_customer(conn, scope, &CustomerRef::Existing(c))?),
        None => None,
    };
    let target = scoped!(invoices, scope).filter(invoices::id.eq(row.id));
    let mut changed = false;
    if let Some(due) = patch.due_date {
        diesel::update(target)
            .set((
                invoices::due_date.eq(due),
                invoices::payment_terms.eq(None::<String>),
            ))
            .execute(conn)?;
        changed = true;
    }
    if let Some(notes) = &patch.notes {
        diesel::update(target)
            .set(invoices::notes.eq(notes))
            .execute(conn)?;
        changed = true;
    }
    if let Some(reminders) = &patch.reminders {
        diesel::update(target)
            .set(invoices::reminders.eq(reminders.as_ref().map(Reminders::to_json)))
            .execute(conn)?;
        changed = true;
    }
    if let Some(metadata) = &patch.metadata {
        diesel::update(target)
            .set(invoices::metadata.eq(metadata.to_json()))
            .execute(conn)?;
        changed = true;
    }
    if let Some(currency) = patch.currency {
        if patch.lines.is_none() {
            check_lines_currency(conn, scope, DocumentKind::Invoice, row.id, currency)?;
        }
        diesel::update(target)
            .set(invoices::currency.eq(currency.code()))
            .execute(conn)?;
        changed = true;
    }
    if let Some(customer_id) = customer_id {
        diesel::update(target)
            .set(invoices::customer_id.eq(customer_id))
            .execute(conn)?;
        changed = true;
    }
    if let Some(drafts) = &patch.lines {
        let currency = match patch.currency {
            Some(c) => c,
            None => Currency::parse(&row.currency)
                .map_err(|_| RepoError::Internal(format!("invoice {} currency", row.id)))?,
        };
        let lines = resolve_lines(conn, scope, currency, drafts)?;
        write_lines(conn, scope, DocumentKind::Invoice, row.id, &lines)?;
        diesel::update(target)
            .set((
                invoices::subtotal_cents.eq(lines.totals.subtotal.minor()),
                invoices::tax_cents.eq(lines.totals.tax.minor()),
                invoices::total_cents.eq(lines.totals.total.minor()),
            ))
            .execute(conn)?;
        changed = true;
    }
    if let Some(to) = new_status {
        set_status(conn, &row, to)?;
    } else if changed {
        diesel::update(target)
            .set(invoices::updated_at.eq(now_db()))
            .execute(conn)?;
    }
    let invoice = load_invoice(conn, scope, id, public_url)?;
    match new_status {
        Some(to) => {
            record(conn, scope, to.event_type(), &invoice)?;
            if to == InvoiceStatus::Paid {
                queue_receipt(conn, scope, &invoice, mail)?;
            }
            if let (InvoiceStatus::Sent, Some(request)) = (to, &patch.email) {
                queue(
                    conn,
                    scope,
                    EmailKind::Invoice,
                    (&invoice).into(),
                    request.clone(),
                )?;
            }
        }
        None if changed => {
            record(conn, scope, "invoice.updated", &invoice)?;
        }
        None => {}
    };
    Ok(invoice)
}

/// The sent (not draft) invoice this number and capability token name; anything else is 404.
fn load_public_row(
    conn: &mut AnyConnection,
    number: &str,
    token: &str,
) -> Result<InvoiceRow, TxError> {
    let row = invoices::table
        .filter(invoices::token.eq(token))
        .select(InvoiceRow::as_select())
        .first::<InvoiceRow>(conn)
        .optional()?
        .filter(|r| r.number == number)
        .ok_or(RepoError::NotFound)?;
    if row.status()?.is_public() {
        Ok(row)
    } else {
        Err(RepoError::NotFound.into())
    }
}

/// The invoice with who it is from and to and its open and verified payments.
fn as_shown(
    conn: &mut AnyConnection,
    scope: Scope,
    id: InvoiceId,
    url: &str,
) -> Result<PublicInvoice, TxError> {
    let invoice = load_invoice(conn, scope, id, url)?;
    let (parties, logo) = document_parties(
        conn,
        scope,
        DocumentKind::Invoice,
        id.0,
        invoice.customer_id,
    )?;
    let payments = open_and_verified(conn, scope, invoice.id)?;
    let credit_notes = crate::credit_notes::of_invoice(conn, scope, invoice.id)?;
    Ok(PublicInvoice {
        invoice,
        parties,
        logo,
        payments,
        credit_notes,
    })
}

impl InvoiceRepository for Store {
    fn create_invoice(&self, scope: Scope, new: NewInvoice) -> RepoResult<Invoice> {
        let url = self.public_url();
        let mut attempts = 0;
        loop {
            attempts += 1;
            // An inline customer created concurrently by another request: retry to find it.
            match self.try_write(|conn| insert_invoice(conn, scope, &new, Origin::Direct, &url)) {
                Err(e) if e.is_unique_violation() && attempts < 3 => continue,
                result => return result.map_err(TxError::into_repo),
            }
        }
    }

    fn get_invoice(&self, scope: Scope, id: InvoiceId) -> RepoResult<Invoice> {
        let url = self.public_url();
        self.read(|conn| load_invoice(conn, scope, id, &url))
    }

    fn list_invoices(
        &self,
        scope: Scope,
        filter: &InvoiceFilter,
        page: PageRequest,
    ) -> RepoResult<Page<Invoice>> {
        let url = self.public_url();
        let day_start = |d: NaiveDate| d.and_hms_opt(0, 0, 0).unwrap_or_default();
        self.read(|conn| {
            let query = || {
                let mut q = scoped!(invoices, scope).into_boxed();
                if let Some(s) = filter.status {
                    q = q.filter(invoices::status.eq(s.as_str()));
                }
                if let Some(c) = filter.customer_id {
                    q = q.filter(invoices::customer_id.eq(c.0));
                }
                if let Some(d) = filter.created_after {
                    q = q.filter(invoices::created_at.ge(day_start(d)));
                }
                if let Some(d) = filter.created_before {
                    q = q.filter(invoices::created_at.lt(day_start(d + Duration::days(1))));
                }
                q
            };
            let total: i64 = query().count().get_result(conn)?;
            let rows = query()
                .order((invoices::created_at.desc(), invoices::id.desc()))
                .limit(page.limit())
                .offset(page.offset())
                .select(InvoiceRow::as_select())
                .load::<InvoiceRow>(conn)?;
            Ok(Page::new(
                to_invoices(conn, scope, rows, &url)?,
                page,
                total,
            ))
        })
    }

    fn update_invoice(
        &self,
        scope: Scope,
        id: InvoiceId,
        patch: InvoicePatch,
    ) -> RepoResult<Invoice> {
        let url = self.public_url();
        self.write(|conn| update(conn, scope, id, &patch, &url, self.mail_enabled()))
    }

    fn view_public_invoice(&self, number: &str, token: &str) -> RepoResult<PublicInvoice> {
        let url = self.public_url();
        self.write(|conn| {
            let row = load_public_row(conn, number, token)?;
            if row.status()? == InvoiceStatus::Sent {
                // Concurrent changes (a second first view, a cancel): one moves it, the others
                // find it moved, which is no error for a reader; the event is the mover's.
                match set_status(conn, &row, InvoiceStatus::Viewed) {
                    Ok(()) => {
                        let scope = row.scope();
                        let viewed = load_invoice(conn, scope, InvoiceId(row.id), &url)?;
                        record(conn, scope, InvoiceStatus::Viewed.event_type(), &viewed)?;
                    }
                    Err(TxError::Repo(RepoError::InvalidTransition(_))) => {}
                    Err(e) => return Err(e),
                }
            }
            as_shown(conn, row.scope(), InvoiceId(row.id), &url)
        })
    }

    fn invoice_as_shown(&self, scope: Scope, id: InvoiceId) -> RepoResult<PublicInvoice> {
        let url = self.public_url();
        self.read(|conn| as_shown(conn, scope, id, &url))
    }

    fn find_public_invoice(&self, number: &str, token: &str) -> RepoResult<PublicInvoice> {
        let url = self.public_url();
        self.read(|conn| {
            let row = load_public_row(conn, number, token)?;
            as_shown(conn, row.scope(), InvoiceId(row.id), &url)
        })
    }

    fn mark_overdue_invoices(&self, today: NaiveDate) -> RepoResult<usize> {
        let url = self.public_url();
        let mut changed = 0;
        loop {
            let due: Vec<InvoiceRow> = self.read(|conn| {
                Ok(invoices::table
                    .filter(
                        invoices::status
                            .eq_any([InvoiceStatus::Sent.as_str(), InvoiceStatus::Viewed.as_str()]),
                    )
                    .filter(invoices::due_date.lt(today))
                    .order(invoices::id)
                    .limit(200)
                    .select(InvoiceRow::as_select())
                    .load::<InvoiceRow>(conn)?)
            })?;
            if due.is_empty() {
                return Ok(changed);
            }
            for row in due {
                // The conditional update decides which process owns the change: a second
                // sweeper finds the status already moved and writes no second event.
                changed += self.write(|conn| {
                    let scope = row.scope();
                    let moved = diesel::update(
                        scoped!(invoices, scope)
                            .filter(invoices::id.eq(row.id))
                            .filter(invoices::status.eq_any([
                                InvoiceStatus::Sent.as_str(),
                                InvoiceStatus::Viewed.as_str(),
                            ])),
                    )
                    .set((
                        invoices::status.eq(InvoiceStatus::Overdue.as_str()),
                        invoices::updated_at.eq(now_db()),
                    ))
                    .execute(conn)?;
                    if moved == 1 {
                        let invoice = load_invoice(conn, scope, InvoiceId(row.id), &url)?;
                        record(conn, scope, InvoiceStatus::Overdue.event_type(), &invoice)?;
                    }
                    Ok(moved)
                })?;
            }
        }
    }
}
