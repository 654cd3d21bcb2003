//! Recurring invoices (SPEC §20): schedules with template lines, and the sweep that issues each
//! period's invoice exactly once. A period is issued in one transaction with the schedule row
//! locked and `(schedule, period)` unique on invoices, so two sweeping processes, a restart or a
//! retry never make a second invoice for it; after downtime every missed period is issued with
//! its own date, one transaction each.

use crate::connection::AnyConnection;
use crate::documents::move_and_record;
use crate::documents::{
    account_defaults, insert_lines, read_lines, read_lines_for_copy, replace_lines, resolve_draft,
    resolve_lines, Resolved,
};
use crate::events::record;
use crate::invoice_rows::load_invoice;
use crate::invoices::{insert_invoice, Origin};
use crate::local_days::{local_days, today_of};
use crate::outbox::queue;
use crate::rows::{from_db, lock_scoped, missing_or_forbidden, now_db, returning, scoped};
use crate::schema::recurring_invoices as ri;
use crate::store::{Store, TxError};
use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use diesel::prelude::*;
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::document::{CustomerRef, DocumentKind, PaymentTerms};
use invoicing_domain::email::{EmailKind, EmailRequest};
use invoicing_domain::invoice::NewInvoice;
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::paging::{Page, PageRequest};
use invoicing_domain::ports::{RecurringRepository, RepoError, RepoResult};
use invoicing_domain::recurring::{
    Cadence, End, Interval, NewRecurring, RecurringFilter, RecurringId, RecurringInvoice,
    RecurringPatch, RecurringStatus,
};
use invoicing_domain::tenant::{AccountId, Environment, Scope};
use invoicing_domain::validation::{Metadata, Problem};

#[derive(Queryable, Selectable)]
#[diesel(table_name = ri)]
struct Row {
    id: i64,
    livemode: bool,
    customer_id: i64,
    currency: String,
    subtotal_cents: i64,
    tax_cents: i64,
    total_cents: i64,
    interval_unit: String,
    interval_count: i32,
    start_date: NaiveDate,
    end_date: Option<NaiveDate>,
    occurrences: Option<i32>,
    payment_terms: String,
    notes: Option<String>,
    metadata: String,
    auto_send: bool,
    email: bool,
    status: String,
    next_period: i32,
    next_issue_date: Option<NaiveDate>,
    invoices_created: i32,
    created_at: NaiveDateTime,
    updated_at: NaiveDateTime,
}

fn bad(id: i64, what: &str) -> TxError {
    RepoError::Internal(format!("recurring invoice {id}: bad {what}")).into()
}

impl Row {
    fn status(&self) -> Result<RecurringStatus, TxError> {
        RecurringStatus::parse(&self.status).ok_or_else(|| bad(self.id, "status"))
    }

    fn cadence(&self) -> Result<Cadence, TxError> {
        let interval =
            Interval::parse(&self.interval_unit).ok_or_else(|| bad(self.id, "interval"))?;
        let count = u32::try_from(self.interval_count).map_err(|_| bad(self.id, "count"))?;
        Cadence::new(interval, count, self.start_date).ok_or_else(|| bad(self.id, "cadence"))
    }

    fn end(&self) -> End {
        match (self.end_date, self.occurrences) {
            (Some(d), _) => End::Date(d),
            (None, Some(n)) => End::Occurrences(u32::try_from(n).unwrap_or(0)),
            (None, None) => End::Never,
        }
    }

    fn next_period(&self) -> u32 {
        u32::try_from(self.next_period).unwrap_or(0)
    }
}

fn to_views(
    conn: &mut AnyConnection,
    scope: Scope,
    rows: Vec<Row>,
) -> Result<Vec<RecurringInvoice>, TxError> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let mut lines = read_lines(conn, scope, DocumentKind::RecurringInvoice, &ids)?;
    rows.into_iter()
        .map(|row| {
            let status = row.status()?;
            let cadence = row.cadence()?;
            Ok(RecurringInvoice {
                id: RecurringId(row.id),
                object: RecurringInvoice::OBJECT,
                customer_id: CustomerId(row.customer_id),
                currency: Currency::parse(&row.currency).map_err(|_| bad(row.id, "currency"))?,
                line_items: lines.remove(&row.id).unwrap_or_default(),
                subtotal_cents: row.subtotal_cents,
                tax_cents: row.tax_cents,
                total_cents: row.total_cents,
                interval: cadence.interval(),
                interval_count: cadence.count(),
                start_date: row.start_date,
                end_date: row.end_date,
                occurrences: row.occurrences.and_then(|n| u32::try_from(n).ok()),
                payment_terms: row.payment_terms,
                notes: row.notes,
                metadata: Metadata::from_json(&row.metadata),
                auto_send: row.auto_send,
                email: row.email,
                status,
                next_issue_date: row.next_issue_date,
                invoices_created: u32::try_from(row.invoices_created).unwrap_or(0),
                livemode: row.livemode,
                created_at: from_db(row.created_at),
                updated_at: from_db(row.updated_at),
            })
        })
        .collect()
}

fn load_row(conn: &mut AnyConnection, scope: Scope, id: i64) -> Result<Row, TxError> {
    match scoped!(ri, scope)
        .filter(ri::id.eq(id))
        .select(Row::as_select())
        .first::<Row>(conn)
        .optional()?
    {
        Some(row) => Ok(row),
        None => Err(missing_or_forbidden!(conn, ri, id).into()),
    }
}

fn load(conn: &mut AnyConnection, scope: Scope, id: i64) -> Result<RecurringInvoice, TxError> {
    let row = load_row(conn, scope, id)?;
    to_views(conn, scope, vec![row])?
        .pop()
        .ok_or_else(|| RepoError::Internal("recurring invoice vanished".into()).into())
}

/// Where the schedule stands after period `n` was issued: its next date, or completed.
fn after_period(row: &Row, n: u32) -> Result<Option<NaiveDate>, TxError> {
    let cadence = row.cadence()?;
    let next = n.saturating_add(1);
    Ok(cadence
        .period(next)
        .filter(|d| Cadence::within(row.end(), next, *d)))
}

/// Issues the oldest due period of schedule `id`, if any; `true` when it did.
fn issue_one(
    conn: &mut AnyConnection,
    scope: Scope,
    id: i64,
    today: NaiveDate,
    url: &str,
    mail: bool,
) -> Result<bool, TxError> {
    lock_scoped!(conn, ri, scope, id)?;
    let row = load_row(conn, scope, id)?;
    if row.status()? != RecurringStatus::Active {
        return Ok(false);
    }
    let Some((n, date)) = row
        .cadence()?
        .due(row.end(), row.next_period(), today)
        .into_iter()
        .next()
    else {
        return Ok(false);
    };
    let terms = PaymentTerms::parse(&row.payment_terms).unwrap_or(PaymentTerms::DEFAULT);
    let lines = read_lines_for_copy(conn, scope, DocumentKind::RecurringInvoice, id)?;
    let new = NewInvoice {
        customer: CustomerRef::Existing(CustomerId(row.customer_id)),
        currency: Some(Currency::parse(&row.currency).map_err(|_| bad(id, "currency"))?),
        issue_date: date,
        due_date: terms.due_date(date),
        payment_terms: Some(terms),
        lines: lines.into(),
        notes: row.notes.clone(),
        metadata: Metadata::from_json(&row.metadata),
        // A payment-link capability for the issued invoice: 192 random bits.
        token: crate::rows::random_hex::<24>(),
        reminders: None,
        references: Default::default(),
    };
    let period = i32::try_from(n).map_err(|_| bad(id, "period"))?;
    let invoice = insert_invoice(
        conn,
        scope,
        &new,
        Origin::Recurring {
            schedule: id,
            period,
        },
        url,
    )?;
    // A live profile that cannot send yet (SPEC §27) leaves the period's invoice a draft for
    // the merchant to send once it can, rather than holding the schedule back.
    let can_send = crate::parties::sendable(&crate::profiles::load_profile(conn, scope)?).is_ok();
    if row.auto_send && can_send {
        let draft = crate::invoice_rows::load_row(conn, scope, invoice.id)?;
        let sent = move_and_record(conn, scope.actor, &draft, InvoiceStatus::Sent, |c| {
            load_invoice(c, scope, invoice.id, url)
        })?;
        if row.email && mail {
            queue(
                conn,
                scope,
                EmailKind::Invoice,
                (&sent).into(),
                EmailRequest::default(),
            )?;
        }
    }
    let next = after_period(&row, n)?;
    let status = match next {
        Some(_) => RecurringStatus::Active,
        None => RecurringStatus::Completed,
    };
    diesel::update(scoped!(ri, scope).filter(ri::id.eq(id)))
        .set((
            ri::next_period.eq(period + 1),
            ri::invoices_created.eq(ri::invoices_created + 1),
            ri::next_issue_date.eq(next),
            ri::status.eq(status.as_str()),
            ri::updated_at.eq(now_db()),
        ))
        .execute(conn)?;
    if status == RecurringStatus::Completed {
        let done = load(conn, scope, id)?;
        record(
            conn,
            scope,
            status.event_type(Some(RecurringStatus::Active)),
            &done,
        )?;
    }
    Ok(true)
}

fn create(
    conn: &mut AnyConnection,
    scope: Scope,
    new: &NewRecurring,
) -> Result<RecurringInvoice, TxError> {
    let Resolved {
        customer_id,
        currency,
        lines,
        ..
    } = resolve_draft(conn, scope, &new.customer, new.currency, &new.lines)?;
    let (end_date, occurrences) = match new.end {
        End::Never => (None, None),
        End::Date(d) => (Some(d), None),
        End::Occurrences(n) => (None, Some(i32::try_from(n).unwrap_or(i32::MAX))),
    };
    let now = now_db();
    let row = diesel::insert_into(ri::table)
        .values((
            ri::account_id.eq(scope.account_id.0),
            ri::livemode.eq(scope.livemode()),
            ri::customer_id.eq(customer_id),
            ri::currency.eq(currency.code()),
            ri::subtotal_cents.eq(lines.totals.subtotal.minor()),
            ri::tax_cents.eq(lines.totals.tax.minor()),
            ri::total_cents.eq(lines.totals.total.minor()),
            ri::interval_unit.eq(new.cadence.interval().as_str()),
            ri::interval_count.eq(i32::try_from(new.cadence.count()).unwrap_or(1)),
            ri::start_date.eq(new.cadence.start()),
            ri::end_date.eq(end_date),
            ri::occurrences.eq(occurrences),
            ri::payment_terms.eq(new.payment_terms.to_string()),
            ri::notes.eq(&new.notes),
            ri::metadata.eq(new.metadata.to_json()),
            ri::auto_send.eq(new.auto_send),
            ri::email.eq(new.email),
            ri::status.eq(RecurringStatus::Active.as_str()),
            ri::next_period.eq(0),
            ri::next_issue_date.eq(Some(new.cadence.start())),
            ri::invoices_created.eq(0),
            ri::created_at.eq(now),
            ri::updated_at.eq(now),
        ))
        .returning(returning::<Row>())
        .get_result::<Row>(conn)?;
    insert_lines(conn, scope, DocumentKind::RecurringInvoice, row.id, &lines)?;
    let view = load(conn, scope, row.id)?;
    record(conn, scope, RecurringStatus::Active.event_type(None), &view)?;
    Ok(view)
}

fn update(
    conn: &mut AnyConnection,
    scope: Scope,
    id: i64,
    patch: &RecurringPatch,
) -> Result<RecurringInvoice, TxError> {
    lock_scoped!(conn, ri, scope, id)?;
    let row = load_row(conn, scope, id)?;
    let status = row.status()?;
    if !matches!(status, RecurringStatus::Active | RecurringStatus::Paused) {
        return Err(RepoError::InvalidTransition(format!(
            "a {status} recurring invoice cannot be changed"
        ))
        .into());
    }
    let auto_send = patch.auto_send.unwrap_or(row.auto_send);
    if patch.email.unwrap_or(row.email) && !auto_send {
        return Err(RepoError::invalid(
            "email",
            "emails the invoices auto_send sends: set auto_send too",
        )
        .into());
    }
    let target = scoped!(ri, scope).filter(ri::id.eq(id));
    if let Some(drafts) = &patch.lines {
        let currency = Currency::parse(&row.currency).map_err(|_| bad(id, "currency"))?;
        let mode = account_defaults(conn, scope)?.tax_rounding;
        let lines = resolve_lines(conn, scope, currency, drafts, mode)?;
        replace_lines(conn, scope, DocumentKind::RecurringInvoice, id, &lines)?;
        diesel::update(target)
            .set((
                ri::subtotal_cents.eq(lines.totals.subtotal.minor()),
                ri::tax_cents.eq(lines.totals.tax.minor()),
                ri::total_cents.eq(lines.totals.total.minor()),
            ))
            .execute(conn)?;
    }
    if let Some(terms) = patch.payment_terms {
        diesel::update(target)
            .set(ri::payment_terms.eq(terms.to_string()))
            .execute(conn)?;
    }
    if let Some(notes) = &patch.notes {
        diesel::update(target)
            .set(ri::notes.eq(notes))
            .execute(conn)?;
    }
    if let Some(metadata) = &patch.metadata {
        diesel::update(target)
            .set(ri::metadata.eq(metadata.to_json()))
            .execute(conn)?;
    }
    diesel::update(target)
        .set((
            ri::auto_send.eq(auto_send),
            ri::email.eq(patch.email.unwrap_or(row.email)),
            ri::updated_at.eq(now_db()),
        ))
        .execute(conn)?;
    let mut completed = false;
    if let Some(end) = patch.end {
        let (end_date, occurrences) = match end {
            End::Never => (None, None),
            End::Date(d) => (Some(d), None),
            End::Occurrences(n) => (None, Some(i32::try_from(n).unwrap_or(i32::MAX))),
        };
        if end_date.is_some_and(|d| d < row.start_date) {
            return Err(RepoError::invalid(
                "end_date",
                Problem::not_before("start_date", "must not be before start_date".into()),
            )
            .into());
        }
        diesel::update(target)
            .set((ri::end_date.eq(end_date), ri::occurrences.eq(occurrences)))
            .execute(conn)?;
        // An end that the schedule has already reached completes it.
        let next = row.cadence()?.period(row.next_period());
        if !next.is_some_and(|d| Cadence::within(end, row.next_period(), d)) {
            diesel::update(target)
                .set((
                    ri::status.eq(RecurringStatus::Completed.as_str()),
                    ri::next_issue_date.eq(None::<NaiveDate>),
                ))
                .execute(conn)?;
            completed = true;
        }
    }
    let view = load(conn, scope, id)?;
    record(conn, scope, "recurring_invoice.updated", &view)?;
    if completed {
        record(
            conn,
            scope,
            RecurringStatus::Completed.event_type(Some(status)),
            &view,
        )?;
    }
    Ok(view)
}

fn change(
    conn: &mut AnyConnection,
    scope: Scope,
    id: i64,
    to: RecurringStatus,
    today: NaiveDate,
) -> Result<RecurringInvoice, TxError> {
    lock_scoped!(conn, ri, scope, id)?;
    let row = load_row(conn, scope, id)?;
    let from = row.status()?;
    from.transition(to)
        .map_err(|e| RepoError::InvalidTransition(e.to_string()))?;
    // Resuming skips the periods that fell while paused; it may find none left.
    let (status, next) = match to {
        RecurringStatus::Active => {
            let cadence = row.cadence()?;
            let found = cadence
                .first_on_or_after(today)
                .filter(|(n, _)| *n >= row.next_period())
                .or_else(|| {
                    cadence
                        .period(row.next_period())
                        .map(|d| (row.next_period(), d))
                });
            match found.filter(|(n, d)| Cadence::within(row.end(), *n, *d)) {
                Some((n, d)) => {
                    diesel::update(scoped!(ri, scope).filter(ri::id.eq(id)))
                        .set(ri::next_period.eq(i32::try_from(n).unwrap_or(i32::MAX)))
                        .execute(conn)?;
                    (RecurringStatus::Active, Some(d))
                }
                None => (RecurringStatus::Completed, None),
            }
        }
        RecurringStatus::Paused => (RecurringStatus::Paused, row.next_issue_date),
        RecurringStatus::Cancelled | RecurringStatus::Completed => (to, None),
    };
    diesel::update(scoped!(ri, scope).filter(ri::id.eq(id)))
        .set((
            ri::status.eq(status.as_str()),
            ri::next_issue_date.eq(next),
            ri::updated_at.eq(now_db()),
        ))
        .execute(conn)?;
    let view = load(conn, scope, id)?;
    record(conn, scope, status.event_type(Some(from)), &view)?;
    Ok(view)
}

impl RecurringRepository for Store {
    fn create_recurring(&self, scope: Scope, new: NewRecurring) -> RepoResult<RecurringInvoice> {
        self.write(|conn| create(conn, scope, &new))
    }

    fn get_recurring(&self, scope: Scope, id: RecurringId) -> RepoResult<RecurringInvoice> {
        self.read_snapshot(|conn| load(conn, scope, id.0))
    }

    fn list_recurring(
        &self,
        scope: Scope,
        filter: &RecurringFilter,
        page: PageRequest,
    ) -> RepoResult<Page<RecurringInvoice>> {
        self.read_snapshot(|conn| {
            let query = || {
                let mut q = scoped!(ri, scope).into_boxed();
                if let Some(s) = filter.status {
                    q = q.filter(ri::status.eq(s.as_str()));
                }
                if let Some(c) = filter.customer_id {
                    q = q.filter(ri::customer_id.eq(c.0));
                }
                q
            };
            let total: i64 = query().count().get_result(conn)?;
            let rows = crate::rows::below!(query(), ri, page)
                .order((ri::created_at.desc(), ri::id.desc()))
                .limit(page.limit())
                .offset(page.offset())
                .select(Row::as_select())
                .load::<Row>(conn)?;
            Ok(Page::new(to_views(conn, scope, rows)?, page, total))
        })
    }

    fn update_recurring(
        &self,
        scope: Scope,
        id: RecurringId,
        patch: RecurringPatch,
    ) -> RepoResult<RecurringInvoice> {
        self.write(|conn| update(conn, scope, id.0, &patch))
    }

    fn change_recurring(
        &self,
        scope: Scope,
        id: RecurringId,
        to: RecurringStatus,
        today: NaiveDate,
    ) -> RepoResult<RecurringInvoice> {
        self.write(|conn| change(conn, scope, id.0, to, today))
    }

    fn issue_recurring(&self, now: DateTime<Utc>) -> RepoResult<usize> {
        // The schedules due on their own account's date, asked once per date the accounts are
        // on; each is then issued up to that date.
        let due: Vec<(i64, i64, bool)> = self.read(|conn| {
            let mut due = Vec::new();
            for day in local_days(conn, now)? {
                due.extend(
                    ri::table
                        .filter(ri::status.eq(RecurringStatus::Active.as_str()))
                        .filter(ri::next_issue_date.le(day.today))
                        .filter(day.rows_of("recurring_invoices"))
                        .select((ri::id, ri::account_id, ri::livemode))
                        .load::<(i64, i64, bool)>(conn)?,
                );
            }
            Ok(due)
        })?;
        let url = self.public_url();
        let mail = self.mail_enabled();
        let mut issued = 0;
        for (id, account, livemode) in due {
            let scope = Scope::new(AccountId(account), Environment::from_livemode(livemode));
            while self.write(|conn| {
                let today = today_of(conn, scope, now)?;
                issue_one(conn, scope, id, today, &url, mail)
            })? {
                issued += 1;
            }
        }
        Ok(issued)
    }
}
