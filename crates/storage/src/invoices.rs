//! Invoices: gap-free numbers, drafts and their lifecycle, the public page's read and the
//! overdue sweep. Every change writes its event in the same transaction.

use crate::capped::{capped_page, count_up_to_cap, kept_page, uncounted_page};
use crate::connection::AnyConnection;
use crate::documents::{
    check_lines_currency, check_patch, document_customer, first_view, move_and_record, public_row,
    replace_lines, resolve_lines, resolve_numbered_draft, sweep_local, Resolved,
};
use crate::events::record;
use crate::invoice_insert::{insert_with_lines, NewRow};
use crate::invoice_list::{filtered, page_of, page_with_lines, SummaryRow};
use crate::invoice_rows::{
    load_invoice, load_invoices, load_row, to_invoice, to_invoices, with_lines, InvoiceRow,
};
use crate::local_days::LocalDay;
use crate::outbox::{queue, queue_receipt};
use crate::parties::{document_parties, invoice_parties};
use crate::payment_rows::open_and_verified;
use crate::rows::{lock_scoped, now_db, scoped, BigIntSum};
use crate::schema::invoices;
use crate::store::{Store, TxError};
use chrono::{DateTime, Datelike, Utc};
use diesel::prelude::*;
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::document::{CustomerRef, DocumentKind};
use invoicing_domain::email::EmailKind;
use invoicing_domain::invoice::{
    Invoice, InvoiceFilter, InvoiceId, InvoicePatch, InvoiceSummary, NewInvoice, Outstanding,
    PublicInvoice,
};
use invoicing_domain::invoice::{References, Standing};
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::paging::{Page, PageRequest};
use invoicing_domain::parties::Parties;
use invoicing_domain::ports::{InvoiceRepository, RepoError, RepoResult};
use invoicing_domain::profile::Reminders;
use invoicing_domain::tenant::Scope;

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
    let now = now_db();
    let (
        Resolved {
            customer_id,
            currency,
            lines,
            tax_rounding,
        },
        number,
    ) = resolve_numbered_draft(
        conn,
        scope,
        &new.customer,
        new.currency,
        &new.lines,
        (DocumentKind::Invoice, now.year()),
    )?;
    let new_row = NewRow {
        number: &number,
        customer_id,
        currency: currency.code(),
        issue_date: new.issue_date,
        due_date: new.due_date,
        payment_terms: new.payment_terms.map(|t| t.to_string()),
        subtotal_cents: lines.totals.subtotal.minor(),
        tax_cents: lines.totals.tax.minor(),
        total_cents: lines.totals.total.minor(),
        notes: new.notes.as_deref(),
        metadata: new.metadata.to_json(),
        token: &new.token,
        quotation_id,
        recurring_invoice_id,
        recurring_period,
        reminders: new.reminders.as_ref().map(Reminders::to_json),
        buyer_refs: new.references.to_json(),
        tax_rounding: tax_rounding.as_str(),
        now,
    };
    let (row, line_items) = insert_with_lines(conn, scope, &new_row, &lines)?;
    let invoice = to_invoice(row, line_items, public_url)?;
    record(conn, scope, "invoice.created", &invoice)?;
    Ok(invoice)
}

pub(crate) fn update(
    conn: &mut AnyConnection,
    scope: Scope,
    id: InvoiceId,
    patch: &InvoicePatch,
    public_url: &str,
    mail: bool,
) -> Result<Invoice, TxError> {
    lock_scoped!(conn, invoices, scope, id.0)?;
    let row = load_row(conn, scope, id)?;
    // Asking for the current status is a transition the table refuses too (409), so a repeated
    // send or a second "mark paid" is reported rather than silently accepted.
    let new_status = patch.status;
    if let Some(to) = new_status {
        row.status()?
            .transition(to)
            .map_err(|e| RepoError::InvalidTransition(e.to_string()))?;
    }
    check_patch(&row, row.issue_date, patch.shape())?;
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
    if patch.buyer_reference.is_some() || patch.purchase_order.is_some() || patch.supply.is_some() {
        let refs = References::from_json(row.buyer_refs.as_deref()).patched(patch);
        diesel::update(target)
            .set(invoices::buyer_refs.eq(refs.to_json()))
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
        let lines = resolve_lines(conn, scope, currency, drafts, row.tax_rounding()?)?;
        replace_lines(conn, scope, DocumentKind::Invoice, row.id, &lines)?;
        diesel::update(target)
            .set((
                invoices::subtotal_cents.eq(lines.totals.subtotal.minor()),
                invoices::tax_cents.eq(lines.totals.tax.minor()),
                invoices::total_cents.eq(lines.totals.total.minor()),
            ))
            .execute(conn)?;
        changed = true;
    }
    let load = |conn: &mut AnyConnection| load_invoice(conn, scope, id, public_url);
    let Some(to) = new_status else {
        if !changed {
            return load(conn);
        }
        diesel::update(target)
            .set(invoices::updated_at.eq(now_db()))
            .execute(conn)?;
        let invoice = load(conn)?;
        record(conn, scope, "invoice.updated", &invoice)?;
        return Ok(invoice);
    };
    let invoice = move_and_record(conn, scope.actor, &row, to, load)?;
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
    Ok(invoice)
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
    let checkout = crate::payment_requests::checkout_of(conn, scope, invoice.id)?;
    Ok(PublicInvoice {
        invoice,
        parties,
        logo,
        payments,
        credit_notes,
        checkout,
    })
}

impl InvoiceRepository for Store {
    fn create_invoice(&self, scope: Scope, new: NewInvoice) -> RepoResult<Invoice> {
        let url = self.public_url();
        // An inline customer created concurrently by another request: retry to find it.
        self.write_retrying_unique(|conn| insert_invoice(conn, scope, &new, Origin::Direct, &url))
    }

    fn create_and_send_invoice(
        &self,
        scope: Scope,
        new: NewInvoice,
        send: InvoicePatch,
    ) -> RepoResult<Invoice> {
        let url = self.public_url();
        let mail = self.mail_enabled();
        self.write_retrying_unique(|conn| {
            let created = insert_invoice(conn, scope, &new, Origin::Direct, &url)?;
            update(conn, scope, created.id, &send, &url, mail)
        })
    }

    fn get_invoice(&self, scope: Scope, id: InvoiceId) -> RepoResult<Invoice> {
        let url = self.public_url();
        self.read(|conn| load_invoice(conn, scope, id, &url))
    }

    fn get_invoices(&self, wanted: &[(Scope, InvoiceId)]) -> RepoResult<Vec<RepoResult<Invoice>>> {
        let url = self.public_url();
        let answers = self.read(|conn| load_invoices(conn, wanted, &url))?;
        Ok(answers
            .into_iter()
            .map(|answer| answer.map_err(TxError::into_repo))
            .collect())
    }

    fn list_invoices(
        &self,
        scope: Scope,
        filter: &InvoiceFilter,
        page: PageRequest,
    ) -> RepoResult<Page<Invoice>> {
        let url = self.public_url();
        let by_status_only = filter.standing == Standing::Any
            && filter.customer_id.is_none()
            && filter.search.is_none()
            && filter.created_after.is_none()
            && filter.created_before.is_none();
        if page.counts() && by_status_only {
            // The page, its lines and the kept total in one statement: one round trip, one
            // snapshot without a transaction.
            return self.read(|conn| {
                let listed = page_with_lines(conn, scope, filter, page)?;
                kept_page(listed.invoices, page, listed.total, |rows| {
                    rows.into_iter()
                        .map(|(row, lines)| with_lines(row, lines, &url))
                        .collect()
                })
            });
        }
        self.read_snapshot(|conn| {
            let rows = page_of(scope, filter, page)
                .select(InvoiceRow::as_select())
                .load::<InvoiceRow>(conn)?;
            if !page.counts() {
                return uncounted_page(rows, page, |rows| to_invoices(conn, scope, rows, &url));
            }
            let counted = count_up_to_cap(conn, filtered(scope, filter).select(invoices::id))?;
            capped_page(rows, page, counted, |rows| {
                to_invoices(conn, scope, rows, &url)
            })
        })
    }

    fn invoice_summaries(
        &self,
        scope: Scope,
        filter: &InvoiceFilter,
        page: PageRequest,
    ) -> RepoResult<Page<InvoiceSummary>> {
        self.read(|conn| {
            let rows = page_of(scope, filter, page)
                .select(SummaryRow::as_select())
                .load::<SummaryRow>(conn)?;
            uncounted_page(rows, page, |rows| {
                rows.into_iter().map(SummaryRow::summary).collect()
            })
        })
    }

    fn outstanding(
        &self,
        scope: Scope,
        customer: Option<CustomerId>,
    ) -> RepoResult<Vec<Outstanding>> {
        use diesel::dsl::count_star;
        self.read(|conn| {
            let due = || {
                BigIntSum(
                    invoices::total_cents
                        - invoices::amount_paid_cents
                        - invoices::amount_credited_cents,
                )
            };
            let open = || {
                scoped!(invoices, scope)
                    .filter(invoices::status.eq_any(["sent", "viewed", "overdue"]))
            };
            let groups = (invoices::currency, invoices::status);
            let rows: Vec<(String, String, Option<i64>, i64)> = match customer {
                Some(c) => open()
                    .filter(invoices::customer_id.eq(c.0))
                    .group_by(groups)
                    .select((invoices::currency, invoices::status, due(), count_star()))
                    .load(conn)?,
                None => open()
                    .group_by(groups)
                    .select((invoices::currency, invoices::status, due(), count_star()))
                    .load(conn)?,
            };
            let mut out: Vec<Outstanding> = Vec::new();
            for (code, status, cents, count) in rows {
                let currency = Currency::parse(&code)
                    .map_err(|_| RepoError::Internal(format!("stored currency {code:?}")))?;
                let cents = cents.unwrap_or(0);
                let i = match out.iter().position(|o| o.currency == currency) {
                    Some(i) => i,
                    None => {
                        out.push(Outstanding {
                            currency,
                            outstanding_cents: 0,
                            open_count: 0,
                            overdue_cents: 0,
                            overdue_count: 0,
                        });
                        out.len() - 1
                    }
                };
                let o = &mut out[i];
                o.outstanding_cents += cents;
                o.open_count += count;
                if status == "overdue" {
                    o.overdue_cents += cents;
                    o.overdue_count += count;
                }
            }
            out.sort_by(|a, b| a.currency.code().cmp(b.currency.code()));
            Ok(out)
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
            let row = public_row::<InvoiceRow>(conn, number, token)?;
            first_view(conn, &row, |c| {
                load_invoice(c, row.scope(), InvoiceId(row.id), &url)
            })?;
            as_shown(conn, row.scope(), InvoiceId(row.id), &url)
        })
    }

    fn invoice_with_parties(&self, scope: Scope, id: InvoiceId) -> RepoResult<(Invoice, Parties)> {
        let url = self.public_url();
        self.read_snapshot(|conn| {
            let invoice = load_invoice(conn, scope, id, &url)?;
            let parties = invoice_parties(conn, scope, &invoice)?;
            Ok((invoice, parties))
        })
    }

    fn invoice_as_shown(&self, scope: Scope, id: InvoiceId) -> RepoResult<PublicInvoice> {
        let url = self.public_url();
        self.read_snapshot(|conn| as_shown(conn, scope, id, &url))
    }

    fn find_public_invoice(&self, number: &str, token: &str) -> RepoResult<PublicInvoice> {
        let url = self.public_url();
        self.read_snapshot(|conn| {
            let row = public_row::<InvoiceRow>(conn, number, token)?;
            as_shown(conn, row.scope(), InvoiceId(row.id), &url)
        })
    }

    fn mark_overdue_invoices(&self, now: DateTime<Utc>) -> RepoResult<usize> {
        let url = self.public_url();
        let due = |conn: &mut AnyConnection, day: &LocalDay| {
            Ok(invoices::table
                .filter(
                    invoices::status
                        .eq_any([InvoiceStatus::Sent.as_str(), InvoiceStatus::Viewed.as_str()]),
                )
                .filter(invoices::due_date.lt(day.today))
                .filter(day.rows_of("invoices"))
                .order(invoices::id)
                .limit(200)
                .select(InvoiceRow::as_select())
                .load::<InvoiceRow>(conn)?)
        };
        sweep_local(self, now, due, InvoiceStatus::Overdue, |conn, row| {
            load_invoice(conn, row.scope(), InvoiceId(row.id), &url)
        })
    }
}
